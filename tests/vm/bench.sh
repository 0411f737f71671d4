#!/bin/sh
# The user context against cyclictest, and against another build of
# latscope, in one boot: one side of scripts/bench.sh, inside the VM
# (busybox sh). ROUNDS rounds; in each, every variant measures CPU1 for
# SECONDS at a 1 ms period, SCHED_FIFO 90, the order rotated every round
# so that no variant always follows the same one:
#   new  latscope -u with /latscope.ko (this tree)
#   old  /bin/latscope-old -u with /latscope-old.ko (scripts/bench.sh's
#        REV), when the image has them
#   ct   cyclictest -m -p 90 -i 1000 -a 1 -t 1, its histogram in 1 us
#        cells up to 60 ms
#   pulse /bench_loop pulse: the smallest responder on /latscope.ko's
#        PULSE, without the CLI (tests/vm/bench_loop.c)
#   sleep /bench_loop sleep: the same loop on clock_nanosleep, the path
#        cyclictest takes
# Each run's result goes to the host as bench-VARIANT-ROUND.json (the
# CLI's JSON) or bench-VARIANT-ROUND.txt (ct, pulse, sleep: cyclictest's
# summary and the cells that are not empty).
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh
secs=${1:-20}
rounds=${2:-10}
rc=0
variants="new ct pulse sleep"
[ -f /latscope-old.ko ] && [ -x /bin/latscope-old ] && variants="new old ct pulse sleep"

# The variants, the first @1 of them moved to the end.
rotate() { # count
	# shellcheck disable=SC2086 # the variants, a word each
	set -- "$1" $variants
	n=$1
	shift
	while [ "$n" -gt 0 ]; do
		first=$1
		shift
		set -- "$@" "$first"
		n=$((n - 1))
	done
	echo "$@"
}

mkdir -p /tmp/bench && cd /tmp/bench || exit 1
nvar=$(echo "$variants" | wc -w)
r=1
while [ $r -le "$rounds" ]; do
	for v in $(rotate $((r % nvar))); do
		case $v in
		new | old)
			use_module "$v" || { echo "not ok - insmod $v"; rc=1; break 2; }
			cli=latscope
			[ "$v" = old ] && cli=latscope-old
			f=bench-$v-$r.json
			$cli -u -c 1 -p 1000 -P 90 -T "$secs" -q --json "$f" >"$v.out" 2>&1 ||
				{ echo "not ok - $f: exit $?: $(cat "$v.out")"; rc=1; continue; }
			sed -n '/"total"/,/"avg"/s|.*"avg": \(.*\),|# round '"$r $v"': avg \1 us|p' "$f"
			;;
		ct)
			f=bench-ct-$r.txt
			cyclictest -m -q -p 90 -i 1000 -a 1 -t 1 -D "$secs" -h 60000 >ct.out 2>&1 ||
				{ echo "not ok - $f: exit $?: $(tail -n 3 ct.out)"; rc=1; continue; }
			# The summary and the cells with samples in them.
			awk '/^#/ || ($1 ~ /^[0-9]+$/ && $2 > 0)' ct.out >"$f"
			sed -n "s|^# Avg Latencies: *0*\([0-9]*\).*|# round $r ct: avg \1 us|p" "$f"
			;;
		pulse | sleep)
			[ "$v" = pulse ] && { use_module new || { echo "not ok - insmod new"; rc=1; break 2; }; }
			f=bench-$v-$r.txt
			/bench_loop "$v" "$secs" >"$f" 2>loop.err ||
				{ echo "not ok - $f: exit $?: $(cat loop.err)"; rc=1; continue; }
			sed -n "s|^# Avg Latencies: *0*\([0-9]*\).*|# round $r $v: avg \1 us|p" "$f"
			;;
		esac
		dump "$f" "$f"
	done
	r=$((r + 1))
done
use_module new || rc=1
[ $rc = 0 ] && echo "ok - bench: $rounds rounds of $variants, $secs s each"
exit $rc
