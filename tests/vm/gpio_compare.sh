#!/bin/sh
# One kernel's side of the GPIO responder comparison in
# docs/measurements/gpio-responders.md (run by
# scripts/compare-gpio.sh in the GPIO VM): the same wiring for each row,
# gpio-sim lines joined by tests/vm/gpio_wire.c, latscope's latmon monitor
# on CPU0 timing pulse to ack over loopback TCP, each responder on CPU1
# for SECS seconds at 100 Hz: the driver's kernel thread, its user thread
# (/dev/latscope), the application's thread (--gpiod, libgpiod), and the
# same with its interrupt thread raised (--irq-prio 95); first the
# fixture alone (--calibrate: pulse-out wired to ack-in, no responder).
# Each run's JSON comes back between markers.
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

secs=${1:-20}
mkdir -p /tmp/compare && cd /tmp/compare || exit 1
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
sim_chip compare || exit 1
base=$(sed -n "s/^$chip: GPIOs \([0-9]*\)-.*/\1/p" /sys/kernel/debug/gpio)
ev=/sys/kernel/tracing/events/gpio/gpio_value
echo 1 >$ev/enable
IN=0 ACK=1 M_OUT=2 M_IN=3 C_OUT=4 C_IN=5
/gpio_wire "$sim" "$base" $M_OUT:$IN $ACK:$M_IN $C_OUT:$C_IN >wire.out 2>&1 &
wire=$!
rc=0

latscope --monitor --calibrate --pulse-out "$chip,$C_OUT" --ack-in "$chip,$C_IN,rising-edge" \
	-c 0 -p 10000 -T "$secs" -q --json fixture.json >fixture.out 2>&1 || rc=1
dump gpio-compare-monitor-fixture.json fixture.json

latscope --monitor --pulse-out "$chip,$M_OUT" --ack-in "$chip,$M_IN" -c 0 \
	--listen 127.0.0.1 --announce-to none >mon.out 2>&1 &
mon=$!
wait_until 60 grep -q "waiting for a client" mon.out || rc=1
for row in kernel:-k user:-u gpiod: gpiod-irqprio:--irq-prio=95; do
	name=${row%%:*}
	# shellcheck disable=SC2086 # the option, or none
	latscope ${row#*:} -c 1 -p 10000 -T "$secs" -q -z 127.0.0.1 -I "$chip,$IN" \
		-O "$chip,$ACK" --json "$name.json" >"$name.out" 2>&1 || rc=1
	grep -E '^(RTS|LOC|GPIO)' "$name.out"
	dump "gpio-compare-$name.json" "$name.json"
done
kill -INT $mon
wait $mon
kill $wire
wait $wire 2>/dev/null
echo 0 >$ev/enable
echo 0 >"$cfg/live"
if [ $rc = 0 ]; then ok "gpio compare"; else nok "gpio compare" "a run failed"; fi
exit $rc
