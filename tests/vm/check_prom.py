#!/usr/bin/env python3
"""What a real Prometheus on the host stored of the exporter in the test
VM (tests/vm/serve_test.sh's last part: a run of -T, its last figures
served until scraped), against that run's own JSON:

- samples, overruns and the maximum: the same figures;
- histogram_quantile(0.99) on the stored buckets: in the bucket that holds
  the run's own p99 (the buckets' resolution);
- every recording and alert rule of fleet/latscope-rules.yml evaluated
  without error, each recorded series (but a noise exporter's) and each
  side of each alert's comparison returning data;
- every query of fleet/latscope-dashboard.json returning data.

Queries go to Prometheus on 127.0.0.1 only, at the time of the last
scrape of the figures (the exporter is gone when this runs, so "now"
would find its series stale).
Usage: check_prom.py FILES PROMETHEUS_URL FLEET_DIR. Ends with "prom: N
passed, N failed".
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, setup, summary  # noqa: E402  (tests/lib/checks.py)

setup(prefix="prom: ", always=True)
files, base, fleet = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
assert urllib.parse.urlparse(base).hostname == "127.0.0.1", base


def api(path, **params):
    url = f"{base}/api/v1/{path}?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(url, timeout=30) as r:
        doc = json.load(r)
    if doc.get("status") != "success":
        raise RuntimeError(f"{path} {params}: {doc}")
    return doc["data"]


def query(expr, at):
    return api("query", query=expr, time=f"{at:.3f}")["result"]


def value(expr, at):
    res = query(expr, at)
    return float(res[0]["value"][1]) if len(res) == 1 else None


run = json.loads((files / "prom-kernel.json").read_text())
total = run["total"]
# The last scrape of the last figures: the newest raw sample stored.
raw = api("query", query='latscope_measuring[15m]')["result"]
stamps = [float(t) for s in raw for t, _ in s["values"]]
check(bool(stamps), "Prometheus stored the exporter's samples", raw)
if not stamps:
    sys.exit(summary("prom"))
last = max(stamps)
check(value("latscope_measuring", last) == 0, "the last figures: not measuring",
      value("latscope_measuring", last))

sel = '{cpu="1",context="kernel"}'
samples = value(f"latscope_samples_total{sel}", last)
check(samples == total["samples"], "samples: Prometheus's equal the run's JSON",
      (samples, total["samples"]))
over = value(f"latscope_overruns_total{sel}", last)
check(over == run["overruns"], "overruns: equal", (over, run["overruns"]))
mx = value('latscope_latency_max_seconds{cpu="1",context="kernel",part="total"}', last)
check(mx is not None and abs(mx * 1e6 - total["max"]) <= 0.001,
      "maximum: equal (to the JSON's 1 ns)", (mx, total["max"]))

# p99: in the bucket that holds the run's own p99.
q = value('histogram_quantile(0.99, latscope_latency_seconds_bucket'
          '{cpu="1",context="kernel",part="total"})', last)
bounds = sorted(float(s["metric"]["le"]) for s in query(
    'latscope_latency_seconds_bucket{cpu="1",context="kernel",part="total"}', last))
lo, hi = (x / 1e6 for x in total["percentile_ranges"]["99"])


def bucket(x):
    return next((b for b in bounds if x <= b), float("inf"))


check(q is not None and bucket(q) == bucket(hi),
      "p99: histogram_quantile in the bucket of the run's own p99",
      f"quantile {q}, run's p99 in [{lo}, {hi}], bounds {bounds}")

# The rules: loaded, evaluated without error, and returning data.
rules = [r for g in api("rules")["groups"] for r in g["rules"]]
check(len(rules) == 12, "rules: all 12 loaded", [r["name"] for r in rules])
cmp = re.compile(r"\s*(==|!=|>=|<=|>|<)\s*[0-9.e+-]+\s*$")
for r in rules:
    check(r["health"] == "ok", f"rule {r['name']}: evaluated without error",
          r.get("lastError"))
    # A noise exporter's rule has no data from this timer exporter:
    # promtool's unit tests (tests/fleet/run.sh) feed it.
    if r["type"] == "recording" and "latscope_noise_" in r["query"]:
        check(not query(r["name"], last), f"rule {r['name']}: no data from a timer exporter")
        continue
    if r["type"] == "recording":
        check(bool(query(r["name"], last)), f"rule {r['name']}: recorded data")
        continue
    for side in r["query"].split(" and "):
        side = cmp.sub("", side.strip())
        check(bool(query(side, last)), f"alert {r['name']}: '{side}' returns data")

# The dashboard's queries, as Grafana would send them.
listed = subprocess.run([sys.executable, str(pathlib.Path(__file__).parent.parent / "fleet" /
                                             "queries.py"),
                         str(fleet / "latscope-dashboard.json"), "list"],
                        capture_output=True, text=True, check=True).stdout
for line in listed.splitlines():
    q = json.loads(line)
    check(bool(query(q["expr"], last)), f"dashboard: '{q['panel']}' returns data", q["expr"])
sys.exit(summary("prom"))
