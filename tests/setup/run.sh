#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# latscope --check-setup and --apply-setup on fake roots (LATSCOPE_ROOT),
# which fakeroot.py writes: a good board where each of the 18 factors is
# ok, then per factor the good board with that one thing bad (or a
# variant the check must not take for bad), each run checked for that
# factor's verdict, value and fix, every other factor as on the good
# board, the count line and the exit status. Then --apply-setup held
# until SIGTERM or SIGINT (the fake files changed while it holds, set
# back after), an apply that fails half-way, and options --check-setup
# refuses. The measured CPUs are those of this machine (-c 1, --cpus
# 0,1): latscope checks them against the real /sys. Ends with
# "setup: N passed, N failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
fr=$top/tests/setup/fakeroot.py
# LATSCOPE_BIN: another build to check (a mutant, a cross build run here).
bin=${LATSCOPE_BIN:-$top/userspace/latscope}

if [[ -z ${LATSCOPE_BIN:-} ]]; then
	make -s -C "$top/userspace" latscope
fi

# Short: the throttling check reads ROOT/sys only if it is 64 characters at most.
work=$(mktemp -d /tmp/lsset.XXXXXX)
bg=
cleanup() {
	if [[ -n $bg ]] && kill -0 "$bg" 2>/dev/null; then
		kill -KILL "$bg" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
export SETUP_WORK=$work LATSCOPE_BIN=$bin
unset LATSCOPE_ROOT LATSCOPE_SYSFS

passed=0
failed=0
ok() {
	echo "ok: $1"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL: $1"
	failed=$((failed + 1))
}
# expect NAME CONDITION-COMMAND... : one check line.
expect() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}
# One fake board, one run, its checks (fakeroot.py prints the line).
case_() {
	if "$py" "$fr" case "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
}
verify() {
	if "$py" "$fr" verify "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
}

# 1. The good board: all 18 ok, exit 0, "0 of 18 factors cost latency".
all_ok=()
for f in preemption debug tracing isolation nohz_full rcu_nocbs irqs rt_threads governor \
	smt rt_runtime timer_migration thp watchdog console clock gpu throttling; do
	all_ok+=("$f=ok")
done
case_ "good board: every factor ok, exit 0" good "-c 1 -P 90" save-base rc=0 "${all_ok[@]}" \
	"preemption:PREEMPT_RT" "debug:none (/boot/config-6.6.0-rt)" "governor:performance on CPU1"
if [[ ! -s $work/base.json ]]; then
	fail "the good board's output is needed by every other case: stopping"
	echo "setup: $passed passed, $failed failed"
	exit 1
fi
case_ "good board: -k" good "-c 1 -k" rc=0
case_ "good board: -u" good "-c 1 -u" rc=0
case_ "good board: -i (no responder thread)" good "-c 1 -i" rc=0 rt_threads=ok \
	"rt_threads:irq context has no responder thread"

# 2. Each factor bad, alone.
# preemption
case_ "preemption: PREEMPT_DYNAMIC with preempt=full costs" preempt_full_cmdline "-c 1" \
	preemption=costs "preemption:PREEMPT_DYNAMIC, full" "preemption~linux-image-rt" \
	"preemption~preempt=full"
case_ "preemption: PREEMPT_DYNAMIC, mode from debugfs" preempt_debugfs "-c 1" \
	preemption=costs "preemption:PREEMPT_DYNAMIC, full" "preemption~linux-image-rt"
case_ "preemption: the running mode (debugfs: none) before the boot's (preempt=full)" \
	preempt_debugfs_none "-c 1" preemption=costs "preemption:PREEMPT_DYNAMIC, none" \
	"preemption!full"
case_ "preemption: PREEMPT_DYNAMIC, mode from the config" dynamic "-c 1" \
	preemption=costs "preemption:PREEMPT_DYNAMIC, voluntary by default"
case_ "preemption: voluntary costs" voluntary "-c 1" \
	preemption=costs "preemption:voluntary" "preemption~linux-image-rt"
case_ "preemption: PREEMPT (full) costs" full "-c 1" \
	preemption=costs "preemption:PREEMPT (full, not PREEMPT_RT)" "preemption~linux-image-rt"
case_ "preemption: /sys/kernel/realtime 1 without config is ok" realtime_sysfs "-c 1" \
	preemption=ok "preemption:PREEMPT_RT" debug=unknown
case_ "preemption: no config, no RT in the version: none, costs" none_noconfig "-c 1" \
	preemption=costs "preemption:none (server)" debug=unknown
# debug, and where the config comes from
case_ "debug: KASAN and PROVE_LOCKING named" debug "-c 1" \
	debug=costs "debug:PROVE_LOCKING" "debug:KASAN" "debug!KASAN_GENERIC" \
	"debug~without them"
case_ "debug: config from /proc/config.gz" config_gz "-c 1" \
	debug=ok "debug:none (/proc/config.gz)"
case_ "debug: KASAN found through /proc/config.gz" debug_gz "-c 1" \
	debug=costs "debug:KASAN"
case_ "debug: /proc/config.gz before /boot/config-REL" config_both "-c 1" \
	debug=ok "debug:none (/proc/config.gz)"
case_ "debug: a corrupt /proc/config.gz falls back to /boot" config_gzbad "-c 1" \
	debug=ok "debug:none (/boot/config-6.6.0-rt)"
case_ "debug: a config past 256 KiB is read to its end" big_config "-c 1" \
	debug=costs "debug:KASAN"
case_ "debug: the same through /proc/config.gz" big_config+config_gz "-c 1" \
	debug=costs "debug:KASAN"
case_ "debug: no config is unknown (exit 0)" config_none "-c 1" \
	debug=unknown "debug~config" rc=0
# tracing
case_ "tracing: current_tracer function costs" tracer "-c 1" \
	tracing=costs "tracing:tracer function on" "tracing~nop"
case_ "tracing: set_event non-empty costs" set_event "-c 1" \
	tracing=costs "tracing:events on (sched:sched_switch" "tracing~set_event"
case_ "tracing: IRQSOFF_TRACER built in costs" irqsoff "-c 1" \
	tracing=costs "tracing:IRQSOFF_TRACER built in" "tracing~IRQSOFF_TRACER"
case_ "tracing: tracefs under /sys/kernel/debug/tracing" debugfs_tracer "-c 1" \
	tracing=costs "tracing:tracer function on"
case_ "tracing: tracefs not mounted is ok" no_tracefs "-c 1" \
	tracing=ok "tracing:tracefs not mounted"
# isolation, nohz_full, rcu_nocbs
case_ "isolation: CPU1 not isolated costs, fix isolcpus=1" no_isolation "-c 1" \
	isolation=costs "isolation:CPU1 not isolated" "isolation~isolcpus=1"
case_ "nohz_full: none costs, fix nohz_full=1" no_nohz "-c 1" \
	nohz_full=costs "nohz_full~nohz_full=1" "nohz_full!CONFIG_NO_HZ_FULL"
case_ "nohz_full: a kernel without CONFIG_NO_HZ_FULL is named" no_nohz_config "-c 1" \
	nohz_full=costs "nohz_full~CONFIG_NO_HZ_FULL"
case_ "rcu_nocbs: neither it nor nohz_full costs, fix rcu_nocbs=1" no_rcu "-c 1" \
	nohz_full=costs rcu_nocbs=costs "rcu_nocbs~rcu_nocbs=1"
case_ "rcu_nocbs: nohz_full alone offloads it" rcu_via_nohz "-c 1" \
	rcu_nocbs=ok "rcu_nocbs:offloaded: 1"
case_ "rcu_nocbs: bare rcu_nocbs is every CPU" rcu_bare "-c 1" \
	nohz_full=costs rcu_nocbs=ok "rcu_nocbs:offloaded: 0-1"
# irqs
case_ "irqs: effective_affinity_list 1 (smp_affinity_list 0-1) costs" irq_effective "-c 1" \
	irqs=costs "irqs:40 (mmc0)" "irqs~irqaffinity=" "irqs~managed_irq,1"
case_ "irqs: allowed on 0-1, landing on CPU0 now, costs: the kernel may move it to 1" \
	irq_effective_other "-c 1" irqs=costs "irqs:40 (mmc0)"
case_ "irqs: allowed on 0, still landing on 1: moved, takes effect at its next interrupt: ok" \
	irq_moving "-c 1" irqs=ok "irqs:40 (mmc0) moved, takes effect at its next interrupt"
case_ "irqs: smp_affinity_list 1 without effective list costs" irq_smp "-c 1" \
	irqs=costs "irqs:40 (" "irqs:mmc0" "irqs:mmc1"
case_ "irqs: an IRQ without a handler directory is ignored" irq_unhandled "-c 1" irqs=ok
case_ "irqs: arch_timer is ignored" irq_arch_timer "-c 1" irqs=ok
case_ "irqs: four named, then 'and 2 more'" irq_many "-c 1" \
	irqs=costs "irqs:(dev5" "irqs:), 5" "irqs:) and 2 more"
# rt_threads
case_ "rt_threads: FIFO 95 on CPU1 with -P 90 costs, named" rt95 "-c 1 -P 90" \
	rt_threads=costs "rt_threads:hog-worker (FIFO 95, pid 5000031)" "rt_threads!hogd" \
	"rt_threads~-P"
case_ "rt_threads: the same thread allowed only on CPU0 is ok" rt95_cpu0 "-c 1 -P 90" \
	rt_threads=ok
case_ "rt_threads: FIFO 99 migration/1 is ignored" migration "-c 1 -P 90" rt_threads=ok
case_ "rt_threads: a comm with spaces and ')' is parsed right" rt_comm "-c 1 -P 90" \
	rt_threads=costs "rt_threads:my) app (x (FIFO 95, pid 5000050)"
case_ "rt_threads: -i has no responder thread: ok" rt95 "-c 1 -i" \
	rt_threads=ok "rt_threads:irq context"
case_ "rt_threads: -k counts them too" rt95 "-c 1 -k -P 90" rt_threads=costs
case_ "rt_threads: -P 99 is above FIFO 95: ok" rt95 "-c 1 -P 99" \
	rt_threads=ok "rt_threads:none at FIFO/RR 99 or above"
case_ "rt_threads: RR 90 with -P 90 (at its priority) costs" rr90 "-c 1 -P 90" \
	rt_threads=costs "rt_threads:rr-loop (RR 90"
case_ "rt_threads: -P 40 puts irq/30-eth0 (FIFO 50) above" good "-c 1 -P 40" \
	rt_threads=costs "rt_threads:irq/30-eth0 (FIFO 50" "rt_threads!rcuc/1"
# governor
case_ "governor: schedutil costs, fix performance" schedutil "-c 1" \
	governor=costs "governor:schedutil on CPU1" "governor~echo performance" \
	"governor~cpu1/cpufreq/scaling_governor"
case_ "governor: CPU0's powersave does not matter to -c 1" cpu0_powersave "-c 1" governor=ok
case_ "governor: with --cpus 0,1 it does" cpu0_powersave "--cpus 0,1" \
	governor=costs "governor:powersave on CPU0, performance on CPU1" "governor~cpu0" \
	isolation=costs "isolation~isolcpus=0-1" nohz_full=costs rcu_nocbs=costs \
	irqs=costs "irqs:(i8042)"
case_ "governor: no cpufreq is ok" no_cpufreq "-c 1" governor=ok "governor:no cpufreq"
# smt
case_ "smt: an online sibling costs, fix nosmt" smt_online "-c 1" \
	smt=costs "smt:CPU1 shares its core with CPU3" "smt~nosmt" "smt~cpu3/online"
case_ "smt: the sibling offline is ok" smt_offline "-c 1" smt=ok
# the sysctls and the rest
case_ "rt_runtime: 950000 costs, fix sched_rt_runtime_us=-1" rt_runtime "-c 1" \
	rt_runtime=costs "rt_runtime:950000 us of each 1000000 us" \
	"rt_runtime~sched_rt_runtime_us=-1"
case_ "timer_migration: 1 costs" timer_migration "-c 1" \
	timer_migration=costs "timer_migration~timer_migration=0"
case_ "thp: always costs, fix madvise" thp_always "-c 1" thp=costs "thp~madvise"
case_ "thp: never is ok" thp_never "-c 1" thp=ok "thp:never"
case_ "watchdog: on costs, fix nowatchdog" watchdog "-c 1" \
	watchdog=costs "watchdog:soft lockup: on" "watchdog~nowatchdog"
case_ "watchdog: watchdog 1 but soft and NMI detectors off runs nothing: ok" \
	watchdog_parts_off "-c 1" watchdog=ok
case_ "console: console=ttyS0,115200 at loglevel 7 costs" serial7 "-c 1" \
	console=costs "console:serial console ttyS0, console loglevel 7" "console~loglevel=3"
case_ "console: ttyS0 at loglevel 3 is ok" serial3 "-c 1" \
	console=ok "console:serial console ttyS0, console loglevel 3"
case_ "console: ttyS0 without printk is unknown" serial_noprintk "-c 1" console=unknown
case_ "console: netconsole= is not a serial console" netconsole "-c 1" console=ok
case_ "clock: hpet costs, fix clocksource=tsc" hpet "-c 1" \
	clock=costs "clock:hpet" "clock~clocksource=tsc"
case_ "gpu: vc4 module is unknown (exit 0)" vc4 "-c 1" gpu=unknown "gpu:vc4" rc=0
case_ "gpu: a built-in i915 card is unknown" i915 "-c 1" gpu=unknown "gpu:i915"
case_ "throttling: 0x50005 costs" throttled "-c 1" \
	throttling=costs "throttling:now: under-voltage, throttled" \
	"throttling:since boot: under-voltage, throttled" "throttling~5 V"
case_ "throttling: 0x0 is ok" not_throttled "-c 1" \
	throttling=ok "throttling:now: none; since boot: none"

# 3. --apply-setup held until a signal.
# Waits up to $2 seconds for a line of $1 to start with $3.
wait_line() {
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		grep -q "^$3" "$1" 2>/dev/null && return 0
		kill -0 "$bg" 2>/dev/null || { grep -q "^$3" "$1" 2>/dev/null; return; }
		sleep 0.05
	done
	return 1
}
# Waits up to 10 s for $bg to end; its exit status in $rc (-1: it did not).
wait_bg() {
	local i
	rc=-1
	for ((i = 0; i < 200; i++)); do
		if ! kill -0 "$bg" 2>/dev/null; then
			rc=0
			wait "$bg" 2>/dev/null || rc=$?
			bg=
			return
		fi
		sleep 0.05
	done
	kill -KILL "$bg" 2>/dev/null || true
	wait "$bg" 2>/dev/null || true
	bg=
}
# Starts latscope ARGS... on ROOT in the background, SIGINT at its default
# (as from a terminal, not ignored as in a script's background job).
start_bg() {
	local root=$1 out=$2 err=$3
	shift 3
	LATSCOPE_ROOT=$root "$py" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$bin" "$@" >"$out" 2>"$err" &
	bg=$!
}
file() { tr -d '\n' <"$1/$2"; }
gov=sys/devices/system/cpu/cpu1/cpufreq/scaling_governor
irq=proc/irq/40/smp_affinity_list
rtr=proc/sys/kernel/sched_rt_runtime_us
# is FILE-CONTENT-TRIPLE: governor, IRQ 40, RT runtime hold $2 $3 $4 under $1.
holds() { [[ "$(file "$1" $gov)|$(file "$1" $irq)|$(file "$1" $rtr)" == "$2|$3|$4" ]]; }
show() { echo "$(file "$1" $gov)|$(file "$1" $irq)|$(file "$1" $rtr)"; }

apply_signal() {
	local sig=$1 root=$work/a-$1 out=$work/a-$1.out err=$work/a-$1.err
	"$py" "$fr" build "$root" apply
	start_bg "$root" "$out" "$err" --check-setup -c 1 --apply-setup
	if ! wait_line "$out" 20 "SET| held until Ctrl-C or SIGTERM, then set back"; then
		fail "apply $sig: no 'held' line in 20 s (out: $(tr '\n' '/' <"$out"), err: $(cat "$err"))"
		wait_bg
		return
	fi
	if holds "$root" performance 0 -1; then
		ok "apply $sig: while held, governor performance, IRQ 40 on CPU0, sched_rt_runtime_us -1"
	else
		fail "apply $sig: while held, expected performance|0|-1, seen $(show "$root")"
	fi
	verify "apply $sig: the verdicts printed are those after the changes" "$out" "$err" - \
		governor=ok irqs=ok rt_runtime=ok
	expect "apply $sig: 'applied for the run' names the three changes" grep -qxF \
		"SET| applied for the run: governor performance on CPU1 (was schedutil); RT throttling off (was 950000 us); 1 IRQs moved to CPU0" \
		"$out"
	kill -s "$sig" "$bg"
	wait_bg
	expect "apply $sig: exit 0 after $sig (seen $rc)" test "$rc" = 0
	if holds "$root" schedutil 1 950000; then
		ok "apply $sig: every file set back (schedutil|1|950000)"
	else
		fail "apply $sig: expected schedutil|1|950000 set back, seen $(show "$root")"
	fi
	expect "apply $sig: 'SET| set back' is the last line, nothing on stderr" \
		test "$(tail -n 1 "$out")|$(cat "$err")" = "SET| set back|"
}
apply_signal TERM
apply_signal INT
apply_signal QUIT

# An IRQ the kernel keeps (its write fails) does not stop the rest; it still costs.
root=$work/a-stuck out=$work/a-stuck.out err=$work/a-stuck.err
"$py" "$fr" build "$root" apply_stuck
start_bg "$root" "$out" "$err" --check-setup -c 1 --apply-setup
if wait_line "$out" 20 "SET| held until"; then
	verify "apply, an IRQ kept on CPU1: it still costs, the rest ok" "$out" "$err" - \
		governor=ok rt_runtime=ok irqs=costs "irqs:41 (timer-local)" "irqs!40 (mmc0)"
	expect "apply, an IRQ kept on CPU1: 'applied' says 1 moved, 1 kept" grep -qF \
		"1 IRQs moved to CPU0 (1 the kernel keeps where they are)" "$out"
	kill -s TERM "$bg"
	wait_bg
	expect "apply, an IRQ kept on CPU1: exit 6 after SIGTERM (seen $rc)" test "$rc" = 6
	if holds "$root" schedutil 1 950000; then
		ok "apply, an IRQ kept on CPU1: every file set back"
	else
		fail "apply, an IRQ kept on CPU1: expected schedutil|1|950000, seen $(show "$root")"
	fi
else
	fail "apply, an IRQ kept on CPU1: no 'held' line in 20 s (out: $(tr '\n' '/' <"$out"), err: $(cat "$err"))"
	wait_bg
fi

# Every online CPU measured: the IRQs stay where they are.
root=$work/a-all out=$work/a-all.out err=$work/a-all.err
"$py" "$fr" build "$root" apply
start_bg "$root" "$out" "$err" --check-setup --cpus 0,1 --apply-setup
if wait_line "$out" 20 "SET| held until"; then
	expect "apply --cpus 0,1: 'IRQs left (every online CPU is measured)', IRQ 40 still on 1" \
		test "$(grep -c 'IRQs left (every online CPU is measured)' "$out")|$(file "$root" $irq)" = "1|1"
	kill -s TERM "$bg"
	wait_bg
	expect "apply --cpus 0,1: exit 6 after SIGTERM (IRQs, isolation still cost; seen $rc)" \
		test "$rc" = 6
else
	fail "apply --cpus 0,1: no 'held' line in 20 s (out: $(tr '\n' '/' <"$out"), err: $(cat "$err"))"
	wait_bg
fi

# Nothing to change on the good board.
root=$work/a-good out=$work/a-good.out err=$work/a-good.err
"$py" "$fr" build "$root" good
start_bg "$root" "$out" "$err" --check-setup -c 1 --apply-setup
if wait_line "$out" 20 "SET| held until"; then
	expect "apply on the good board: 'applied for the run: nothing to change'" \
		grep -qxF "SET| applied for the run: nothing to change" "$out"
	kill -s TERM "$bg"
	wait_bg
	expect "apply on the good board: exit 0, files untouched (seen $rc, $(file "$root" $gov)|$(file "$root" $rtr))" \
		test "$rc|$(file "$root" $gov)|$(file "$root" $rtr)" = "0|performance|-1"
else
	fail "apply on the good board: no 'held' line in 20 s (out: $(tr '\n' '/' <"$out"), err: $(cat "$err"))"
	wait_bg
fi

# A failing apply: RT throttling cannot be turned off (its file is /dev/full,
# whose writes fail even for root) after the governor was changed.
root=$work/a-fail out=$work/a-fail.out err=$work/a-fail.err
"$py" "$fr" build "$root" apply_fail
rc=0
LATSCOPE_ROOT=$root timeout 10 "$bin" --check-setup -c 1 --apply-setup >"$out" 2>"$err" || rc=$?
expect "apply failing: exit 3 (seen $rc)" test "$rc" = 3
expect "apply failing: one error line 'latscope: --apply-setup: ...', nothing on stdout (err: $(tr '\n' '/' <"$err"); out: $(head -c 200 "$out" | tr '\n' '/'))" \
	test "$(wc -l <"$err")|$(grep -c '^latscope: --apply-setup: ' "$err")|$(wc -c <"$out")" = "1|1|0"
expect "apply failing: governor set back, IRQ 40 untouched (seen $(file "$root" $gov)|$(file "$root" $irq))" \
	test "$(file "$root" $gov)|$(file "$root" $irq)|$(readlink "$root/$rtr")" = "schedutil|1|/dev/full"

# 4. The undo journal (ROOT/run/latscope/setup.journal) and its lock.
journal=run/latscope/setup.journal
# Waits up to 20 s for the files under $1 to hold $2 (as show() prints them).
wait_holds() {
	local i
	for ((i = 0; i < 400; i++)); do
		[[ "$(show "$1")" == "$2" ]] && return 0
		kill -0 "$bg" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
applied="performance|0|-1"
original="schedutil|1|950000"

# Written, fsync'd, before the first change: strace shows the order of the
# journal's line for the governor, its fsync and the governor's write.
root=$work/j-order
"$py" "$fr" build "$root" apply_fail
command -v strace >/dev/null || fail "journal: strace is not installed (scripts/install-deps.sh all)"
rc=0
LATSCOPE_ROOT=$root strace -f -qq -s 200 -e trace=openat,write,fsync -o "$work/j-order.strace" \
	timeout 10 "$bin" --check-setup -c 1 --apply-setup >/dev/null 2>&1 || rc=$?
jline=$(grep -nE 'write\([0-9]+, "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor schedutil' \
	"$work/j-order.strace" | head -n 1 | cut -d: -f1)
gline=$(grep -nE 'cpu1/cpufreq/scaling_governor", O_WRONLY' "$work/j-order.strace" | head -n 1 | cut -d: -f1)
synced=0
if [[ -n $jline && -n $gline ]] && ((jline < gline)); then
	synced=$(sed -n "${jline},${gline}p" "$work/j-order.strace" | grep -c 'fsync(' || true)
fi
expect "journal: the governor's old value written and fsync'd before the governor is (exit $rc, journal line ${jline:-none}, governor write ${gline:-none}, fsyncs between ${synced:-0})" \
	test -n "$jline" -a -n "$gline" -a "${jline:-0}" -lt "${gline:-0}" -a "${synced:-0}" -ge 1
expect "journal: removed once set back (after the failed apply)" test ! -e "$root/$journal"

# A run through the fake device (no module needed): tests/fakedev.
fakedev=$work/fakedev.so
if ! cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -I "$top/driver/include/uapi" \
	-o "$fakedev" "$top/tests/fakedev/fakedev.c" -ldl; then
	fail "tests/fakedev/fakedev.c does not build: the runs below need it"
fi
# start_run ROOT NAME ARGS...: a run on the fake device, in the background.
start_run() {
	local root=$1 name=$2
	shift 2
	LD_PRELOAD=$fakedev start_bg "$root" "$work/$name.out" "$work/$name.err" "$@"
}
# The run started as TAG (start_run) applied, the files of ROOT changed; then SIGNAL.
run_then() {
	local root=$1 name=$2 tag=$3 sig=$4
	if ! wait_holds "$root" "$applied"; then
		fail "$name: the run did not apply (seen $(show "$root"); err: $(tr '\n' '/' <"$work/$tag.err"))"
		wait_bg
		return 1
	fi
	expect "$name: the journal is there while applied" test -s "$root/$journal"
	kill -s "$sig" "$bg"
	wait_bg
}
back() { # name, root
	if holds "$2" schedutil 1 950000 && [[ ! -e $2/$journal ]]; then
		ok "$1: every value back ($original), the journal removed"
	else
		fail "$1: expected $original and no journal, seen $(show "$2"), journal: $(tr '\n' '/' 2>/dev/null <"$2/$journal")"
	fi
}

# SIGPIPE: stdout's reader gone before the first line (a pipe closed at
# its read end): the run ends at its first line, as by Ctrl-C. Prints
# the exit status (128 + N: signal N; "timeout": not ended in 20 s).
closed_stdout() {
	"$py" -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
try:
    p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL, timeout=20)
    print(128 - p.returncode if p.returncode < 0 else p.returncode)
except subprocess.TimeoutExpired:
    print("timeout")' "$@"
}
root=$work/j-pipe
"$py" "$fr" build "$root" apply
rc=$(LATSCOPE_ROOT=$root LD_PRELOAD=$fakedev closed_stdout "$bin" -k -c 1 -T 5 --apply-setup)
expect "SIGPIPE, a run: exit 0 (not 141; seen $rc)" test "$rc" = 0
back "SIGPIPE, a run" "$root"
rc=$(LATSCOPE_ROOT=$root closed_stdout "$bin" --check-setup -c 1 --apply-setup)
expect "SIGPIPE, --check-setup --apply-setup: ends at once, exit 0 (seen $rc)" test "$rc" = 0
back "SIGPIPE, --check-setup --apply-setup" "$root"
# As the issue ran it: | true.
set +e
LATSCOPE_ROOT=$root LD_PRELOAD=$fakedev timeout 20 "$bin" -k -c 1 -T 5 --apply-setup 2>/dev/null | true
rc=${PIPESTATUS[0]}
set -e
expect "latscope -k -c 1 -T 5 --apply-setup | true: exit 0 (seen $rc)" test "$rc" = 0
back "| true" "$root"

# SIGQUIT during a run: an end as Ctrl-C's.
root=$work/j-quit
"$py" "$fr" build "$root" apply
start_run "$root" j-quit -k -c 1 -T 60 --apply-setup
if run_then "$root" "SIGQUIT, a run" j-quit QUIT; then
	expect "SIGQUIT, a run: exit 0 (seen $rc)" test "$rc" = 0
	back "SIGQUIT, a run" "$root"
fi

# A fatal signal: its handler writes back from the journal, then the
# signal ends the process as it would have.
for sig in SEGV ABRT; do
	root=$work/j-$sig
	"$py" "$fr" build "$root" apply
	start_run "$root" "j-$sig" -k -c 1 -T 60 --apply-setup
	if run_then "$root" "SIG$sig, a run" "j-$sig" "$sig"; then
		want=$((128 + $(kill -l "$sig")))
		expect "SIG$sig, a run: ended by SIG$sig (exit $want; seen $rc)" test "$rc" = "$want"
		back "SIG$sig, a run" "$root"
		expect "SIG$sig, a run: says it set back" grep -qF \
			"latscope: fatal signal $(kill -l "$sig"): --apply-setup's changes set back from its journal" \
			"$work/j-$sig.err"
	fi
done

# SIGKILL, which nothing catches: the journal stays, and --restore-setup,
# or the next latscope, writes it back.
killed_run() { # root, name
	"$py" "$fr" build "$1" apply
	start_run "$1" "$2" -k -c 1 -T 60 --apply-setup
	run_then "$1" "$2" "$2" KILL || return 1
	killed=$(sed -n 's/^owner \([0-9]*\) .*/\1/p' "$1/$journal" 2>/dev/null)
	if [[ -n $killed ]] && holds "$1" performance 0 -1; then
		ok "$2: left applied, the journal kept (owner $killed)"
	else
		fail "$2: expected $applied and a journal, seen $(show "$1"), journal: $(tr '\n' '/' 2>/dev/null <"$1/$journal")"
		return 1
	fi
}
said="latscope: --apply-setup of pid @ ended without setting back its changes: set back governor schedutil on CPU1, RT throttling 950000 us, IRQ 40 on CPU1"
root=$work/j-kill
if killed_run "$root" "SIGKILL then --restore-setup"; then
	rc=0
	LATSCOPE_ROOT=$root timeout 10 "$bin" --restore-setup >"$work/j-r.out" 2>"$work/j-r.err" || rc=$?
	expect "--restore-setup: exit 0, nothing on stderr (seen $rc, $(cat "$work/j-r.err"))" \
		test "$rc|$(wc -c <"$work/j-r.err")" = "0|0"
	expect "--restore-setup: one line, what it set back (seen: $(cat "$work/j-r.out"))" \
		test "$(cat "$work/j-r.out")" = "${said/@/$killed}"
	back "--restore-setup" "$root"
	rc=0
	LATSCOPE_ROOT=$root timeout 10 "$bin" --restore-setup >"$work/j-r.out" 2>&1 || rc=$?
	expect "--restore-setup again: nothing to set back, exit 0 (seen $rc: $(cat "$work/j-r.out"))" \
		test "$rc|$(cat "$work/j-r.out")" = "0|latscope: no --apply-setup journal: nothing to set back"
fi
root=$work/j-next
if killed_run "$root" "SIGKILL then a plain --check-setup"; then
	rc=0
	LATSCOPE_ROOT=$root timeout 10 "$bin" --check-setup -c 1 >"$work/j-n.out" 2>"$work/j-n.err" || rc=$?
	expect "the next latscope: says in one line on stderr what it set back (seen: $(cat "$work/j-n.err"))" \
		test "$(cat "$work/j-n.err")" = "${said/@/$killed}"
	back "the next latscope" "$root"
	expect "the next latscope: its verdict is on the values set back (governor schedutil)" \
		grep -q "^SET| costs latency *cpufreq governor *schedutil on CPU1" "$work/j-n.out"
fi
expect "--restore-setup with another option: exit 2" \
	test "$(LATSCOPE_ROOT=$work/none timeout 10 "$bin" --restore-setup -c 1 >/dev/null 2>&1; echo $?)" = 2

# Two --apply-setup at once: the second is refused with the first's pid
# and changes nothing; when the first ends, every value is the original.
# Both orders: -c 1 holds and -c 0 comes, then -c 0 holds and -c 1 comes.
show2() { echo "$(file "$1" sys/devices/system/cpu/cpu0/cpufreq/scaling_governor)|$(show "$1")|$(file "$1" proc/irq/43/smp_affinity_list)"; }
two_runs() { # first's CPU, second's CPU
	local root=$work/two-$1 first second
	"$py" "$fr" build "$root" apply_two
	local before
	before=$(show2 "$root")
	start_bg "$root" "$work/two-$1.out" "$work/two-$1.err" --check-setup -c "$1" --apply-setup
	first=$bg
	if ! wait_line "$work/two-$1.out" 20 "SET| held until"; then
		fail "two runs, -c $1 first: it did not hold (err: $(cat "$work/two-$1.err"))"
		wait_bg
		return
	fi
	local during
	during=$(show2 "$root")
	rc=0
	LATSCOPE_ROOT=$root timeout 10 "$bin" --check-setup -c "$2" --apply-setup \
		>"$work/two-$2.out" 2>"$work/two-$2.err" || rc=$?
	second=$(cat "$work/two-$2.err")
	expect "two runs, -c $1 first: -c $2 refused, exit 3, one line naming pid $first (seen $rc: $second)" \
		test "$rc|$(wc -l <"$work/two-$2.err")|$second" = "3|1|latscope: --apply-setup: another latscope (pid $first) has the system's setup changed: one --apply-setup at a time; wait for it to end, or run without --apply-setup"
	expect "two runs, -c $1 first: the refused one changed nothing (seen $during, then $(show2 "$root"))" \
		test "$(show2 "$root")" = "$during"
	kill -s TERM "$first"
	wait_bg
	expect "two runs, -c $1 first: every value back when it ends ($before; seen $(show2 "$root"))" \
		test "$(show2 "$root")" = "$before"
}
two_runs 1 0
two_runs 0 1

# An IRQ allowed on the measured CPU is moved wherever it lands now; one
# moved but landing there until its next interrupt is said so, not costed.
root=$work/a-allowed out=$work/a-allowed.out err=$work/a-allowed.err
"$py" "$fr" build "$root" apply_allowed
start_bg "$root" "$out" "$err" --check-setup -c 1 --apply-setup
if wait_line "$out" 20 "SET| held until"; then
	expect "apply: IRQs 40, 42 (landing on 1) and 43 (allowed on 1, landing on 0) all moved to 0 (seen $(file "$root" proc/irq/40/smp_affinity_list) $(file "$root" proc/irq/42/smp_affinity_list) $(file "$root" proc/irq/43/smp_affinity_list))" \
		test "$(file "$root" proc/irq/40/smp_affinity_list) $(file "$root" proc/irq/42/smp_affinity_list) $(file "$root" proc/irq/43/smp_affinity_list)" = "0 0 0"
	expect "apply: '3 IRQs moved to CPU0'" grep -qF "3 IRQs moved to CPU0" "$out"
	verify "apply: IRQs still landing on CPU1 (effective) are 'moved, takes effect at its next interrupt', not costs" \
		"$out" "$err" - governor=ok rt_runtime=ok irqs=ok \
		"irqs:42 (rtc0) moved, takes effect at its next interrupt"
	kill -s TERM "$bg"
	wait_bg
	expect "apply: IRQs set back to 1, 0-1, 0-1" \
		test "$(file "$root" proc/irq/40/smp_affinity_list) $(file "$root" proc/irq/42/smp_affinity_list) $(file "$root" proc/irq/43/smp_affinity_list)" = "1 0-1 0-1"
else
	fail "apply, allowed IRQs: no 'held' line in 20 s (err: $(cat "$err"))"
	wait_bg
fi

# 5. Bad input.
bad_option() {
	local name=$1 out=$work/bad.out err=$work/bad.err
	shift
	rc=0
	(cd "$work" && LATSCOPE_ROOT=$work/none timeout 10 "$bin" "$@" >"$out" 2>"$err") || rc=$?
	expect "$name: exit 2, one error line, nothing on stdout (seen $rc, err: $(tr '\n' '/' <"$err"))" \
		test "$rc|$(wc -l <"$err")|$(grep -c '^latscope: ' "$err")|$(wc -c <"$out")" = "2|1|1|0"
}
bad_option "--check-setup --json x" --check-setup --json x
expect "--check-setup --json x: no file x written" test ! -e "$work/x"
bad_option "--check-setup -T 5" --check-setup -T 5
bad_option "--check-setup -P 0" --check-setup -c 1 -P 0
bad_option "--check-setup --cost" --check-setup --cost
bad_option "--apply-setup --cost" --apply-setup --cost

rc=0
LATSCOPE_ROOT=$work/none timeout 10 "$bin" --check-setup -c 5 >"$work/cpu.out" 2>"$work/cpu.err" || rc=$?
expect "--check-setup -c 5 (not online): exit 3, 'CPU5 is not online' (seen $rc, $(tr '\n' '/' <"$work/cpu.err"))" \
	test "$rc|$(grep -c 'CPU5 is not online' "$work/cpu.err")|$(wc -c <"$work/cpu.out")" = "3|1|0"

mkdir "$work/empty"
rc=0
LATSCOPE_ROOT=$work/empty timeout 10 "$bin" --check-setup -c 1 >"$work/empty.out" 2>"$work/empty.err" || rc=$?
expect "empty root: exit 0 or 6 (seen $rc)" test "$rc" = 0 -o "$rc" = 6
expect "empty root: 18 factor lines and the count line, each a SET| line" \
	test "$(grep -c '^SET| \(ok           \|costs latency\|unknown      \) ' "$work/empty.out")|$(grep -c '^SET| [0-9]* of 18 factors cost latency' "$work/empty.out")|$(wc -l <"$work/empty.out")" = "18|1|19"
expect "empty root: nothing on stderr" test ! -s "$work/empty.err"
expect "empty root: verdicts as the code decides (preemption, debug, irqs, rt_runtime, clock unknown)" \
	grep -qxF "SET| 3 of 18 factors cost latency: isolation, nohz_full, rcu_nocbs; 5 unknown: preemption, debug, irqs, rt_runtime, clock" "$work/empty.out"

echo "setup: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
