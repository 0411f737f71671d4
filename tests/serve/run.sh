#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The exporter's door (latscope --serve) on this host, over loopback only,
# against the fake /dev/latscope (tests/fakedev/fakedev.c, LD_PRELOAD): a
# peer on 127.0.0.2 tries to blind it, first with slow headers (200
# connections, each sending a header line every 500 ms: never idle, never
# done), then with a burst of 1,000 idle connects. Meanwhile an honest
# scraper on 127.0.0.1 scrapes every 250 ms for 10 s, and each scrape must
# be answered within 2 s. The peer never holds more than the per-address
# limit (8), and the exporter closes each of its connections by the
# request deadline (5 s, given 1.5 s more for a loaded host); afterwards
# no descriptor is left, and a scrape passes promtool check metrics.
# docs/design/exporter.md, "The door". Ends with "serve: N passed, N
# failed".
# Usage: tests/serve/run.sh; LATSCOPE_BIN=BINARY to check another build.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${LATSCOPE_BIN:-$top/userspace/latscope}
# What the exporter promises (userspace/serve/http.c).
per_ip=8
deadline_ms=5000
slack_ms=1500

work=$(mktemp -d /tmp/lsserve.XXXXXX)
pid=
cleanup() {
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
ok() { echo "ok - serve: $1"; passed=$((passed + 1)); }
nok() { echo "not ok - serve: $1: $2"; failed=$((failed + 1)); }
# Runs COMMAND every 0.1 s until it succeeds, for SECONDS at most.
wait_until() { # seconds, command...
	local tries=$(($1 * 10))

	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[[ $tries -lt 0 ]] && return 1
		sleep 0.1
	done
}

if [[ -z ${LATSCOPE_BIN:-} ]]; then
	make -s -C "$top/userspace" latscope || exit 1
fi
cc -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$top/driver/include/uapi" \
	-o "$work/fakedev.so" "$top/tests/fakedev/fakedev.c" -ldl || exit 1
for t in http_flood http_time; do
	cc -std=c11 -O2 -Wall -Wextra -Werror "$top/tests/vm/$t.c" -o "$work/$t" || exit 1
done
# The burst holds 1,000 sockets at once.
ulimit -n 4096 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# One scrape from 127.0.0.1 into FILE, answered within 2 s.
scrape() { # port, file
	/usr/bin/python3 - "http://127.0.0.1:$1/metrics" "$2" <<'PY'
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=2) as r, open(sys.argv[2], "wb") as f:
    f.write(r.read())
PY
}
# The exporter's sockets to the peer in the TCP states given (ss's
# "state S" words), as ss sees them: those it holds (a socket of its own),
# not those waiting in its backlog.
peer_sockets() { ss -Htnp "$@" "( sport = :$port and dst 127.0.0.2 )" | grep -c "pid=$pid,"; }
# Its connections from the peer it accepted.
held() { peer_sockets state established; }
nfds() { find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }

# The exporter on a free port: one taken by another program is skipped.
for port in 19481 19482 19483 19484 19485; do
	LD_PRELOAD=$work/fakedev.so FAKEDEV_CLOCK=real \
		"$bin" --serve=127.0.0.1:$port -k -c 0 >"$work/serve.out" 2>"$work/serve.err" &
	pid=$!
	alive() { kill -0 "$pid" 2>/dev/null; }
	up() { ! alive || scrape "$port" "$work/first.prom" 2>/dev/null; }
	wait_until 20 up
	alive && break
	wait "$pid"
	pid=
done
if [[ -z $pid ]]; then
	nok "the exporter starts" "$(cat "$work/serve.err")"
	echo "serve: $passed passed, $failed failed"
	exit 1
fi
ok "the exporter serves on 127.0.0.1:$port"
fds0=$(nfds)
# Its threads (the logger's, the HTTP loop's; -k's responder is the
# driver's) run SCHED_OTHER (policy 0, /proc/.../stat's 41st field) and,
# with a CPU to spare, off the measured CPU0. The main thread only waits.
if [[ $(getconf _NPROCESSORS_ONLN) -ge 2 ]]; then
	bad=
	for t in /proc/"$pid"/task/*; do
		[[ ${t##*/} = "$pid" ]] && continue
		cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status")
		policy=$(sed 's/.*) //' "$t/stat" | awk '{ print $39 }')
		[[ $policy = 0 && ! $cpus =~ (^|,)0($|[-,]) ]] || bad="$bad ${t##*/}:$cpus:policy$policy"
	done
	if [[ -z $bad ]]; then
		ok "its threads: SCHED_OTHER, off the measured CPU0"
	else
		nok "its threads: SCHED_OTHER, off the measured CPU0" "$bad"
	fi
fi

# A request too big for a connection's memory, sent slowly: the exporter
# answers 414 and closes, and lingers (serve/linger.c) so that all of it
# is taken and the answer read; a plain close killed the sending (EPIPE).
out=$(python3 "$top/tests/serve/big_request.py" slow "$port" 2>&1)
case $out in
"sent all"$'\n'"HTTP/1."?" 414"*) ok "a 20 kB URL sent slowly: all of it taken, then its 414" ;;
*) nok "a 20 kB URL sent slowly: all of it taken, then its 414" "$(echo "$out" | tr '\n' ' ')" ;;
esac
# A peer's closed connections linger LS_LINGER_PER_PEER (8) at most at
# once, none past LS_LINGER_MS (2 s, given 1.5 s more): the peer sends 20
# and holds them open for 6 s, neither reading nor closing.
lingering() { peer_sockets state fin-wait-1 state fin-wait-2; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
python3 "$top/tests/serve/big_request.py" many 127.0.0.2 "$port" 20 6 >"$work/many.out" 2>&1 &
mpid=$!
most=0
sent=
late=
while kill -0 "$mpid" 2>/dev/null; do
	n=$(lingering)
	[[ $n -gt $most ]] && most=$n
	if [[ -z $sent ]] && grep -q "^sent" "$work/many.out"; then
		sent=$(now_ms)
	elif [[ -n $sent && -z $late && $(($(now_ms) - sent)) -ge 3500 ]]; then
		late=$n
	fi
	sleep 0.1
done
wait "$mpid"
if [[ $most -ge 1 && $most -le $((per_ip + 1)) ]]; then
	ok "a peer's closed connections: $most lingered at most (limit $per_ip)"
else
	nok "a peer's closed connections: 1 to $per_ip lingered at once (one more in passing)" \
		"$most; $(cat "$work/many.out")"
fi
if [[ $late = 0 ]]; then
	ok "none lingers 3.5 s after the last was sent"
else
	nok "none lingers 3.5 s after the last was sent" "${late:-not sampled}; $(cat "$work/many.out")"
fi

# attack NAME FLOOD-ARGS...: the peer runs (its connections held by the
# exporter sampled every 0.1 s while it does), the honest scraper beside it.
attack() {
	local name=$1 most=0 n fpid hpid rc closed of open longest
	shift

	"$work/http_flood" -s 127.0.0.2 "$@" >"$work/flood.out" 2>&1 &
	fpid=$!
	"$work/http_time" "$port" 10 250 2000 >"$work/honest.out" 2>&1 &
	hpid=$!
	while kill -0 "$fpid" 2>/dev/null; do
		n=$(held)
		[[ $n -gt $most ]] && most=$n
		sleep 0.1
	done
	wait "$fpid"
	wait "$hpid"
	rc=$?
	echo "# $name: peer: $(tr '\n' ' ' <"$work/flood.out")"
	echo "# $name: honest scraper: $(cat "$work/honest.out")"
	if [[ $rc = 0 ]]; then
		ok "$name: every honest scrape answered within 2 s"
	else
		nok "$name: every honest scrape answered within 2 s" "$(cat "$work/honest.out")"
	fi
	# One more than the limit: a connection is accepted, then closed as
	# one too many, and ss may see it in between.
	if [[ $most -ge 1 && $most -le $((per_ip + 1)) ]]; then
		ok "$name: the peer held $most connections at most (limit $per_ip per address)"
	else
		nok "$name: the peer held at most $per_ip connections (one more in passing)" "$most"
	fi
	read -r closed of open longest < <(sed -n \
		's/^closed by the server: \([0-9]*\) of \([0-9]*\), open at the end: \([0-9]*\), longest open: \([0-9]*\) ms$/\1 \2 \3 \4/p' \
		"$work/flood.out")
	if [[ -n ${longest:-} && $closed = "$of" && $open = 0 &&
		$longest -le $((deadline_ms + slack_ms)) ]]; then
		ok "$name: each of the peer's $of connections closed within $longest ms"
	else
		nok "$name: each of the peer's connections closed by the deadline ($deadline_ms ms)" \
			"$(tail -1 "$work/flood.out")"
	fi
}
attack "slow headers" -t 500 127.0.0.1 "$port" 200 12
attack "a burst of 1000" 127.0.0.1 "$port" 1000 15

fds_back() { [[ $(nfds) -le $fds0 ]]; }
if wait_until 10 fds_back; then ok "no descriptor left"; else nok "no descriptor left" "$(nfds) > $fds0"; fi
if scrape "$port" "$work/after.prom" 2>/dev/null && lint=$(promtool check metrics <"$work/after.prom" 2>&1); then
	ok "a scrape after them: promtool check metrics: clean"
else
	nok "a scrape after them: promtool check metrics: clean" "${lint:-no scrape}"
fi
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
if [[ $rc = 0 ]]; then ok "SIGTERM: exit 0"; else nok "SIGTERM: exit 0" "exit $rc: $(cat "$work/serve.err")"; fi
echo "serve: $passed passed, $failed failed"
[[ $failed = 0 ]]
