#!/bin/sh
# The noise source beside its peer, rtla osnoise top, in one boot (busybox
# sh), where the kernel has the osnoise tracer: Debian's 6.12 rt, and the
# GPIO VM's PREEMPT 6.12 (Debian's mainline 6.12 has no osnoise tracer).
# Ends with "noise_peer: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
# Side by side with rtla osnoise top (where the kernel has the osnoise
# tracer): the kernel thread on CPU1 at osnoise's defaults (a 1 s period
# read whole, 5 us), ROUNDS runs of each, interleaved, quiet, then under
# the classic --stress preset (for rtla, the preset's commands on CPU0
# by taskset, as latscope places them). The host's check_noise.py sets
# the figures side by side and against their own spread.
ROUNDS=${LATSCOPE_NOISE_ROUNDS:-2}
SECS=${LATSCOPE_NOISE_SECONDS:-3}
# The classic preset's commands (userspace/run/stress.c, %N = 1), each
# its own shell's: what expands is theirs. Each in a process group of
# its own (setsid, which does not fork here: a background job of a shell
# without job control leads no group), so that the stop takes the
# children too: a hackbench or dd left running took CPU0 from the GPIO
# VM's next parts.
loads=
# shellcheck disable=SC2016
classic_on_cpu0() {
	setsid taskset 1 sh -c 'while :; do i=0; while [ $i -lt 1 ]; do (n=0; while [ $n -lt 20000 ]; do n=$((n + 1)); done) & i=$((i + 1)); done; wait; done' &
	loads="$loads $!"
	setsid taskset 1 sh -c 'while :; do dd if=/dev/zero of=/dev/null bs=1M count=1024 2>/dev/null; done' &
	loads="$loads $!"
	setsid taskset 1 ping -f -q 127.0.0.1 >/dev/null &
	loads="$loads $!"
	setsid taskset 1 sh -c 'while :; do hackbench -g 4 -l 100 >/dev/null 2>&1 || sleep 1; done' &
	loads="$loads $!"
	setsid taskset 1 sh -c 'while :; do find / -xdev >/dev/null 2>&1; done' &
	loads="$loads $!"
}
# No process but a zombie left in the load's groups (a stat's fields
# after its command's closing parenthesis: state, parent, group).
load_gone() {
	cat /proc/[0-9]*/stat 2>/dev/null |
		awk -v g=" $loads " '{ sub(/.*\) /, ""); if ($1 != "Z" && index(g, " " $3 " ")) f = 1 } END { exit f }'
}
stop_load() { # name
	for g in $loads; do
		kill -s TERM "-$g" 2>/dev/null
	done
	if wait_until 60 load_gone; then
		ok "$1: the load's processes all ended"
	else
		nok "$1: the load's processes all ended" "still in groups$loads"
	fi
	wait 2>/dev/null
	loads=
}
# scripts/vm.sh puts this part only where the kernel has the tracer.
# The threshold, osnoise's 5 us; 100 us on the GPIO VM's debug kernel,
# where one pass of osnoise's loop (its irq toggles and RCU call traced by
# lockdep, KASAN's checks, under TCG) takes more than 5 us: at 5 us rtla
# counted every pass as noise there (100 % of the runtime, 300 000 "HW"
# gaps a second), and one of its 3 s runs took 30 s. latscope's loop stays
# under 5 us there, and either sees the tick's work (hundreds of us).
TH=5
grep -q '^CONFIG_KASAN=y' /boot/config-vm 2>/dev/null && TH=100
if ! grep -qw osnoise /sys/kernel/tracing/available_tracers 2>/dev/null; then
	nok "noise_peer: the osnoise tracer" "not in $(cat /sys/kernel/tracing/available_tracers)"
elif ! [ -x /usr/bin/rtla ]; then
	nok "noise_peer: rtla" "no /usr/bin/rtla"
else
	# The classic load pings loopback.
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	for load in quiet stress; do
		for i in $(seq "$ROUNDS"); do
			if [ "$load" = stress ]; then
				latscope --noise -k -c 1 -T "$SECS" --noise-threshold "$TH" -q --stress classic \
					--json "cmp-$load-latscope-kernel-$i.json" >cmp.out 2>&1
			else
				latscope --noise -k -c 1 -T "$SECS" --noise-threshold "$TH" -q --json "cmp-$load-latscope-kernel-$i.json" \
					>cmp.out 2>&1
			fi
			st=$?
			expect_rc "compare $load $i: latscope" $st 0
			[ $st = 0 ] || cat cmp.out
			dump "cmp-$load-latscope-kernel-$i.json" "cmp-$load-latscope-kernel-$i.json"
			[ "$load" = stress ] && classic_on_cpu0
			# rtla's own thread on CPU0 at nice -20: among the load's
			# SCHED_OTHER tasks of the debug kernel, its -d 3 once
			# stopped after 8 s of measuring.
			rtla osnoise top -c 1 -H 0 -T "$TH" -d "$SECS" --warm-up 1 -q >"cmp-$load-rtla-$i.out" 2>&1 &
			rp=$!
			renice -n -20 -p $rp >/dev/null
			wait $rp
			expect_rc "compare $load $i: rtla osnoise top" $? 0
			[ "$load" = stress ] && stop_load "compare $load $i"
			cat "cmp-$load-rtla-$i.out"
			dump "cmp-$load-rtla-$i.out" "cmp-$load-rtla-$i.out"
		done
	done
fi

echo "noise_peer: $pass passed, $fail failed"
[ "$fail" = 0 ]
