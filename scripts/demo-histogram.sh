#!/bin/bash
# Draws a latscope plot file (-g) with gnuplot's dumb terminal, count on a
# log scale: the 1 us cells, and the file's "N+" row (the samples at N us
# and more, which the cells do not hold) as a bar of its own past them;
# then one line that says how many samples that bar holds and the
# largest. Used by scripts/demo.sh. Usage: demo-histogram.sh PLOTFILE
set -euo pipefail

plot=$1
cells=$(sed -n 's/^# overflow (\([0-9]*\) us and more): [0-9]*$/\1/p' "$plot")
over=$(sed -n 's/^# overflow ([0-9]* us and more): \([0-9]*\)$/\1/p' "$plot")
count=$(sed -n 's/^# sample count: //p' "$plot")
max=$(sed -n 's/^# max latency: //p' "$plot")
if [ -z "$cells" ] || [ -z "$over" ] || [ -z "$count" ] || [ -z "$max" ]; then
	echo "demo-histogram: $plot is not a latscope plot file (no overflow, sample count or max line)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -E '^[0-9]+ ' "$plot" >"$tmp/cells.dat" || true
bar=$((cells + cells / 10 + 1))
if [ "$over" -gt 0 ]; then
	pct=$(awk -v o="$over" -v n="$count" 'BEGIN { printf "%.2f", 100 * o / n }')
	past="$over of $count samples ($pct %) at $cells us and more, the largest $max us: the bar at the right"
	echo "$bar $over" >"$tmp/over.dat"
	overplot=", '$tmp/over.dat' with impulses lw 3 title '$cells us and more'"
else
	past="no sample at $cells us or more (the largest: $max us)"
	overplot=""
fi
[ -s "$tmp/cells.dat" ] || echo "0 0" >"$tmp/cells.dat"
gnuplot -e "set terminal dumb 100 28; set logscale y; set xlabel 'latency (us)';
	set xrange [0:$((bar + cells / 20 + 1))];
	plot '$tmp/cells.dat' with histeps title '1 us cells'$overplot" 2>"$tmp/gnuplot.log" || {
	cat "$tmp/gnuplot.log" >&2
	exit 1
}
echo "Past the cells (-H $cells): $past."
