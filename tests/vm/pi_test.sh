# shellcheck shell=sh
# In the emulated Raspberry Pi 3 (qemu -M raspi3b), booted with Debian's
# bcm2837-rpi-3-b.dtb plus latscope-gpio.dtbo as loopback_pin=25 leaves it:
# the latscope,gpio device bound from the overlay, its three lines held by
# latscope, a timer run, and a loopback run on the device tree's lines.
# QEMU's BCM2835 GPIO model raises no interrupts, so that run's pulses are
# all lost: it checks the atomic pulse-out path and the lines' life cycle.
. /vm_lib.sh

dev=/sys/bus/platform/drivers/latscope-gpio/latscope
if [ -e "$dev" ]; then ok "device bound from the overlay"; else nok "device bound from the overlay" "no $dev"; fi
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# gpiolib's debugfs: " gpio-536 (GPIO24 |latscope pulse-in ) in  lo"
grep latscope /sys/kernel/debug/gpio >/tmp/lines 2>&1
cat /tmp/lines
has "pulse-in GPIO24 held, input" /tmp/lines "(GPIO24 *|latscope pulse-in *) in "
has "ack-out GPIO23 held, output" /tmp/lines "(GPIO23 *|latscope ack-out *) out "
has "pulse-out GPIO25 held, output" /tmp/lines "(GPIO25 *|latscope pulse-out *) out "

latscope -k -T 3 -p 1000 -H 500 -g /tmp/pi-timer.plot >/tmp/timer.out 2>&1
expect_rc "timer run on the Pi" $? 0
cat /tmp/timer.out
has "timer run: summary" /tmp/timer.out "^RTS|"
plot_adds_up "timer run: plot adds up" /tmp/pi-timer.plot

latscope -k --gpio-dt -p 20000 -T 3 >/tmp/loop.out 2>&1
expect_rc "loopback on the overlay's lines" $? 0
cat /tmp/loop.out
has "loopback: the overlay's lines" /tmp/loop.out "^GPIO| loopback, pulse-out latscope:pulse-out"
has "loopback: pulses sent and lost (QEMU raises no GPIO irq)" /tmp/loop.out "GPIO| 0 acks, [1-9][0-9]* pulses lost, 0 stray edges; no arrival seen"
if grep -q "may sleep" /tmp/loop.out; then
	nok "loopback: BCM2835 lines driven atomically" "$(grep 'may sleep' /tmp/loop.out)"
else
	ok "loopback: BCM2835 lines driven atomically"
fi
grep latscope /sys/kernel/debug/gpio >/tmp/lines-after 2>&1
if cmp -s /tmp/lines /tmp/lines-after; then ok "lines given back to the device"; else nok "lines given back to the device" "$(cat /tmp/lines-after)"; fi

echo "pi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
