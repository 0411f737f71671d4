#!/usr/bin/env python3
"""Checks the exporter's scrapes that came back from the test VM
(tests/vm/serve_test.sh): the 0.0.4 text as promtool lints it, the
OpenMetrics one as prometheus_client's strict parser reads it, and in both
the histogram as Prometheus needs it: buckets that never decrease, +Inf
equal to _count, the bounds in increasing order. Ends with "N passed, N
failed".
"""
import json
import os
import pathlib
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, setup, summary  # noqa: E402  (tests/lib/checks.py)
from prometheus_client.openmetrics.parser import (  # noqa: E402
    text_string_to_metric_families as om_families)
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

setup(prefix="serve: ", always=True)


def check_histograms(name, families):
    """Per series (its labels but le): buckets by le never decrease, and
    +Inf is the count."""
    buckets, counts = defaultdict(list), {}
    for fam in families:
        if fam.name != "latscope_latency_seconds":
            continue
        for s in fam.samples:
            key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
            if s.name.endswith("_bucket"):
                buckets[key].append((float(s.labels["le"]), s.value))
            elif s.name.endswith("_count"):
                counts[key] = s.value
    check(bool(buckets), f"{name}: a latency histogram", list(counts))
    for key, b in buckets.items():
        les = [le for le, _ in b]
        vals = [v for _, v in b]
        check(les == sorted(les) and les[-1] == float("inf"),
              f"{name}: {dict(key)}: bounds increase to +Inf", les)
        check(all(x <= y for x, y in zip(vals, vals[1:])),
              f"{name}: {dict(key)}: buckets never decrease", vals)
        check(vals[-1] == counts.get(key), f"{name}: {dict(key)}: +Inf is the count",
              (vals[-1], counts.get(key)))


def check_text(path):
    """A 0.0.4 scrape: promtool's lint, then its histograms."""
    text = path.read_text()
    lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                          text=True)
    check(lint.returncode == 0 and not lint.stdout.strip() and not lint.stderr.strip(),
          f"{path.name}: promtool check metrics: clean", lint.stdout + lint.stderr)
    check_histograms(f"{path.name}: 0.0.4", list(text_string_to_metric_families(text)))


files = pathlib.Path(sys.argv[1])
# The timer's scrape (tests/vm/serve_test.sh), the noise source's
# (tests/vm/noise_test.sh) and the GPIO sources' (tests/vm/serve_gpio_test.sh),
# whichever stage sent them.
for prom in (sorted(files.glob("serve-scrape.prom")) + sorted(files.glob("serve-noise.prom")) +
             sorted(files.glob("serve-gpio-*.prom"))):
    check_text(prom)
if not (files / "serve-scrape.om").exists():
    sys.exit(summary("serve"))
om = (files / "serve-scrape.om").read_text()
try:
    fams = list(om_families(om))
    check(True, "OpenMetrics: parsed")
    check_histograms("OpenMetrics", fams)
    names = {f.name: f.type for f in fams}
    check(names.get("latscope") == "info" and names.get("latscope_samples") == "counter",
          "OpenMetrics: info and counter families", names)
except ValueError as e:
    check(False, "OpenMetrics: parsed", e)
# --why's run: the culprit line names the worst record's longest item.
why_json, why_prom = files / "serve-why-kernel.json", files / "serve-why.prom"
if why_json.exists() and why_prom.exists():
    run = json.loads(why_json.read_text())
    recs = [w for w in run.get("worst") or [] if w["cpu"] == 1 and w["items"]]
    lines = [s for f in text_string_to_metric_families(why_prom.read_text())
             if f.name == "latscope_worst_culprit_info" for s in f.samples]
    if recs:
        want = {"cpu": "1", "context": "kernel", "kind": recs[0]["items"][0]["kind"],
                "name": recs[0]["items"][0]["name"]}
        check(len(lines) == 1 and lines[0].labels == want,
              "--why: the culprit is the worst record's longest item",
              ([s.labels for s in lines], want))
    else:
        check(not lines, "--why: no record with an item, no culprit",
              [s.labels for s in lines])
    check(run["why"]["recorder"] is True, "--why: the run had a recorder", run.get("why"))
sys.exit(summary("serve"))
