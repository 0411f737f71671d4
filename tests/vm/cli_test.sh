#!/bin/sh
# The latscope CLI on a real kernel, inside the test VM (busybox sh). Runs
# each context, several CPUs, every way of stopping and the bad inputs;
# prints "ok"/"not ok" lines, dumps the plot and JSON files between
# markers for the host to parse, and ends with "cli: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
for ctx in irq kernel user; do
	flag=-$(echo $ctx | cut -c1)
	latscope "$flag" -T 3 -g $ctx.plot --json $ctx.json >$ctx.out 2>$ctx.err
	expect_rc "$ctx: 3 s run" $? 0
	has "$ctx: RTT line" $ctx.out "^RTT|  00:00:0[0-9]  ($ctx, 1000 us period,"
	has "$ctx: RTH line" $ctx.out '^RTH|----lat min|----lat avg|----lat max|-overrun|---msw|---lat best|--lat worst$'
	# A record per second of the run as it went (a stop the host made
	# late makes it longer), not of the 3 s asked for; one second may
	# pass without a sample.
	n=$(grep -c '^RTD|' $ctx.out)
	secs=$(sed -n 's/.*"duration_s": \([0-9]*\),*$/\1/p' $ctx.json | head -n 1)
	if [ "$n" -ge 2 ] && [ "$n" -le $((${secs:-3} + 1)) ]; then
		ok "$ctx: a RTD line a second"
	else
		nok "$ctx: a RTD line a second" "$n lines in ${secs:-?} s"
	fi
	has "$ctx: RTS line" $ctx.out '^RTS|.*|    00:00:0[0-9]/00:00:03$'
	has "$ctx: percentiles line" $ctx.out '^PCT| stddev'
	plot_adds_up "$ctx: plot cells add up" $ctx.plot
	dump $ctx.plot $ctx.plot
	dump $ctx.json $ctx.json
	cat $ctx.out
done
has "user: irq split line" user.out '^IRQ| irq part:'

# The VM has no thermal zone, no cpufreq, no firmware flags: no HOT| line.
if grep -q '^HOT|' user.out; then nok "heat: none in the VM" "$(grep '^HOT|' user.out)"; else ok "heat: none in the VM"; fi

# Heat and clock from a tree of a board's sysfs files (LATSCOPE_SYSFS):
# the CPU's zone, CPU1's clock, a Pi's flags. Two seconds into the run the
# firmware caps the clock and the board heats; two seconds later it ends.
fs=/tmp/fakesys
fw=$fs/devices/platform/soc/soc:firmware
freq=$fs/devices/system/cpu/cpu1/cpufreq
mkdir -p $fs/class/thermal/thermal_zone0 $freq $fw
echo cpu-thermal >$fs/class/thermal/thermal_zone0/type
echo 52000 >$fs/class/thermal/thermal_zone0/temp
echo 1500000 >$freq/scaling_cur_freq
echo 0 >$fw/get_throttled
rtd() { [ "$(grep -c '^RTD|' heat.out)" -ge "$1" ]; }
LATSCOPE_SYSFS=$fs latscope -k -c 1 -T 120 --json heat-kernel.json >heat.out 2>&1 &
pid=$!
wait_until 60 rtd 2 || nok "heat: two seconds measured" "$(cat heat.out)"
echo 20002 >$fw/get_throttled
echo 600000 >$freq/scaling_cur_freq
echo 67000 >$fs/class/thermal/thermal_zone0/temp
n=$(grep -c '^RTD|' heat.out)
wait_until 60 rtd $((n + 2)) || nok "heat: two seconds after the flags" "$(cat heat.out)"
kill -INT $pid
wait $pid
expect_rc "heat: a run with a board's files" $? 0
has "heat: HOT| line" heat.out '^HOT| thermal_zone0 (cpu-thermal) 52.0 to 67.0 C, CPU1 at 600 to 1500 MHz, throttling flags read$'
has "heat: throttled mid-run said" heat.out '^HOT| THROTTLED during the run: ARM frequency capped (in [0-9]* of [0-9]* s)'
dump heat-kernel.json heat-kernel.json
LATSCOPE_SYSFS=$fs latscope -k -c 1 -T 1 --thermal-zone 4 >zone4.out 2>&1
expect_rc "heat: --thermal-zone 4, not there: refused" $? 3
has "heat: the refusal names the zones there" zone4.out 'thermal_zone4/temp cannot be read (zones here: 0)'

# The cost suite at 2 % of its work, twice each way: every workload runs
# and checks its own output, measured by a kernel-context run on CPU1.
no_tool_left() { # name
	left=$(pidof latscope hackbench stress-ng iperf3)
	if [ -n "$left" ]; then nok "$1: nothing left running" "$left"; else ok "$1: nothing left running"; fi
	if ls /tmp/latscope-cost.* >/dev/null 2>&1; then nok "$1: fsync's file removed" "$(ls /tmp)"; else ok "$1: fsync's file removed"; fi
}
# A workload that cannot run (iperf3 with the loopback interface still
# down) fails at its warm-up, every way: exit 1, said, nothing left.
ip link set lo down 2>/dev/null || ifconfig lo down
latscope --cost -k -c 1 --cost-only iperf3 --cost-scale 1 --cost-repeat 1 --cost-min-run 0 \
	>cost-fail.out 2>&1
expect_rc "cost: a workload that fails" $? 1
has "cost: its warm-up failure said" cost-fail.out '^COST| iperf3      FAILED plain: the warm-up run: iperf3 exited 1'
has "cost: and no measured run of it" cost-fail.out '^COST| iperf3      FAILED measured: the warm-up run'
no_tool_left "cost: a workload that fails"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up	# iperf3's loopback
# Each timing at least 100 ms: the short workloads run in batches.
latscope --cost -k -c 1 --cost-scale 2 --cost-repeat 2 --cost-min-run 100 --cost-dir /tmp \
	--json cost-kernel.json >cost.out 2>&1
expect_rc "cost: the suite at 2 %" $? 0
for w in queens-1 queens-all hackbench switch fork fsync iperf3; do
	has "cost: $w ran both ways, the change with its interval" cost.out \
		"^COST| $w  *[0-9.]* [mu]*s sd [0-9.]* (2 runs)  *[0-9.]* [mu]*s sd [0-9.]* (2 runs)  *\([-+][0-9.]* % \[[-+][0-9.]*, [-+][0-9.]*\]\|no difference at this precision (±[0-9.]* %)\)$"
done
has "cost: the short ones in batches" cost.out '^COST| batches: each timing runs the work this often, to last 100 ms (--cost-min-run); the times are of one run: queens-1 ×[0-9]'
if grep -q '"order": "alternating"' cost-kernel.json && grep -q '"batch": [0-9]' cost-kernel.json &&
	grep -q '"change_ci95": \(null\|\[\)' cost-kernel.json; then
	ok "cost: the JSON's order, batches and intervals"
else
	nok "cost: the JSON's order, batches and intervals" "$(head -c 600 cost-kernel.json)"
fi
if grep -qE 'FAILED|skipped|THROTTLED' cost.out; then nok "cost: nothing failed or skipped" "$(cat cost.out)"; else ok "cost: nothing failed or skipped"; fi
has "cost: the measuring run's figures, plain and measured alternating" cost.out \
	"^COST| measured: kernel context on CPU1, 1000 us period, priority 90, plain and measured alternating; its first round's RTS|"
no_tool_left "cost"
dump cost-kernel.json cost-kernel.json
dump cost-kernel-latency.json cost-kernel-latency.json
cat cost.out

# With --stress: a third pass while the load runs, which then stops.
latscope --cost -k -c 1 --cost-scale 2 --cost-repeat 2 --cost-min-run 0 --cost-dir /tmp \
	--cost-only queens-all,fsync --stress grinder >cost-load.out 2>&1
expect_rc "cost: under the grinder load" $? 0
has "cost: loaded runs" cost-load.out '^COST| queens-all .* (2 runs) .* (2 runs) .* %.*  *[0-9.]* [mu]*s sd [0-9.]* (2 runs)  *\([-+][0-9.]* % \[.*\]\|no difference at this precision (±[0-9.]* %)\)$'
has "cost: the load named" cost-load.out "^COST| loaded: while the load 'grinder' ran on CPU0-1, nothing measured$"
left=$(pidof hackbench dd)
if [ -z "$left" ]; then ok "cost: the load stopped"; else nok "cost: the load stopped" "$left"; fi
no_tool_left "cost under load"

# Ctrl-C (SIGINT to the suite) while measured: ends after the run under
# way, prints and writes what was timed, leaves nothing.
measuring() { grep -qs thermal-zone /proc/[0-9]*/cmdline; }
latscope --cost -k -c 1 --cost-scale 10 --cost-repeat 100 --cost-min-run 0 --cost-dir /tmp \
	--cost-only queens-1,fsync --json cost-int.json >cost-int.out 2>&1 &
pid=$!
wait_until 300 measuring || nok "cost: measuring" "$(cat cost-int.out)"
kill -INT $pid
wait $pid
expect_rc "cost: SIGINT ends it" $? 0
has "cost: SIGINT said" cost-int.out '^COST| interrupted: the figures are of the runs made before the signal$'
if grep -q '"interrupted": true' cost-int.json && [ -s cost-int-latency.json ]; then
	ok "cost: SIGINT: both files written"
else
	nok "cost: SIGINT: both files written" "$(head -c 300 cost-int.json)"
fi
no_tool_left "cost after SIGINT"

# Measured in the irq context: the measuring run has no thread, so no -P
# (which -i refuses: the suite could not start it before).
latscope --cost -i -c 1 --cost-scale 1 --cost-repeat 2 --cost-min-run 0 --cost-dir /tmp \
	--cost-only queens-1 >cost-irq.out 2>&1
expect_rc "cost -i: the suite measured by the irq context" $? 0
has "cost -i: its measuring run's figures" cost-irq.out \
	"^COST| measured: irq context on CPU1, 1000 us period, no responder thread, plain and measured alternating; its first round's RTS|"
no_tool_left "cost -i"

# M:N: six kernel-thread responders dealt over two CPUs, three on each.
latscope -k --cpus 0,1 --threads 6 -T 2 -g mn.plot --json mn-kernel.json >mn.out 2>&1
expect_rc "M:N: six threads on two CPUs" $? 0
has "M:N: said" mn.out '^CPU| M:N: 6 responders on 2 CPUs, each its own session, one priority$'
if [ "$(grep -c '^CPU| thread [0-5] on CPU[01]' mn.out)" = 6 ]; then
	ok "M:N: a CPU line per thread"
else
	nok "M:N: a CPU line per thread" "$(cat mn.out)"
fi
has "M:N: a plot column per thread" mn.plot '^# columns: latency (us), sample count thread0@CPU0 thread1@CPU1 thread2@CPU0 thread3@CPU1 thread4@CPU0 thread5@CPU1$'
has "M:N: the plot names the scenario" mn.plot '^# scenario: M:N, 6 responders on 2 CPUs$'
dump mn.plot mn.plot
dump mn-kernel.json mn-kernel.json
latscope -k --cpus 0,1 --threads 1 -T 1 >mn1.out 2>&1
expect_rc "M:N: fewer threads than CPUs refused" $? 3
has "M:N: the refusal says why" mn1.out 'threads 1 on 2 CPUs (0-1): give at least one thread per CPU'

latscope -k --cpus 0,1 -T 2 -g two.plot >two.out 2>&1
expect_rc "two CPUs" $? 0
has "two CPUs: RTT names both" two.out 'CPU0-1-noisol)'
if [ "$(grep -c '^CPU|' two.out)" = 2 ]; then
	ok "two CPUs: a CPU line each"
else
	nok "two CPUs: a CPU line each" "$(cat two.out)"
fi
has "two CPUs: a plot column each" two.plot '^# columns: latency (us), sample count CPU0 CPU1$'
dump two.plot two.plot

for sig in INT TERM HUP; do
	latscope -T 60 -g $sig.plot --json $sig.json >$sig.out 2>&1 &
	pid=$!
	# Measuring (its first per-second line), however long start-up took.
	wait_for $sig.out '^RTD|' 60 || nok "SIG$sig: measuring" "$(cat $sig.out)"
	kill -$sig $pid
	wait $pid
	expect_rc "SIG$sig: clean exit" $? 0
	has "SIG$sig: summary printed" $sig.out '^RTS|'
	plot_adds_up "SIG$sig: plot written" $sig.plot
	if [ -s $sig.json ]; then ok "SIG$sig: JSON written"; else nok "SIG$sig: JSON written" "missing"; fi
done

latscope -i -A 1 -T 30 >abort.out 2>&1
expect_rc "-A 1: threshold exit" $? 102
has "-A 1: summary printed" abort.out '^RTS|'
has "-A 1: says why" abort.out 'latency threshold is exceeded'

latscope -i -b 1 -T 30 >brk.out 2>&1
expect_rc "-b 1: breaktrace exit" $? 104
has "-b 1: says where the trace is" brk.out '^BRK| CPU1 stopped the trace at a .* us sample: read /sys/kernel/tracing/trace$'
echo 1 >/sys/kernel/tracing/tracing_on 2>/dev/null

latscope -k -c 1 -T 60 >off.out 2>&1 &
pid=$!
wait_for off.out '^RTD|' 60 || nok "CPU offline mid-run: measuring" "$(cat off.out)"
echo 0 >/sys/devices/system/cpu/cpu1/online
wait $pid
expect_rc "CPU offline mid-run: runtime error" $? 1
has "CPU offline mid-run: says so" off.out 'CPU1 went offline during the run'
has "CPU offline mid-run: summary printed" off.out '^RTS|'
echo 1 >/sys/devices/system/cpu/cpu1/online

# --checkpoint: files rewritten during the run that add up and outlive
# a kill -9; a run that ends normally leaves its final files.
latscope -k -T 60 --checkpoint 2s -g kernel-checkpoint.plot --json kernel-checkpoint.json \
	>cp.out 2>&1 &
pid=$!
# Both checkpoint files written (whole, by rename), then the kill.
wait_for kernel-checkpoint.plot '^# checkpoint' 60 || nok "checkpoint: plot written" "$(cat cp.out)"
wait_for kernel-checkpoint.json '"checkpoint": true' 60 || nok "checkpoint: JSON written" "$(cat cp.out)"
kill -9 $pid
wait $pid
# A kill -9 in the middle of a later checkpoint leaves its temporary
# file (which is why files are written by rename): not ours to clean up.
rm -f kernel-checkpoint.plot.?????? kernel-checkpoint.json.??????
plot_adds_up "checkpoint: the plot outlives kill -9, whole" kernel-checkpoint.plot
has "checkpoint: the plot says so" kernel-checkpoint.plot "^# checkpoint: written while the run went on"
has "checkpoint: the JSON says so" kernel-checkpoint.json '"checkpoint": true'
dump kernel-checkpoint.json kernel-checkpoint.json
latscope -k -T 4 --checkpoint 1s --json cp-final.json >cp.out 2>&1
expect_rc "checkpoint every second, to the end" $? 0
has "checkpoint: the final JSON is not a checkpoint" cp-final.json '"checkpoint": false'
if grep -q "checkpoint" cp.out; then nok "checkpoints all taken" "$(cat cp.out)"; else ok "checkpoints all taken"; fi

latscope -T 60 >k9.out 2>&1 &
pid=$!
sleep 2
kill -9 $pid
wait $pid
latscope -i -T 1 >k9.out 2>&1
expect_rc "kill -9, then a new run" $? 0

su nobody -s /bin/sh -c 'latscope -T 1' >perm.out 2>&1
expect_rc "not root: setup error" $? 3
has "not root: says what to do" perm.out 'no permission to open /dev/latscope: run as root'
# A group granted the device: timer runs, -b needs CAP_SYS_ADMIN too.
chmod 666 /dev/latscope
su nobody -s /bin/sh -c 'latscope -i -c 0 -T 1 -q' >granted.out 2>&1
expect_rc "granted device, not root: a timer run" $? 0
su nobody -s /bin/sh -c 'latscope -i -c 0 -T 1 -b 500' >granted-b.out 2>&1
expect_rc "granted device, not root: -b refused, setup error" $? 3
has "granted device, not root: -b says what to do" granted-b.out \
	"refused the setup for CPU0: -b needs CAP_SYS_ADMIN too: run as root, or load latscope with trusted_group=1"
# --why tells what other tasks ran: CAP_PERFMON, or trusted_group.
su nobody -s /bin/sh -c 'latscope -i -c 0 -T 1 --why' >granted-why.out 2>&1
expect_rc "granted device, not root: --why refused, setup error" $? 3
has "granted device, not root: --why says what to do" granted-why.out \
	"refused the setup for CPU0: --why needs CAP_PERFMON too: run as root, or load latscope with trusted_group=1"
echo Y >/sys/module/latscope/parameters/trusted_group
su nobody -s /bin/sh -c 'latscope -i -c 0 -T 1 -q --why' >trusted-why.out 2>&1
expect_rc "trusted_group=Y, not root: --why runs" $? 0
echo N >/sys/module/latscope/parameters/trusted_group
chmod 600 /dev/latscope
# max_running_per_cpu: a CPU that runs its share refuses a run, named.
echo 1 >/sys/module/latscope/parameters/max_running_per_cpu
latscope -i -c 0 -T 30 >cap1.out 2>&1 &
cap1=$!
wait_for cap1.out "^RTD" 30 || nok "max_running_per_cpu=1: the first run runs" "$(cat cap1.out)"
latscope -i -c 0 -T 1 >cap2.out 2>&1
rc=$?
kill -INT $cap1
wait $cap1
echo 16 >/sys/module/latscope/parameters/max_running_per_cpu
expect_rc "max_running_per_cpu=1: a second run on CPU0, setup error" $rc 3
has "max_running_per_cpu=1: says why" cap2.out "cannot start measuring on CPU0: the module's max_running_per_cpu sessions run there already"

# cyclictest beside latscope, same CPU, period and priority. No bound is
# asserted (TCG timings are not real): the figures go to the log.
cyclictest -m -q -p 90 -i 1000 -a 1 -t 1 -D 3 >ct.out 2>&1
expect_rc "cyclictest ran" $? 0
latscope -u -c 1 -P 90 -p 1000 -T 3 -q >ls.out 2>&1
expect_rc "latscope beside it" $? 0
echo "CMP| cyclictest -m -p 90 -i 1000 -a 1 -t 1 -D 3 (us):"
sed 's/^/CMP|   /' ct.out
echo "CMP| latscope -u -c 1 -P 90 -p 1000 -T 3 (us):"
grep '^RTS|' ls.out | sed 's/^/CMP|   /'

latscope -p 5 >bad.out 2>&1
expect_rc "bad period: usage error" $? 2
has "bad period: names the value" bad.out "invalid value '5' for -p/--period"
latscope --cpus 7 -T 1 >bad.out 2>&1
expect_rc "offline CPU: setup error" $? 3
has "offline CPU: names it" bad.out 'CPU7 is not online (online: 0-1)'
latscope -T 1 -g irq.plot >bad.out 2>&1
expect_rc "existing plot: refused" $? 3
has "existing plot: says --force" bad.out 'irq.plot exists: remove it or pass --force'
latscope -i -T 1 -g irq.plot --force >/dev/null 2>&1
expect_rc "existing plot with --force" $? 0
mv /dev/latscope /dev/latscope.away
latscope -T 1 >bad.out 2>&1
expect_rc "no device: setup error" $? 3
has "no device: says to load it" bad.out 'no /dev/latscope: load the driver first'
mv /dev/latscope.away /dev/latscope
# A full disk: the files that cannot be written go to stdout instead, the
# old plot file stays whole, and no temporary file is left.
mkdir -p /full && mount -t tmpfs -o size=64k tmpfs /full
echo old >/full/kept.plot
dd if=/dev/zero of=/full/fill bs=4k 2>/dev/null
latscope -i -T 2 -g /full/kept.plot --force --json /full/new.json >full.out 2>full.err
expect_rc "full disk: runtime error" $? 1
has "full disk: names the file and the cause" full.err 'cannot write /full/kept.plot: No space left on device'
has "full disk: summary printed" full.out '^RTS|'
sed -n '\|^=== latscope: /full/kept.plot could not|,\|^=== latscope: end of /full/kept.plot|p' full.out >rescued.plot
plot_adds_up "full disk: the plot is on stdout, whole" rescued.plot
has "full disk: the JSON is on stdout" full.out '^=== latscope: end of /full/new.json ===$'
if [ "$(cat /full/kept.plot)" = old ]; then
	ok "full disk: old plot kept"
else
	nok "full disk: old plot kept" "$(head -c 80 /full/kept.plot)"
fi
extra=
for f in /full/*; do
	case $f in
	/full/fill | /full/kept.plot) ;;
	*) [ -e "$f" ] && extra="$extra $f" ;;
	esac
done
if [ -z "$extra" ]; then ok "full disk: no temporary file"; else nok "full disk: no temporary file" "$(ls /full)"; fi
umount /full

if [ -z "$(ls /tmp/*.plot.* /tmp/*.json.* 2>/dev/null)" ]; then
	ok "no temporary file left"
else
	nok "no temporary file left" "$(ls /tmp)"
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
