#!/bin/sh
# A survey with GPIO lines, in the GPIO test VM (busybox sh; the PREEMPT
# kernel's, within the time budget: the survey's code is the same on
# both): a gpio-sim chip, its pulse-out line wired to pulse-in by
# tests/vm/gpio_loop.c, and latscope --survey -T 20s -p 20000 with -I, -O
# and --pulse-out: the driver's two GPIO threads, quiet, 10 s each (the
# setup, the timer runs, the loads and the cost suite skipped: other
# stages run them). Every phase done; the GPIO runs given the lines (their
# output says loopback), and the survey.txt settings name them; no
# Python here, so no profile, said, and exit 1. The directory comes back
# to the host, which makes its profile (scripts/vm.sh). Then a latmon
# monitor on the same chip (latscope --monitor, its lines wired to the
# board's by tests/vm/gpio_wire.c) and a survey with -z 127.0.0.1: its
# one phase, the round trip quiet for 10 s, done and the monitor's.
# Ends with "survey_gpio: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
if uname -v | grep -q PREEMPT_RT; then
	echo "# survey_gpio: the PREEMPT GPIO VM runs it"
	exit 0
fi
if ! sim_chip survey; then
	nok "gpio-sim" "cannot configure a chip"
	echo "survey_gpio: $pass passed, $fail failed"
	exit 1
fi
IN=0
ACK=1
OUT=2
echo pull-down >"$sim/sim_gpio$IN/pull"
taskset -c 0 /gpio_loop "$sim" $OUT $IN &
wire=$!
name=survey-gpio
d=/tmp/$name
latscope --survey "$d" -T 20s -c 1 -p 20000 -I "$chip,$IN" -O "$chip,$ACK" \
	--pulse-out "$chip,$OUT" --survey-skip setup,timer,cost,grinder,neighbour,classic \
	>/tmp/survey-gpio.out 2>&1
expect_rc "survey_gpio: exit 1 (no profile without latscope-report)" $? 1
kill $wire
wait $wire 2>/dev/null
sed 's/^/# /' /tmp/survey-gpio.out | grep -v "^# SURVEY| phase" | tail -n 8
has "survey_gpio: the plan has the GPIO runs" /tmp/survey-gpio.out \
	"^  02-gpio-kernel-quiet *GPIO, kernel thread, quiet, 10 s"
survey_done "survey_gpio: every phase of 2 done (the 2 GPIO runs)" "$d" 2
has "survey_gpio: the user thread's GPIO run on the loopback" "$d/01-gpio-user-quiet.txt" \
	"^GPIO| loopback, pulse-out $chip,$OUT -> pulse-in $chip,$IN"
has "survey_gpio: the kernel thread's GPIO run on the loopback" "$d/02-gpio-kernel-quiet.txt" \
	"^GPIO| loopback, pulse-out $chip,$OUT -> pulse-in $chip,$IN"
has "survey_gpio: survey.txt's settings name the lines" "$d/survey.txt" \
	"^settings: CPUs 1, period 20000 us, priority 90, GPIO --gpio-in=$chip,$IN --gpio-out=$chip,$ACK --pulse-out=$chip,$OUT$"
nothing_left "survey_gpio"
dump_survey "$name" "$d"

# ---- a latmon monitor over loopback: the survey's round trip ----
# The wires: monitor pulse-out (4) -> board pulse-in (6), board ack-out
# (7) -> monitor ack-in (5).
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
echo 1 >/sys/kernel/tracing/events/gpio/gpio_value/enable
base=$(sed -n "s/^$chip: GPIOs \([0-9]*\)-.*/\1/p" /sys/kernel/debug/gpio)
/gpio_wire "$sim" "$base" 4:6 7:5 >/tmp/survey-wire.out 2>&1 &
wire=$!
latscope --monitor --pulse-out "$chip,4" --ack-in "$chip,5" -c 0 --listen 127.0.0.1 \
	--latmon-port 2410 --announce-to none >/tmp/survey-mon.out 2>&1 &
mon=$!
wait_for /tmp/survey-mon.out "waiting for a client" 60 ||
	nok "survey_gpio: the monitor waits" "$(cat /tmp/survey-mon.out)"
ld=/tmp/survey-latmon
latscope --survey "$ld" -T 10s -c 1 -p 10000 -z 127.0.0.1 --latmon-port 2410 \
	-I "$chip,6" -O "$chip,7" --survey-skip setup,cost,timer,grinder,neighbour,classic \
	>/tmp/survey-latmon.out 2>&1
expect_rc "survey_gpio: latmon: exit 1 (no profile without latscope-report)" $? 1
sed 's/^/# /' /tmp/survey-latmon.out | grep -v "^# SURVEY| phase" | tail -n 4
survey_done "survey_gpio: latmon: the round trip's phase done" "$ld" 1
has "survey_gpio: latmon: the phase measured by the monitor" "$ld/01-latmon-quiet.txt" \
	"^LMN| latmon monitor 127.0.0.1:2410"
kill -INT $mon
wait $mon
kill $wire
wait $wire 2>/dev/null
echo 0 >/sys/kernel/tracing/events/gpio/gpio_value/enable
nothing_left "survey_gpio: latmon"
dump_survey survey-latmon "$ld"
echo "survey_gpio: $pass passed, $fail failed"
[ "$fail" = 0 ]
