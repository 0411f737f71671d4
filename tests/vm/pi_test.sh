# shellcheck shell=sh
# In the emulated Raspberry Pi 3 (qemu -M raspi3b), booted with Debian's
# bcm2837-rpi-3-b.dtb plus latscope-gpio.dtbo as loopback_pin=25,edge=falling
# leave it: the latscope,gpio device bound from the overlay, its three lines
# held by latscope (pulse-out idle high, as a falling edge wants), a timer
# run, and loopback runs on the device tree's lines, with the device's
# edge and with one from the command line.
# QEMU's BCM2835 GPIO model raises no interrupts, so that run's pulses are
# all lost: it checks the atomic pulse-out path and the lines' life cycle.
# With "monitor": booted with the latscope-monitor overlay instead, the
# device in the monitor role, its two lines held, the monitor's own
# --calibrate run on them (all pulses unanswered here), and a board-under-
# test run refused on them.
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

if [ "${1:-sut}" = monitor ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	grep latscope /sys/kernel/debug/gpio >/tmp/lines 2>&1
	cat /tmp/lines
	has "monitor: pulse-out GPIO25 held, output, idle low" /tmp/lines "(GPIO25 *|latscope pulse-out *) out  *lo"
	has "monitor: ack-in GPIO24 held, input" /tmp/lines "(GPIO24 *|latscope ack-in *) in "
	dmesg | grep "latscope-gpio" >/tmp/probe 2>&1
	has "monitor: probed in the monitor role" /tmp/probe "monitor role: ack-in irq [0-9]*, falling edge, pulse-out present"
	latscope --monitor --calibrate --gpio-dt -p 20000 -T 2 >/tmp/cal.out 2>&1
	expect_rc "monitor: --calibrate on the overlay's lines" $? 0
	cat /tmp/cal.out
	has "monitor: the overlay's lines and edge" /tmp/cal.out "^GPIO| monitor, pulse-out latscope:pulse-out (rising-edge pulses) -> ack-in latscope:ack-in (falling-edge)"
	has "monitor: pulses sent, none answered (QEMU raises no GPIO irq)" /tmp/cal.out "GPIO| 0 acks, [1-9][0-9]* pulses lost"
	latscope -k --gpio-dt -T 1 >/tmp/sut.out 2>&1
	expect_rc "monitor: a board-under-test run refused" $? 3
	has "monitor: says why" /tmp/sut.out "is in the monitor role"
	grep latscope /sys/kernel/debug/gpio >/tmp/lines-after 2>&1
	if cmp -s /tmp/lines /tmp/lines-after; then ok "monitor: lines given back"; else nok "monitor: lines given back" "$(cat /tmp/lines-after)"; fi
	echo "pi: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi

dev=/sys/bus/platform/drivers/latscope-gpio/latscope
if [ -e "$dev" ]; then ok "device bound from the overlay"; else nok "device bound from the overlay" "no $dev"; fi
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# gpiolib's debugfs: " gpio-536 (GPIO24 |latscope pulse-in ) in  lo"
grep latscope /sys/kernel/debug/gpio >/tmp/lines 2>&1
cat /tmp/lines
has "pulse-in GPIO24 held, input" /tmp/lines "(GPIO24 *|latscope pulse-in *) in "
has "ack-out GPIO23 held, output" /tmp/lines "(GPIO23 *|latscope ack-out *) out "
has "pulse-out GPIO25 held, output, idle high for falling" /tmp/lines "(GPIO25 *|latscope pulse-out *) out  *hi"
dmesg | grep "latscope-gpio" >/tmp/probe 2>&1
has "probe read latscope,edge" /tmp/probe "falling edge, loopback pulse-out present"

latscope -k -T 3 -p 1000 -H 500 -g /tmp/pi-timer.plot >/tmp/timer.out 2>&1
expect_rc "timer run on the Pi" $? 0
cat /tmp/timer.out
has "timer run: summary" /tmp/timer.out "^RTS|"
plot_adds_up "timer run: plot adds up" /tmp/pi-timer.plot

lines_back() { # name
	grep latscope /sys/kernel/debug/gpio >/tmp/lines-after 2>&1
	if cmp -s /tmp/lines /tmp/lines-after; then ok "$1"; else nok "$1" "$(cat /tmp/lines-after)"; fi
}

latscope -k --gpio-dt=rising-edge -p 20000 -T 2 >/tmp/rising.out 2>&1
expect_rc "loopback, edge from the command line" $? 0
has "loopback: the command line's edge wins" /tmp/rising.out "^GPIO| loopback, .*(rising-edge)"
lines_back "lines given back at the device's idle level"

latscope -k --gpio-dt -p 20000 -T 3 >/tmp/loop.out 2>&1
expect_rc "loopback on the overlay's lines" $? 0
cat /tmp/loop.out
has "loopback: the overlay's lines and edge" /tmp/loop.out "^GPIO| loopback, pulse-out latscope:pulse-out -> pulse-in latscope:pulse-in (falling-edge)"
has "loopback: pulses sent and lost (QEMU raises no GPIO irq)" /tmp/loop.out "GPIO| 0 acks, [1-9][0-9]* pulses lost, 0 stray edges; no arrival seen"
if grep -q "may sleep" /tmp/loop.out; then
	nok "loopback: BCM2835 lines driven atomically" "$(grep 'may sleep' /tmp/loop.out)"
else
	ok "loopback: BCM2835 lines driven atomically"
fi
lines_back "lines given back to the device"

# This CLI is built without libgpiod (GPIOD=none): --gpiod says so, after
# the lines were checked, and leaves nothing requested.
latscope -z - -I gpiochip0,5 -O gpiochip0,6 -T 1 >/tmp/gpiod.out 2>&1
expect_rc "--gpiod without libgpiod: refused" $? 3
has "--gpiod without libgpiod: says why" /tmp/gpiod.out "built without libgpiod"
lines_back "--gpiod without libgpiod: nothing requested"

# The arm64 .deb's CLI (scripts/pi-vm.sh with LATSCOPE_PI_DEB: tests/pkg),
# dynamically linked, with libgpiod and libmicrohttpd: the same version as
# the module, a timer run, and --serve answering on loopback.
if [ -x /usr/bin/latscope-deb ]; then
	ver=$(/usr/bin/latscope-deb --version | awk '{ print $2 }')
	mod=$(cat /sys/module/latscope/version)
	if [ -n "$ver" ] && [ "$ver" = "$mod" ]; then
		ok "the .deb's CLI: version $ver, the module's"
	else
		nok "the .deb's CLI: version" "'$ver', module '$mod'"
	fi
	/usr/bin/latscope-deb -k -T 2 -p 1000 -q --json /tmp/deb.json >/tmp/deb.out 2>&1
	expect_rc "the .deb's CLI: a timer run" $? 0
	has "the .deb's CLI: its JSON" /tmp/deb.json '"latscope_version"'
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	/usr/bin/latscope-deb --serve=127.0.0.1:19380 -k -T 2 >/tmp/debserve.out 2>&1 &
	spid=$!
	if wait_until 60 sh -c 'timeout 10 wget -q -O /tmp/deb.prom http://127.0.0.1:19380/metrics && grep -q "^latscope_measuring 0$" /tmp/deb.prom'; then
		ok "the .deb's CLI: --serve (libmicrohttpd) served the run"
	else
		nok "the .deb's CLI: --serve" "$(cat /tmp/debserve.out)"
	fi
	kill -TERM $spid
	wait $spid
	expect_rc "the .deb's CLI: --serve ends on SIGTERM" $? 0
fi

echo "pi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
