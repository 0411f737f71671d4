#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Runs latscope-report on RUN.json files and checks what it wrote: every
image is a valid PNG or SVG of the expected size and title, and every
number of table.md equals one computed here from the JSON, percentiles by
a method of their own (the histogram and its tail expanded into a sorted
list), equals the CLI's own percentiles where the JSON has them, and, for
the hand-made fixtures, the strings worked out by hand below. Then files
that are not results, or do not add up, must be refused.

usage: check_report.py LATSCOPE-REPORT WORKDIR RUN.json...
"""
import json
import math
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, setup, summary  # noqa: E402  (tests/lib/checks.py)

setup(prefix="report: ", show_ok=False)

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999)
# The percentile columns of the hand-made fixtures, worked out by hand.
HAND = {
    # 200 samples: 1 below 0, cells 0-9 hold 198 (ranks 2-199), the 200th is
    # at 250 us, past the 200 cells, in the tail bucket [245.760, 253.952)
    # (250000 ns: 30 << 13). p50 (rank 100) and p90 (180) are in cells 1 and
    # 2, p99 (198) in cell 9; p99.9 and up (rank 200) in that bucket, clipped
    # to the maximum: X = 250.000, P = 100 * 4.24 / 250 = 1.696.
    "small.json": ["2.000", "3.000", "10.000"] + ["<=250.000(-1.7%)"] * 4,
    # 1000000 samples: 3 below 0, cells 4, 5, 7, 20, 60 (100 cells) up to
    # rank 998500, then the tail of both threads merged: [100.000, 102.400)
    # (98304 ns clipped to the 100 us histogram) 1000 samples to 999500,
    # [294.912, 311.296) 450 to 999950, [983.040, 1015.808) 45 to 999995,
    # [4980.736, 5242.880) 5 to 1000000, the last clipped to the maximum
    # 5000.123. p50 rank 500000 in cell 5, p90 900000 in cell 7, p99 990000
    # in cell 20; p99.9 999000: P = 2.4 / 102.4 = 2.34 %; p99.99 999900:
    # 16.384 / 311.296 = 1/19 = 5.26 %; p99.999 999990: 32.768 / 1015.808 =
    # 1/31 = 3.23 %; p99.9999 999999: 19.387 / 5000.123 = 0.39 %.
    "tail.json": ["6.000", "8.000", "21.000", "<=102.400(-2.3%)", "<=311.296(-5.3%)",
                  "<=1015.808(-3.2%)", "<=5000.123(-0.4%)"],
}
TITLES = {"tail": "Tail latency", "cdf": "Cumulative distribution of the latency",
          "timeline": "Latency over the run, per second", "histogram": "Latency histogram"}


def tail_text(lo, hi, top):
    """How the CLI prints a percentile in the tail bucket [lo, hi) of a run
    whose maximum is top."""
    x = min(hi, top)
    return f"<={x:.3f}(-{100.0 * (x - min(lo, x)) / x:.1f}%)"


def expected_row(doc):
    """The table row, computed from the JSON without the report's code: a
    (sort key, printed text) per sample, in a sorted list."""
    values, cell_us = [], doc["resolution_in_ns"] / 1000.0
    total = doc["total"]
    has_tail = all("tail" in t["latency"] for t in doc["thread"].values())
    if "latmon" in doc:
        # The monitor's histogram, its last cell the overflow: no tail.
        values += [(math.inf, f"<={total['max']:.3f}")] * total["overflow"]
        for cell, count in doc["latmon"]["histogram"].items():
            edge = (int(cell) + 1) * cell_us
            values += [(edge, f"{edge:.3f}")] * count
    if "monitor" in doc:
        # One board: the monitor session's cells, the total's own tail.
        values += [(0.0, "0.000")] * total["underflow"]
        for lo, hi, count in total.get("tail", []):
            values += [(hi, tail_text(lo, hi, total["max"]))] * count
        if "tail" not in total:
            values += [(math.inf, f"<={total['max']:.3f}")] * total["overflow"]
        for cell, count in doc["monitor"]["histogram"].items():
            edge = (int(cell) + 1) * cell_us
            values += [(edge, f"{edge:.3f}")] * count
    for t in [] if "latmon" in doc or "monitor" in doc else doc["thread"].values():
        values += [(0.0, "0.000")] * t["latency"]["underflow"]
        if has_tail:
            for lo, hi, count in t["latency"]["tail"]:
                values += [(hi, tail_text(lo, hi, total["max"]))] * count
        else:
            values += [(math.inf, f"<={total['max']:.3f}")] * t["latency"]["overflow"]
        for cell, count in t["histogram"].items():
            edge = (int(cell) + 1) * cell_us
            values += [(edge, f"{edge:.3f}")] * count
    values.sort()
    pcts = [values[max(1, math.ceil(len(values) * p / 100.0)) - 1][1] for p in PERCENTILES]
    return ([doc["sysinfo"]["release"], doc["sysinfo"]["preemption"],
             doc.get("stress", {}).get("name", "none"),
             doc["settings"]["context"], str(len(values)), f"{doc['duration_ns'] / 1e9:.1f}"] +
            [f"{total[k]:.3f}" for k in ("min", "avg", "max")] +
            ["-" if total["stddev"] is None else f"{total['stddev']:.3f}"] +
            pcts + [str(doc["overruns"])])


def cli_text(total, key, shown):
    """The CLI's percentile @key of block @total (its "percentiles" and
    "percentile_ranges") printed the way @shown is, or None if the JSON
    does not have it."""
    if key not in total.get("percentiles", {}):
        return None
    x = total["percentiles"][key]
    if "(-" in shown:
        lo, hi = total["percentile_ranges"][key]
        return f"<={x:.3f}(-{100.0 * (hi - lo) / hi:.1f}%)"
    return f"<={x:.3f}" if shown.startswith("<=") else f"{x:.3f}"


def tail_not_adding_up(runs, work):
    """A copy of the first run with a tail, one more sample in the last tail
    bucket of a thread than its overflow counts; None if no run has a tail."""
    for path in runs:
        with open(path) as f:
            doc = json.load(f)
        for t in doc["thread"].values():
            if t["latency"].get("tail"):
                t["latency"]["tail"][-1][2] += 1
                bad = os.path.join(work, "badtail.json")
                with open(bad, "w") as f:
                    json.dump(doc, f)
                return bad
    return None


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
    if run.returncode:     # nothing was made to check
        return summary("report")
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
        with open(path) as f:
            total = json.load(f)["total"]
        for p, value in zip(PERCENTILES, row[11:18]):
            cli = cli_text(total, f"{p:g}", value)
            if cli is not None:
                check(cli == value, f"{os.path.basename(path)}: p{p:g} as the CLI computed it",
                      (cli, value))
        if os.path.basename(path) in HAND:
            check(row[11:18] == HAND[os.path.basename(path)],
                  f"{os.path.basename(path)}: the percentiles worked out by hand",
                  f"\n   got  {row[11:18]}\n   want {HAND[os.path.basename(path)]}")
    with open(os.path.join(out, "table.txt")) as f:
        txt = f.read()
    for row in rows:
        check(all(c in txt for c in row[1:]), "table.txt has the same figures", row[0])

    # Bad input: a clear message naming the file, exit 2, no output made.
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        f.write('{"file_version": 1}')
    bad_tail = tail_not_adding_up(runs, work)
    cases = [([bad], ("bad.json",)), ([os.path.join(work, "none.json")], ("none.json",)),
             (["--label", "a", runs[0], runs[0]], ("--label",))]
    if bad_tail:    # the message names the file and what does not add up
        cases.append(([runs[0], bad_tail], ("badtail.json", "tail", "overflow")))
    for args, said in cases:
        none = os.path.join(work, "not-made")
        run = subprocess.run([tool, "-o", none] + args, capture_output=True, text=True)
        check(run.returncode == 2 and all(w in run.stderr for w in said)
              and not os.path.exists(none),
              f"refuses {args[-1]}", (run.returncode, run.stderr.strip()))

    return summary("report")


if __name__ == "__main__":
    sys.exit(main())
