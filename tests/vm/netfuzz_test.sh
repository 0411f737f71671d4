#!/bin/sh
# Network fuzz of both latmon ends in the GPIO test VM, over loopback,
# with the CLI built with AddressSanitizer and UBSan (latscope-asan):
# - the client (-z) against tests/vm/latmon_fuzz.c's monitor, one run per
#   turn, each drawn from the seed: every run must end by itself (within
#   60 s) with exit 0 or 5, print no sanitizer report, and leave no
#   process and no line held;
# - the monitor (--monitor) against its client: random and edge requests,
#   cuts, silence; then an honest client must still be served, the
#   monitor must exit 0 on Ctrl-C, and print no sanitizer report.
# Turns: lsnetfuzz= on the kernel command line (LATSCOPE_NETFUZZ_RUNS,
# default 6 client runs and 5 times as many monitor connections); the
# seed: lsseed= (LATSCOPE_FUZZ_SEED), else the time; it is printed.
# Ends with "netfuzz: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
runs=6
seed=$(date +%s)
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	lsnetfuzz=*) runs=${arg#lsnetfuzz=} ;;
	lsseed=*) seed=${arg#lsseed=} ;;
	esac
done
echo "# netfuzz: $runs client runs, $((runs * 5)) monitor connections, seed $seed"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
if ! sim_chip netfuzz; then
	nok "gpio-sim" "cannot configure a chip"
	echo "netfuzz: $pass passed, $fail failed"
	exit 1
fi
lines="-I $chip,0 -O $chip,1"
# Leaks at exit too (LeakSanitizer); a quarantine that fits 1 GB.
export ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=16:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The CLI under test has its sanitizers, else this proves nothing.
if ASAN_OPTIONS=help=1 latscope-asan --version 2>&1 | grep -q "Available flags for AddressSanitizer"; then
	ok "latscope-asan: built with AddressSanitizer"
else
	nok "latscope-asan: built with AddressSanitizer" "no ASan flags listed"
fi

# No sanitizer report in FILE.
clean() { # name, file
	if grep -qE "ERROR: (Address|Leak)Sanitizer|LeakSanitizer has encountered|runtime error:|SUMMARY: (Address|Undefined)" "$2"; then
		nok "$1: no sanitizer report" "$(grep -A20 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$2")"
	else
		ok "$1: no sanitizer report"
	fi
}

# ---- the client against a fuzzing monitor ----
port=2500
/latmon_fuzz monitor $port "$seed" "$runs" >fuzzmon.out 2>&1 &
fm=$!
wait_for fuzzmon.out "^listening" 20 || nok "fuzz monitor listens" "$(cat fuzzmon.out)"
i=0
while [ $i -lt "$runs" ]; do
	# shellcheck disable=SC2086
	timeout 60 latscope-asan -k -c 1 -p 10000 -z 127.0.0.1 --latmon-port $port $lines \
		-T 2 -H $((2 + (seed + i * 97) % 998)) --json "nf$i.json" >"nf$i.out" 2>&1
	rc=$?
	case $rc in
	0 | 5) ok "client run $i: ended by itself, exit $rc" ;;
	*) nok "client run $i: ended by itself, exit 0 or 5" "exit $rc: $(tail -5 "nf$i.out"; grep "turn $i:" fuzzmon.out)" ;;
	esac
	echo "# client run $i: exit $rc; $(grep "^turn $i:" fuzzmon.out | sed "s/^turn $i: //" | tr '\n' ';')"
	clean "client run $i" "nf$i.out"
	nothing_left "client run $i"
	i=$((i + 1))
done
wait_until 30 sh -c "! kill -0 $fm 2>/dev/null" || kill $fm
wait $fm 2>/dev/null

# ---- the monitor against fuzzing clients ----
M_OUT=2
M_IN=3
base=$(sed -n "s/^$chip: GPIOs \([0-9]*\)-.*/\1/p" /sys/kernel/debug/gpio)
ev=/sys/kernel/tracing/events/gpio/gpio_value
echo 1 >$ev/enable
/gpio_wire "$sim" "$base" $M_OUT:0 1:$M_IN >wire.out 2>&1 &
wire=$!
mport=2600
latscope-asan --monitor --pulse-out "$chip,$M_OUT" --ack-in "$chip,$M_IN" -c 0 \
	--listen 127.0.0.1 --latmon-port $mport --announce-to none -g fm.plot --json fm.json \
	>monitor.out 2>&1 &
mon=$!
wait_for monitor.out "waiting for a client" 60 || nok "monitor: listens" "$(cat monitor.out)"
/latmon_fuzz client 127.0.0.1 $mport "$seed" $((runs * 5)) >fuzzcli.out 2>&1
expect_rc "monitor: the fuzzing client played its turns" $? 0
# An honest client is served after all that: a responder answers.
# shellcheck disable=SC2086
latscope -k -c 1 -z - --ack pulse $lines >responder.out 2>&1 &
responder=$!
wait_for responder.out "warming up" 60 || nok "responder: started" "$(cat responder.out)"
# Idle again: it waits for a client once more than it took one.
idle_again() {
	[ "$(grep -c 'waiting for a client' monitor.out)" -gt "$(grep -c '^client .* connected' monitor.out)" ]
}
wait_until 60 idle_again || nok "monitor: idle after the fuzz" "$(tail -20 monitor.out)"
if /latmon_peer client good 127.0.0.1 $mport >good.out 2>&1; then
	ok "monitor: an honest client is served after the fuzz"
else
	nok "monitor: an honest client is served after the fuzz" "$(cat good.out; tail -20 monitor.out)"
fi
kill -INT $responder
wait $responder
kill -INT $mon
wait $mon
expect_rc "monitor: exits 0 on Ctrl-C" $? 0
clean "monitor" monitor.out
kill $wire
wait $wire 2>/dev/null
echo 0 >$ev/enable
nothing_left "monitor"
echo 0 >"$cfg/live"
echo "netfuzz: $pass passed, $fail failed"
[ "$fail" = 0 ]
