#!/bin/sh
# The user context against cyclictest, and against another build of
# latscope, in one boot: one side of scripts/bench.sh, inside the VM
# (busybox sh). ROUNDS rounds; in each, every variant measures CPU1 for
# SECONDS at a 1 ms period, SCHED_FIFO 90, the order rotated every round
# so that no variant always follows the same one:
#   new  latscope -u with /latscope.ko (this tree)
#   old  /bin/latscope-old -u with /latscope-old.ko (scripts/bench.sh's
#        REV), when the image has them
#   ct   cyclictest -N -m -p 90 -i 1000 -a 1 -t 1: in ns, its histogram
#        in 1 ns cells up to 1 ms, its average from its --json
#   pulse /bench_loop pulse: the smallest responder on /latscope.ko's
#        PULSE, without the CLI (tests/vm/bench_loop.c)
#   sleep /bench_loop sleep: the same loop on clock_nanosleep, the path
#        cyclictest takes
#   kern latscope -k, the kernel thread, with /latscope.ko
#   irq  latscope -i, the timer's interrupt handler
#   rtla rtla timerlat hist -k -c 1 -p 1000 -P f:90 --warm-up 1: its irq
#        and kernel thread latencies, 1 us cells up to 60 ms, where the
#        kernel has the timerlat tracer (6.12-rt; Debian's mainline 6.12
#        has none) and the image rtla
# VARIANTS (the third argument, comma-separated): only these of them.
# Each run's result goes to the host as bench-VARIANT-ROUND.json (the
# CLI's JSON) or bench-VARIANT-ROUND.txt (ct, pulse, sleep: cyclictest's
# summary and the cells that are not empty; rtla: its histogram).
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh
secs=${1:-20}
rounds=${2:-10}
rc=0
variants="new ct pulse sleep kern irq"
[ -f /latscope-old.ko ] && [ -x /bin/latscope-old ] && variants="new old ct pulse sleep kern irq"
if [ -x /usr/bin/rtla ] && grep -qw timerlat /sys/kernel/tracing/available_tracers 2>/dev/null; then
	variants="$variants rtla"
fi
if [ -n "${3:-}" ]; then
	only=
	for v in $(echo "$3" | tr , ' '); do
		case " $variants " in
		*" $v "*) only="$only $v" ;;
		*) echo "# bench: no variant '$v' here (there are: $variants)" ;;
		esac
	done
	variants=${only# }
	[ -n "$variants" ] || { echo "not ok - bench: none of '$3' can run here"; exit 1; }
fi

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
# The first run of a boot is slow whatever it runs (averages of 0.4 to
# 63 ms under icount, 15 us after): a run of 2 s that counts for
# nothing takes that part.
/bench_loop sleep 2 >/dev/null 2>&1 || echo "# bench: the warm-up run failed"
nvar=$(echo "$variants" | wc -w)
r=1
while [ $r -le "$rounds" ]; do
	for v in $(rotate $((r % nvar))); do
		case $v in
		new | old | kern | irq)
			# The CLI: this tree's or REV's, in the context asked.
			module=new cli=latscope ctx="-u -P 90"
			case $v in
			old) module=old cli=latscope-old ;;
			kern) ctx="-k -P 90" ;;
			irq) ctx=-i ;;
			esac
			use_module "$module" || { echo "not ok - insmod $module"; rc=1; break 2; }
			f=bench-$v-$r.json
			# shellcheck disable=SC2086 # the context's options are words
			$cli $ctx -c 1 -p 1000 -T "$secs" -q --json "$f" >"$v.out" 2>&1 ||
				{ echo "not ok - $f: exit $?: $(cat "$v.out")"; rc=1; continue; }
			sed -n '/"total"/,/"avg"/s|.*"avg": \(.*\),|# round '"$r $v"': avg \1 us|p' "$f"
			;;
		ct)
			f=bench-ct-$r.txt
			rm -f ct.json
			# -N: in ns, its cells 1 ns wide up to 1 ms; in us it
			# truncates each sample before it sums them, an average
			# up to 1 us low.
			cyclictest -N -m -q -p 90 -i 1000 -a 1 -t 1 -D "$secs" -h 1000000 --json=ct.json \
				>ct.out 2>&1 ||
				{ echo "not ok - $f: exit $?: $(tail -n 3 ct.out)"; rc=1; continue; }
			# The summary, the cells with samples in them, and the
			# average to the ns from its JSON.
			{
				echo "# unit: ns"
				awk '/^#/ || ($1 ~ /^[0-9]+$/ && $2 > 0)' ct.out
				awk -F'[:,]' '/^ *"avg":/ { printf "# avg: %.3f us\n", $2 / 1000 }' ct.json
			} >"$f"
			sed -n "s|^# avg: \(.*\)|# round $r ct: avg \1|p" "$f"
			;;
		rtla)
			f=bench-rtla-$r.txt
			# In ns, 1 us cells: the averages to the ns, the cells as cyclictest's.
			# -k: its kernel threads (6.12 uses user threads by
			# default); --warm-up 1: latscope's warm-up, which leaves
			# out the tracer's start.
			rtla timerlat hist -k -c 1 -p 1000 -d "${secs}s" -P f:90 -n -b 1000 -E 60000 \
				--warm-up 1 --no-aa --dma-latency 0 >"$f" 2>rtla.err ||
				{ echo "not ok - $f: exit $?: $(tail -n 3 rtla.err)"; rc=1; continue; }
			sed -n "s|^avg: *\([0-9]*\) *\([0-9]*\).*|# round $r rtla: avg irq \1 ns, thread \2 ns|p" "$f" | head -n 1
			;;
		pulse | sleep)
			[ "$v" = pulse ] && { use_module new || { echo "not ok - insmod new"; rc=1; break 2; }; }
			f=bench-$v-$r.txt
			/bench_loop "$v" "$secs" >"$f" 2>loop.err ||
				{ echo "not ok - $f: exit $?: $(cat loop.err)"; rc=1; continue; }
			sed -n "s|^# avg: \(.*\)|# round $r $v: avg \1|p" "$f"
			;;
		esac
		dump "$f" "$f"
	done
	r=$((r + 1))
done
use_module new || rc=1
[ $rc = 0 ] && echo "ok - bench: $rounds rounds of $variants, $secs s each"
exit $rc
