#!/bin/bash
# Behaviour unchanged: runs two latscope binaries on the same command lines
# (help, version, every option alone and in pairs, bad values, paths it must
# not write, the missing device) in the same scratch directory and compares
# exit status, stdout, stderr and the files each left, byte for byte.
# Then, if cc builds tests/fakedev/fakedev.c, whole runs against that fake
# /dev/latscope (LD_PRELOAD; fixed records and results, clocks that tick in
# whole seconds from a fixed epoch): summaries, plot and JSON files, and
# the fake's trace of the ioctls each binary made (fakedev.trace) and the
# checkpoint files as they were at the stop (*.at-stop). Those run as
# "latscope" (argv[0]), as from PATH, so the JSON's cmdline matches.
# Usage: scripts/cli-diff.sh OLD NEW. For refactors of userspace/: build
# the old binary from the last commit, then compare. Ends with
# "cli-diff: N same, N different"; non-zero on any difference.
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: $0 OLD NEW" >&2; exit 2; }
old=$(realpath "$1")
new=$(realpath "$2")
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
long=$(head -c 300 /dev/zero | tr '\0' a)
offline=$(($(getconf _NPROCESSORS_CONF) + 7))
top=$(cd "$(dirname "$0")/.." && pwd)
fakedev=	# the fake device's library, once built
fake=		# set: run() runs with it

# run BIN DIR ARGS...: the result of one command line in DIR/out.
run() {
	local bin=$1 dir=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir/cwd/ro"
	touch "$dir/cwd/exists.plot"
	chmod 555 "$dir/cwd/ro"
	if [ -n "$fake" ]; then
		(cd "$dir/cwd" && export LD_PRELOAD=$fakedev FAKEDEV_TRACE=fakedev.trace \
			FAKEDEV_AT_STOP="c.plot c.json" || exit
		 # shellcheck disable=SC2016 # the inner bash expands them
		 timeout 10 bash -c 'exec -a latscope "$0" "$@"' "$bin" "$@" \
			>../stdout 2>../stderr </dev/null
		 echo $? >../rc)
	else
		(cd "$dir/cwd" && timeout 10 "$bin" "$@" >../stdout 2>../stderr </dev/null
		 echo $? >../rc)
	fi
	chmod -R u+w "$dir/cwd"
	# What the CLI wrote: every file's name and bytes.
	(cd "$dir/cwd" && find . -type f ! -name exists.plot | sort |
		while read -r f; do echo "== $f"; cat "$f"; done) >"$dir/files"
}

same=0
different=0
check() {
	local f
	run "$old" "$work/a" "$@"
	run "$new" "$work/b" "$@"
	sed -i "s|$old|LATSCOPE|g" "$work/a/stderr" "$work/a/stdout"
	sed -i "s|$new|LATSCOPE|g" "$work/b/stderr" "$work/b/stdout"
	for f in rc stdout stderr files; do
		if ! cmp -s "$work/a/$f" "$work/b/$f"; then
			different=$((different + 1))
			echo "not ok - latscope $*: $f differs"
			diff "$work/a/$f" "$work/b/$f" | head -10 | sed 's/^/#   /'
			return
		fi
	done
	same=$((same + 1))
}

gpio="-I gpiochip0,1 -O gpiochip0,2"
mon="--monitor --pulse-out gpiochip0,1 --ack-in gpiochip0,2"
while IFS= read -r line; do
	[ -n "$line" ] || continue
	eval "set -- $line"
	check "$@"
done <<CASES
--help
--version
-h
-V
--bogus
-x
-i -k
-q -T 1
-T 1
-i -T 1
-k -T 1
-u -T 1
-p 0
-p -5
-p 9
-p 10 -T 1
-p 1000001
-p 99999999999999999999
-p 0x10
-p ''
-p 12abc
-p
-c -1
-c 4294967296
-c $offline
-c 0-3
--cpus 0,$offline
--cpus all -T 1
--cpus 1-0
--cpus ,,,
--cpus ''
-H 0
-H 65537
-H 65536 -T 1
-P 0
-P 100
-P 99 -T 1
-T 1e99
-T -1
-T 101d
-T 1m
-T 18446744073709551616
-A abc
-A 100 -T 1
-b 10 -T 1
-b abc
--checkpoint -1 -g c.plot
--checkpoint 30s
--checkpoint 5m -g c.plot -T 1
--irq-prio 1000
--irq-prio 50 $gpio
--stress bogus
--stress grinder -T 1
--stress-cmd ''
--stress-cmd 'true' -T 1
--stress-cmd $long
-l 100000 -T 1
-l x
-v
-v 3 -T 1
-v x
-g -T 1
-g - -T 1
--json x.json -T 1
--json - -T 1
--json ro/x.json
-g exists.plot
-g exists.plot --force -T 1
--json /dev/full
-g /proc/version
-g ro/no/x.plot
--force
-z - $gpio
-z - -I $long,1 -O gpiochip0,2
-z - -I gpiochip0,-1 -O gpiochip0,2
-z - -I gpiochip0,65535 -O gpiochip0,2
-z - -I gpiochip0,1,sideways -O gpiochip0,2
-z - -I gpiochip0,1 -O gpiochip0,2,rising-edge
-z - -I '' -O gpiochip0,2
-z $long $gpio
-z 'a b' $gpio
-Z - $gpio
--latmon-port 99999 -z h $gpio
--latmon-port 2307
--ack sideways $gpio
--ack pulse $gpio -T 1
--ack toggle $gpio -T 1
--monitor --pulse-edge $long
-z h -H 65536 $gpio
--monitor
--monitor --pulse-out gpiochip0,1 --ack-in gpiochip0,1
$mon -T 1
$mon --calibrate -T 1
$mon --subtract 5 -T 1
$mon --subtract x
$mon --listen 999.1.1.1
$mon --listen 127.0.0.1 -T 1
$mon --announce-to $long
$mon --announce-to none -T 1
$mon --pulse-edge both-edges
$mon --pulse-edge falling-edge -T 1
$mon -i
$mon --gpiod
--calibrate
--subtract 5
--pulse-edge rising-edge
--listen 127.0.0.1
--announce-to none
--gpiod
--gpiod --gpio-dt
--gpio-dt
--gpio-dt=falling-edge -T 1
--gpio-dt=sideways
--gpiod $gpio --pulse-out gpiochip0,3
-I gpiochip0,1,both-edges -O gpiochip0,2 --pulse-out gpiochip0,3 --ack-in gpiochip0,4
-I gpiochip0,1 -O gpiochip0,2 --pulse-out gpiochip0,3 --ack-in gpiochip0,2
-z h $gpio --pulse-out gpiochip0,3 --ack-in gpiochip0,4
--monitor --gpiod --pulse-out gpiochip0,1 --ack-in gpiochip0,2
-z - -I ${long:0:70},1 -O gpiochip0,2 -T 1
--gpiod -I /nonexistent/chip,3 -O /nonexistent/chip,4 -T 1
-z - -I /dev/null,3 -O /dev/null,4 -T 1
$gpio -T 1
$gpio -k -T 1
$gpio -i
--gpiod $gpio -T 1
--pulse-out gpiochip0,3 $gpio -T 1
-z - $gpio -k -T 1
-z - $gpio -u -T 1
-z broadcast $gpio -T 1
-q -g - --json - -T 1
-i -c 0 -p 100 -P 80 -H 500 -A 50 -b 60 -l 0 -q -T 2s
CASES

# Whole runs against the fake device (tests/fakedev/fakedev.c): -T 1 stops
# at 2 s (the warm-up, then 1 s), each case runs about 2 s per binary.
# --checkpoint 1s -T 2 writes one checkpoint, at 2 s (kept as *.at-stop):
# the -T alarm, at 3 s, comes before the next one, which the fake clock's
# whole seconds put later by the time the first took to write.
if cc -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$top/driver/include/uapi" \
	-o "$work/fakedev.so" "$top/tests/fakedev/fakedev.c" -ldl 2>"$work/fakedev.log"; then
	fakedev=$work/fakedev.so
	fake=1
	two=
	[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] && two="--cpus 0,1 -T 1"
	runs=0
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		eval "set -- $line"
		check "$@"
		runs=$((runs + 1))
	done <<CASES
-T 1
-i -T 1
-k -T 1
-u -T 1
$two
-c 0 -T 1
-p 100 -T 1
-q -T 1
-v -T 1
-v0 -T 1
-l 2 -T 1
-l 0 -T 1
-g x.plot -T 1
--json x.json -T 1
-g - -T 1
--json - -T 1
-i -q -g - --json x.json -T 1
-k -q -g x.plot --json x.json -T 1
-H 50 -q -g x.plot --json - -T 1
-A 1 -T 1
-A 50 -q -T 1
-b 10 -T 1
-b 10 -i -q --json - -T 1
--checkpoint 1s -g c.plot --json c.json -T 2
--checkpoint 1s -q --json c.json -T 2
--stress-cmd 'sleep 30' -T 1
--stress-cmd 'true' -T 1
CASES
	fake=
	echo "# whole runs against the fake /dev/latscope: $runs command lines"
else
	echo "# fake /dev/latscope not built, whole runs skipped:"
	sed 's/^/#   /' "$work/fakedev.log"
fi
echo "cli-diff: $same same, $different different"
[ $different -eq 0 ]
