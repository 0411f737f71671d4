#!/bin/bash
# scripts/bench.py on hand-made runs: the ratios it prints are those of
# the figures written here (cyclictest's 99th percentile from its cells,
# latscope's from its percentile range), rounds without a partner are
# left out, the kernel and irq contexts get their rows against rtla's,
# the bare loops (tests/vm/bench_loop.c) get their rows, a
# median from 6 rounds its 95 % interval, boots of one kernel are put
# side by side with a verdict, and a cyclictest file without its summary
# is refused.
# Ends with "bench: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
has() { # name, file, fixed string
	if grep -qF -- "$3" "$2"; then ok "$1"; else nok "$1" "no '$3' in: $(cat "$2")"; fi
}

latscope_json() { # file, avg, p99 lo, p99 hi, max, min
	printf '{"total": {"min": %s, "avg": %s, "max": %s, "percentile_ranges": {"99": [%s, %s]}}}\n' \
		"$6" "$2" "$5" "$3" "$4" >"$1"
}
cyclictest_txt() { # file, avg, max, then "cell count" pairs
	local f=$1 avg=$2 max=$3
	shift 3
	{
		echo "# Min Latencies: 00010"
		echo "# Avg Latencies: $avg"
		echo "# Max Latencies: $max"
		echo "# Histogram Overflows: 00000"
		printf '%s\n' "$@"
	} >"$f"
}

d=$tmp/6.12-amd64
mkdir -p "$d"
for r in 1 2 3; do
	# cyclictest: 99 samples at 20 us, 1 at 40: p99 is 20.5.
	cyclictest_txt "$d/bench-ct-$r.txt" 00020 00040 "000020 000099" "000040 000001"
	latscope_json "$d/bench-new-$r.json" $((20 + r * 2)) 40 41 80 12
	latscope_json "$d/bench-old-$r.json" 20 20 21 40 11
	# The loops: pulse 22, sleep 20 (p99 20.5 both), in every round but 4.
	cyclictest_txt "$d/bench-pulse-$r.txt" 00022 00044 "000020 000100"
	cyclictest_txt "$d/bench-sleep-$r.txt" 00020 00040 "000020 000100"
done
# A round the old build did not finish: left out of its rows.
cyclictest_txt "$d/bench-ct-4.txt" 00020 00040 "000020 000100"
latscope_json "$d/bench-new-4.json" 20 20 21 40 12
python3 "$top/scripts/bench.py" "--old=c5c696b" "$d" >"$tmp/table.md" 2>&1
st=$?
if [ $st = 0 ]; then ok "bench.py: exit 0"; else nok "bench.py: exit 0" "exit $st: $(cat "$tmp/table.md")"; fi
# new/ct avg: 22/20, 24/20, 26/20, 20/20: median of 1.1 1.2 1.3 1.0 is 1.15.
has "new against cyclictest: 4 rounds, avg ratio median and range" "$tmp/table.md" \
	"| 6.12-amd64 | new | cyclictest | 4 | 23.0 | 1.15 (1.00-1.30) |"
# p99: 40.5/20.5 in rounds 1-3; round 4 (100 at 20) 20.5/20.5.
has "new against cyclictest: p99 from the cells and the range" "$tmp/table.md" \
	"| 1.98 (1.00-1.98) | 2.00 (1.00-2.00) | 12.0-12.0 |"
has "old against cyclictest: 3 rounds" "$tmp/table.md" \
	"| 6.12-amd64 | old | cyclictest | 3 | 20.0 | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 11.0-11.0 |"
has "new against old: 3 rounds" "$tmp/table.md" \
	"| 6.12-amd64 | new | old | 3 | 24.0 | 1.20 (1.10-1.30) | 1.98 (1.98-1.98) | 2.00 (2.00-2.00) |"
has "the old build named" "$tmp/table.md" "old is c5c696b"
# pulse/sleep 22/20 every round; new/pulse (22, 24, 26)/22; sleep/ct 1.
has "the driver's path: pulse loop against sleep loop" "$tmp/table.md" \
	"| 6.12-amd64 | pulse | sleep loop | 3 | 22.0 | 1.10 (1.10-1.10) | 1.00 (1.00-1.00) | 1.10 (1.10-1.10) | 10.0-10.0 |"
has "the CLI's part: new against the pulse loop" "$tmp/table.md" \
	"| 6.12-amd64 | new | pulse loop | 3 | 24.0 | 1.09 (1.00-1.18) | 1.98 (1.98-1.98) | 1.82 (1.82-1.82) |"
has "the tools' own ways: sleep loop against cyclictest" "$tmp/table.md" \
	"| 6.12-amd64 | sleep | cyclictest | 3 | 20.0 | 1.00 (1.00-1.00) |"

# A "# avg: X us" line (cyclictest's JSON, bench_loop) is the average.
dp=$tmp/6.12-precise
mkdir -p "$dp"
cyclictest_txt "$dp/bench-ct-1.txt" 00020 00040 "000020 000100"
echo "# avg: 20.50 us" >>"$dp/bench-ct-1.txt"
latscope_json "$dp/bench-new-1.json" 20.5 20 21 40 12
python3 "$top/scripts/bench.py" "$dp" >"$tmp/precise.md" 2>&1
has "a '# avg:' line is the average, not the summary's whole us" "$tmp/precise.md" \
	"| 6.12-precise | new | cyclictest | 1 | 20.5 | 1.00 (1.00-1.00) |"
rm "$dp/bench-new-1.json"

# cyclictest -N: "# unit: ns" first, the summary and 1 ns cells in ns;
# 99 of 100 samples by 20400 ns: p99 in the 20 us cell, 20.5 us.
{
	echo "# unit: ns"
	echo "# Min Latencies: 20100"
	echo "# Avg Latencies: 20410"
	echo "# Max Latencies: 41000"
	echo "# Histogram Overflows: 00000"
	echo "020100 000050"
	echo "020400 000049"
	echo "041000 000001"
	echo "# avg: 20.410 us"
} >"$dp/bench-ct-2.txt"
latscope_json "$dp/bench-new-2.json" 20.41 20 21 41 20.1
python3 "$top/scripts/bench.py" "$dp" >"$tmp/ns.md" 2>&1
has "cyclictest in ns: min, avg, p99 and max in us" "$tmp/ns.md" \
	"| 6.12-precise | new | cyclictest | 1 | 20.4 | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 20.1-20.1 |"

# From 6 rounds the median gets its distribution-free 95 % interval:
# ratios 1.0 to 1.9 over 10 rounds, the 2nd smallest to the 2nd largest.
d10=$tmp/6.1-amd64
mkdir -p "$d10"
for r in 0 1 2 3 4 5 6 7 8 9; do
	cyclictest_txt "$d10/bench-ct-$r.txt" 00010 00040 "000010 000100"
	latscope_json "$d10/bench-new-$r.json" "1$r" 10 11 40 5
done
python3 "$top/scripts/bench.py" "$d10" >"$tmp/ten.md" 2>&1
has "10 rounds: the median and its 95 % interval" "$tmp/ten.md" \
	"| 6.1-amd64 | new | cyclictest | 10 | 14.5 | 1.45 [1.10-1.80] (1.00-1.90) |"

# The kernel and irq contexts against rtla timerlat hist -n -b 1000 in
# the same round: irq 5.6 us avg, its p99 in the 6 us cell; the thread
# 8.1 us, 99 of its 100 samples by the 9 us cell (one past the cells).
rtla_txt() { # file
	cat >"$1" <<-'END'
		# RTLA timerlat histogram
		# Time unit is nanoseconds (ns)
		# Duration:   0 00:00:05
		Index   IRQ-001   Thr-001
		5000          90         0
		6000          10        50
		9000           0        49
		over:          0         1
		count:       100       100
		min:        5100      6200
		avg:        5600      8100
		max:        6900     70000000
		ALL:        IRQ       Thr
		count:       100       100
		min:        1         1
		avg:        1         1
		max:        1         1
	END
}
dk=$tmp/6.12-rt-amd64
mkdir -p "$dk"
for r in 1 2; do
	rtla_txt "$dk/bench-rtla-$r.txt"
	latscope_json "$dk/bench-kern-$r.json" 8.91 9 10 70000 6
	latscope_json "$dk/bench-irq-$r.json" 5.6 6 7 6.9 5
done
latscope_json "$dk/bench-kern-3.json" 8 9 10 70000 6
python3 "$top/scripts/bench.py" "$dk" >"$tmp/rtla.md" 2>&1
has "-k against rtla's thread: 2 rounds, avg 8.91/8.1, p99 9.5/9.5" "$tmp/rtla.md" \
	"| 6.12-rt-amd64 | kern | rtla timerlat thread | 2 | 8.9 | 1.10 (1.10-1.10) | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) |"
has "-i against rtla's irq: avg, p99 (6.5/6.5) and max" "$tmp/rtla.md" \
	"| 6.12-rt-amd64 | irq | rtla timerlat irq | 2 | 5.6 | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) | 1.00 (1.00-1.00) |"
sed 's/nanoseconds (ns)/microseconds (us)/' "$dk/bench-rtla-1.txt" >"$dk/bench-rtla-4.txt"
python3 "$top/scripts/bench.py" "$dk" >"$tmp/bad.out" 2>&1
st=$?
if [ $st = 1 ] && grep -qF "bench-rtla-4.txt: not rtla timerlat hist -n output" "$tmp/bad.out"; then
	ok "rtla output not in ns: exit 1, named"
else
	nok "rtla output not in ns: exit 1, named" "exit $st: $(cat "$tmp/bad.out")"
fi

# Boots of one kernel (KERNEL-bootN) side by side: new/ct 1.2 in every
# round of boots 1 and 2, 0.9 to 1.4 in boot 3; pulse/sleep 1.1 in boot 1
# and 0.9 in boot 2.
for b in 1 2 3; do
	mkdir -p "$tmp/boots/6.6-rt-boot$b"
	for r in 1 2 3 4 5 6; do
		cyclictest_txt "$tmp/boots/6.6-rt-boot$b/bench-ct-$r.txt" 00010 00040 "000010 000100"
		avg=12
		[ $b = 3 ] && avg=$((8 + r))
		latscope_json "$tmp/boots/6.6-rt-boot$b/bench-new-$r.json" $avg 10 11 40 5
		[ $b = 3 ] && continue
		cyclictest_txt "$tmp/boots/6.6-rt-boot$b/bench-sleep-$r.txt" 00010 00040 "000010 000100"
		cyclictest_txt "$tmp/boots/6.6-rt-boot$b/bench-pulse-$r.txt" $(((b == 1) ? 11 : 9)) 00040 "000010 000100"
	done
done
python3 "$top/scripts/bench.py" "$tmp/boots/6.6-rt-boot1" "$tmp/boots/6.6-rt-boot2" >"$tmp/boots.md" 2>&1
has "two boots that agree: above 1 in every boot" "$tmp/boots.md" \
	"| 6.6-rt | new | cyclictest | 2 | 1: 1.20 [1.20-1.20]; 2: 1.20 [1.20-1.20] | above 1 in every boot |"
has "two boots on either side of 1: they disagree" "$tmp/boots.md" \
	"| 6.6-rt | pulse | sleep loop | 2 | 1: 1.10 [1.10-1.10]; 2: 0.90 [0.90-0.90] | the boots disagree: no difference at this precision |"
python3 "$top/scripts/bench.py" "$tmp"/boots/6.6-rt-boot* >"$tmp/boots3.md" 2>&1
has "a third boot whose interval spans 1: no difference" "$tmp/boots3.md" \
	"| 6.6-rt | new | cyclictest | 3 | 1: 1.20 [1.20-1.20]; 2: 1.20 [1.20-1.20]; 3: 1.15 [0.90-1.40] | above 1 in 2 of 3 boots: no difference at this precision |"
if grep -q "| boots |" "$tmp/ten.md"; then nok "one boot a kernel: no boots table" "$(cat "$tmp/ten.md")"; else ok "one boot a kernel: no boots table"; fi

echo "# Avg Latencies: 00020" >"$d/bench-ct-5.txt"
python3 "$top/scripts/bench.py" "$d" >"$tmp/bad.out" 2>&1
st=$?
if [ $st = 1 ]; then ok "a cyclictest file without Min/Max: exit 1"; else nok "a cyclictest file without Min/Max: exit 1" "exit $st"; fi
has "a cyclictest file without Min/Max: named" "$tmp/bad.out" "bench-ct-5.txt: no Min/Avg/Max Latencies lines"

if [ "$(wc -l <"$tmp/bad.out")" = 1 ]; then ok "a bad file: one error line"; else nok "a bad file: one error line" "$(cat "$tmp/bad.out")"; fi
rm "$d/bench-ct-5.txt"
echo '{"total": {"avg": 1}}' >"$d/bench-new-6.json"
python3 "$top/scripts/bench.py" "$d" >"$tmp/bad.out" 2>&1
st=$?
if [ $st = 1 ]; then ok "a JSON without the figures: exit 1"; else nok "a JSON without the figures: exit 1" "exit $st"; fi
has "a JSON without the figures: named" "$tmp/bad.out" "bench-new-6.json: not the CLI's JSON"

echo "bench: $pass passed, $fail failed"
[ $fail = 0 ]
