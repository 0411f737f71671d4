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

# One noise run on CPU1 (or $where), its JSON for the host as
# noise-NAME.json.
where="-c 1"
measure() { # name, latscope options...
	name=$1
	shift
	# shellcheck disable=SC2086 # $where: one option and its value
	latscope --noise $where -T 3 --json noise-"$name".json "$@" >noise-"$name".out 2>&1
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

# Every CPU at once: a summary line and a JSON line each. (Its own
# threshold: latscope-report refuses to merge one CPU's run and all CPUs'
# under one label, and the host's check merges this VM's files.)
where="--cpus all"
measure all-cpus-kernel -k --noise-threshold 10
where="-c 1"
n=$(grep -c '^NOS| CPU[0-9]* noise-kernel' noise-all-cpus-kernel.out)
if [ "$n" = "$(nproc)" ]; then
	ok "noise all-cpus-kernel: a NOS| line for each of $n CPUs"
else
	nok "noise all-cpus-kernel: a NOS| line for each CPU" "$n, $(nproc) CPUs"
fi

# Ctrl-C mid-run, each context: exit 0, its busy thread stopped, and
# every second measured kept in the JSON.
noi_lines() { [ "$(grep -c '^NOI|' "$1")" -ge "$2" ]; }
no_latnoise() { ! cat /proc/[0-9]*/comm 2>/dev/null | grep -q '^latnoise/'; }
for ctx in kernel user; do
	latscope --noise -"${ctx%"${ctx#?}"}" -c 1 -T 60 --json noise-sigint-"$ctx".json >noise-sigint-"$ctx".out 2>&1 &
	pid=$!
	wait_until 60 noi_lines noise-sigint-"$ctx".out 2 || nok "noise SIGINT $ctx: two seconds" "$(cat noise-sigint-"$ctx".out)"
	kill -INT $pid
	wait $pid
	expect_rc "noise SIGINT $ctx: exit 0" $? 0
	has "noise SIGINT $ctx: summary" noise-sigint-"$ctx".out '^NOS| CPU1 noise-'
	has "noise SIGINT $ctx: JSON noise object" noise-sigint-"$ctx".json '"noise": {'
	if wait_until 10 no_latnoise; then
		ok "noise SIGINT $ctx: no latnoise/1 left"
	else
		nok "noise SIGINT $ctx: no latnoise/1 left" "$(cat /proc/[0-9]*/comm 2>/dev/null | grep '^latnoise/')"
	fi
	dump noise-sigint-"$ctx".json noise-sigint-"$ctx".json
done

# The exporter on the noise source: its series named for the context,
# the busy thread's runtime growing, and SIGTERM ends it.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
nurl=http://127.0.0.1:19381/metrics
nkey='latscope_noise_runtime_seconds_total{cpu="1",context="noise-user"}'
noise_runtime() { # at least, seconds
	timeout 10 wget -q -O noise-serve.prom "$nurl" 2>/dev/null &&
		awk -v k="$nkey" -v m="$1" 'index($0, k " ") == 1 { f = 1; exit !($2 >= m) } END { if (!f) exit 1 }' \
			noise-serve.prom
}
latscope --serve=127.0.0.1:19381 --noise -u -c 1 >noise-serve.out 2>&1 &
npid=$!
if wait_until 60 noise_runtime 2; then
	ok "noise serve: latscope_noise_runtime_seconds_total grows"
	has "noise serve: latscope_noise_seconds_total" noise-serve.prom \
		'^latscope_noise_seconds_total{cpu="1",context="noise-user"} [0-9]'
	has "noise serve: gaps by kind" noise-serve.prom \
		'^latscope_noise_gaps_total{cpu="1",context="noise-user",kind="unexplained"} [0-9]'
	has "noise serve: latscope_info says noise" noise-serve.prom '^latscope_info{.*source="noise"'
else
	nok "noise serve: latscope_noise_runtime_seconds_total grows" "$(cat noise-serve.out noise-serve.prom 2>&1)"
fi
kill -TERM $npid
wait $npid
expect_rc "noise serve: SIGTERM ends it" $? 0
dump serve-noise.prom noise-serve.prom

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

echo "noise: $pass passed, $fail failed"
[ "$fail" = 0 ]
