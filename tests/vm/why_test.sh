#!/bin/sh
# The worst-sample recorder against known interference, inside the test VM
# (busybox sh): tests/noise/latscope_noise.ko makes it on CPU1 at known
# times, a kthread spinning 20 ms with preemption off (lsnoise/1, in
# latscope_noise_spin) or an irq handler spinning 20 ms ("lsnoise"). Each run's
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
SPIN=20000		# us: far above what TCG adds, even on a busy host
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

# The longest spin as the module timed it: what the recorder may report.
spun() { # kind
	echo "$1_max_us $(cat $param/"$1"_max_us)" >noise-"$1".txt
	dump noise-"$1".txt noise-"$1".txt
}

# One measurement, its JSON for the host as why-NAME.json, and its WHY| lines.
measure() { # name, latscope options...
	name=$1
	shift
	# 16 records: the emulator's stalls under a loaded host (make check's
	# lanes) take some of them (tests/vm/check_why.py sets those aside).
	latscope -c 1 -T 4 --why=16 --json why-"$name".json "$@" >why-"$name".out 2>&1
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
	# rtla's timerlat, with its auto-analysis, where the kernel has it,
	# under the same noise: it stops at its first sample past 3/4 of it.
	if grep -qw timerlat /sys/kernel/tracing/available_tracers 2>/dev/null &&
		[ -x /usr/bin/rtla ]; then
		rtla timerlat top -a $((SPIN * 3 / 4)) -c 1 -d 60 -q >rtla.out 2>&1
		echo "rtla exit $?"
		cat rtla.out
		dump rtla.out rtla.out
		has "rtla: auto-analysis names a blocking thread" rtla.out 'Blocking thread'
	else
		echo "# rtla: no timerlat tracer in this kernel, not compared"
	fi
	spun thread
	noise_off
fi

if noise_on "irq on CPU1" cpu=1 irq_us=$SPIN; then
	wait_until 30 spins irq 2 || nok "noise irq: spinning" "no spin in 30 s"
	measure irq-irq -i
	has "why irq-irq: names the irq" why-irq-irq.out '^WHY|.*irq [0-9]* lsnoise'
	measure irq-kernel -k
	spun irq
	noise_off
fi

echo "why: $pass passed, $fail failed"
[ "$fail" = 0 ]
