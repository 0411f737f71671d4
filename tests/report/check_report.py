#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Runs latscope-report on RUN.json files and checks what it wrote: every
image is a valid PNG or SVG of the expected size and title, and every
number of table.md equals one computed here from the JSON, percentiles by
a method of their own (the histogram expanded into a sorted list).

usage: check_report.py LATSCOPE-REPORT WORKDIR RUN.json...
"""
import json
import math
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

passed = failed = 0
PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99, 99.999)
TITLES = {"tail": "Tail latency", "cdf": "Cumulative distribution of the latency",
          "timeline": "Latency over the run, per second", "histogram": "Latency histogram"}


def check(cond, name, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"not ok - report: {name}" + (f": {detail}" if detail else ""))


def expected_row(doc):
    """The table row, computed from the JSON without the report's code."""
    values, cell_us = [], doc["resolution_in_ns"] / 1000.0
    for t in doc["thread"].values():
        values += [0.0] * t["latency"]["underflow"]
        values += [math.inf] * t["latency"]["overflow"]
        for cell, count in t["histogram"].items():
            values += [(int(cell) + 1) * cell_us] * count
    values.sort()
    total = doc["total"]
    pcts = []
    for p in PERCENTILES:
        v = values[max(1, math.ceil(len(values) * p / 100.0)) - 1]
        pcts.append(f">{total['max']:.3f}" if v == math.inf else f"{v:.3f}")
    return ([doc["sysinfo"]["release"], doc["sysinfo"]["preemption"],
             doc.get("stress", {}).get("name", "none"),
             doc["settings"]["context"], str(len(values)), f"{doc['duration_ns'] / 1e9:.1f}"] +
            [f"{total[k]:.3f}" for k in ("min", "avg", "max", "stddev")] +
            pcts + [str(doc["overruns"])])


def doc_pcts(path):
    with open(path) as f:
        return json.load(f)["total"].get("percentiles", {})


def check_png(path):
    with open(path, "rb") as f:
        head = f.read(24)
    ok = head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    size = struct.unpack(">II", head[16:24]) if ok else None
    check(ok and size == (1000, 600), f"{os.path.basename(path)} is a 1000x600 PNG", size)


def check_svg(path, title):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        check(False, f"{os.path.basename(path)} parses as XML", e)
        return
    text = " ".join(root.itertext()) + open(path).read()
    check(root.tag.endswith("svg"), f"{os.path.basename(path)} is SVG", root.tag)
    check(title in text or title.replace(" ", "") in text,
          f"{os.path.basename(path)} has its title", title)


def main():
    tool, work, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    out = os.path.join(work, "report")
    run = subprocess.run([tool, "-o", out] + runs, capture_output=True, text=True)
    check(run.returncode == 0, "runs", run.stderr.strip())
    for name, title in TITLES.items():
        check_png(os.path.join(out, f"{name}.png"))
        check_svg(os.path.join(out, f"{name}.svg"), title)

    with open(os.path.join(out, "table.md")) as f:
        rows = [line.strip().strip("|").split(" | ") for line in f if line.startswith("| ")]
    rows = [[c.strip() for c in r] for r in rows[1:]]   # the header is first
    check(len(rows) == len(runs), "one table row per run", len(rows))
    for path, row in zip(runs, rows):
        with open(path) as f:
            want = expected_row(json.load(f))
        check(row[1:] == want, f"{os.path.basename(path)}: every number of its row",
              f"\n   got  {row[1:]}\n   want {want}")
        # The CLI's own percentiles (C, stats.c), where the JSON has them.
        cli = doc_pcts(path)
        for p, value in zip(PERCENTILES, row[11:17]):
            if f"{p:g}" in cli and not value.startswith(">"):
                check(f'{cli[f"{p:g}"]:.3f}' == value,
                      f"{os.path.basename(path)}: p{p:g} as the CLI computed it",
                      (cli[f"{p:g}"], value))
    with open(os.path.join(out, "table.txt")) as f:
        txt = f.read()
    for row in rows:
        check(all(c in txt for c in row[1:]), "table.txt has the same figures", row[0])

    # Bad input: a clear message naming the file, exit 2, no output made.
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        f.write('{"file_version": 1}')
    for args, named in (([bad], "bad.json"), ([os.path.join(work, "none.json")], "none.json"),
                        (["--label", "a", runs[0], runs[0]], "--label")):
        none = os.path.join(work, "not-made")
        run = subprocess.run([tool, "-o", none] + args, capture_output=True, text=True)
        check(run.returncode == 2 and named in run.stderr and not os.path.exists(none),
              f"refuses {args[-1]}", (run.returncode, run.stderr.strip()))

    print(f"report: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
