#!/bin/sh
# The worst-sample recorder against known interference, inside the test VM
# (busybox sh): tests/noise/latscope_noise.ko makes it on CPU1 at known
# times, a kthread spinning with preemption off (lsnoise/1, in
# latscope_noise_spin) or an irq handler spinning ("lsnoise"). Each run's
# JSON goes to the host, whose tests/vm/check_why.py checks that the worst
# samples name that kthread or irq with about the time it was set to spin,
# that no run without noise on CPU1 names it, and that the recorder does
# not change the figures (runs with and without it, interleaved). Where
# the kernel has the timerlat tracer, rtla timerlat -a runs under the same
# noise and must name the same blocking thread. Ends with
# "why: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
SPIN=4000		# us: far above what TCG itself adds
LONG=20000		# us: rtla stops at its first sample above 3/4 of it
NOISE=/latscope_noise.ko
param=/sys/module/latscope_noise/parameters

spins() { # kind, at least
	[ "$(cat $param/"$1"_spins 2>/dev/null || echo 0)" -ge "$2" ]
}

noise_on() { # name, insmod arguments...
	name=$1
	shift
	if insmod $NOISE "$@"; then
		ok "noise $name: loaded"
	else
		nok "noise $name: loaded" "insmod $*"
		return 1
	fi
}

noise_off() {
	rmmod latscope_noise || nok "noise: unloaded" "rmmod failed"
}

# One measurement, its JSON for the host as why-NAME.json, and its WHY| lines.
measure() { # name, latscope options...
	name=$1
	shift
	latscope -c 1 -T 4 --why --json why-"$name".json "$@" >why-"$name".out 2>&1
	expect_rc "why $name: run" $? 0
	grep '^WHY|' why-"$name".out
	dump why-"$name".json why-"$name".json
}

# A blocking thread that is named, on CPU0, must not be on CPU1's record.
if noise_on "on CPU0" cpu=0 thread_us=$SPIN; then
	wait_until 30 spins thread 2 || nok "noise on CPU0: spinning" "no spin in 30 s"
	measure quiet-kernel -k
	noise_off
fi

# The recorder's price: the same run with and without it, interleaved.
for round in 1 2; do
	measure cost-on-kernel-$round -k
	measure cost-off-kernel-$round -k --no-why
done

if noise_on "thread on CPU1" cpu=1 thread_us=$SPIN; then
	wait_until 30 spins thread 2 || nok "noise thread: spinning" "no spin in 30 s"
	measure thread-kernel -k
	has "why thread-kernel: names lsnoise/1" why-thread-kernel.out '^WHY|.*lsnoise/1'
	measure thread-user -u
	has "why thread-user: names lsnoise/1" why-thread-user.out '^WHY|.*lsnoise/1'
	noise_off
fi

# rtla's timerlat, with its auto-analysis, where the kernel has it: both
# tools under the same noise, long enough that rtla's first sample past
# its threshold is the noise's, not the emulator's.
if grep -qw timerlat /sys/kernel/tracing/available_tracers 2>/dev/null &&
	[ -x /usr/bin/rtla ] && noise_on "long thread on CPU1" cpu=1 thread_us=$LONG; then
	wait_until 30 spins thread 2 || nok "noise long thread: spinning" "no spin in 30 s"
	measure long-kernel -k
	rtla timerlat top -a $((LONG * 3 / 4)) -c 1 -d 60 -q >rtla.out 2>&1
	echo "rtla exit $?"
	cat rtla.out
	dump rtla.out rtla.out
	has "rtla: auto-analysis names a blocking thread" rtla.out 'Blocking thread'
	noise_off
else
	echo "# rtla: no timerlat tracer in this kernel, not compared"
fi

if noise_on "irq on CPU1" cpu=1 irq_us=$SPIN; then
	wait_until 30 spins irq 2 || nok "noise irq: spinning" "no spin in 30 s"
	measure irq-irq -i
	has "why irq-irq: names the irq" why-irq-irq.out '^WHY|.*irq [0-9]* lsnoise'
	measure irq-kernel -k
	noise_off
fi

echo "why: $pass passed, $fail failed"
[ "$fail" = 0 ]
