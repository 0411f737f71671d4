#!/bin/sh
# The latmon client (-z HOST) against test doubles of a monitor
# (tests/vm/latmon_peer.c, written from the protocol): over loopback TCP
# inside the GPIO test VM, which has no network device. The client must
# print exactly the records the double sends, send the request and the
# stop byte for byte, turn the trailer into its totals, and on every
# failure say one clear line, exit with the documented status, and leave
# no process and no line held. Also the ack pulse on real gpio-sim lines
# (the gpio:gpio_value trace events see each level), and -z broadcast.
# Ends with "latmon: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
mount -t configfs none /sys/kernel/config 2>/dev/null
cfg=/sys/kernel/config/gpio-sim/latmon
if mkdir $cfg && mkdir $cfg/bank0 && echo 8 >$cfg/bank0/num_lines &&
	echo 1 >$cfg/live; then
	chip=$(cat $cfg/bank0/chip_name)
	ok "gpio-sim: $chip"
else
	nok "gpio-sim" "cannot configure a chip"
	echo "latmon: $pass passed, $fail failed"
	exit 1
fi
IN=0
ACK=1
port=2306
# JSON number or boolean of the first "KEY": in a file.
jget() { sed -n "s/.*\"$2\": \([^,]*\),*$/\1/p" "$1" | head -n 1; }
is() { # name, got, want
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "got '$2', want '$3'"; fi
}
lines="-I $chip,$IN -O $chip,$ACK"
# At least N RTD lines in FILE.
rtd_lines() { # file, n
	[ "$(grep -c "^RTD" "$1")" -ge "$2" ]
}

# No latscope process is left, and the chip's lines are all free.
nothing_left() { # name
	if pidof latscope >/dev/null; then
		nok "$1: no latscope left" "$(pidof latscope)"
	else
		ok "$1: no latscope left"
	fi
	if grep -q "latscope" /sys/kernel/debug/gpio 2>/dev/null; then
		nok "$1: lines released" "$(grep latscope /sys/kernel/debug/gpio)"
	else
		ok "$1: lines released"
	fi
}

# Starts the double in SCENARIO on a fresh port, waits until it listens.
peer() { # scenario
	port=$((port + 1))
	/latmon_peer monitor "$1" $port >"peer-$1.out" 2>&1 &
	peer_pid=$!
	wait_for "peer-$1.out" "^listening" 20 || nok "$1: double listens" "$(cat "peer-$1.out")"
}

# A client run that the monitor ends: NAME, SCENARIO, exit, message.
fails() {
	name=$1
	peer "$2"
	# shellcheck disable=SC2086
	timeout 60 latscope -k -c 1 -z 127.0.0.1 --latmon-port $port $lines -H 100 \
		--json "$name.json" >"$name.out" 2>&1
	expect_rc "$name: exit status" $? "$3"
	has "$name: says why" "$name.out" "$4"
	wait $peer_pid 2>/dev/null
	nothing_left "$name"
}

# ---- the known stream: exactly its records, its trailer as the totals ----
peer known
# shellcheck disable=SC2086
latscope -k -c 1 -p 2000 -z 127.0.0.1 --latmon-port $port $lines -H 100 \
	--json known.json -g known.plot >known.out 2>&1 &
pid=$!
wait_until 60 rtd_lines known.out 3 ||
	nok "known: three records" "$(cat known.out)"
kill -INT $pid
wait $pid
expect_rc "known: clean exit" $? 0
wait $peer_pid
expect_rc "known: the double saw the whole exchange" $? 0
has "known: the request, byte for byte" peer-known.out "^bytes 000007d0 00000065"
has "known: the stop, byte for byte" peer-known.out "^bytes 00000000 00000000"
# RTD| min | avg | max | overruns so far | best | worst, as sent.
rtd=$(grep '^RTD' known.out | tr -d ' ' | tr '\n' ';')
is_rtd="RTD|10.000|20.000|50.000|0|0|10.000|50.000;RTD|9.000|5000.000|6000.000|2|0|9.000|6000.000;RTD|11.000|15.000|30.000|2|0|9.000|6000.000;RTD|12.000|12.500|13.000|2|0|9.000|6000.000;"
if [ "$rtd" = "$is_rtd" ]; then ok "known: RTD lines are the records"; else nok "known: RTD lines are the records" "$rtd"; fi
has "known: RTS from the records" known.out "^RTS|      9.000|   2005.420|   6000.000|       2|"
has "known: stddev unknown" known.out "^PCT| stddev -"
has "known: LMN line" known.out "^LMN| latmon monitor 127.0.0.1:$((port)): 4 records, histogram of 2507 samples"
is "known: JSON samples" "$(jget known.json samples)" 2507
is "known: JSON records" "$(jget known.json records)" 4
is "known: JSON histogram complete" "$(jget known.json histogram_complete)" true
sed -n '/"total"/,$p' known.json >known-total.json
is "known: JSON stddev of the total" "$(jget known-total.json stddev)" null
is "known: JSON overflow" "$(jget known-total.json overflow)" 1
has "known: plot names the monitor" known.plot "^# measured by: latmon monitor 127.0.0.1:$port"
has "known: plot overflow row" known.plot "^100+ 1$"
plot_adds_up "known: plot rows add up" known.plot
dump latmon-kernel-known.json known.json
dump latmon-kernel-known.plot known.plot
nothing_left known

# ---- every way the monitor can fail ----
fails silent silent 5 "silent for 5 s .*unresponsive"
fails closed close 5 "closed the connection while a data record was due"
fails short-frame short 5 "closed the connection 10 bytes into a data record"
fails bad-frame bad 5 "bad frame after 0 records: latmon data: min 50000 ns above max 10000 ns"
fails early-end early 5 "ended the measurement by itself after 1 records"
is "early-end: its histogram kept" "$(jget early-end.json histogram_complete)" true

# Short histogram: the stop comes from a signal once three records came.
peer shorthist
# shellcheck disable=SC2086
latscope -k -c 1 -z 127.0.0.1 --latmon-port $port $lines -H 100 --json shorthist.json \
	>shorthist.out 2>&1 &
pid=$!
wait_until 60 rtd_lines shorthist.out 3 ||
	nok "shorthist: three records" "$(cat shorthist.out)"
kill -TERM $pid
wait $pid
expect_rc "shorthist: exit status" $? 5
has "shorthist: says why" shorthist.out "closed the connection 200 bytes into the histogram (of 404)"
is "shorthist: JSON written, no histogram" "$(jget shorthist.json histogram_complete)" false
wait $peer_pid 2>/dev/null
nothing_left shorthist

# kill -9 of the monitor mid-run.
peer known
# shellcheck disable=SC2086
latscope -k -c 1 -z 127.0.0.1 --latmon-port $port $lines >killed.out 2>&1 &
pid=$!
wait_for killed.out "^RTD" 60 || nok "monitor killed: a record" "$(cat killed.out)"
kill -9 $peer_pid
wait $pid
expect_rc "monitor killed: exit status" $? 5
has "monitor killed: says why" killed.out "closed the connection"
nothing_left "monitor killed"

# kill -9 of the client: the monitor sees the connection end.
peer known
# shellcheck disable=SC2086
latscope -k -c 1 -z 127.0.0.1 --latmon-port $port $lines >client-killed.out 2>&1 &
pid=$!
wait_for client-killed.out "^RTD" 60 || nok "client killed: a record" "$(cat client-killed.out)"
kill -9 $pid
wait $pid 2>/dev/null
# It sees the end as EOF, or as a failed send while it streams.
wait_until 20 grep -qE "^eof|send: (Broken pipe|Connection reset)" peer-known.out ||
	nok "client killed: the monitor sees the end" "$(cat peer-known.out)"
kill $peer_pid 2>/dev/null
wait $peer_pid 2>/dev/null
nothing_left "client killed"

# ---- not reached: exit 4, nothing started ----
# shellcheck disable=SC2086
latscope -k -c 1 -z 127.0.0.1 --latmon-port 2399 $lines >refused.out 2>&1
expect_rc "refused: exit status" $? 4
has "refused: says why" refused.out "latmon monitor 127.0.0.1 port 2399: connection refused"
nothing_left refused
# shellcheck disable=SC2086
latscope -k -c 1 -z no-such-host.invalid $lines >notfound.out 2>&1
expect_rc "host not found: exit status" $? 4
has "host not found: says why" notfound.out "latmon monitor 'no-such-host.invalid': host not found"
nothing_left "host not found"

# ---- -z broadcast: the first datagram that is an address ----
peer known
/latmon_peer announce 127.255.255.255 $port "garbage" "127.0.0.1" >announce.out 2>&1 &
ann=$!
# shellcheck disable=SC2086
latscope -k -c 1 -z broadcast --latmon-port $port $lines >broadcast.out 2>&1 &
pid=$!
wait_for broadcast.out "^RTD" 60 || nok "broadcast: a record" "$(cat broadcast.out)"
kill -INT $pid
wait $pid
expect_rc "broadcast: clean exit" $? 0
kill $ann
wait $ann 2>/dev/null
wait $peer_pid 2>/dev/null
has "broadcast: found the monitor" broadcast.out "latmon monitor 127.0.0.1 announced itself"
has "broadcast: skipped the garbage" broadcast.out "ignored a 7-byte datagram from 127.0.0.1: not an IPv4 address"
nothing_left broadcast

# ---- the ack pulse, on real lines: idle high, each answer low then high ----
ev=/sys/kernel/tracing/events/gpio/gpio_value
sim=/sys/devices/platform/$(cat $cfg/dev_name)/$chip
if [ -d $ev ]; then
	echo 1 >$ev/enable
	echo >/sys/kernel/tracing/trace
	echo pull-down >"$sim/sim_gpio$IN/pull"
	# shellcheck disable=SC2086
	latscope -k -c 1 -z - --ack pulse $lines -T 60 >pulse.out 2>&1 &
	pid=$!
	wait_for pulse.out "warming up" 60 || nok "ack pulse: started" "$(cat pulse.out)"
	is "ack pulse: ack-out idles high" "$(cat "$sim/sim_gpio$ACK/value")" 1
	for k in 1 2 3; do
		echo pull-up >"$sim/sim_gpio$IN/pull"
		echo pull-down >"$sim/sim_gpio$IN/pull"
		wait_until 20 sh -c "[ \$(grep -c 'gpio_value:.* set 0' /sys/kernel/tracing/trace) -ge $k ]" ||
			nok "ack pulse: answer $k" "$(cat /sys/kernel/tracing/trace)"
	done
	kill -INT $pid
	wait $pid
	expect_rc "ack pulse: clean exit" $? 0
	echo 0 >$ev/enable
	# The ack line's sets: the idle high, then low-high per answer.
	sets=$(grep 'gpio_value:.* set [01]' /sys/kernel/tracing/trace | sed 's/.* set \([01]\).*/\1/' | tr -d '\n')
	lows=$(echo "$sets" | tr -cd 0 | wc -c)
	case $lows,$sets in
	3,1*010101) ok "ack pulse: idle high, each answer low then high ($sets)" ;;
	*) nok "ack pulse: idle high, each answer low then high" "sets $sets" ;;
	esac
	nothing_left "ack pulse"
else
	nok "ack pulse" "no gpio:gpio_value trace event in this kernel"
fi

echo 0 >$cfg/live
echo "latmon: $pass passed, $fail failed"
[ "$fail" = 0 ]
