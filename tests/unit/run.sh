#!/bin/bash
# Builds and runs the CLI unit tests, then parses the JSON they wrote back
# with Python and checks it. Ends with "N passed, N failed". The tests run
# twice: built on Debian's libgpiod 1.6, then on libgpiod 2.x
# (scripts/libgpiod2.sh builds it from PyPI's gpiod sources); the second
# build's lines start with "libgpiod 2.x: ".
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The CLI's library and its tests, built against the libgpiod pkg-config
# finds (PKG_CONFIG_PATH as given): OUT API, where API is 1 or 2.
build() { # out, api
	local libs

	make -s -C "$top/userspace" clean
	make -s -C "$top/userspace" liblatscope-cli.a
	libs=$(make -s -C "$top/userspace" print-gpiod)
	if [ "${libs%% *}" != "$2" ]; then
		echo "not ok - build: want libgpiod API $2, the Makefile found '${libs%% *}'"
		return 1
	fi
	# shellcheck disable=SC2086 # the libraries are words
	cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -pthread -DLS_TEST_GPIOD_API="$2" \
		-I"$top/userspace" -I"$top/driver/include/uapi" "$top"/tests/unit/{unit,test_core,test_heat,test_cost,test_output,test_file,test_prom,test_run,test_latmon,test_cli,test_survey,test_noise}.c \
		"$top/userspace/liblatscope-cli.a" ${libs#* } -o "$1"
}
status=0
PKG_CONFIG_PATH=$("$top/scripts/libgpiod2.sh") build "$out/test_cli2" 2 || status=1
mkdir -p "$out/v2"
"$out/test_cli2" "$out/v2/report.json" "$top/userspace/latscope.1" "$out/v2" \
	"$top/userspace/latscope-evt" >"$out/v2.log" 2>&1 ||
	status=1
sed 's/^/libgpiod 2.x: /' "$out/v2.log"
build "$out/test_cli" 1 || status=1
"$out/test_cli" "$out/report.json" "$top/userspace/latscope.1" "$out" "$top/userspace/latscope-evt" ||
	status=1

python3 - "$out/report.json" "$top/tests/lib" "$out/heat.json" "$out/cost.json" <<'PY' || status=1
import json, sys

sys.path.insert(0, sys.argv[2])
from checks import check, setup, summary  # tests/lib/checks.py

setup(prefix="json: ", show_ok=False, sep=" ", always=True)
with open(sys.argv[1]) as f:
    doc = json.load(f)          # fails the test if it is not JSON
# rt-tests' keys, as cyclictest writes them
for key in ("file_version", "sysinfo", "num_threads", "thread", "return_code"):
    check(key in doc, f"has {key}")
check(doc["num_threads"] == 2, "num_threads", doc["num_threads"])
t0, t1 = doc["thread"]["0"], doc["thread"]["1"]
check(t0["cycles"] == 100 and t1["cpu"] == 3, "thread cycles and cpu")
check(t0["min"] == 1.0 and t0["max"] == 50.0, "thread min/max in us", (t0["min"], t0["max"]))
check(sum(t0["histogram"].values()) == 99 and t0["histogram"]["1"] == 90,
      "histogram cells (the overflow sample is not in a cell)", t0["histogram"])
check(t0["latency"]["overflow"] == 1, "overflow count")
check(abs(t0["avg"] - (90 * 1.5 + 9 * 5.5 + 50) / 100) < 1e-3, "avg", t0["avg"])
check(doc["checkpoint"] is False, "checkpoint key", doc.get("checkpoint"))
check(doc["settings"]["scenario"] == "N:N" and doc["settings"]["threads"] == 2 and
      doc["settings"]["cpus"] == 2, "scenario in the settings", doc["settings"])
check(doc["stress"] == {"name": "none", "cpus": "", "commands": [], "tools": {}},
      "stress without a load", doc.get("stress"))
tl = doc["timeline"]
check(tl["bucket_s"] == 1 and tl["max_points"] == 4096, "timeline header", tl)
check(tl["columns"] == ["second", "samples", "overruns", "min", "avg", "max",
                       "temp_c", "cpu_mhz", "throttled"], "timeline columns")
check(tl["points"] == [[0, 100, 0, 1.0, 1.5, 50.0, None, None, None],
                       [1, 0, 2, None, None, None, None, None, None]],
      "timeline points (null without samples, nor heat)", tl["points"])
check(doc["heat"] is None, "heat: null where nothing was read", doc.get("heat"))
# test_heat.c's throttled run
with open(sys.argv[3]) as f:
    heat = json.load(f)["heat"]
check(heat == {"samples": 2, "spared": None,
               "temperature": {"zone": "thermal_zone0", "type": "cpu-thermal",
                               "min_c": 45.0, "max_c": 71.5},
               "clock": {"cpu": 3, "min_mhz": 1500.0, "max_mhz": 1500.0},
               "throttling": {"source": "/sys/x/get_throttled",
                              "during_run": ["soft temperature limit"], "seconds": 1,
                              "before_run": []}},
      "heat: a throttled run's heat object", heat)
# test_cost.c's suite
with open(sys.argv[4]) as f:
    cost = json.load(f)
check(cost["kind"] == "cost" and cost["sysinfo"]["release"] == "6.12.0-test" and
      cost["settings"] == {"repeat": 2, "scale_percent": 100, "min_run_ms": 1000,
                           "order": "alternating", "aa": False,
                           "measured": {"context": "user", "cpu": 2, "period_us": 1000,
                                        "priority": 90}, "load": None} and
      cost["measuring_run"] == {"json": "x-latency.json", "rts": "RTS| test", "exit_code": 0},
      "cost: header, settings, measuring run", {k: cost.get(k) for k in ("kind", "settings")})
q, fs, ip, sw = cost["workloads"]
check(q["name"] == "queens-1" and q["what"] == 'N-queens "12"' and q["skipped"] is None and
      q["plain"]["runs"] == [1.0, 3.0] and q["plain"]["mean"] == 2.0 and
      abs(q["plain"]["stddev"] - 2 ** 0.5) < 1e-6 and q["measured"]["mean"] == 2.5 and
      q["change_percent"] == 25.0 and q["measured"]["heat"]["temperature"]["max_c"] == 70.0,
      "cost: a workload's runs, figures, change and heat", q)
check(fs["measured"] == {"runs": [], "mean": None, "stddev": None, "min": None, "max": None,
                         "failed": "run 1: disk full",
                         "heat": {"samples": 0, "spared": None, "temperature": None, "clock": None,
                                  "throttling": None}} and fs["change_percent"] is None,
      "cost: a variant that failed", fs["measured"])
check(q["loaded"] is None and q["loaded_change_percent"] is None,
      "cost: no load, no loaded variant", q.get("loaded"))
check(ip["skipped"] == "iperf3 not found" and ip["plain"]["runs"] == [],
      "cost: a skipped workload", ip)
# switch: 1.00 +- 0.02 vs 1.20 +- 0.02, 3 runs each: [+14.26, +25.74] (test_cost.c)
check(q["batch"] == 3 and sw["batch"] == 1 and abs(sw["change_percent"] - 20.0) < 1e-3 and
      sw["change_ci95"] == [14.26, 25.74] and q["change_ci95"] == [-769.144, 819.144] and
      fs["change_ci95"] is None and q["loaded_change_ci95"] is None,
      "cost: batches, changes and their intervals", (q["batch"], sw["change_ci95"], q["change_ci95"]))
check(doc["total"]["samples"] == 200, "total samples")
check(doc["total"]["percentiles"]["99"] == 6.0, "total 99th percentile")
# the sample past the histogram (50 us) is in the tail: its bucket, clipped
check(t0["latency"]["tail"] == [[49.152, 51.2, 1]], "thread tail", t0["latency"].get("tail"))
check(doc["total"]["tail"] == [[49.152, 51.2, 2]], "total tail", doc["total"].get("tail"))
check(doc["total"]["percentile_ranges"]["99.9"] == [49.152, 50.0] and
      doc["total"]["percentiles"]["99.9"] == 50.0 and
      doc["total"]["percentile_ranges"]["99"] == [5.0, 6.0],
      "total percentile ranges", doc["total"].get("percentile_ranges"))
check(doc["cmdline"] == 'latscope --json "x"', "cmdline escaped", doc["cmdline"])
check(doc["sysinfo"]["preemption"] == "PREEMPT_RT", "preemption model")
check(doc["overruns"] == 1 and doc["duration_s"] == 61, "overruns and duration")
sys.exit(summary("json"))
PY
# test_output.c's why.json: a culprit that named itself "bad\xff". The file
# is UTF-8 (decoded strictly: one raw byte fails), the name is "bad\ufffd",
# and latscope-report reads it and names the culprit so in worst.md.
if why=$(python3 - "$out/why.json" "$top/userspace/latscope-report" "$out/why-report" 2>&1 <<'PY'
import json, subprocess, sys

with open(sys.argv[1], "rb") as f:
    doc = json.loads(f.read().decode("utf-8"))
names = [i["name"] for w in doc["worst"] for i in w["items"]]
assert "bad\ufffd" in names, names
run = subprocess.run([sys.argv[2], "-o", sys.argv[3], "--label", "why", sys.argv[1]],
                     capture_output=True, text=True)
assert run.returncode == 0, run.stderr
with open(f"{sys.argv[3]}/worst.md", encoding="utf-8") as f:
    assert "| bad\ufffd (4242, OTHER) 0.9 |" in f.read(), "worst.md does not name it"
PY
); then
	echo "ok - json: a culprit named bad<0xff>: UTF-8, bad<U+FFFD>, through latscope-report"
else
	echo "not ok - json: a culprit named bad<0xff>: UTF-8, bad<U+FFFD>, through latscope-report:"
	echo "#   ${why//$'\n'/$'\n'#   }"
	status=1
fi
# test_prom.c's scrapes: the 0.0.4 text as promtool lints it, OpenMetrics as
# prometheus_client's strict parser reads it.
for fmt in prom om; do
	[ -s "$out/scrape.$fmt" ] || { echo "not ok - prom: no scrape.$fmt written"; status=1; }
done
for scrape in scrape scrape-noise; do
	if lint=$(promtool check metrics <"$out/$scrape.prom" 2>&1); then
		echo "ok - prom: promtool check metrics: $scrape.prom clean"
	else
		echo "not ok - prom: promtool check metrics of $scrape.prom:"
		echo "#   ${lint//$'\n'/$'\n'#   }"
		status=1
	fi
done
if om=$(/usr/bin/python3 - "$out/scrape.om" 2>&1 <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families

with open(sys.argv[1]) as f:
    fams = {m.name: m for m in text_string_to_metric_families(f.read())}
assert fams["latscope"].type == "info", fams["latscope"].type
assert fams["latscope_overruns"].type == "counter"
assert fams["latscope_worst_culprit"].type == "info"
h = fams["latscope_latency_seconds"]
assert h.type == "histogram" and h.unit == "seconds"
print(len(fams), "families,", sum(len(m.samples) for m in fams.values()), "samples")
with open(sys.argv[1].replace("scrape.om", "scrape-noise.om")) as f:
    fams = {m.name: m for m in text_string_to_metric_families(f.read())}
assert fams["latscope_noise_gaps"].type == "counter"
assert fams["latscope_noise_runtime_seconds"].unit == "seconds"
PY
); then
	echo "ok - prom: OpenMetrics parsed: $om"
else
	echo "not ok - prom: OpenMetrics not parsed:"
	echo "#   ${om//$'\n'/$'\n'#   }"
	status=1
fi

# --help, the man page and the code name the same options and exit codes.
make -s -C "$top/userspace" latscope
help=$("$top/userspace/latscope" --help=all)
man=$(sed 's/\\-/-/g' "$top/userspace/latscope.1")	# roff's \- is a -
docs_ok=0
docs_bad=0
# The man pages as man shows them: no groff warning, and each option an
# entry of its own (a roff slip can swallow one into the text before it).
for page in latscope.1 latscope-report.1; do
	if groff -man -Tutf8 -ww -P-cbou "$top/userspace/$page" >"$out/$page.txt" 2>"$out/groff.err" &&
		[ ! -s "$out/groff.err" ]; then
		docs_ok=$((docs_ok + 1))
	else
		echo "not ok - docs: groff -ww on $page:"
		sed 's/^/#   /' "$out/groff.err"
		docs_bad=$((docs_bad + 1))
	fi
done
while read -r opt; do
	if grep -q -- "--$opt" <<<"$help" && grep -qE -- "^ {7}(-[A-Za-z], )?--$opt([=[ ]|\$)" "$out/latscope.1.txt"; then
		docs_ok=$((docs_ok + 1))
	else
		echo "not ok - docs: --$opt missing from --help, or not an entry of latscope.1"
		docs_bad=$((docs_bad + 1))
	fi
done < <(grep -oE '^	\{ "[a-z-]+"' "$top/userspace/cli/options.c" | cut -d'"' -f2)
while read -r code; do
	if grep -qw "$code" <<<"$help" && grep -qx ".B $code" <<<"$man"; then
		docs_ok=$((docs_ok + 1))
	else
		echo "not ok - docs: exit status $code missing from --help or latscope.1"
		docs_bad=$((docs_bad + 1))
	fi
done < <(grep -oE 'LS_EXIT_[A-Z]+[[:space:]]+= [0-9]+' "$top/userspace/core/core.h" | awk '{print $3}')
make -s -C "$top/userspace" clean
echo "docs: $docs_ok passed, $docs_bad failed"
[ $docs_bad -eq 0 ] || status=1
# The bash completion knows the same options.
bash "$top/tests/unit/completion.sh" || status=1
exit $status
