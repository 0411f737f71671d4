#!/bin/sh
# What a once-a-second SNAPSHOT costs the user responder with the
# recorder on: one side of scripts/snapshot-cost.sh, inside the VM
# (busybox sh). ROUNDS rounds of SECONDS-second `-u --why` runs on CPU1,
# each once with `--checkpoint 1s` (a SNAPSHOT of the session every
# second, as the exporter takes them) and once without, the order
# swapped every round; quiet, and with the recorder's builder starved (a
# SCHED_FIFO 2 stress-ng worker loading CPU0, where the builder runs,
# 80 % of the time in slices of up to 0.5 s). With /latscope-old.ko in the
# image (LATSCOPE_VM_OLD_DRIVER) every round runs on it too, swapped in
# with rmmod and insmod. Each run's JSON goes to the host as
# MODULE-why-cost-LOAD-user-VARIANT-ROUND.json (MODULE: new, old).
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh
secs=${1:-8}
rounds=${2:-4}
rc=0
mods=new
[ -f /latscope-old.ko ] && mods="new old"

r=1
while [ $r -le "$rounds" ]; do
	if [ $((r % 2)) = 1 ]; then order="off on"; else order="on off"; fi
	for mod in $mods; do
		use_module "$mod" || { echo "not ok - insmod $mod"; rc=1; break 2; }
		mkdir -p "/tmp/$mod" && cd "/tmp/$mod" || exit 1
		for load in quiet starved; do
			for v in $order; do
				cp=
				[ "$v" = on ] && cp="--checkpoint 1s"
				f=why-cost-$load-user-$v-$r.json
				hog=
				if [ $load = starved ]; then
					stress-ng --cpu 1 --cpu-load 80 --taskset 0 --sched fifo \
						--sched-prio 2 -t $((secs + 4)) >/dev/null 2>&1 &
					hog=$!
				fi
				# shellcheck disable=SC2086 # $cp is two words or none
				latscope -u -c 1 -T "$secs" -q --why $cp --json "$f" >/dev/null 2>&1 ||
					{ echo "not ok - $mod/$f: exit $?"; rc=1; }
				[ -n "$hog" ] && { kill "$hog" 2>/dev/null; wait "$hog"; }
				sed -n '/"total"/,/"avg"/s|.*"avg": \(.*\),|# '"$mod/$f"': avg \1 us|p' "$f"
				dump "$mod-$f" "$f"
			done
		done
	done
	r=$((r + 1))
done
use_module new || rc=1

# The recorder's tracepoints, hooked by each SETUP that finds them
# unhooked, and unhooked by the close of the last: what that costs the
# SETUP's caller, and a CPU measured meanwhile, against keeping them
# hooked (another session holding a recorder). A -k run on CPU1 beside
# nothing (none), a held recorder (held), SETUP+close cycles without a
# pause that hook each time (cold), and the same beside a held recorder
# (warm): files hooks-why-cost-LOAD-kernel-VARIANT-ROUND.json for the
# pairs held/none, cold/none and warm/held.
mkdir -p /tmp/hooks && cd /tmp/hooks || exit 1
holder=
hold() {
	/hook_cost hold 100000 >held.out 2>&1 &
	holder=$!
	wait_until 30 grep -q held held.out || { echo "not ok - hook_cost hold"; rc=1; }
}
unhold() {
	kill "$holder"
	wait "$holder"
}
r=1
while [ $r -le "$rounds" ]; do
	/hook_cost setups 30 | sed "s/^/# round $r, unhooked: /"
	hold
	/hook_cost setups 30 | sed "s/^/# round $r, held: /"
	unhold
	if [ $((r % 2)) = 1 ]; then order="none held cold warm"; else order="warm cold held none"; fi
	for v in $order; do
		loop=
		case $v in held | warm) hold ;; esac
		case $v in cold | warm) /hook_cost loop $((secs + 2)) >loop.out 2>&1 & loop=$! ;; esac
		latscope -k -c 1 -T "$secs" -q --json "$v-$r.json" >/dev/null 2>&1 ||
			{ echo "not ok - hooks/$v-$r.json: exit $?"; rc=1; }
		[ -z "$loop" ] || { wait "$loop"; sed "s/^/# round $r, $v: /" loop.out; }
		case $v in held | warm) unhold ;; esac
		sed -n '/"total"/,/"avg"/s|.*"avg": \(.*\),|# hooks/'"$v-$r"': avg \1 us|p' "$v-$r.json"
	done
	for pair in held:held:none cold:cold:none warm:warm:held; do
		load=${pair%%:*}
		on=${pair#*:}
		on=${on%%:*}
		off=${pair##*:}
		for v in on off; do
			if [ $v = on ]; then f=$on-$r.json; else f=$off-$r.json; fi
			dump "hooks-why-cost-$load-kernel-$v-$r.json" "$f"
		done
	done
	r=$((r + 1))
done
exit $rc
