#!/bin/sh
# The exporter (latscope --serve) on the GPIO sources, in the GPIO test VM:
# the driver's GPIO loopback answered in kernel context, --gpiod's
# one-board mode (the driver's monitor session times the round trips),
# and a latmon monitor (--monitor) serving latmon clients, whose runs are
# the series. Each scrape names the context; once a run is over, the
# figures served are that run's own (its JSON); the monitor's counters
# add up over its clients' runs. Scraped over loopback with busybox's
# wget. Ends with "serve-gpio: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

# Files of its own: the other GPIO parts leave theirs in /tmp.
mkdir -p /tmp/servegpio && cd /tmp/servegpio || exit 1
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
if sim_chip servegpio; then
	ok "gpio-sim: $chip"
else
	nok "gpio-sim" "cannot configure a chip"
	echo "serve-gpio: $pass passed, $fail failed"
	exit 1
fi
IN=0 ACK=1 M_OUT=2 M_IN=3 OUT=4
port=19381
url=http://127.0.0.1:$port/metrics

# (busybox 1.35's wget -T crashes: timeout instead.)
scrape() { timeout 10 wget -q -O "$1" "$url" 2>/dev/null; }
# The value of the sample KEY (name and labels) in FILE.
val() { awk -v k="$2" 'index($0, k " ") == 1 { print $2; exit }' "$1"; }
# JSON number of the first "KEY": in the "total" part of a file.
total() { sed -n '/"total"/,$p' "$1" | sed -n "s/.*\"$2\": \([^,]*\),*$/\1/p" | head -n 1; }
same() { # name, got, want: equal, and some
	if [ "$2" = "$3" ] && [ "$2" -gt 0 ] 2>/dev/null; then ok "$1 ($2)"; else nok "$1" "got '$2', want '$3' (> 0)"; fi
}
pull() { echo "pull-$2" >"$sim/sim_gpio$1/pull"; }
# A scrape says latscope_measuring $1 and, with $2, sample $2 is above
# $3 (0).
state() {
	scrape now.prom && grep -q "^latscope_measuring $1\$" now.prom &&
		{ [ -z "$2" ] || [ "$(val now.prom "$2")" -gt "${3:-0}" ] 2>/dev/null; }
}

# ---- the driver's GPIO loopback, kernel context: -T, then its last figures ----
key='latscope_samples_total{cpu="1",context="gpio-kernel"}'
pull $IN down
taskset -c 0 /gpio_loop "$sim" $OUT $IN &
wire=$!
latscope --serve=127.0.0.1:$port -k -I "$chip,$IN" -O "$chip,$ACK" --pulse-out "$chip,$OUT" \
	-p 20000 -c 1 -T 5 --json loop.json -g loop.plot >loop.out 2>loop.err &
pid=$!
if wait_until 60 state 1 "$key"; then ok "loopback: measures"; else nok "loopback: measures" "$(cat loop.err)"; fi
has "loopback: the GPIO source named" now.prom '^latscope_info{.*source="GPIO",context="gpio-kernel"} 1$'
has "loopback: lost pulses counted" now.prom '^latscope_gpio_lost_pulses_total{cpu="1",context="gpio-kernel"} [0-9]'
has "loopback: the irq part" now.prom '^latscope_latency_seconds_count{cpu="1",context="gpio-kernel",part="irq"} [0-9]'
if wait_until 60 test -s loop.json; then ok "loopback: -T over, JSON written"; else nok "loopback: -T over, JSON written" "$(cat loop.err)"; fi
wait_until 10 state 0
same "loopback: the samples served are the run's" "$(val now.prom "$key")" "$(total loop.json samples)"
kill -TERM $pid
wait $pid
expect_rc "loopback: SIGTERM, exit 0" $? 0
kill $wire
wait $wire 2>/dev/null
dump serve-gpio-kernel-loop.json loop.json
dump serve-gpio-kernel-loop.plot loop.plot
dump serve-gpio-loop.prom now.prom
nothing_left "loopback"

# ---- --gpiod, one board: the driver's monitor times libgpiod's answers ----
# The wire follows the lines' trace events (tests/vm/gpio_wire.c).
base=$(sed -n "s/^$chip: GPIOs \([0-9]*\)-.*/\1/p" /sys/kernel/debug/gpio)
ev=/sys/kernel/tracing/events/gpio/gpio_value
echo 1 >$ev/enable
/gpio_wire "$sim" "$base" $M_OUT:$IN $ACK:$M_IN >wire.out 2>&1 &
wire=$!
lines="-I $chip,$IN,falling-edge -O $chip,$ACK"
# shellcheck disable=SC2086 # $lines are words
latscope --serve=127.0.0.1:$port -c 1 -p 20000 $lines --pulse-out "$chip,$M_OUT" \
	--ack-in "$chip,$M_IN" -T 5 --json board.json >board.out 2>board.err &
pid=$!
if wait_until 60 test -s board.json; then ok "one board: -T over, JSON written"; else nok "one board: -T over, JSON written" "$(cat board.err)"; fi
wait_until 10 state 0
has "one board: the context" now.prom '^latscope_info{.*source="GPIO",context="inband-gpio"} 1$'
got=$(awk '/^latscope_samples_total\{.*context="inband-gpio"\}/ { print $2 }' now.prom)
same "one board: the round trips served are the run's" "$got" "$(total board.json samples)"
kill -TERM $pid
wait $pid
expect_rc "one board: SIGTERM, exit 0" $? 0
dump serve-gpiod-board.json board.json
nothing_left "one board"

# ---- a latmon monitor: its clients' runs, one after the other ----
key='latscope_samples_total{cpu="0",context="gpio-monitor"}'
mport=2700
latscope --monitor --serve=127.0.0.1:$port --pulse-out "$chip,$M_OUT" --ack-in "$chip,$M_IN" \
	-c 0 --pulse-edge falling-edge --listen 127.0.0.1 --latmon-port $mport --announce-to none \
	--json mon.json >mon.out 2>&1 &
mon=$!
idle() { # n
	wait_until 60 sh -c "[ \$(grep -c 'waiting for a client' mon.out) -ge $1 ]" ||
		nok "monitor idle ($1)" "$(cat mon.out)"
}
idle 1
if wait_until 30 state 0; then ok "monitor idle: serves, not measuring"; else nok "monitor idle: serves, not measuring" "$(cat mon.out)"; fi
has "monitor idle: no run yet" now.prom '^latscope_runs_total 0$'
has "monitor: the context" now.prom '^latscope_info{.*source="GPIO",context="gpio-monitor"} 1$'
# Each client stops (Ctrl-C) once the monitor measured: a condition, not
# a -T the emulator may spend before the monitor's run began.
before=0
for n in 1 2; do
	# shellcheck disable=SC2086 # $lines are words
	latscope -c 1 -p 20000 -z 127.0.0.1 --latmon-port $mport $lines >"client$n.out" 2>&1 &
	pid=$!
	if wait_until 120 state 1 "$key" "$before"; then
		ok "client $n: the monitor measures"
	else
		nok "client $n: the monitor measures" "$(cat mon.out "client$n.out")"
	fi
	kill -INT $pid
	wait $pid
	expect_rc "client $n: exit status" $? 0
	idle $((n + 1))
	wait_until 10 state 0
	cp now.prom "mon$n.prom"
	before=$(val now.prom "$key")
done
has "two clients: two runs" mon2.prom '^latscope_runs_total 2$'
same "client 1: the samples served are its run's" "$(val mon1.prom "$key")" "$(total mon.json samples)"
want=$(($(total mon.json samples) + $(total mon-2.json samples)))
same "client 2: both runs' samples served" "$(val mon2.prom "$key")" "$want"
got=$(awk '/^latscope_latency_seconds_count\{cpu="0",context="gpio-monitor",part="total"\}/ { print $2 }' mon2.prom)
same "client 2: the histogram counts them" "$got" "$want"
kill -TERM $mon
wait $mon
expect_rc "monitor: SIGTERM, exit 0" $? 0
if scrape end.prom; then nok "monitor: the port closed" "still answers"; else ok "monitor: the port closed"; fi
dump serve-gpio-monitor.json mon.json
dump serve-gpio-monitor.prom mon2.prom
nothing_left "monitor"

kill $wire
wait $wire 2>/dev/null
echo 0 >$ev/enable
echo 0 >"$cfg/live"
echo "serve-gpio: $pass passed, $fail failed"
[ "$fail" = 0 ]
