#!/bin/sh
# The application's responder (--gpiod, libgpiod on the GPIO character
# device) in the GPIO test VM, with the monitors that time it: the
# one-board mode (the driver's monitor session beside it), latscope's own
# latmon monitor over loopback TCP, and a latmon double with the module
# not loaded at all. --irq-prio on the pulse-in interrupt's thread, read
# from /proc during the run, on every way a run ends. gpio-sim's lines
# are wired by tests/vm/gpio_wire.c. Ends with "gpiod: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

# Files of its own: the other GPIO parts leave theirs in /tmp.
mkdir -p /tmp/gpiod && cd /tmp/gpiod || exit 1
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
if sim_chip gpiod; then
	ok "gpio-sim: $chip"
else
	nok "gpio-sim" "cannot configure a chip"
	echo "gpiod: $pass passed, $fail failed"
	exit 1
fi
IN=0 ACK=1 M_OUT=2 M_IN=3
lines="-I $chip,$IN,falling-edge -O $chip,$ACK"
# JSON number or boolean of the first "KEY": in a file.
jget() { sed -n "s/.*\"$2\": \([^,]*\),*$/\1/p" "$1" | head -n 1; }
is() { # name, got, want
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "got '$2', want '$3'"; fi
}
pull() { echo "pull-$2" >"$sim/sim_gpio$1/pull"; }
rtd_lines() { [ "$(grep -c "^RTD" "$1")" -ge "$2" ]; }
# The local split of thread 0 in a JSON file: edge to thread running
# (irq) within edge to ack written (latency), sample by sample, so each
# of min, avg and max is ordered.
split_ordered() { # name, json
	sed -n '/"thread"/,$p' "$2" >split.json
	lat=$(sed -n '/"latency"/,/}/p' split.json)
	irq=$(sed -n '/"irq"/,/}/p' split.json)
	for k in min avg max; do
		l=$(echo "$lat" | sed -n "s/.*\"$k\": \([-0-9.]*\).*/\1/p" | head -n 1)
		i=$(echo "$irq" | sed -n "s/.*\"$k\": \([-0-9.]*\).*/\1/p" | head -n 1)
		if [ -n "$l" ] && [ -n "$i" ] && awk "BEGIN { exit !($i >= 0 && $i <= $l) }"; then
			ok "$1: split ordered, $k: edge to running $i <= edge to ack $l"
		else
			nok "$1: split ordered, $k" "running '$i', ack '$l'"
		fi
	done
}
# The thread of the pulse-in interrupt, and its rt_priority (stat field 40).
irq_thread() {
	irq=
	for d in /proc/irq/*/latscope-pulse; do
		[ -d "$d" ] && irq=$(echo "$d" | cut -d/ -f4)
	done
	[ -n "$irq" ] || return 1
	for d in /proc/[0-9]*; do
		case $(cat "$d/comm" 2>/dev/null) in
		"irq/$irq-latscope"*) echo "${d#/proc/}"; return 0 ;;
		esac
	done
	return 1
}
prio_of() { awk '{ print $40 }' "/proc/$1/stat"; }

base=$(sed -n "s/^$chip: GPIOs \([0-9]*\)-.*/\1/p" /sys/kernel/debug/gpio)
ev=/sys/kernel/tracing/events/gpio/gpio_value
echo 1 >$ev/enable
/gpio_wire "$sim" "$base" $M_OUT:$IN $ACK:$M_IN >wire.out 2>&1 &
wire=$!

# ---- one board: the driver's monitor session pulses and times, libgpiod answers ----
# shellcheck disable=SC2086 # $lines are words
latscope -c 1 -p 20000 $lines --pulse-out "$chip,$M_OUT" --ack-in "$chip,$M_IN" -T 3 \
	--irq-prio 70 --json board.json -g board.plot >board.out 2>&1
expect_rc "one board: exit status" $? 0
has "one board: RTT names the context" board.out "^RTT|  00:00:0[0-9]  (inband-gpio, 20000 us period, priority 90, CPU1"
has "one board: records" board.out "^RTD|"
has "one board: the lines" board.out "^GPIO| one board, application thread (libgpiod [12]\.[0-9.]*): monitor pulse-out $chip,$M_OUT -> pulse-in $chip,$IN (falling-edge), ack-out $chip,$ACK -> monitor ack-in $chip,$M_IN (falling-edge)"
has "one board: the local split" board.out "^LOC| this board, edge to ack written: min [0-9.]* avg [0-9.]* max [0-9.]* us, of which edge to thread running"
has "one board: the IRQ thread raised and given back" board.out "^GPIO| [0-9]* acks; irq [0-9]* delivered by thread irq/[0-9]*-latscope.* at SCHED_FIFO 70 for the run, then given back its SCHED_FIFO"
is "one board: JSON mode" "$(jget board.json mode)" '"one-board"'
sed -n '/"total"/,$p' board.json >board-total.json
samples=$(jget board-total.json samples)
under=$(jget board-total.json underflow)
cycles=$(jget board.json cycles)
acks=$(jget board.json acks)
sed -n '/"monitor"/,/}/p' board.json >board-monitor.json
lost=$(jget board-monitor.json lost)
if [ "${samples:-0}" -ge 1 ] && [ "$under" = 0 ]; then
	ok "one board: the monitor timed $samples answers, every ack edge after its pulse edge"
else
	nok "one board: the monitor's samples" "$samples, $under below 0"
fi
# The responder answers every edge it gets, in time or late; the monitor
# counts from its own later start, and a late answer as unanswered.
if [ "${cycles:-0}" -ge "$samples" ] && [ "$acks" = "$cycles" ]; then
	ok "one board: every pulse the monitor timed was answered ($acks acks, $lost lost)"
else
	nok "one board: answers" "$acks acks, $cycles samples, monitor $samples"
fi
split_ordered "one board" board.json
plot_adds_up "one board: plot rows add up" board.plot
has "one board: plot says who measured" board.plot "^# measured by: this board's monitor on CPU0"
dump gpiod-one-board.json board.json
dump gpiod-one-board.plot board.plot
cat board.out
nothing_left "one board"

# ---- latscope's own latmon monitor over loopback TCP ----
mport=2500
latscope --monitor --pulse-out "$chip,$M_OUT" --ack-in "$chip,$M_IN" -c 0 \
	--pulse-edge falling-edge --listen 127.0.0.1 --latmon-port $mport --announce-to none --json mon.json >mon.out 2>&1 &
mon=$!
idle() { # n
	wait_until 60 sh -c "[ \$(grep -c 'waiting for a client' mon.out) -ge $1 ]" ||
		nok "monitor idle ($1)" "$(cat mon.out)"
}
idle 1
# A client run (-z HOST alone: the application's thread); NAME, options.
client() {
	name=$1
	shift
	# shellcheck disable=SC2086
	latscope -c 1 -p 20000 -z 127.0.0.1 --latmon-port $mport $lines "$@" >"$name.out" 2>&1 &
	pid=$!
}
# While a client runs: its pulse-in thread at the asked priority.
raised_during() { # name, prio
	wait_until 60 rtd_lines "$1.out" 1 || nok "$1: a record" "$(cat "$1.out" mon.out)"
	t=$(irq_thread)
	if [ -n "$t" ] && [ "$(prio_of "$t")" = "$2" ]; then
		ok "$1: irq thread $t at SCHED_FIFO $2 during the run"
	else
		nok "$1: irq thread at $2 during the run" "thread '$t' prio '$(prio_of "$t" 2>/dev/null)'"
	fi
}
# After it: given back (checked by latscope), then gone with the line.
given_back() { # name
	has "$1: given back" "$1.out" "then given back its SCHED_FIFO"
	if irq_thread >/dev/null; then nok "$1: no irq thread left" "$(irq_thread)"; else ok "$1: no irq thread left"; fi
}
# Long enough that its thread is still raised when the first record came,
# however slowly the emulator runs the check (3 s was seen to end first).
client tcp -T 10 --irq-prio 80 --json tcp.json -g tcp.plot
raised_during tcp 80
wait $pid
expect_rc "tcp: exit status" $? 0
given_back tcp
idle 2
has "tcp: RTT" tcp.out "^RTT|  00:00:[0-9][0-9]  (inband-gpio, 20000 us period"
has "tcp: the monitor" tcp.out "^LMN| latmon monitor 127.0.0.1:$mport: [1-9][0-9]* records, histogram of"
has "tcp: the local split" tcp.out "^LOC| this board, edge to ack written:"
sed -n '/"total"/,$p' tcp.json >tcp-total.json
sed -n '/"total"/,$p' mon.json >mon-total.json
is "tcp: the client's total is the monitor's" "$(jget tcp-total.json samples)" "$(jget mon-total.json samples)"
split_ordered "tcp" tcp.json
dump gpiod-latmon.json tcp.json
dump gpiod-latmon.plot tcp.plot
nothing_left "tcp" $mon
# Ctrl-C and SIGTERM end the run as -T does.
n=2
for sig in INT TERM; do
	client "sig$sig" --irq-prio 81
	raised_during "sig$sig" 81
	kill -$sig $pid
	wait $pid
	expect_rc "SIG$sig: exit status" $? 0
	given_back "sig$sig"
	n=$((n + 1))
	idle $n
done
# The monitor lost mid-run: exit 5, the thread given back all the same.
client lost --irq-prio 82
raised_during lost 82
kill -9 $mon
wait $mon 2>/dev/null
wait $pid
expect_rc "lost monitor: exit status" $? 5
given_back lost
nothing_left "lost monitor"

# ---- no module: the application's thread needs none ----
if rmmod latscope; then
	ok "rmmod for the module-less run"
	if [ -e /dev/latscope ]; then nok "no /dev/latscope" "still there"; else ok "no /dev/latscope"; fi
	# steady: a record each 500 ms until the stop, so that the client
	# does not find the double gone (5 s silent) while the pulses below
	# take what a loaded host makes them take.
	/latmon_peer monitor steady 2600 >peer.out 2>&1 &
	peer=$!
	wait_for peer.out "^listening" 20 || nok "double listens" "$(cat peer.out)"
	latscope -c 1 -p 2000 -z 127.0.0.1 --latmon-port 2600 -I "$chip,$IN" -O "$chip,$ACK" \
		--json nomod.json >nomod.out 2>&1 &
	pid=$!
	wait_for nomod.out "warming up" 60 || nok "no module: started" "$(cat nomod.out)"
	# Pulses on pulse-in from the test (the double only talks), past the warm-up.
	sleep 1.5 2>/dev/null || usleep 1500000
	k=0
	while [ $k -lt 20 ]; do
		pull $IN up
		usleep 20000
		pull $IN down
		usleep 20000
		k=$((k + 1))
	done
	wait_until 60 rtd_lines nomod.out 3 || nok "no module: records" "$(cat nomod.out)"
	kill -INT $pid
	wait $pid
	expect_rc "no module: exit status" $? 0
	wait $peer
	has "no module: the double's records" nomod.out "^RTD|     10.000|     20.000|     50.000|"
	has "no module: the local split" nomod.out "^LOC| this board, edge to ack written:"
	c=$(jget nomod.json cycles)
	if [ "${c:-0}" -ge 1 ] && [ "$c" -le 20 ]; then ok "no module: $c of 20 rising edges answered and timed"; else nok "no module: samples" "$c"; fi
	split_ordered "no module" nomod.json
	nothing_left "no module"
	if insmod /latscope.ko; then ok "insmod again"; else nok "insmod again" "failed"; fi
else
	nok "rmmod for the module-less run" "the module is busy"
fi

kill $wire
wait $wire 2>/dev/null
echo 0 >$ev/enable
echo 0 >"$cfg/live"
echo "gpiod: $pass passed, $fail failed"
[ "$fail" = 0 ]
