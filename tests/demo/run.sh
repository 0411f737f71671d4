#!/bin/bash
# The demo as a newcomer sees it (issue 29): scripts/demo.sh run whole,
# its output checked for no compiler or linker warning and no harness
# line, the "emulated" label on the figures, latscope's summary and exit
# status, the histogram, the samples past its cells said and drawn, and
# the closing commands for a real board. The histogram's overflow bar is
# also checked on plot files where it is known: the checked-in
# overflow.plot (a demo run's file: 57 samples at 200 us and more), the
# same with no sample past the cells, and with every sample past them.
# The static CLI (the one the VMs run) must link without a warning.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() {
	echo "not ok - $1"
	# shellcheck disable=SC2001 # every line of a multi-line text
	[ $# -lt 2 ] || echo "$2" | sed 's/^/    /'
	fail=$((fail + 1))
}
# has NAME FILE TEXT: FILE holds the fixed string TEXT.
has() { if grep -qF -- "$3" "$2"; then ok "$1"; else nok "$1" "no '$3' in $2"; fi; }
# hasnt NAME FILE REGEX: no line of FILE matches REGEX.
hasnt() {
	local hit

	hit=$(grep -inE -- "$3" "$2" | head -3)
	if [ -z "$hit" ]; then ok "$1"; else nok "$1" "$hit"; fi
}

# ---- the histogram's overflow bar, on known plot files ----
fixture=$top/tests/demo/overflow.plot
hist=$top/scripts/demo-histogram.sh
bar() { # NAME PLOT: the bar drawn (its legend and its '#' column)
	if grep -qF "200 us and more ####" "$work/h.out" &&
		[ "$(grep -c '^ *|.*#  *+*|' "$work/h.out")" -ge 3 ]; then
		ok "$1: the bar past the cells is drawn"
	else
		nok "$1: the bar past the cells is drawn" "$(cat "$work/h.out")"
	fi
}
if "$hist" "$fixture" >"$work/h.out" 2>&1; then ok "overflow.plot: drawn"; else nok "overflow.plot: drawn" "$(cat "$work/h.out")"; fi
has "overflow.plot: says how many are past the cells" "$work/h.out" \
	"Past the cells (-H 200): 57 of 9994 samples (0.57 %) at 200 us and more, the largest 3591.645 us"
bar overflow.plot
sed -e 's/^# overflow (200 us and more): 57$/# overflow (200 us and more): 0/' \
	-e 's/^# max latency: .*/# max latency: 199.500/' -e 's/^# sample count: .*/# sample count: 9937/' \
	-e '/^200+ /d' "$fixture" >"$work/none.plot"
if "$hist" "$work/none.plot" >"$work/h.out" 2>&1; then ok "none past: drawn"; else nok "none past: drawn" "$(cat "$work/h.out")"; fi
has "none past: says so" "$work/h.out" "Past the cells (-H 200): no sample at 200 us or more (the largest: 199.500 us)."
hasnt "none past: no bar" "$work/h.out" "us and more"
sed -e 's/^# overflow (200 us and more): 57$/# overflow (200 us and more): 9994/' \
	-e '/^[0-9]* [0-9]*$/d' -e 's/^200+ 57$/200+ 9994/' "$fixture" >"$work/all.plot"
if "$hist" "$work/all.plot" >"$work/h.out" 2>&1; then ok "all past: drawn"; else nok "all past: drawn" "$(cat "$work/h.out")"; fi
has "all past: says so" "$work/h.out" "9994 of 9994 samples (100.00 %) at 200 us and more"
bar "all past"
grep -v '^# overflow' "$fixture" >"$work/bad.plot"
if "$hist" "$work/bad.plot" >"$work/h.out" 2>&1; then
	nok "not a plot file: refused"
else
	has "not a plot file: refused, named" "$work/h.out" "$work/bad.plot is not a latscope plot file"
fi

# ---- the static CLI links without a warning ----
if latscope_static_cli "$top" "$work/latscope-static" >"$work/static.log" 2>&1; then
	ok "static CLI: builds"
else
	nok "static CLI: builds" "$(cat "$work/static.log")"
fi
hasnt "static CLI: no compiler or linker warning" "$work/static.log" "warning"

# ---- the demo, whole ----
if bash "$top/scripts/demo.sh" >"$work/demo.out" 2>&1; then
	ok "demo: exit status 0"
else
	nok "demo: exit status 0" "$(tail -20 "$work/demo.out")"
fi
hasnt "demo: no warning" "$work/demo.out" "warning"
hasnt "demo: no harness line" "$work/demo.out" "LATSCOPE-|^ok - |^not ok|^# [0-9]+-bit"
label="emulated (QEMU, software emulation on this machine): says nothing about a real board"
if [ "$(grep -cF "$label" "$work/demo.out")" -eq 2 ]; then
	ok "demo: the figures and the histogram are labelled emulated"
else
	nok "demo: the figures and the histogram are labelled emulated" "$(head -5 "$work/demo.out")"
fi
has "demo: latscope's summary" "$work/demo.out" "RTS|"
has "demo: latscope's exit status" "$work/demo.out" "exit status 0"
has "demo: the histogram" "$work/demo.out" "latency (us)"
over=$(sed -n 's/^LOS| [0-9]* below 0 us, \([0-9]*\) past the 200 us histogram.*/\1/p' "$work/demo.out")
if [ -z "$over" ] || [ "$over" = 0 ]; then
	has "demo: none past the cells, said" "$work/demo.out" "no sample at 200 us or more"
else
	has "demo: the $over samples past the cells, said" "$work/demo.out" "Past the cells (-H 200): $over of "
	cp "$work/demo.out" "$work/h.out"
	bar "demo"
fi
has "demo: next steps for a real board" "$work/demo.out" "On a real board"
has "demo: next steps: build" "$work/demo.out" "make && make install && modprobe latscope"
has "demo: next steps: measure" "$work/demo.out" "latscope -T 1m -g lat.plot"
echo "demo: $pass passed, $fail failed"
[ $fail -eq 0 ]
