#!/bin/bash
# Boots Debian 12's arm64 6.12 kernel on an emulated Raspberry Pi 3
# (qemu-system-aarch64 -M raspi3b, TCG) with bcm2837-rpi-3-b.dtb plus the
# latscope-gpio overlay as loopback_pin,edge=falling leave it (or, with
# "monitor", the latscope-monitor overlay), and runs tests/vm/pi_test.sh
# there with the cross-built module and CLI.
# Usage: scripts/pi-vm.sh [sut|monitor]. Neither
# poweroff nor reboot ends QEMU on that machine: this script stops it once
# the end marker is on the console. Exits 0 only if the VM says rc=0.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

role=${1:-sut}
case $role in
sut | monitor) ;;
*)	echo "pi-vm: role '$role' is not sut or monitor" >&2
	exit 2 ;;
esac
tree=$("$top/scripts/arm64-kernel.sh")
# A work dir per run: two runs side by side (a lane's Pi stage, the
# packages' arm64 check) do not clobber each other. One that passed goes.
find "$(latscope_cache)" -maxdepth 1 -name "pi-vm-*" -mtime +2 -exec rm -rf {} + 2>/dev/null || true
work=$(mktemp -d "$(latscope_cache)/pi-vm-$role.XXXXXX")
ko=$("$top/scripts/arm64-module.sh" "$work/mod")

# The base DTB with the overlay applied, loopback fragments switched on,
# and edge=falling set as the firmware would (fdtoverlay applies no
# parameter), so the test sees the driver take the device's edge.
base=$(echo "$tree"/usr/lib/linux-image-*/broadcom/bcm2837-rpi-3-b.dtb)
if [ "$role" = monitor ]; then
	dtc -@ -q -I dts -O dtb -o "$work/latscope-monitor.dtbo" \
		"$top/dts-overlays/latscope-monitor-overlay.dts"
	fdtoverlay -i "$base" -o "$work/pi3.dtb" "$work/latscope-monitor.dtbo"
else
	latscope_loopback_overlay "$top" >"$work/loopback.dts"
	dtc -@ -q -I dts -O dtb -o "$work/latscope-gpio.dtbo" "$work/loopback.dts"
	fdtoverlay -i "$base" -o "$work/pi3.dtb" "$work/latscope-gpio.dtbo"
	fdtput -t s "$work/pi3.dtb" /latscope latscope,edge falling
fi

root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp "$tree/bin/busybox" "$root/bin/busybox"
cp "$top/tests/vm/init" "$root/init"
cp "$ko" "$root/latscope.ko"
cp "$top/tests/vm/lib.sh" "$root/vm_lib.sh"
cp "$top/tests/vm/pi_test.sh" "$root/pi_test.sh"
# Without libgpiod: the machine has none for arm64, and QEMU's BCM2835 GPIO
# raises no interrupt for --gpiod to wait on (the GPIO VM tests it).
latscope_static_cli "$top" "$root/bin/latscope" CC=aarch64-linux-gnu-gcc GPIOD=none
# LATSCOPE_PI_DEB: an arm64 latscope .deb (tests/pkg/run.sh) whose CLI
# runs here too, as /usr/bin/latscope-deb, with the arm64 libraries it
# links (multiarch, installed by scripts/install-deps.sh).
if [ -n "${LATSCOPE_PI_DEB:-}" ]; then
	dpkg-deb --fsys-tarfile "$LATSCOPE_PI_DEB" | tar -x -C "$work" ./usr/bin/latscope
	mkdir -p "$root/usr/bin"
	cp "$work/usr/bin/latscope" "$root/usr/bin/latscope-deb"
	"$top/scripts/arm64-libs.sh" "$root/usr/bin/latscope-deb" "$root"
fi
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

log=$work/console.log
qemu-system-aarch64 -M raspi3b -accel tcg -nographic -no-reboot \
	-kernel "$(echo "$tree"/boot/vmlinuz-*)" -dtb "$work/pi3.dtb" \
	-initrd "$work/initrd.gz" \
	-append "console=ttyAMA0 panic=-1 quiet lsmode=pi-$role" >"$log" 2>&1 &
qemu=$!
for _ in $(seq 600); do
	grep -q 'LATSCOPE-VM-END' "$log" 2>/dev/null && break
	kill -0 $qemu 2>/dev/null || break
	sleep 1
done
kill $qemu 2>/dev/null || true
wait $qemu 2>/dev/null || true
tr -d '\r' <"$log" | sed -n '/LATSCOPE-VM-BEGIN/,/LATSCOPE-VM-END/p' |
	sed 's/.*LATSCOPE-VM-BEGIN/LATSCOPE-VM-BEGIN/'
grep -q 'LATSCOPE-VM-BEGIN' "$log" || { echo "pi-vm: the kernel never ran our init:"; tail -n 30 "$log"; }
if grep -q 'LATSCOPE-VM-END rc=0' "$log"; then
	rm -rf "$work"
else
	echo "pi-vm: the VM did not say rc=0; its console and tree are in $work"
	exit 1
fi
