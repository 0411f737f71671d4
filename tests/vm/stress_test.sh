# shellcheck shell=sh
# latscope's loads inside the test VM (busybox sh, 2 CPUs): each preset
# and --stress-cmd runs while latscope measures CPU1; during the run the
# load's processes must exist, all at SCHED_OTHER and on CPU0 only; after
# every way out (timeout, SIGINT, SIGTERM, -A, a runtime error) none of
# them may be left. Ends with "stress: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh
# The real hackbench, stress-ng and ping, not busybox's applets.
export PATH=/usr/bin:/bin:/sbin:/usr/sbin
ip link set lo up

# Every process's /proc/PID/stat line (no comm here has a space), in one
# process: a cat per file is hundreds of forks with hackbench running, a
# look of several seconds on a loaded host.
proc_stats() {
	cat /proc/[0-9]*/stat 2>/dev/null
}

# "pid comm policy cpus" of every descendant of $1, all read at once: a
# pid read again later may be another process by then (the fork
# stressors of stress-ng wrap pid numbers within seconds). cpus is "?"
# for a process gone between the two reads.
descendants() {
	{ proc_stats; echo "--"; cat /proc/[0-9]*/status 2>/dev/null; } |
		awk -v root="$1" '$0 == "--" { status = 1; next }
		!status && NF > 40 { ppid[$1] = $4; comm[$1] = $2; pol[$1] = $41; next }
		status && /^Pid:/ { pid = $2 }
		status && /^Cpus_allowed_list:/ { cpus[pid] = $2 }
		END { for (p in ppid) { q = ppid[p]; n = 0
			while (q > 1 && q != root && n++ < 64) q = ppid[q]
			if (q == root) print p, comm[p], pol[p], (p in cpus) ? cpus[p] : "?" } }'
}

# The load's processes by name, wherever they are now.
leftovers() {
	proc_stats |
		awk '$2 ~ /^\((hackbench|dd|stress-ng|stress-ng-.*|ping|find|sleep)\)$/ { print $1, $2 }'
}

no_load_left() {
	[ -z "$(leftovers)" ]
}

# Runs latscope in the background with $@ and watches its load over a
# window, not one snapshot: a loop's short-lived processes (dd, hackbench)
# come and go, and on a busy CPU0 under TCG one may not have run yet. What
# cannot be missed is each loop's own shell, whose command line names the
# tool. Watches until every tool named in $want was seen (as a process or
# in a load shell's command line), latscope ended, or 200 looks passed.
# Starts watching once latscope says the load started.
# Sets $lspid; /tmp/load gets each "pid comm policy cpus" seen,
# /tmp/loadcmd each load shell's "pid command line". A child is
# "(latscope)" until it execs, after its policy and CPUs are set.
start_run() {
	latscope -k -c 1 -p 2000 "$@" >/tmp/run.out 2>&1 &
	lspid=$!
	: >/tmp/load
	: >/tmp/loadcmd
	# From the load's start on: before it, latscope's own children ask
	# the tools their versions (on any CPU, and not the load).
	wait_for /tmp/run.out "^load '.*' started on CPU" 60
	i=0
	while [ $i -lt 200 ] && kill -0 "$lspid" 2>/dev/null; do
		descendants "$lspid" | grep -v " (latscope) " >/tmp/now
		cat /tmp/now >>/tmp/load
		sort -u -o /tmp/load /tmp/load
		# Mid-exec a shell already has its name but not yet its
		# arguments (an empty cmdline): it is read again next look.
		awk '$2 == "(sh)" { print $1 }' /tmp/now | while read -r pid; do
			grep -q "^$pid " /tmp/loadcmd && continue
			cmd=$(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null)
			[ -n "$cmd" ] && echo "$pid $cmd" >>/tmp/loadcmd
		done
		i=$((i + 1))
		seen=yes
		for w in $want; do
			tool_seen "$w" || seen=
		done
		[ -n "$seen" ] && [ -s /tmp/load ] && break
		usleep 100000
	done
}

# Waits (30 s at most) for latscope's first per-second line: it measures.
measuring() {
	wait_for /tmp/run.out '^RTD|' 30
}

tool_seen() { # tool
	grep -q "($1)" /tmp/load || grep -q " $1 " /tmp/loadcmd
}

load_ok() { # name, tool expected among the load's processes
	if tool_seen "$2"; then ok "$1: $2 runs"; else nok "$1: $2 runs" "$(cat /tmp/load /tmp/loadcmd)"; fi
	if awk '$3 != 0 { bad = 1 } END { exit bad }' /tmp/load; then
		ok "$1: all SCHED_OTHER"
	else
		nok "$1: all SCHED_OTHER" "$(cat /tmp/load)"
	fi
	off=$(awk '$4 != "0" && $4 != "?"' /tmp/load)
	if [ -z "$off" ]; then ok "$1: all on CPU0"; else nok "$1: all on CPU0" "$off"; fi
}

# latscope has exited: its load is killed, but the kernel may take a
# while to tear down what was killed. Waits for that (20 s at most).
none_left() { # name
	wait_until 20 no_load_left
	left=$(leftovers)
	if [ -z "$left" ]; then ok "$1: nothing of the load left"; else nok "$1: nothing of the load left" "$left"; fi
}

# Each preset, watched until every tool was seen (the run is long enough
# for that however slow the host), then stopped.
for preset in grinder neighbour classic; do
	case $preset in
	grinder) want="hackbench dd" ;;
	neighbour) want=stress-ng ;;
	classic) want="ping dd hackbench" ;;
	esac
	start_run -T 600 --stress $preset --json /tmp/$preset.json -g /tmp/$preset.plot
	for w in $want; do
		load_ok $preset "$w"
	done
	measuring	# so that its files have samples
	kill -INT "$lspid"
	wait "$lspid"
	expect_rc "$preset: run ends on SIGINT" $? 0
	none_left "$preset"
	has "$preset: plot header names the load" /tmp/$preset.plot "^# load: $preset, on CPU0"
	has "$preset: plot header has the commands" /tmp/$preset.plot "^# load command: "
	has "$preset: JSON names the load" /tmp/$preset.json "\"name\": \"$preset\""
	dump "$preset.json" /tmp/$preset.json
done

latscope -k -c 1 -T 2 --stress none --json /tmp/none.json >/dev/null 2>&1
expect_rc "none: runs" $? 0
has "none: JSON says none" /tmp/none.json '"name": "none"'

want='sleep'
start_run -T 5 --stress-cmd 'exec sleep 1000'
load_ok "--stress-cmd" sleep
wait "$lspid"
expect_rc "--stress-cmd: run ends" $? 0
none_left "--stress-cmd"

# Every other way out, with grinder, once its load runs.
want="hackbench dd"
for sig in INT TERM; do
	start_run --stress grinder
	measuring
	kill -"$sig" "$lspid"
	wait "$lspid"
	expect_rc "SIG$sig: clean exit" $? 0
	has "SIG$sig: summary printed" /tmp/run.out "^RTS|"
	none_left "SIG$sig"
done
start_run -T 30 -A 1 --stress grinder
wait "$lspid"
expect_rc "-A 1: threshold exit" $? 102
none_left "-A 1"
start_run -T 30 --stress grinder
measuring
echo 0 >/sys/devices/system/cpu/cpu1/online
wait "$lspid"
expect_rc "CPU offline: runtime error" $? 1
echo 1 >/sys/devices/system/cpu/cpu1/online
none_left "CPU offline"

# A tool that is not there: refused before anything starts.
PATH=/bin latscope -k -c 1 -T 2 --stress neighbour >/tmp/bad.out 2>&1
expect_rc "no stress-ng: setup error" $? 3
has "no stress-ng: says what to install" /tmp/bad.out "needs stress-ng, which is not in PATH: install stress-ng"
latscope --stress heavy >/tmp/bad.out 2>&1
expect_rc "unknown preset: usage error" $? 2

echo "stress: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
