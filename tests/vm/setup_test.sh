#!/bin/sh
# The setup verdict (latscope --check-setup) on the kernel this VM booted,
# and --apply-setup's changes set back at the end of a run, after SIGTERM
# and after Ctrl-C (busybox sh). The kernel's config is the one it was
# built with (scripts/vm.sh puts it in /boot/config-vm). What each factor
# must say follows from what this kernel and this VM are: PREEMPT_RT or
# not, a debug build (KASAN) or not, no cpufreq, no isolated CPU, RT
# throttling on at boot. Ends with "setup: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
mkdir -p /boot
ln -sf /boot/config-vm "/boot/config-$(uname -r)"

# A factor's SET| line: "verdict<TAB>title ...".
verdict_is() { # name, file, title, verdict
	if grep "^SET| $4 *$3 " "$2" >/dev/null; then
		ok "$1"
	else
		nok "$1" "want '$4' for $3 in: $(grep "$3" "$2")"
	fi
}

latscope --check-setup -c 1 >check.out 2>check.err
expect_rc "check-setup: exit 6, something costs latency here" $? 6
n=$(grep -c '^SET| \(ok\|costs latency\|unknown\) ' check.out)
if [ "$n" -ge 18 ]; then ok "check-setup: a line per factor"; else nok "check-setup: a line per factor" "$n lines"; fi
has "check-setup: the count" check.out '^SET| [0-9]* of 18 factors cost latency: '
if uname -v | grep -q PREEMPT_RT; then
	verdict_is "preemption: PREEMPT_RT is ok" check.out "preemption model" ok
else
	verdict_is "preemption: not PREEMPT_RT costs" check.out "preemption model" "costs latency"
	has "preemption: the fix names the rt kernel" check.out 'linux-image-rt-amd64'
fi
if grep -q '^CONFIG_KASAN=y' /boot/config-vm; then
	verdict_is "debug kernel: debug options cost" check.out "kernel debug options" "costs latency"
	has "debug kernel: KASAN named" check.out '^SET| costs latency *kernel debug options .*KASAN'
else
	verdict_is "distribution kernel: no debug option" check.out "kernel debug options" ok
fi
verdict_is "governor: no cpufreq in the VM" check.out "cpufreq governor" ok
has "governor: said so" check.out 'no cpufreq: the clock does not change'
verdict_is "isolation: booted without isolcpus" check.out "isolated CPUs" "costs latency"
has "isolation: the fix" check.out 'fix: isolcpus=1 on the kernel command line'
verdict_is "RT throttling on at boot" check.out "RT throttling" "costs latency"
verdict_is "console: quiet, so ok" check.out "console output" ok
# For the record (README's example comes from here).
sed 's/^/# /' check.out

# --check-setup with -i: no responder thread to compete with.
latscope --check-setup -i -c 1 >irq.out 2>&1
verdict_is "irq context: no RT thread matters" irq.out "RT threads at the responder's priority" ok
# A thread above the responder on its CPU is named.
# (cyclictest's measuring thread at FIFO 95 on CPU1; busybox has no chrt.)
/usr/bin/cyclictest -q -p 95 -a 1 -t 1 -i 10000 -D 60 >/dev/null 2>&1 &
hog=$!
cyclictest_fifo() { grep -q '^SET| costs latency *RT threads.*cyclictest (FIFO 95' hog.out; }
check_hog() { latscope --check-setup -c 1 -P 90 >hog.out 2>&1; cyclictest_fifo; }
if wait_until 20 check_hog; then
	ok "a FIFO 95 thread beside -P 90 costs, named"
else
	nok "a FIFO 95 thread beside -P 90 costs, named" "$(grep 'RT threads' hog.out)"
fi
latscope --check-setup -c 1 -P 96 >hog.out 2>&1
verdict_is "the same below -P 96 is ok" hog.out "RT threads at the responder's priority" ok
kill $hog
wait $hog 2>/dev/null

runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us)
rt_off() { [ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = -1 ]; }
rt_back() { [ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = "$runtime" ]; }
if [ "$runtime" = -1 ]; then
	nok "RT throttling on at boot" "sched_rt_runtime_us is already -1"
fi

# --check-setup --apply-setup: held until a signal, then set back.
# (A file per signal, made empty before the start: a background job
# truncates its output only once it runs, and the last round's "held"
# line must not be read as this one's.)
for sig in TERM INT; do
	out=hold-$sig.out
	: >"$out"
	latscope --check-setup -c 1 --apply-setup >"$out" 2>&1 &
	pid=$!
	if wait_for "$out" '^SET| held until' 30; then
		ok "apply (SIG$sig): held"
	else
		nok "apply (SIG$sig): held" "$(cat "$out")"
	fi
	if rt_off; then ok "apply (SIG$sig): RT throttling off"; else nok "apply (SIG$sig): RT throttling off" "$(cat /proc/sys/kernel/sched_rt_runtime_us)"; fi
	has "apply (SIG$sig): says what it changed" "$out" "^SET| applied for the run: .*RT throttling off (was $runtime us)"
	verdict_is "apply (SIG$sig): RT throttling now ok" "$out" "RT throttling" ok
	kill -$sig $pid
	wait $pid
	expect_rc "apply (SIG$sig): exit 6 (isolation still costs)" $? 6
	if rt_back; then ok "apply (SIG$sig): set back"; else nok "apply (SIG$sig): set back" "$(cat /proc/sys/kernel/sched_rt_runtime_us)"; fi
	has "apply (SIG$sig): says so" "$out" '^SET| set back$'
done

# A run with --apply-setup: the verdict after the changes in its JSON and
# plot, the changes set back at its end.
latscope -k -c 1 -T 2 --apply-setup --json apply.json -g apply.plot >apply.out 2>apply.err
expect_rc "run --apply-setup: exit 0" $? 0
if rt_back; then ok "run --apply-setup: set back at the end"; else nok "run --apply-setup: set back at the end" "$(cat /proc/sys/kernel/sched_rt_runtime_us)"; fi
has "run: summary line" apply.out '^SET| setup: [0-9]* of 18 factors cost latency (.*): latscope --check-setup says how to fix them$'
has "run: what was applied" apply.out '^SET| applied for the run and set back: .*RT throttling off'
has "run: JSON setup" apply.json '"setup": {'
has "run: JSON verdict after the change" apply.json '"name": "rt_runtime", "title": "RT throttling", "verdict": "ok"'
has "run: plot header" apply.plot '^# setup rt_runtime: ok: off'
dump setup-kernel.json apply.json

# SIGTERM in the middle of a run: measured results kept, changes set back.
latscope -k -c 1 -T 60 --apply-setup --json term.json >term.out 2>&1 &
pid=$!
if wait_until 30 rt_off && wait_for term.out '^RTD|' 30; then
	ok "run SIGTERM: running with the change"
else
	nok "run SIGTERM: running with the change" "$(cat term.out)"
fi
kill -TERM $pid
wait $pid
expect_rc "run SIGTERM: exit 0" $? 0
if rt_back; then ok "run SIGTERM: set back"; else nok "run SIGTERM: set back" "$(cat /proc/sys/kernel/sched_rt_runtime_us)"; fi
has "run SIGTERM: results written" term.json '"setup": {'

# What --apply-setup may change, as it was: RT throttling and every IRQ's
# allowed CPUs (no cpufreq in the VM: no governor to check).
state() {
	echo "rt $(cat /proc/sys/kernel/sched_rt_runtime_us)"
	for f in /proc/irq/*/smp_affinity_list; do echo "$f $(cat "$f")"; done
}
state >state.before
all_back() { # name
	state >state.after
	if cmp -s state.before state.after && [ ! -e /run/latscope/setup.journal ]; then
		ok "$1: RT throttling and every IRQ back, no journal"
	else
		nok "$1: every value back" "$(diff state.before state.after | grep '^[-+][^-+]' | tr '\n' ' ') $(ls /run/latscope)"
	fi
}
# Held: RT throttling off, the IRQs the kernel lets move off CPU1 (ttyS0,
# i8042, rtc0, acpi), those of them that have a handler here: the GPIO
# debug kernel (tinyconfig) has no i8042 or rtc0, and a legacy IRQ
# without a handler keeps its mask (its /proc/irq directory is there).
movable_off_1() {
	for irq in 1 4 8 9; do
		grep -q "^ *$irq:" /proc/interrupts || continue
		case ",$(cat /proc/irq/$irq/smp_affinity_list)," in
		*1*) return 1 ;;
		esac
	done
	rt_off
}

# SIGPIPE: stdout's reader gone; the run ends there, as by Ctrl-C.
latscope -k -c 1 -T 5 --apply-setup 2>pipe.err | true
all_back "run | true"
# SIGQUIT during a run and during --check-setup --apply-setup.
latscope -k -c 1 -T 60 --apply-setup >quit.out 2>&1 &
pid=$!
if wait_until 30 movable_off_1; then ok "run SIGQUIT: applied, IRQs off CPU1"; else nok "run SIGQUIT: applied" "$(state | tr '\n' ' '); $(cat quit.out)"; fi
kill -QUIT $pid
wait $pid
expect_rc "run SIGQUIT: exit 0" $? 0
all_back "run SIGQUIT"
: >hq.out
latscope --check-setup -c 1 --apply-setup >hq.out 2>&1 &
pid=$!
wait_for hq.out '^SET| held until' 30
# The IRQs moved: not costed, said to move at their next interrupt (the
# IO-APIC's effective affinity lags): ttyS0 is not in the costing part.
line=$(grep '^SET| .*IRQs on the measured CPUs' hq.out)
case $line in
"SET| costs latency"*) costs=${line%%; *} ;;
*) costs= ;;
esac
case $costs in
*"(ttyS0)"*) nok "apply: ttyS0 moved, not costed" "$line" ;;
*) ok "apply: ttyS0 moved, not costed" ;;
esac
echo "# $line"
has "apply: says how many IRQs moved" hq.out '^SET| applied for the run: .*IRQs moved to CPU0'
kill -QUIT $pid
wait $pid
expect_rc "--check-setup --apply-setup SIGQUIT: exit 6" $? 6
all_back "--check-setup --apply-setup SIGQUIT"

# Two at once: the second refused with the first's pid; the first's end
# sets every value back. Both orders of the CPUs.
for first in 1 0; do
	second=$((1 - first))
	: >two.out
	latscope --check-setup -c $first --apply-setup >two.out 2>&1 &
	pid=$!
	wait_for two.out '^SET| held until' 30
	state >two.during
	latscope --check-setup -c $second --apply-setup >two2.out 2>&1
	expect_rc "two runs (-c $first holds): -c $second refused, exit 3" $? 3
	has "two runs (-c $first holds): refused with its pid" two2.out "another latscope (pid $pid) has the system's setup changed"
	state >two.after
	if cmp -s two.during two.after; then ok "two runs (-c $first holds): the refused one changed nothing"; else nok "two runs (-c $first holds): the refused one changed nothing" "$(diff two.during two.after | tr '\n' ' ')"; fi
	kill -TERM $pid
	wait $pid
	all_back "two runs (-c $first holds), after its end"
done

# SIGKILL: the journal stays; --restore-setup, or the next latscope, sets back.
for next in restore plain; do
	latscope -k -c 1 -T 60 --apply-setup >kill.out 2>&1 &
	pid=$!
	if wait_until 30 movable_off_1 && [ -s /run/latscope/setup.journal ]; then ok "kill -9 ($next): applied, journal written"; else nok "kill -9 ($next): applied" "$(state | tr '\n' ' '); $(ls -l /run/latscope); $(cat kill.out)"; fi
	kill -9 $pid
	wait $pid 2>/dev/null
	if rt_off && [ -s /run/latscope/setup.journal ]; then ok "kill -9 ($next): left applied, journal kept"; else nok "kill -9 ($next): left applied" "$(ls -l /run/latscope); $(cat kill.out)"; fi
	if [ $next = restore ]; then
		latscope --restore-setup >restore.out 2>&1
		expect_rc "--restore-setup: exit 0" $? 0
	else
		latscope --check-setup -c 1 >restore.out 2>&1
		expect_rc "the next --check-setup: exit 6" $? 6
	fi
	has "kill -9 then $next: says what it set back" restore.out "^latscope: --apply-setup of pid $pid ended without setting back its changes: set back RT throttling $runtime us"
	all_back "kill -9 then $next"
done

# The running preemption mode, not the boot's (PREEMPT_DYNAMIC kernels;
# on PREEMPT_RT the verdict is ok whatever the dynamic mode says).
if [ -w /sys/kernel/debug/sched/preempt ] && ! uname -v | grep -q PREEMPT_RT; then
	mode=$(sed 's/.*(\([a-z]*\)).*/\1/' /sys/kernel/debug/sched/preempt)
	echo none >/sys/kernel/debug/sched/preempt
	latscope --check-setup -c 1 >preempt.out 2>&1
	has "preemption: the running mode (none) from debugfs" preempt.out '^SET| costs latency *preemption model *PREEMPT_DYNAMIC, none'
	echo "$mode" >/sys/kernel/debug/sched/preempt
fi

# No --apply-setup: nothing is changed.
latscope -k -c 1 -T 1 -q >plain.out 2>&1
if rt_back; then ok "a plain run changes nothing"; else nok "a plain run changes nothing" "$(cat /proc/sys/kernel/sched_rt_runtime_us)"; fi
has "a plain run has the summary line" plain.out '^SET| setup: '

echo "setup: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
