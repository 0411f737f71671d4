#!/bin/bash
# Device-tree checks: every overlay compiles with dtc -@ and no warning,
# and latscope-gpio.dtbo applies to Debian's Raspberry Pi DTBs with the
# lines, pinctrl and parameters it documents (tests/dt/check_overlay.py);
# the merged trees and the binding's example validate against the
# "latscope,gpio" binding (tests/dt/binding.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for src in "$top"/dts-overlays/*-overlay.dts; do
	name=$(basename "$src" -overlay.dts)
	if dtc -@ -I dts -O dtb -o "$work/$name.dtbo" "$src" 2>"$work/dtc.err" &&
		[ ! -s "$work/dtc.err" ]; then
		echo "ok - dtc -@ $name: no warnings"
	else
		echo "not ok - dtc -@ $name:"
		cat "$work/dtc.err"
		status=1
	fi
done
# What loopback_pin does on a Pi: fragments 0 and 1 off, 2 and 3 on.
latscope_loopback_overlay "$top" >"$work/loopback.dts"
dtc -@ -q -I dts -O dtb -o "$work/latscope-gpio-loopback.dtbo" "$work/loopback.dts"
tree=$("$top/scripts/arm64-kernel.sh")
/usr/bin/python3 "$top/tests/dt/check_overlay.py" "$work/latscope-gpio.dtbo" \
	"$work/latscope-gpio-loopback.dtbo" \
	"$(echo "$tree"/usr/lib/linux-image-*/broadcom)" "$work" || status=1
# The trees check_overlay.py merged, against the binding.
"$top/tests/dt/binding.sh" "$work" "$work"/bcm27*.dtb "$work"/bcm28*.dtb || status=1
exit $status
