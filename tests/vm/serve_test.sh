#!/bin/sh
# The exporter (latscope --serve, --textfile) in the VM, scraped over
# loopback with busybox's wget and nc: it serves before the driver is
# there and measures once it comes; it refuses nothing it should serve and
# answers garbage with an HTTP error; a flood of idle connections and a
# hung scraper do not stop it; its memory does not grow with scrapes; a
# measured CPU taken offline and back, and the module released, removed
# and loaded again, stop and resume it with its counters carried; SIGTERM
# ends it. The scrapes go back to the host
# (LATSCOPE-FILE) for promtool and the OpenMetrics parser
# (tests/vm/check_serve.py). Ends with "serve: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

cd /tmp || exit 1
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
port=19380
url=http://127.0.0.1:$port/metrics
key='latscope_samples_total{cpu="1",context="kernel"}'

# (busybox 1.35's wget -T crashes: timeout instead.)
scrape() { timeout 10 wget -q -O "$1" "$url" 2>/dev/null; }
# The value of the sample KEY (name and labels) in FILE.
val() { awk -v k="$2" 'index($0, k " ") == 1 { print $2; exit }' "$1"; }
samples() { scrape now.prom && val now.prom "$key" | tee -a counts; }
measuring() { scrape now.prom && grep -q "^latscope_measuring $1\$" now.prom; }
measures() { measuring 1 && [ "$(val now.prom "$key")" -gt "${1:-0}" ] 2>/dev/null; }
# The first line of the answer to a raw request.
status_of() { printf '%b' "$1" | timeout 10 nc 127.0.0.1 $port 2>/dev/null | head -1; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# The counts samples() kept, scrape after scrape, never went down.
never_down() { # name
	if awk 'NR > 1 && $1 < last { bad = 1 } { last = $1 } END { exit bad }' counts; then
		ok "$1"
	else
		nok "$1" "$(tr '\n' ' ' <counts)"
	fi
}

# Started with no driver: it serves, and says it does not measure.
rmmod latscope
mkdir -p tf
latscope --serve=127.0.0.1:$port -k -c 1 --window 5 --textfile tf/latscope.prom \
	--textfile-every 1 >serve.out 2>serve.err &
pid=$!
if wait_until 30 scrape m0.prom; then ok "no driver: serves"; else nok "no driver: serves" "$(cat serve.err)"; fi
has "no driver: latscope_measuring 0" m0.prom '^latscope_measuring 0$'
has "no driver: said on stderr" serve.err 'not measuring: no /dev/latscope.*trying again every 2 s'
has "textfile: written before any run" tf/latscope.prom '^latscope_measuring 0$'

# The driver comes: it measures, a run more.
insmod /latscope.ko
if wait_until 60 measures; then ok "insmod: measures"; else nok "insmod: measures" "$(cat serve.err)"; fi
n=$(grep -c 'not measuring' serve.err)
if [ "$n" = 1 ]; then ok "no driver: said once, not at each try"; else nok "no driver: said once, not at each try" "$n times"; fi
scrape m1.prom
has "one run measured" m1.prom '^latscope_runs_total 1$'
has "a bucket" m1.prom '^latscope_latency_seconds_bucket{cpu="1",context="kernel",part="total",le="1e-06"} [0-9]'
has "the irq part" m1.prom '^latscope_latency_seconds_count{cpu="1",context="kernel",part="irq"} [0-9]'
has "the window's maximum" m1.prom '^latscope_latency_window_max_seconds{cpu="1",context="kernel",part="total"} [0-9]'
has "latscope_info" m1.prom '^latscope_info{version=".*",kernel="'"$(uname -r)"'",.*source="timer",context="kernel"} 1$'
# Its threads (the logger, the HTTP server's) stay off the measured CPU1:
# with -k the responder is the driver's, and only the main thread, which
# waits, is not pinned.
on1=""
for t in "/proc/$pid/task"/*; do
	[ "${t##*/}" = "$pid" ] && continue
	cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status")
	[ "$cpus" = 0 ] || on1="$on1 $(cat "$t/comm"):$cpus"
done
nthreads=$(find /proc/$pid/task -mindepth 1 -maxdepth 1 | wc -l)
if [ -z "$on1" ] && [ "$nthreads" -ge 3 ]; then
	ok "threads: the logger's and the HTTP server's on CPU0 only"
else
	nok "threads: the logger's and the HTTP server's on CPU0 only" "$nthreads threads;$on1"
fi
dump serve-scrape.prom m1.prom
timeout 10 wget -q --header 'Accept: application/openmetrics-text; version=1.0.0' -O m1.om "$url"
has "OpenMetrics when asked" m1.om '^# EOF$'
dump serve-scrape.om m1.om
if wait_until 10 grep -q '^latscope_measuring 1$' tf/latscope.prom; then
	ok "textfile: rewritten while it measures"
else
	nok "textfile: rewritten while it measures" "$(head -5 tf/latscope.prom)"
fi

# The kernel keeps a module whose device is open.
s1=$(samples)
if rmmod latscope 2>rmmod.err; then
	nok "rmmod: refused while the exporter holds the device" "it went"
	insmod /latscope.ko
else
	ok "rmmod: refused while the exporter holds the device"
fi
if wait_until 20 measures "$s1"; then ok "rmmod refused: still measuring"; else nok "rmmod refused: still measuring" "$(cat serve.err)"; fi

# Garbage: an HTTP error each, and it goes on.
st=$(status_of 'GET /metrics HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n')
case $st in "HTTP/1."?" 400"*) ok "a malformed header: 400" ;; *) nok "a malformed header: 400" "'$st'" ;; esac
# No request line it can read: the library closes the connection.
st=$(status_of 'GARBAGE\r\n\r\n')
case $st in "" | "HTTP/1."?" 4"*) ok "no request line: closed or a 4xx" ;; *) nok "no request line: closed or a 4xx" "'$st'" ;; esac
st=$(status_of 'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc')
case $st in "HTTP/1."?" 405"*) ok "POST: 405" ;; *) nok "POST: 405" "'$st'" ;; esac
st=$(status_of 'GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
case $st in "HTTP/1."?" 404"*) ok "another path: 404" ;; *) nok "another path: 404" "'$st'" ;; esac
st=$(status_of 'HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
case $st in "HTTP/1."?" 200"*) ok "HEAD: 200" ;; *) nok "HEAD: 200" "'$st'" ;; esac
long=$(head -c 20000 /dev/zero | tr '\0' a)
st=$(status_of "GET /$long HTTP/1.1\r\nHost: x\r\n\r\n")
case $st in "HTTP/1."?" 4"*) ok "a 20 kB URL: a 4xx" ;; *) nok "a 20 kB URL: a 4xx" "'$st'" ;; esac
head -c 8192 /dev/urandom | timeout 10 nc 127.0.0.1 $port >/dev/null 2>&1
if kill -0 $pid 2>/dev/null && scrape g.prom; then ok "garbage: still serving"; else nok "garbage: still serving" "$(cat serve.err)"; fi

# A peer on 127.0.0.2 (the scrapes come from 127.0.0.1): 200 connections
# at once, then one that hangs, then idle ones past what one address may
# hold (8: the rest refused), then slow headers (a line every 500 ms,
# never done): each closed by the 5 s request deadline. tests/serve/run.sh
# times an honest scraper beside such peers on the host.
nfds() { find "/proc/$pid/fd" -mindepth 1 | wc -l; }
fds0=$(nfds)
/http_flood -s 127.0.0.2 127.0.0.1 $port 200 3 >flood.out
has "flood: connections made" flood.out 'connected [0-9]* of 200'
if wait_until 30 scrape f.prom; then ok "flood: serving after it"; else nok "flood: serving after it" "$(cat serve.err)"; fi
fds_back() { [ "$(nfds)" -le "$fds0" ]; }
if wait_until 30 fds_back; then ok "flood: no descriptor left"; else nok "flood: no descriptor left" "$(nfds) > $fds0"; fi
/http_flood -s 127.0.0.2 127.0.0.1 $port 1 20 >/dev/null &
hung=$!
if wait_until 10 scrape h.prom; then ok "a hung scraper: others served"; else nok "a hung scraper: others served" ""; fi
/http_flood -s 127.0.0.2 127.0.0.1 $port 80 25 >idle.out &
idle=$!
if wait_until 10 scrape i.prom; then ok "idle connections past the limit: serving"; else nok "idle connections past the limit: serving" ""; fi
wait $hung $idle
has "idle connections: each closed by the exporter" idle.out '^closed by the server: 80 of 80, open at the end: 0,'
/http_flood -s 127.0.0.2 -t 500 127.0.0.1 $port 20 30 >slow.out &
slow=$!
if wait_until 10 scrape s.prom; then ok "slow headers: others served"; else nok "slow headers: others served" ""; fi
wait $slow
has "slow headers: each closed by the exporter" slow.out '^closed by the server: 20 of 20, open at the end: 0,'
sed 's/^/# /' idle.out slow.out

# Memory: the same after 200 more scrapes (20 first, to settle).
for i in $(seq 20); do scrape r.prom; done
rss0=$(rss_kb $pid)
for i in $(seq 200); do scrape r.prom || break; done
rss1=$(rss_kb $pid)
echo "# RSS $rss0 kB before 200 scrapes, $rss1 kB after"
if [ "$i" = 200 ] && [ $((rss1 - rss0)) -le 256 ]; then
	ok "200 scrapes: RSS grew by at most 256 kB"
else
	nok "200 scrapes: RSS grew by at most 256 kB" "$rss0 -> $rss1 kB after $i scrapes"
fi

# The measured CPU offline: not measuring; back: measuring, counters carried.
s2=$(samples)
echo 0 >/sys/devices/system/cpu/cpu1/online
if wait_until 30 measuring 0; then ok "CPU1 offline: latscope_measuring 0"; else nok "CPU1 offline: latscope_measuring 0" "$(cat serve.err)"; fi
s3=$(samples)
echo 1 >/sys/devices/system/cpu/cpu1/online
if wait_until 60 measures "$s3"; then ok "CPU1 online: measures again"; else nok "CPU1 online: measures again" "$(cat serve.err)"; fi
has "CPU1 online: said on stderr" serve.err 'measuring again (run 2)'
has "CPU1 online: a second run" now.prom '^latscope_runs_total 2$'
if [ "$s3" -ge "$s2" ]; then ok "CPU1 offline: counters carried"; else nok "CPU1 offline: counters carried" "$s2 then $s3"; fi
never_down "samples_total never went down ($(wc -l <counts) scrapes)"

# rmmod under it: a release ends its run and waits until it closed the
# device; rmmod goes, insmod brings the measurement back, counters carried.
s4=$(samples)
if echo 1 >/sys/class/misc/latscope/release; then
	ok "release: returns once the exporter let go of the device"
else
	nok "release: returns once the exporter let go of the device" "$(cat serve.err)"
fi
if rmmod latscope 2>rmmod.err; then
	ok "released: rmmod"
else
	nok "released: rmmod" "$(cat rmmod.err)"
	echo 0 >/sys/class/misc/latscope/release	# the tests after it need the device
fi
if wait_until 30 measuring 0; then ok "rmmod: latscope_measuring 0"; else nok "rmmod: latscope_measuring 0" "$(cat serve.err)"; fi
has "release: said on stderr" serve.err '^the run ended: /dev/latscope was released (for rmmod)$'
s5=$(samples)
insmod /latscope.ko
if wait_until 60 measures "$s5"; then ok "insmod: measures again"; else nok "insmod: measures again" "$(cat serve.err)"; fi
has "insmod: a third run" now.prom '^latscope_runs_total 3$'
if [ "$s5" -ge "$s4" ]; then ok "rmmod: counters carried"; else nok "rmmod: counters carried" "$s4 then $s5"; fi
never_down "samples_total never went down, across the reload"

# SIGTERM: it ends, exit 0, the port closed, the last textfile written.
kill -TERM $pid
wait $pid
expect_rc "SIGTERM: exit 0" $? 0
if scrape end.prom; then nok "SIGTERM: the port closed" "still answers"; else ok "SIGTERM: the port closed"; fi
has "SIGTERM: the textfile's last write says not measuring" tf/latscope.prom '^latscope_measuring 0$'
ls tf >tf.list
if [ "$(cat tf.list)" = latscope.prom ]; then ok "textfile: no temporary file left"; else nok "textfile: no temporary file left" "$(cat tf.list)"; fi
sed 's/^/# /' serve.err
nothing_left "serve"

# Bad values: one clear line each, nothing started.
latscope --serve=127.0.0.1:$port -k -c 1 -T 60 >/dev/null 2>&1 &
taken=$!
wait_until 10 scrape t.prom
latscope --serve=127.0.0.1:$port -i -c 0 -T 1 >taken.out 2>taken.err
expect_rc "a port in use: setup error" $? 3
has "a port in use: said" taken.err "cannot listen there"
kill $taken 2>/dev/null
wait $taken 2>/dev/null
latscope --textfile=/nonexistent/dir/x.prom -k -c 1 >tfbad.out 2>tfbad.err
expect_rc "textfile in a missing directory: setup error" $? 3
has "textfile in a missing directory: said" tfbad.err 'cannot write it'

# --why: the culprit of the window's worst sample, from the run's records.
# A window of an hour holds the whole run: after -T the figures served
# are the run's results, and the host checks the culprit against the
# worst record with an item in the run's JSON (tests/vm/check_serve.py).
rm -f /tmp/serve-why.json
latscope --serve=127.0.0.1:$port -k -c 1 --why --window 3600 -T 5 \
	--json /tmp/serve-why.json >why.out 2>why.err &
wpid=$!
if wait_until 60 test -s /tmp/serve-why.json; then
	ok "--why: the run's JSON written after -T"
else
	nok "--why: the run's JSON written after -T" "$(cat why.err)"
fi
scrape why.prom
kill -TERM $wpid
wait $wpid
dump serve-why-kernel.json /tmp/serve-why.json
dump serve-why.prom why.prom

# The soak, in the stage with the network device only (one is enough):
# measuring and scraped every second for LATSCOPE_SOAK seconds (lssoak=,
# scripts/vm.sh: LATSCOPE_SOAK_SECONDS), its RSS sampled every 10 s; the
# figures go back to the host (soak.txt, soak.rss).
soak=${LATSCOPE_SOAK:-60}
[ -d /netmod ] || soak=0
if [ "$soak" -gt 0 ]; then
	latscope --serve=127.0.0.1:$port -k -c 1 >soak.out 2>soak.err &
	spid=$!
fi
if [ "$soak" = 0 ]; then
	echo "# soak: in the stage with the network device only"
elif wait_until 60 measures; then
	/http_time $port "$soak" 1000 >soak.txt &
	tpid=$!
	: >soak.rss
	while kill -0 $tpid 2>/dev/null; do
		echo "$(awk '{ print int($1) }' /proc/uptime) $(rss_kb "$spid")" >>soak.rss
		sleep 10
	done
	wait $tpid
	expect_rc "soak: $soak s scraped every second, each answered" $? 0
	sed 's/^/# soak: /' soak.txt
	rss_a=$(awk 'NR == 2 { print $2 }' soak.rss)
	rss_z=$(awk 'END { print $2 }' soak.rss)
	echo "# soak: RSS $rss_a kB at 10 s, $rss_z kB at the end ($(wc -l <soak.rss) samples)"
	if [ -n "$rss_a" ] && [ $((rss_z - rss_a)) -le 256 ]; then
		ok "soak: RSS grew by at most 256 kB"
	else
		nok "soak: RSS grew by at most 256 kB" "$(tr '\n' ' ' <soak.rss)"
	fi
	dump soak.txt soak.txt
	dump soak.rss soak.rss
else
	nok "soak: measures" "$(cat soak.err)"
fi
if [ "$soak" -gt 0 ]; then
	kill -TERM "$spid"
	wait "$spid"
fi

# With a network device (scripts/vm.sh gives one to the stage whose
# exporter a real Prometheus on the host scrapes, through QEMU's port
# forwarding to 127.0.0.1): a run of -T, then its last figures served until
# the host's Prometheus scraped them 3 times; its JSON goes back to the
# host, which compares what Prometheus stored (tests/vm/check_prom.py).
scrapes() { scrape p.prom && val p.prom latscope_scrapes_total; }
host_scraped() { # count before, polls of ours since: 3 scrapes of the host's?
	c=$(scrapes) || return 1
	polls=$((polls + 1))
	[ $((c - $1 - polls)) -ge 3 ]
}
if [ -d /netmod ]; then
	for m in failover net_failover virtio_net; do insmod /netmod/$m.ko; done
	ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0
	expect_rc "prom: eth0 up" $? 0
	latscope --serve=0.0.0.0:$port -k -c 1 -T 20 --json /tmp/prom-run.json \
		>prom.out 2>prom.err &
	ppid=$!
	if wait_until 120 test -s /tmp/prom-run.json; then
		ok "prom: -T over, the run's JSON written"
	else
		nok "prom: -T over, the run's JSON written" "$(cat prom.err)"
	fi
	has "prom: the last figures served" prom.err 'serving the last figures until stopped'
	scrape last.prom
	has "prom: not measuring after -T" last.prom '^latscope_measuring 0$'
	polls=0
	c0=$(scrapes)
	if wait_until 60 host_scraped "$c0"; then
		ok "prom: the host's Prometheus scraped the last figures"
	else
		nok "prom: the host's Prometheus scraped the last figures" "$(grep scrapes p.prom)"
	fi
	kill -TERM $ppid
	wait $ppid
	expect_rc "prom: SIGTERM ends it" $? 0
	dump prom-kernel.json /tmp/prom-run.json
	dump prom-last.prom last.prom
fi

echo "serve: $pass passed, $fail failed"
[ "$fail" = 0 ]
