#!/bin/sh
# The noise source inside the test VM (busybox sh), on CPU1: latscope
# --noise in its kernel and user contexts, quiet; with interrupts off;
# and under known interference from tests/noise/latscope_noise.ko, a
# kthread (lsnoise/1) or an irq handler ("lsnoise") spinning SPIN us on
# CPU1 every 100 ms: each must be measured as a gap of at least SPIN,
# counted in its kind (thread, irq), and named by the recorder's WHY|
# lines. Each run's JSON goes to the host as noise-NAME.json. Ends with
# "noise: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
SPIN=20000		# us: far above what TCG adds, even on a busy host (as why_test.sh)
NOISE=/latscope_noise.ko
param=/sys/module/latscope_noise/parameters

spins() { # kind, at least
	[ "$(cat $param/"$1"_spins 2>/dev/null || echo 0)" -ge "$2" ]
}

# A number of the first CPU's line of the JSON's "noise" object.
json_num() { # file, key
	grep '"max_gap_us"' "$1" | sed -n "s/.*\"$2\": \([0-9.][0-9.]*\).*/\1/p" | head -n 1
}

# One noise run on CPU1, its JSON for the host as noise-NAME.json.
measure() { # name, latscope options...
	name=$1
	shift
	latscope --noise -c 1 -T 3 --json noise-"$name".json "$@" >noise-"$name".out 2>&1
	expect_rc "noise $name: run" $? 0
	grep -E '^(NOS|WHY)\|' noise-"$name".out
	has "noise $name: NOI| each second" noise-"$name".out '^NOI|'
	has "noise $name: NOS| summary" noise-"$name".out '^NOS| CPU1 noise-'
	has "noise $name: JSON noise object" noise-"$name".json '"noise": {'
	dump noise-"$name".json noise-"$name".json
}

# The run's largest gap is at least the spin: measured at its set length.
at_least_spin() { # name
	max=$(json_num noise-"$1".json max_gap_us)
	if awk -v m="${max:-0}" -v s=$SPIN 'BEGIN { exit !(m >= s) }'; then
		ok "noise $1: largest gap $max us >= $SPIN us"
	else
		nok "noise $1: largest gap" "$max us < $SPIN us"
	fi
}

# A kind counted at least N times in the run.
kind_counted() { # name, kind, at least
	n=$(json_num noise-"$1".json "$2")
	if [ "${n:-0}" -ge "$3" ]; then
		ok "noise $1: $n gaps of kind $2"
	else
		nok "noise $1: gaps of kind $2" "${n:-none}, want $3 or more"
	fi
}

measure kernel-quiet -k
measure user-quiet -u
# Interrupts off: nothing that needs them can take the CPU.
measure kernel-irqs-off -k --irqs-off --noise-runtime 200000 -p 1000000
has "noise kernel-irqs-off: said" noise-kernel-irqs-off.out '^NOS| interrupts off'
for kind in irq softirq thread; do
	n=$(json_num noise-kernel-irqs-off.json "$kind")
	if [ "${n:-x}" = 0 ]; then
		ok "noise kernel-irqs-off: no $kind gap"
	else
		nok "noise kernel-irqs-off: no $kind gap" "${n:-none}"
	fi
done

# Known interference of KIND (thread, irq) on CPU1 every 100 ms, each
# context measured under it: a gap of its length, counted in its kind,
# the recorder naming PATTERN.
interference() { # kind, pattern
	if ! insmod $NOISE cpu=1 period_ms=100 "$1"_us=$SPIN; then
		nok "noise $1 on CPU1: loaded" "insmod failed"
		return
	fi
	ok "noise $1 on CPU1: loaded"
	wait_until 30 spins "$1" 2 || nok "noise $1: spinning" "no spin in 30 s"
	for ctx in kernel user; do
		measure "$1-$ctx" -"${ctx%"${ctx#?}"}" --why=16
		at_least_spin "$1-$ctx"
		kind_counted "$1-$ctx" "$1" 10
		has "noise $1-$ctx: WHY| names $2" noise-"$1-$ctx".out "^WHY|.*$2"
	done
	rmmod latscope_noise || nok "noise $1: unloaded" "rmmod failed"
}

interference thread 'lsnoise/1'
interference irq 'irq [0-9]* lsnoise'

# Side by side with rtla osnoise top (where the kernel has the osnoise
# tracer): the kernel thread on CPU1 at osnoise's defaults (a 1 s period
# read whole, 5 us), ROUNDS runs of each, interleaved, quiet, then under
# the classic --stress preset (for rtla, the preset's commands on CPU0
# by taskset, as latscope places them). The host's check_noise.py sets
# the figures side by side and against their own spread.
ROUNDS=${LATSCOPE_NOISE_ROUNDS:-2}
SECS=${LATSCOPE_NOISE_SECONDS:-3}
# The classic preset's commands (userspace/run/stress.c, %N = 1), each
# its own shell's: what expands is theirs.
# shellcheck disable=SC2016
classic_on_cpu0() {
	taskset 1 sh -c 'while :; do i=0; while [ $i -lt 1 ]; do (n=0; while [ $n -lt 20000 ]; do n=$((n + 1)); done) & i=$((i + 1)); done; wait; done' &
	taskset 1 sh -c 'while :; do dd if=/dev/zero of=/dev/null bs=1M count=1024 2>/dev/null; done' &
	taskset 1 ping -f -q 127.0.0.1 >/dev/null &
	taskset 1 sh -c 'while :; do hackbench -g 4 -l 100 >/dev/null 2>&1 || sleep 1; done' &
	taskset 1 sh -c 'while :; do find / -xdev >/dev/null 2>&1; done' &
}
if grep -qw osnoise /sys/kernel/tracing/available_tracers 2>/dev/null && [ -x /usr/bin/rtla ]; then
	for load in quiet stress; do
		for i in $(seq "$ROUNDS"); do
			if [ "$load" = stress ]; then
				latscope --noise -k -c 1 -T "$SECS" -q --stress classic \
					--json "cmp-$load-latscope-kernel-$i.json" >cmp.out 2>&1
			else
				latscope --noise -k -c 1 -T "$SECS" -q --json "cmp-$load-latscope-kernel-$i.json" \
					>cmp.out 2>&1
			fi
			expect_rc "compare $load $i: latscope" $? 0
			dump "cmp-$load-latscope-kernel-$i.json" "cmp-$load-latscope-kernel-$i.json"
			[ "$load" = stress ] && classic_on_cpu0
			rtla osnoise top -c 1 -H 0 -d "$SECS" --warm-up 1 -q >"cmp-$load-rtla-$i.out" 2>&1
			expect_rc "compare $load $i: rtla osnoise top" $? 0
			if [ "$load" = stress ]; then
				# shellcheck disable=SC2046 # one word per job
				kill $(jobs -p) 2>/dev/null
				wait 2>/dev/null
			fi
			cat "cmp-$load-rtla-$i.out"
			dump "cmp-$load-rtla-$i.out" "cmp-$load-rtla-$i.out"
		done
	done
else
	echo "# rtla osnoise: no osnoise tracer or rtla here, not compared"
fi

echo "noise: $pass passed, $fail failed"
[ "$fail" = 0 ]
