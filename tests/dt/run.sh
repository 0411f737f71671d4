#!/bin/bash
# Device-tree checks: every overlay compiles with dtc -@ and no warning,
# latscope-gpio.dtbo applies to Debian's Raspberry Pi DTBs with the
# lines, pinctrl and parameters it documents (tests/dt/check_overlay.py),
# and latscope-monitor.dtbo with the monitor role's node and pins;
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
# The monitor role's overlay: its node and pins in the Pi 3 and 4 trees.
broadcom=$(echo "$tree"/usr/lib/linux-image-*/broadcom)
mkdir -p "$work/monitor"
for base in bcm2837-rpi-3-b bcm2711-rpi-4-b; do
	merged=$work/monitor/$base-monitor.dtb
	if ! fdtoverlay -i "$broadcom/$base.dtb" -o "$merged" "$work/latscope-monitor.dtbo"; then
		echo "not ok - latscope-monitor applies to $base"
		status=1
		continue
	fi
	gpio=$(fdtget -t x "$merged" /soc/gpio@7e200000 phandle)
	got="$(fdtget -t x "$merged" /latscope pulse-out-gpios) / $(fdtget -t x "$merged" /latscope ack-in-gpios)"
	pins="$(fdtget "$merged" /soc/gpio@7e200000/latscope_mon_pins brcm,pins) / $(fdtget "$merged" /soc/gpio@7e200000/latscope_mon_pins brcm,function) / $(fdtget "$merged" /soc/gpio@7e200000/latscope_mon_pins brcm,pull)"
	if [ "$got" = "$gpio 19 0 / $gpio 18 0" ] && [ "$pins" = "25 24 / 1 0 / 0 2" ] &&
		! fdtget "$merged" /latscope pulse-in-gpios >/dev/null 2>&1; then
		echo "ok - latscope-monitor on $base: pulse-out GPIO25, ack-in GPIO24 (pulled up)"
	else
		echo "not ok - latscope-monitor on $base: lines '$got' (gpio $gpio), pins '$pins'"
		status=1
	fi
done
# The trees merged here, against the binding.
"$top/tests/dt/binding.sh" "$work" "$work"/bcm27*.dtb "$work"/bcm28*.dtb \
	"$work"/monitor/*.dtb || status=1
exit $status
