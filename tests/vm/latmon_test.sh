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
fails sum-overflow overflow 5 "bad frame after 1 records: the sum of the latencies overflows 64 bits"
fails range-overflow overflow-range 5 "bad frame after 2 records: the latencies of records 2 to 3 add up past 64 bits"

# A monitor that streams on after the stop is let go 5 s after it, with
# exit 5: the client always ends (the double would stream for 30 s).
peer deaf
# shellcheck disable=SC2086
latscope -k -c 1 -z 127.0.0.1 --latmon-port $port $lines >deaf.out 2>&1 &
pid=$!
wait_for deaf.out "^RTD" 60 || nok "deaf: a record" "$(cat deaf.out)"
t0=$(date +%s)
kill -INT $pid
wait $pid
expect_rc "deaf: exit status" $? 5
t1=$(date +%s)
has "deaf: says why" deaf.out "not ended 5 s after the stop request (still sending a data record): it ignores the stop"
if [ $((t1 - t0)) -lt 25 ]; then ok "deaf: ended before the double stopped streaming"; else nok "deaf: ended before the double stopped streaming" "$((t1 - t0)) s"; fi
kill $peer_pid 2>/dev/null
wait $peer_pid 2>/dev/null
nothing_left deaf

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
# The client listens before the first announcement goes out, so the first
# datagram it can get is the garbage: an announcer started first could be
# heard between its garbage and its address, which then comes first.
peer known
# shellcheck disable=SC2086
latscope -k -c 1 -z broadcast --latmon-port $port $lines >broadcast.out 2>&1 &
pid=$!
wait_for broadcast.out "waiting up to" 30 || nok "broadcast: listening" "$(cat broadcast.out)"
/latmon_peer announce 127.255.255.255 $port "garbage" "127.0.0.1" >announce.out 2>&1 &
ann=$!
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

# A datagram that names another host than its sender: the client goes to
# the sender (127.0.0.3, where nothing listens: exit 4), never to the
# host named (127.0.0.2), as latmus does.
# shellcheck disable=SC2086
latscope -k -c 1 -z broadcast --latmon-port $port $lines >rogue.out 2>&1 &
pid=$!
wait_for rogue.out "waiting up to" 30 || nok "broadcast, rogue: listening" "$(cat rogue.out)"
/latmon_peer announce 127.255.255.255 $port from=127.0.0.3 "127.0.0.2" >announce.out 2>&1 &
ann=$!
wait $pid
expect_rc "broadcast, rogue: exit status (nothing at the sender)" $? 4
kill $ann
wait $ann 2>/dev/null
has "broadcast, rogue: says the datagram named another host" rogue.out \
	"the announcement from 127.0.0.3 names 127.0.0.2: taking its sender, 127.0.0.3"
has "broadcast, rogue: went to the sender" rogue.out "latmon monitor 127.0.0.3 port $port: connection refused"
nothing_left "broadcast, rogue"

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

# ---- a Linux board as the monitor: latscope --monitor and the client ----
# The wires follow the trace events: monitor pulse-out (2) -> SUT pulse-in
# (0), SUT ack-out (1) -> monitor ack-in (3), and 4 -> 5 for --calibrate.
M_OUT=2
M_IN=3
base=$(sed -n "s/^$chip: GPIOs \([0-9]*\)-.*/\1/p" /sys/kernel/debug/gpio)
echo 1 >$ev/enable
/gpio_wire "$sim" "$base" $M_OUT:$IN $ACK:$M_IN 4:5 >wire.out 2>&1 &
wire=$!
mport=2400
monitor() { # output file, more options
	out=$1
	shift
	latscope --monitor --pulse-out "$chip,$M_OUT" --ack-in "$chip,$M_IN" -c 0 \
		--listen 127.0.0.1 --latmon-port $mport --announce-to 127.255.255.255 \
		"$@" >"$out" 2>&1 &
	mon=$!
}
# Waits until the monitor waits for its Nth client.
idle() { # output file, n
	wait_until 60 sh -c "[ \$(grep -c 'waiting for a client' $1) -ge $2 ]" ||
		nok "monitor idle ($2)" "$(cat "$1")"
}
sut() { # name, more options
	name=$1
	shift
	# shellcheck disable=SC2086
	latscope -k -c 1 -p 10000 -z 127.0.0.1 --latmon-port $mport $lines -H 50 "$@" \
		>"$name.out" 2>&1 &
	pid=$!
}
monitor mon.out -g mon.plot --json mon.json
idle mon.out 1
has "monitor: says what it announces" mon.out "announcing 127.0.0.1"

# Both ends over loopback TCP: the client's records are the monitor's.
sut pair --json pair.json -g pair.plot
wait_until 60 rtd_lines pair.out 3 || nok "pair: three records" "$(cat pair.out; cat mon.out)"
kill -INT $pid
wait $pid
expect_rc "pair: client exits cleanly" $? 0
idle mon.out 2
# The monitor prints a run's RTD lines as the client does (its own RTT
# header differs); min, avg and max of each second must be the same.
grep '^RTD' pair.out | cut -d'|' -f2-4 >pair.rtd
grep '^RTD' mon.out | cut -d'|' -f2-4 >mon.rtd
if [ -s pair.rtd ] && cmp -s pair.rtd mon.rtd; then
	ok "pair: client's RTD lines are the monitor's seconds ($(wc -l <pair.rtd))"
else
	nok "pair: client's RTD lines are the monitor's seconds" "$(cat pair.rtd; echo --; cat mon.rtd)"
fi
sed -n '/"total"/,$p' pair.json >pair-total.json
sed -n '/"total"/,$p' mon.json >mon-total.json
is "pair: both totals count the same samples" "$(jget pair-total.json samples)" "$(jget mon-total.json samples)"
is "pair: the histogram came whole" "$(jget pair.json histogram_complete)" true
is "pair: the histogram holds every sample" "$(jget pair.json histogram_samples)" "$(jget pair-total.json samples)"
# A monitor's ack is an answer it timed: its acks are its samples.
is "pair: the monitor's acks are its samples" "$(jget mon.json acks)" "$(jget mon-total.json samples)"
has "pair: the monitor's summary" mon.out "^GPIO| monitor, pulse-out $chip,$M_OUT (rising-edge pulses) -> ack-in $chip,$M_IN (falling-edge)"
has "pair: the local split" pair.out "^LOC| this board, pulse-in interrupt to answer"
dump latmon-kernel-pair.json pair.json
dump latmon-kernel-pair.plot pair.plot
dump monitor-monitor.json mon.json
dump monitor-monitor.plot mon.plot
# Later clients' runs go to files of their own: this one stays.
cp mon.json pair-mon.json
nothing_busy() { # name: no latscope line is held
	if grep -q "latscope" /sys/kernel/debug/gpio; then
		nok "$1: lines released" "$(grep latscope /sys/kernel/debug/gpio)"
	else
		ok "$1: lines released"
	fi
}
nothing_busy "pair"

# Hostile clients: each gets a clear refusal, the monitor serves on.
n=2
hostile() { # scenario, what the double prints, what the monitor says
	/latmon_peer client "$1" 127.0.0.1 $mport >"client-$1.out" 2>&1
	expect_rc "client $1: handled" $? 0
	has "client $1: got" "client-$1.out" "$2"
	n=$((n + 1))
	idle mon.out $n
	[ -n "$3" ] && has "client $1: the monitor says why" mon.out "$3"
}
hostile stop-first "empty stream" ""
hostile long-period "empty stream, closed" "period 1000001 us is past 1000000 us"
hostile many-cells "empty stream, closed" "1001 histogram cells, not 0 to 1000"
hostile half "empty stream" "closed after 3 of 8 request bytes"
hostile mute "empty stream" "no request within 10 s"
hostile tiny-period "empty stream, closed" "period 5 us is below 10 us"
# A byte every 2 s: the rest of a request is due 5 s after its first byte.
hostile trickle "empty stream, closed" "of 8 request bytes, the rest not within 5 s"
# The port is the monitor's for its life: no program can take it.
/latmon_peer monitor known $mport >taker.out 2>&1
expect_rc "port held: another listener cannot bind it" $? 1
has "port held: says why" taker.out "Address already in use"
# The doubles that take records need an answer to each pulse: a plain
# responder (-z -, latmus's ack pulse) on the other side of the wires.
# shellcheck disable=SC2086
latscope -k -c 1 -z - --ack pulse $lines >responder.out 2>&1 &
responder=$!
wait_for responder.out "warming up" 60 || nok "responder: started" "$(cat responder.out)"
hostile good "records done" ""
hostile vanish "record samples" "vanished: its run stopped"
# A good run, then silence: closed 10 s after the run's end.
hostile linger "closed by the monitor" "no request within 10 s: closing the connection"
echo "# linger: $(tail -n 1 client-linger.out)"
# Back to back, as a script runs latmus twice: a newcomer that connects
# and asks after a run ended but before its client closed is held, then
# served once that client is gone; a third one meanwhile is closed at
# once (the first newcomer is the only one held).
/latmon_peer client handover 127.0.0.1 $mport >client-handover.out 2>&1
expect_rc "back to back: both runs served" $? 0
has "back to back: the newcomer got its stream" client-handover.out "^newcomer served"
has "back to back: a third client closed at once" client-handover.out "^third closed"
has "back to back: the monitor held the newcomer" mon.out \
	"client 127.0.0.1:[0-9]* waits up to 3 s: busy with 127.0.0.1:[0-9]*$"
has "back to back: the monitor refused the third at once" mon.out \
	"refused client 127.0.0.1:[0-9]*: busy with 127.0.0.1:[0-9]*$"
n=$((n + 2))
idle mon.out $n
echo "# back to back: $(grep 'waited .* to leave' mon.out)"
kill -INT $responder
wait $responder
expect_rc "responder: clean exit" $? 0
nothing_busy "vanished client"

# The client's -T ends the run as Ctrl-C does: exit 0, the monitor idle.
sut timed -T 3
wait $pid
expect_rc "client -T: clean exit" $? 0
has "client -T: records came" timed.out "^RTD"
has "client -T: the trailer came" timed.out "^LMN| latmon monitor 127.0.0.1:$mport: [1-9][0-9]* records, histogram of"
n=$((n + 1))
idle mon.out $n
nothing_busy "client -T"
# And three latscope runs from a script, each started as the last exits.
for k in 1 2 3; do
	# shellcheck disable=SC2086
	latscope -k -c 1 -p 10000 -z 127.0.0.1 --latmon-port $mport $lines -H 50 -T 2 \
		>"script-$k.out" 2>&1
	script_rc=$?
	expect_rc "back to back: script run $k" $script_rc 0
	[ $script_rc = 0 ] || sed 's/^/#   /' "script-$k.out"
done
n=$((n + 3))
idle mon.out $n
echo "# back to back, script: $(grep -c "waited .* to leave" mon.out) newcomers held so far"

# One client at a time: a second one is held 3 s, then refused, while
# the first runs.
sut first
wait_for first.out "^RTD" 60 || nok "busy: first client runs" "$(cat first.out)"
/latmon_peer client busy 127.0.0.1 $mport >busy.out 2>&1
expect_rc "busy: second client closed within 10 s" $? 0
has "busy: the monitor says so" mon.out "refused client 127.0.0.1:[0-9]*: busy with 127.0.0.1:[0-9]* for 3 s"
echo "# busy: $(cat busy.out)"
# kill -9 of the client mid-run: the monitor stops and frees its lines.
kill -9 $pid
wait $pid 2>/dev/null
n=$((n + 1))
idle mon.out $n
nothing_busy "client killed"

# -z broadcast finds the real monitor's announcement.
# shellcheck disable=SC2086
latscope -k -c 1 -p 10000 -z broadcast --latmon-port $mport $lines -H 50 >bcast.out 2>&1 &
pid=$!
wait_for bcast.out "^RTD" 60 || nok "broadcast to the monitor: a record" "$(cat bcast.out)"
kill -INT $pid
wait $pid
expect_rc "broadcast to the monitor: clean exit" $? 0
n=$((n + 1))
idle mon.out $n

# Ctrl-C on the monitor mid-run: the client gets the trailer and says the
# monitor ended by itself; the monitor exits 0 with its lines free.
sut cut
wait_for cut.out "^RTD" 60 || nok "monitor Ctrl-C: a record" "$(cat cut.out)"
kill -INT $mon
wait $mon
expect_rc "monitor Ctrl-C: exit status" $? 0
wait $pid
expect_rc "monitor Ctrl-C: client exit status" $? 5
has "monitor Ctrl-C: client says why" cut.out "ended the measurement by itself"
nothing_left "monitor Ctrl-C"
if cmp -s mon.json pair-mon.json; then
	ok "files: the first run's JSON stayed as it was"
else
	nok "files: the first run's JSON stayed as it was" "$(ls -l mon*.json)"
fi
has "files: the second run's own names" mon.out "run 2 (client 127.0.0.1:[0-9]*) written to mon-2.plot and mon-2.json"
runs=$(find . -maxdepth 1 -name "mon-*.json" | wc -l)
if [ "$runs" -ge 5 ] && [ -s mon-2.json ] && [ -s mon-2.plot ]; then
	ok "files: one JSON per later run ($runs)"
else
	nok "files: one JSON per later run" "$(ls -l mon*)"
fi

# kill -9 of the monitor mid-run: the client exits 5, nothing is held.
monitor mon2.out
idle mon2.out 1
sut killmon
wait_for killmon.out "^RTD" 60 || nok "monitor killed: a record" "$(cat killmon.out)"
kill -9 $mon
wait $mon 2>/dev/null
wait $pid
expect_rc "monitor kill -9: client exit status" $? 5
nothing_left "monitor kill -9"

# Ctrl-C on an idle monitor: exit 0.
monitor mon3.out
idle mon3.out 1
kill -INT $mon
wait $mon
expect_rc "idle monitor Ctrl-C: exit status" $? 0

# --calibrate: the fixture alone, pulse-out 4 wired to ack-in 5.
latscope --monitor --calibrate --pulse-out "$chip,4" --ack-in "$chip,5,rising-edge" -c 0 \
	-p 10000 -T 2 --json calibrate.json >calibrate.out 2>&1
expect_rc "calibrate: exit status" $? 0
has "calibrate: a summary" calibrate.out "^RTS|"
has "calibrate: the monitor's lines" calibrate.out "^GPIO| monitor, pulse-out $chip,4 (rising-edge pulses) -> ack-in $chip,5 (rising-edge)"
sed -n '/"total"/,$p' calibrate.json >calibrate-total.json
is "calibrate: the acks are the samples" "$(jget calibrate.json acks)" "$(jget calibrate-total.json samples)"
dump monitor-calibrate.json calibrate.json

# --subtract: the client gets each second's round trips 100 us shorter.
monitor mon4.out --subtract 100
idle mon4.out 1
sut sub
wait_until 60 rtd_lines sub.out 3 || nok "subtract: three records" "$(cat sub.out)"
kill -INT $pid
wait $pid
expect_rc "subtract: client exits cleanly" $? 0
idle mon4.out 2
kill -INT $mon
wait $mon
expect_rc "subtract: monitor exits cleanly" $? 0
grep '^RTD' sub.out | cut -d'|' -f2-4 >sub.rtd
grep '^RTD' mon4.out | cut -d'|' -f2-4 |
	awk -F'|' '{ printf "%11.3f|%11.3f|%11.3f\n", $1 - 100, $2 - 100, $3 - 100 }' >mon4.rtd
if [ -s sub.rtd ] && cmp -s sub.rtd mon4.rtd; then
	ok "subtract: the client's seconds are the monitor's less 100 us"
else
	nok "subtract: the client's seconds are the monitor's less 100 us" "$(cat sub.rtd; echo --; cat mon4.rtd)"
fi

# --max-run: a client that asks and never stops (nor reads) is ended,
# then closed; the next client is served.
monitor mon5.out --max-run 3 --allow 127.0.0.0/8
idle mon5.out 1
/latmon_peer client deaf 127.0.0.1 $mport >deaf-client.out 2>&1 &
deaf=$!
wait_for mon5.out "its run reached --max-run (3 s): ending it" 60 ||
	nok "max-run: the run ended" "$(cat mon5.out)"
has "max-run: the client closed" mon5.out "closing the connection after --max-run"
idle mon5.out 2
kill $deaf
wait $deaf 2>/dev/null
hostile_on() { # monitor output, scenario, what the double prints
	/latmon_peer client "$2" 127.0.0.1 $mport >"client-$2.out" 2>&1
	expect_rc "client $2: handled" $? 0
	has "client $2: got" "client-$2.out" "$3"
}
hostile_on mon5.out stop-first "empty stream"
idle mon5.out 3
kill -INT $mon
wait $mon
expect_rc "max-run monitor: exits cleanly" $? 0
nothing_busy "max-run monitor"

# A board that vanishes without a FIN (loopback down: nothing goes out,
# nothing comes back) mid-run is noticed by keepalive and the TCP user
# timeout, and its run stopped; the next client is served.
monitor mon7.out
idle mon7.out 1
/latmon_peer client hold 127.0.0.1 $mport 10000 51 0 >hold.out 2>&1 &
hold=$!
wait_for mon7.out "client 127.0.0.1:[0-9]* asks for a 10000 us period" 30 ||
	nok "vanished: the run started" "$(cat mon7.out)"
ip link set lo down
t0=$(date +%s)
wait_until 60 grep -q "vanished: its run stopped" mon7.out
t1=$(date +%s)
ip link set lo up
if grep -q "vanished: its run stopped" mon7.out && [ $((t1 - t0)) -le 30 ]; then
	ok "vanished: noticed ($((t1 - t0)) s after the link went)"
else
	nok "vanished: noticed within 30 s" "$((t1 - t0)) s: $(tail -5 mon7.out)"
fi
kill $hold
wait $hold 2>/dev/null
idle mon7.out 2
hostile_on mon7.out stop-first "empty stream"
kill -INT $mon
wait $mon
expect_rc "vanished: monitor exits cleanly" $? 0
nothing_busy "vanished"

# --allow: a client from elsewhere is closed as it connects.
monitor mon6.out --allow 10.0.0.0/8,192.168.0.0/16
idle mon6.out 1
/latmon_peer client busy 127.0.0.1 $mport >notallowed.out 2>&1
expect_rc "allow: a client not in the list is closed at once" $? 0
has "allow: the monitor says so" mon6.out "refused client 127.0.0.1:[0-9]*: not in --allow"
echo "# not allowed: $(cat notallowed.out)"
kill -INT $mon
wait $mon
expect_rc "allow: monitor exits cleanly" $? 0

kill $wire
wait $wire 2>/dev/null
echo 0 >$ev/enable

echo 0 >$cfg/live
echo "latmon: $pass passed, $fail failed"
[ "$fail" = 0 ]
