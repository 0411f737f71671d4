#!/bin/sh
# The recorder's price, one side of scripts/why-cost.sh, inside the VM
# (busybox sh): ROUNDS rounds of SECONDS-second runs on CPU1, in the
# kernel and user contexts, quiet and under --stress grinder, each run
# once with the recorder (--why) and once without (--no-why), the order
# swapped every round. Each run's JSON goes to the host as
# why-cost-LOAD-CONTEXT-VARIANT-ROUND.json.
secs=${1:-10}
rounds=${2:-5}
cd /tmp || exit 1
rc=0
r=1
while [ $r -le "$rounds" ]; do
	if [ $((r % 2)) = 1 ]; then order="off on"; else order="on off"; fi
	for load in quiet grinder; do
		stress=
		[ $load = grinder ] && stress="--stress grinder"
		for ctx in kernel user; do
			for v in $order; do
				why=--why
				[ "$v" = off ] && why=--no-why
				f=why-cost-$load-$ctx-$v-$r.json
				# shellcheck disable=SC2086 # $stress is two words or none
				latscope -"$(echo $ctx | cut -c1)" -c 1 -T "$secs" -q $stress $why \
					--json "$f" >/dev/null 2>&1 || { echo "not ok - $f: exit $?"; rc=1; }
				sed -n '/"total"/,/"avg"/s/.*"avg": \(.*\),/# '"$f"': avg \1 us/p' "$f"
				echo "LATSCOPE-FILE-BEGIN $f"
				cat "$f"
				echo "LATSCOPE-FILE-END"
			done
		done
	done
	r=$((r + 1))
done
exit $rc
