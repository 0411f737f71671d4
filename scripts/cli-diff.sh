#!/bin/bash
# Behaviour unchanged: runs two latscope binaries on the same command lines
# (help, version, every option alone and in pairs, bad values, paths it must
# not write, the missing device) in the same scratch directory and compares
# exit status, stdout, stderr and the files each left, byte for byte.
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

# run BIN DIR ARGS...: the result of one command line in DIR/out.
run() {
	local bin=$1 dir=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir/cwd/ro"
	touch "$dir/cwd/exists.plot"
	chmod 555 "$dir/cwd/ro"
	(cd "$dir/cwd" && timeout 10 "$bin" "$@" >../stdout 2>../stderr </dev/null
	 echo $? >../rc)
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
echo "cli-diff: $same same, $different different"
[ $different -eq 0 ]
