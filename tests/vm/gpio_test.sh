#!/bin/sh
# The GPIO source on real gpiolib lines and interrupts: a gpio-sim chip in
# the GPIO test VM (busybox sh). Pulses are made by writing a line's
# "pull", acks read back from another line's "value". Remote mode: every
# chosen edge gets exactly one ack, others none, and the counts match.
# Loopback: tests/vm/gpio_loop.c plays the wire. Then bad line specs, a
# line held by another run, kill -9, and lines released after each run.
# Ends with "gpio: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
if sim_chip latscope; then
	ok "gpio-sim: $chip, 8 lines"
else
	nok "gpio-sim" "cannot configure a chip"
	echo "gpio: $pass passed, $fail failed"
	exit 1
fi
IN=0
ACK=1
OUT=2
# gpio-sim raises its interrupts from hard irq_work, on PREEMPT_RT too: the
# handler must stamp arrivals in hard irq.
stamp=hardirq

pull() { echo "pull-$2" >"$sim/sim_gpio$1/pull"; }
val() { cat "$sim/sim_gpio$1/value"; }
# JSON number or boolean of the first "KEY": in a file.
jget() { sed -n "s/.*\"$2\": \([^,]*\),*$/\1/p" "$1" | head -n 1; }
# Waits up to 20 s for LINE to leave value OLD: an ack is a thread's
# wake-up, which a loaded host can hold off for seconds.
wait_flip() {
	i=0
	while [ "$(val "$1")" = "$2" ]; do
		i=$((i + 1))
		[ $i -gt 2000 ] && return 1
		usleep 10000
	done
}
is() { # name, got, want
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "got '$2', want '$3'"; fi
}

# 1 if pulling pulse-in to LEVEL (up, down) makes an EDGE event, else 0.
is_event() { # edge, level
	case $1,$2 in
	rising-edge,up | falling-edge,down | both-edges,*) echo 1 ;;
	*) echo 0 ;;
	esac
}

# Remote mode: NAME, responder flag (-k, -u or --gpiod), edge, pulse
# cycles (up then down), more options.
remote() {
	name=$1 flag=$2 edge=$3 n=$4
	shift 4
	case $flag in
	-k) ctx=gpio-kernel how="remote" ;;
	-u) ctx=gpio-user how="remote" ;;
	*) ctx=inband-gpio how="application thread (libgpiod [12][.0-9]*)" ;;
	esac
	pull $IN down
	latscope "$flag" -z - -I "$chip,$IN,$edge" -O "$chip,$ACK" -c 1 \
		-H 10000 --json "$name.json" -g "$name.plot" "$@" >"$name.out" 2>&1 &
	pid=$!
	# Conditions, not a guess at the host's speed: the lines are held
	# (SETUP came before "warming up"), then probe events until one is
	# answered, so the session runs. Its 1 s warm-up began at START, before
	# that answer: 1.5 s later every event counts. The answered probe may
	# count too, or fall in the warm-up: that one is allowed either way.
	wait_for "$name.out" "warming up" 60 || nok "$name: started" "$(cat "$name.out")"
	probed=0 tries=0
	while [ $probed = 0 ] && [ $tries -lt 5 ]; do
		for lvl in up down; do
			event=$(is_event "$edge" $lvl)
			a=$(val $ACK)
			pull $IN $lvl
			[ "$event" = 1 ] && wait_flip $ACK "$a" && probed=$((probed + 1))
		done
		tries=$((tries + 1))
	done
	if [ $probed -gt 0 ]; then ok "$name: a probe answered"; else nok "$name: a probe answered" "none in $tries tries"; fi
	sleep 1.5 2>/dev/null || usleep 1500000
	acks=0 stray=0 want=0 k=0
	while [ $k -lt "$n" ]; do
		for lvl in up down; do
			event=$(is_event "$edge" $lvl)
			a=$(val $ACK)
			pull $IN $lvl
			if [ "$event" = 1 ]; then
				want=$((want + 1))
				wait_flip $ACK "$a" && acks=$((acks + 1))
				a=$(val $ACK)
			fi
			# No second ack, and none for an edge that is not an event.
			usleep 50000
			[ "$(val $ACK)" = "$a" ] || stray=$((stray + 1))
		done
		k=$((k + 1))
	done
	kill -INT $pid
	wait $pid
	expect_rc "$name: clean exit" $? 0
	is "$name: one ack seen per event" $acks $want
	is "$name: no ack without an event" $stray 0
	cycles=$(jget "$name.json" cycles)
	if [ "${cycles:-0}" -ge $want ] && [ "$cycles" -le $((want + probed)) ]; then
		ok "$name: samples: $cycles, $want events and $probed answered probe(s)"
	else
		nok "$name: samples" "$cycles, want $want and up to $probed probe(s)"
	fi
	is "$name: events" "$(jget "$name.json" events)" "$cycles"
	is "$name: acks counted" "$(jget "$name.json" acks)" "$cycles"
	is "$name: overruns" "$(jget "$name.json" overruns)" 0
	has "$name: RTT line" "$name.out" "^RTT|  00:00:0[0-9]  ($ctx, remote pulses,"
	has "$name: GPIO line" "$name.out" "^GPIO| $how, pulse-in $chip,$IN ($edge), ack-out $chip,$ACK"
	has "$name: plot header" "$name.plot" "^# gpio lines: $how"
	dump "$name.json" "$name.json"
	dump "$name.plot" "$name.plot"
	cat "$name.out"
}

remote gpio-remote-kernel -k rising-edge 10 --irq-prio 95
# Arrivals in hard irq: no thread to raise, and latscope says so.
has "--irq-prio: says there is no thread" gpio-remote-kernel.out "no IRQ thread to raise"
is "--irq-prio: nothing raised in the JSON" "$(jget gpio-remote-kernel.json irq_thread_raised_to)" 0
remote gpio-remote-user -u falling-edge 10
remote gpio-remote-user-both -u both-edges 5
# The application's thread (libgpiod), no monitor: its own figures, said
# to be a lower bound; its pulse-in interrupt's thread raised, given back.
remote gpiod-remote --gpiod falling-edge 10 --irq-prio 60
has "--gpiod: a lower bound, said" gpiod-remote.out "^GPIO| no monitor: the figures are edge to ack written on this board, a lower bound"
has "--gpiod: the split" gpiod-remote.out "^IRQ| edge to thread running: min"
has "--gpiod: its IRQ thread raised and given back" gpiod-remote.out "irq/[0-9]*-latscope.*at SCHED_FIFO 60 for the run, then given back its SCHED_FIFO 50"
case $(jget gpiod-remote.json responder) in
'"libgpiod 1.'* | '"libgpiod 2.'*) ok "--gpiod: JSON names libgpiod" ;;
*) nok "--gpiod: JSON names libgpiod" "$(jget gpiod-remote.json responder)" ;;
esac

# Loopback: NAME, responder flag.
loopback() {
	name=$1
	pull $IN down
	taskset -c 0 /gpio_loop "$sim" $OUT $IN &
	wire=$!
	latscope "$2" -I "$chip,$IN" -O "$chip,$ACK" --pulse-out "$chip,$OUT" --why \
		-p 20000 -c 1 -T 4 -H 10000 --json "$name.json" -g "$name.plot" >"$name.out" 2>&1
	expect_rc "$name: 4 s run" $? 0
	kill $wire
	wait $wire 2>/dev/null
	# What holds however the host schedules the VM and the wire (a
	# process that polls): the timeline counts an event per period of the
	# 4 s past the warm-up, stalled or not (the run can only end late);
	# the path answers some of them (a broken one: none); every sample
	# has its ack; samples and overruns (lost pulses among them) add up to
	# the events; and a stray edge can only be a lost pulse's late one:
	# at most the pulses lost past the warm-up, plus one lost across its
	# end and the one in flight at the stop.
	cycles=$(jget "$name.json" cycles)
	events=$(jget "$name.json" events)
	lost=$(jget "$name.json" lost)
	overruns=$(jget "$name.json" overruns)
	spurious=$(jget "$name.json" spurious)
	if [ "${events:-0}" -ge 199 ]; then ok "$name: events: $events"; else nok "$name: events" "$events, want 200 or more"; fi
	if [ "${cycles:-0}" -ge 1 ] && [ "${lost:-0}" -lt "${events:-0}" ]; then
		ok "$name: samples: $cycles, pulses lost: $lost of $events"
	else
		nok "$name: samples" "$cycles, $lost of $events pulses lost"
	fi
	is "$name: an ack per sample" "$(jget "$name.json" acks)" "$cycles"
	# The recorder explains GPIO samples too.
	has "$name: worst samples explained" "$name.out" '^WHY| [0-9.]* us at .* CPU1: irq '
	# gpio-sim's irq runs where the wire wrote (CPU 0): its EVENT is kept
	# for the measured CPU's record, so the split has its irq part.
	has "$name: the split's irq part known" "$name.out" '^WHY| [0-9.]* us at .* CPU1: irq [0-9.]* + wake [0-9.]* + '
	d=$((events - cycles - overruns))
	if [ $d -ge 0 ] && [ $d -le 1 ] && [ "$lost" -le "$overruns" ]; then ok "$name: samples + overruns = events"; else nok "$name: samples + overruns = events" "$cycles + $overruns ($lost lost) vs $events"; fi
	if [ "${spurious:-9}" -le $((lost + 2)) ]; then ok "$name: stray edges: $spurious, $lost pulses lost"; else nok "$name: stray edges" "$spurious, $lost pulses lost"; fi
	is "$name: pulse-out chip sleeps" "$(jget "$name.json" pulse_out_cansleep)" true
	is "$name: arrival stamped in $stamp" "$(jget "$name.json" arrival_in_$stamp)" true
	has "$name: IRQ split line" "$name.out" '^IRQ| irq part:'
	has "$name: GPIO line" "$name.out" "^GPIO| loopback, pulse-out $chip,$OUT -> pulse-in $chip,$IN (rising-edge)"
	plot_adds_up "$name: plot cells add up" "$name.plot"
	dump "$name.json" "$name.json"
	dump "$name.plot" "$name.plot"
	cat "$name.out"
}

loopback gpio-loop-kernel -k
loopback gpio-loop-user -u

# Bad line specs: a clear error naming the line, exit 3, nothing held.
# Each through the driver (-u) and the application's thread (--gpiod).
bad() { # name, pattern, args...
	name=$1 pattern=$2
	shift 2
	for ctx in -u --gpiod; do
		latscope $ctx -z - "$@" -T 1 >bad.out 2>&1
		expect_rc "$name ($ctx): refused" $? 3
		has "$name ($ctx): says why" bad.out "$pattern"
		if [ "$(grep -c "^latscope:" bad.out)" = 1 ]; then ok "$name ($ctx): one line"; else nok "$name ($ctx): one line" "$(cat bad.out)"; fi
	done
}
bad "unknown chip" "no GPIO chip /dev/gpiochip9" -I gpiochip9,0 -O gpiochip9,1
bad "offset out of range" "pulse-in $chip,99: offset 99 out of range" -I "$chip,99" -O "$chip,1"
bad "ack-out out of range" "ack-out $chip,8: offset 8 out of range" -I "$chip,5" -O "$chip,8"
for ctx in -u --gpiod; do
	latscope $ctx -z - -I "/dev/$chip,4" -O "$chip,4" >bad.out 2>&1
	expect_rc "same line, two spellings ($ctx): refused" $? 2
	has "same line, two spellings ($ctx): says why" bad.out "must be a different one"
done

latscope --gpio-dt -k -T 1 >dt.out 2>&1
expect_rc "--gpio-dt without a device: refused" $? 3
has "--gpio-dt without a device: says why" dt.out 'no "latscope,gpio" device is bound'

base=$(sed -n "s/^$chip: GPIOs \([0-9]*\)-.*/\1/p" /sys/kernel/debug/gpio)
# A line held by the driver, then by another program (the application's
# thread): the holder named; the other line of the refused run not left
# requested.
for holder in -u --gpiod; do
	case $holder in
	-u) label="latscope pulse-in" ;;
	*) label="latscope-pulse" ;;
	esac
	latscope $holder -z - -I "$chip,$IN" -O "$chip,$ACK" -c 1 -T 60 >held.out 2>&1 &
	pid=$!
	# The lines are held once it says it warms up (SETUP came first).
	wait_for held.out "warming up" 60 || nok "line held: started" "$(cat held.out)"
	bad "line held ($holder)" "pulse-in $chip,$IN: line busy, used by \"$label\"" \
		-I "$chip,$IN" -O "$chip,5"
	bad "ack-out held ($holder)" "ack-out $chip,$IN: line busy, used by \"$label\"" \
		-I "$chip,5" -O "$chip,$IN"
	if grep -q "gpio-$((base + 5)) .*latscope" /sys/kernel/debug/gpio; then
		nok "line held ($holder): the refused run's other line free" "$(grep latscope /sys/kernel/debug/gpio)"
	else
		ok "line held ($holder): the refused run's other line free"
	fi
	kill -9 $pid
	wait $pid 2>/dev/null
	# kill -9 closed the file: the lines are free for the next run.
	latscope $holder -z - -I "$chip,$IN" -O "$chip,$ACK" -c 1 -T 1 >again.out 2>&1
	expect_rc "lines free again after kill -9 ($holder)" $? 0
done

echo 0 >"$cfg/live"
echo "gpio: $pass passed, $fail failed"
[ "$fail" = 0 ]
