#!/bin/bash
# Hostile command lines for the latscope CLI, built with AddressSanitizer
# and UndefinedBehaviorSanitizer: huge, negative, garbage and overlong
# option values, paths it must not write, CPUs that are not online. Each
# must end with the documented exit status and one line on stderr that
# names the bad value, and no sanitizer report.
# Usage: tests/unit/hostile.sh [CLI]   (CLI: an already built binary, e.g.
# in the VM; default: build the sanitized one here). Runs without a
# /dev/latscope: every case is refused before the device is needed, or by
# the missing device itself. Ends with "hostile: N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'chmod -R u+w "$out"; rm -rf "$out"' EXIT

if [ $# -gt 0 ]; then
	cli=$1
else
	cli=$out/latscope
	san="-fsanitize=address,undefined -fno-sanitize-recover=all"
	make -s -C "$top/userspace" clean
	make -s -C "$top/userspace" CFLAGS="-O1 -g -fno-omit-frame-pointer $san" \
		LDFLAGS="$san" latscope || exit 1
	mv "$top/userspace/latscope" "$cli"
	make -s -C "$top/userspace" clean
fi
# A sanitizer report exits 99, which no case expects.
export ASAN_OPTIONS=exitcode=99:detect_leaks=1
export UBSAN_OPTIONS=exitcode=99:print_stacktrace=1:halt_on_error=1

passed=0
failed=0
long=$(head -c 5000 /dev/zero | tr '\0' a)
mkdir "$out/ro"
chmod 555 "$out/ro"
touch "$out/exists.plot"
offline=$(($(getconf _NPROCESSORS_CONF) + 7))

# tally STATUS OK FAILED: one check counted, its line printed (STATUS 0:
# "ok - OK", else "not ok - FAILED" and the run's stderr).
tally() {
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		echo "ok - $2"
	else
		failed=$((failed + 1))
		echo "not ok - $3"
		head -c 2000 "$out/stderr" | sed 's/^/#   /'
	fi
}

# case RC PATTERN ARG...: the exit status, and a fixed string stderr's one
# line must hold.
case_() {
	local rc=$1 pattern=$2 got lines name
	shift 2
	name="latscope ${*:0:3}"
	name=${name:0:70}
	"$cli" -q "$@" >"$out/stdout" 2>"$out/stderr"
	got=$?
	lines=$(wc -l <"$out/stderr")
	[ "$got" = "$rc" ] && [ "$lines" = 1 ] && grep -qF -- "$pattern" "$out/stderr"
	tally $? "$name: exit $rc, '$pattern'" \
		"$name: exit $got (want $rc), $lines stderr lines (want 1) with '$pattern':"
}

# -p under 100, a cyclictest user's priority: a period all the same, and a
# note on stderr before the run (here refused after it: the plot file exists).
"$cli" -q -p 99 -T 1 -g "$out/exists.plot" >"$out/stdout" 2>"$out/stderr"
grep -qxF "latscope: -p 99: -p is the period in us; the priority is -P" "$out/stderr" &&
	! "$cli" -q -p 100 -T 1 -g "$out/exists.plot" 2>&1 | grep -q "priority is -P"
tally $? "latscope -p 99: a note that -p is the period, none at -p 100" \
	"latscope -p 99: a note that -p is the period, none at -p 100:"

# Numbers: huge, negative, garbage, empty, out of range.
case_ 2 "'0' for -p/--period" -p 0
case_ 2 "'-5' for -p/--period" -p -5
case_ 2 "'99999999999999999999' for -p/--period" -p 99999999999999999999
case_ 2 "'0x10' for -p/--period" -p 0x10
case_ 2 "'' for -p/--period" -p ''
case_ 2 "'12abc' for -p/--period" -p 12abc
case_ 2 "'-1' for -c/--cpu" -c -1
case_ 2 "'4294967296' for -c/--cpu" -c 4294967296
case_ 2 "'0' for -H/--histogram" -H 0
case_ 2 "'65537' for -H/--histogram" -H 65537
case_ 2 "'0' for --why" --why=0
case_ 2 "'65' for --why" --why=65
case_ 2 "'x' for --why" --why=x
case_ 2 "--check-setup reads the board" --check-setup --json /tmp/x.json
case_ 2 "--check-setup reads the board" --check-setup -T 5
case_ 2 "--apply-setup changes the board for a run" --apply-setup --cost
case_ 2 "--check-setup" --check-setup=yes
# The exporter's values: addresses, ports, windows, bounds, combinations.
case_ 2 "--serve '0': give PORT" --serve=0
case_ 2 "--serve '65536': give PORT" --serve=65536
case_ 2 "'localhost' is no IPv4 address" --serve=localhost:9100
case_ 2 "'999.1.1.1' is no IPv4 address" --serve=999.1.1.1:9100
case_ 2 "'::1:80': give PORT" --serve=::1:80
case_ 2 "'zz' is no IPv6 address" "--serve=[zz]:80"
case_ 2 "--serve 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': give PORT" "--serve=$long"
case_ 2 "--serve takes its value as --serve=9100" --serve 9100
case_ 2 "not with --cost, --check-setup, --apply-setup, --calibrate" --serve --monitor --calibrate --pulse-out gpiochip0,1 --ack-in gpiochip0,2
case_ 2 "'0' for --window" --serve --window 0
case_ 2 "'3601' for --window" --serve --window 3601
case_ 2 "--buckets '5,1': the bounds must increase" --serve --buckets 5,1
case_ 2 "--buckets '-1'" --serve --buckets=-1
case_ 2 "'1e400' is not a bound" --serve --buckets 1e400
case_ 2 "more than 32 bounds" --serve --buckets "$(seq -s, 1 40)"
case_ 2 "--buckets 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is not" --serve --buckets "$long"
case_ 2 "'2h' for --textfile-every" --textfile x.prom --textfile-every 2h
case_ 2 "belongs to --serve or --textfile" --window 5
case_ 2 "not - (stdout)" --serve --json -
case_ 2 "not with --cost" --textfile x.prom -A 100
case_ 3 "--textfile $out/nope/x.prom: cannot write it" --textfile "$out/nope/x.prom" -T 1
case_ 2 "'0' for -P/--priority" -P 0
case_ 2 "'100' for -P/--priority" -P 100
case_ 2 "'1e99' for -T/--timeout" -T 1e99
case_ 2 "'-1' for -T/--timeout" -T -1
case_ 2 "'101d' for -T/--timeout" -T 101d
case_ 2 "'18446744073709551616' for -T/--timeout" -T 18446744073709551616
case_ 2 "'abc' for -A/--maxlat-abort" -A abc
case_ 2 "'-1' for --checkpoint" --checkpoint -1 -g "$out/c.plot"
case_ 2 "'1000' for --irq-prio" --irq-prio 1000
case_ 2 "'1-0' for --cpus" --cpus 1-0
case_ 2 "--thermal-zone '99999999999999999999'" --thermal-zone 99999999999999999999
case_ 2 "--thermal-zone '$(printf %.40s "$long")...'" --thermal-zone "$long"
# Heat and clock: a zone not there, a sysfs root that is not a directory.
mkdir -p "$out/sys/class/thermal/thermal_zone0"
echo 40000 >"$out/sys/class/thermal/thermal_zone0/temp"
LATSCOPE_SYSFS=$out/sys case_ 3 "--thermal-zone 5: $out/sys/class/thermal/thermal_zone5/temp cannot be read (zones here: 0)" --thermal-zone 5
LATSCOPE_SYSFS=$out/exists.plot case_ 3 "sysfs root '$out/exists.plot': not a directory (LATSCOPE_SYSFS)"
LATSCOPE_SYSFS=$long case_ 3 "sysfs root '$(printf %.64s "$long")': not a directory"
case_ 2 "',,,' for --cpus" --cpus ,,,
# Words and specs.
case_ 2 "'--bogus'" --bogus
case_ 2 "--stress bogus" --stress bogus
case_ 2 "--stress-cmd" --stress-cmd ''
case_ 2 "--stress-cmd" --stress-cmd "$long"
case_ 2 "too long" -z - -I "$long,1" -O gpiochip0,2
case_ 2 "chip name too long" -z - -I "${long:0:100},1" -O gpiochip0,2
case_ 2 "bad line offset '-1'" -z - -I gpiochip0,-1 -O gpiochip0,2
case_ 2 "bad line offset '65535'" -z - -I gpiochip0,65535 -O gpiochip0,2
case_ 2 "edge 'sideways'" -z - -I gpiochip0,1,sideways -O gpiochip0,2
case_ 2 "an output line has no edge" -z - -I gpiochip0,1 -O gpiochip0,2,rising-edge
case_ 2 "expected <gpiochip>,<offset>" -z - -I '' -O gpiochip0,2
# latmon: hosts, ports and monitor options, refused before any socket.
case_ 2 "give a latmon host" -z "$long" -I gpiochip0,1 -O gpiochip0,2
case_ 2 "give a latmon host" -z $'a\tb' -I gpiochip0,1 -O gpiochip0,2
case_ 2 "'99999'" --latmon-port 99999 -z h -I gpiochip0,1 -O gpiochip0,2
case_ 2 "--latmon-port belongs to a latmon host (-z or -Z) or --monitor" --latmon-port 2307
case_ 2 "--ack sideways" --ack sideways -I gpiochip0,1 -O gpiochip0,2
case_ 2 "give pulse or toggle" --ack "$long" -I gpiochip0,1 -O gpiochip0,2
case_ 2 "give rising-edge or falling-edge" --monitor --pulse-edge "$long"
case_ 2 "at most 999" -z h -H 65536 -I gpiochip0,1 -O gpiochip0,2
case_ 2 "--monitor needs --pulse-out" --monitor
case_ 2 "each line must be a different one" --monitor --pulse-out gpiochip0,1 --ack-in gpiochip0,1
case_ 2 "belongs to --monitor" --calibrate
case_ 2 "--listen 999.1.1.1" --monitor --listen 999.1.1.1 --pulse-out gpiochip0,1 --ack-in gpiochip0,2
case_ 2 "give a dotted IPv4 address, or none" --monitor --announce-to "$long" --pulse-out gpiochip0,1 --ack-in gpiochip0,2
case_ 2 "--pulse-edge both-edges" --monitor --pulse-edge both-edges --pulse-out gpiochip0,1 --ack-in gpiochip0,2
case_ 2 "is not ADDR or ADDR/PREFIX" --monitor --allow "$long" --pulse-out gpiochip0,1 --ack-in gpiochip0,2
case_ 2 "host bits set" --monitor --allow 10.0.0.1/8 --pulse-out gpiochip0,1 --ack-in gpiochip0,2
case_ 2 "--max-run bounds each client's run" --monitor -T 10 --pulse-out gpiochip0,1 --ack-in gpiochip0,2
case_ 2 "invalid value '-1' for --max-run" --monitor --max-run -1 --pulse-out gpiochip0,1 --ack-in gpiochip0,2
# The application's responder (--gpiod): its rules, and lines that are
# not there (refused before any line is requested; no module needed).
case_ 2 "GPIO mode needs both -I" --gpiod
case_ 2 "--gpiod requests its lines" --gpiod --gpio-dt
case_ 2 "needs both --pulse-out" --gpiod -I gpiochip0,1 -O gpiochip0,2 --pulse-out gpiochip0,3
case_ 2 "both-edges" -I gpiochip0,1,both-edges -O gpiochip0,2 --pulse-out gpiochip0,3 --ack-in gpiochip0,4
case_ 2 "a line of its own" -I gpiochip0,1 -O gpiochip0,2 --pulse-out gpiochip0,3 --ack-in gpiochip0,2
case_ 2 "not both" -z h -I gpiochip0,1 -O gpiochip0,2 --pulse-out gpiochip0,3 --ack-in gpiochip0,4
case_ 2 "leave out -k, -u and --gpiod" --monitor --gpiod --pulse-out gpiochip0,1 --ack-in gpiochip0,2
case_ 3 "no GPIO chip /dev/${long:0:70}" -z - -I "${long:0:70},1" -O gpiochip0,2 -T 1
case_ 3 "pulse-in /nonexistent/chip,3: no GPIO chip" --gpiod -I /nonexistent/chip,3 -O /nonexistent/chip,4 -T 1
case_ 3 "pulse-in /dev/null,3: /dev/null is not a GPIO chip" -z - -I /dev/null,3 -O /dev/null,4 -T 1
# Paths it must not write, and CPUs that are not there.
case_ 3 "$out/exists.plot exists" -g "$out/exists.plot"
case_ 3 "/dev/full exists" --json /dev/full
case_ 3 "/proc/version exists" -g /proc/version
case_ 3 "$out/ro/no/x.plot" -g "$out/ro/no/x.plot"
case_ 3 "CPU$offline is not online" -c "$offline"
case_ 3 "CPU$offline is not online" --cpus "0,$offline"
# Habits of cyclictest, rtla and latmus users, and two of a kind: each
# refused with latscope's way named.
case_ 2 "-i and -k: give one context" -i -k
case_ 2 "--cpus and -c: give the CPUs once" --cpus all -c 1
case_ 2 "-g/--plot '-T': that is an option, not a value" -g -T 1
case_ 2 "-g/--plot '--json': that is an option" -g --json "$out/x.json"
case_ 2 "-i/--irq takes no value; the period is -p, e.g. -p 1000" -i 1000
case_ 2 "a list or all is --cpus 0-3" -c 0-3
case_ 2 "option -D is unknown: the duration is -T" -D 10
case_ 2 "option -d is unknown: the duration is -T" -d 10
case_ 2 "option -h is unknown: help is --help; the histogram's cells are -H" -h
case_ 2 "option -m is unknown: memory is always locked" -m
case_ 2 "option -g needs a value (a file name, or - for stdout)" -g
case_ 2 "option '--bogus' is unknown" --bogus
case_ 2 "option '--json' needs a value" --json
mkdir "$out/adir"
case_ 3 "$out/adir is a directory: give a file name in it" --json "$out/adir"
# Everything else is fine: the missing device is what stops it.
[ -e /dev/latscope ] || case_ 3 "no /dev/latscope" -T 1
# --cost finds it missing before its plain pass, said once (no
# "latscope: latscope:"); the exporter with -T, having measured nothing,
# ends with 3, not 0.
if [ ! -e /dev/latscope ]; then
	"$cli" --cost --cost-only queens-1 --cost-scale 1 --cost-repeat 1 >"$out/stdout" 2>"$out/stderr"
	got=$?
	[ "$got" = 3 ] && [ ! -s "$out/stdout" ] && [ "$(cat "$out/stderr")" = \
		"latscope: no /dev/latscope: load the driver first (modprobe latscope, or insmod latscope.ko)" ]
	tally $? "latscope --cost without the driver: exit 3 before any workload, said once" \
		"latscope --cost without the driver: exit $got (want 3), stdout $(wc -c <"$out/stdout") bytes (want 0):"
	"$cli" --textfile="$out/t.prom" -T 2 >"$out/stdout" 2>"$out/stderr"
	got=$?
	[ "$got" = 3 ] && [ "$(tail -n 1 "$out/stderr")" = "latscope: -T is over and nothing was measured" ]
	tally $? "latscope --textfile=F -T 2 without the driver: exit 3, nothing was measured" \
		"latscope --textfile=F -T 2 without the driver: exit $got (want 3):"
fi
# A node left behind with no driver: a char major of the ranges kept for
# local use that no driver has here, so open() finds nothing behind it.
if [ "$(id -u)" = 0 ] && [ ! -e /dev/latscope ]; then
	for major in 60 61 62 63 120 121 122 123 124 125 126 127; do
		grep -qE "^ *$major " /proc/devices && continue
		mknod /dev/latscope c "$major" 0 &&
			trap 'rm -f /dev/latscope; chmod -R u+w "$out"; rm -rf "$out"' EXIT
		case_ 3 "/dev/latscope is a stale node, no driver behind it: load the driver" -T 1
		rm -f /dev/latscope
		break
	done
fi

echo "hostile: $passed passed, $failed failed"
[ $failed -eq 0 ]
