#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Runs latscope-report on RUN.json files and checks what it wrote.

With --no-merge, one row per file: every image is a valid PNG or SVG of
the expected size and title, and every cell of table.md equals one
computed here from the JSON, percentiles by a method of their own (the
histogram and its tail expanded into a sorted list), equals the CLI's own
percentiles where the JSON has them, and, for the hand-made fixtures, the
strings worked out by hand below. heat.png is written when a file has a
temperature or a clock, else a line says why it is not.

Merged (the default), one row per label: files of one kernel, preemption
model, context, period and load (what the default label is made of) are
one row, whose samples, histogram and tail (read back from --json-out)
are the files' sums and whose percentiles come from all their samples in
one sorted list, the same rows whatever the files' order; or, if such
files cannot be merged, the report refuses.

Then what must be refused: files that are not results or do not add up,
files of one label that differ in context or histogram cells, one run
given twice.

The worst samples (latscope --why: the JSON's "why" and "worst"): with
--no-merge a section of worst.md per file, its worst records the worst
first, each cell computed here from its record, or one line saying the
recorder was off or the file predates it; merged, a label's worst 8 of
all its files' records, in worst.md and --json-out, and a note naming the
files they come from when some have none; for the VM's why files the
first row worked out by hand. worst.png when a run has records, else a
line says why it is not written. Copies made here: two runs of one label
whose records interleave, a run with records beside one older than the
recorder and one with it off, a recorder that saw no NMI, and a record
without a key (refused).

The cost suite's files (kind "cost") among them: with --no-merge a row
per file, every cell of cost.md's plain, measured and cost tables equal
to one computed here from the file's runs (and to the file's own mean,
stddev and change_percent); merged, a row per label whose cells come from
the runs of its files together (statistics' mean and stdev), and the
runs --json-out lists are theirs in order; files of one label that are
not one setup refused; for the hand-made fixtures the cells worked out
by hand below, the merged row in either order and not a mean of means.
Then: a report of latency runs only makes no cost output, one of cost
files only no latency output (and says so), a mixed one both with
--label in order across the kinds; a suite interrupted while measured;
and the cost refusals (another scale, other work, another measured CPU,
one suite twice, a mean that is not its runs', no workloads, another
kind of document). Runs under load (latscope --cost --stress): their two
tables and the Kernels load column only when a file has them, every cell
computed here and, for cost-rt-load.json, worked out by hand; merged with
a copy; one label with and without a load, or with two, refused; and
without them cost.md and cost.txt byte for byte as in expected/.

Its files as the CLI's: a symlink at each name replaced, never followed
(the 0600 file it points to unchanged), 0640 under umask 027.

usage: check_report.py LATSCOPE-REPORT WORKDIR FILE.json...
"""
import json
import math
import os
import stat
import statistics
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, setup, summary  # noqa: E402  (tests/lib/checks.py)

setup(prefix="report: ", show_ok=False)

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999)
PCT_COLUMNS = [f"p{p:g}" for p in PERCENTILES]
P999 = PERCENTILES.index(99.9)
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
    # 100 samples, 50 hundred cells: cell 2 ranks 1-50, cell 4 51-99, the
    # 100th (80 us: 80000 ns, bucket 19 << 12 = 77824 to 20 << 12 = 81920)
    # in the tail, clipped to the maximum 80: P = 2.176 / 80 = 2.72 %.
    "merge-a.json": ["3.000", "5.000", "5.000"] + ["<=80.000(-2.7%)"] * 4,
    # 300 samples: 1 below 0, cell 10 ranks 2-296, 4 in [118.784, 122.880)
    # (29 << 12 to 30 << 12) ranks 297-300, clipped to the maximum 120.5:
    # P = 1.716 / 120.5 = 1.42 %. p50 rank 150, p90 270; p99 rank 297.
    "merge-b.json": ["11.000", "11.000"] + ["<=120.500(-1.4%)"] * 5,
    # 4000 samples: cell 20 ranks 1-3000, cell 25 3001-3990, cell 40
    # 3991-4000. p50 rank 2000, p90 3600, p99 3960, p99.9 3996 and up.
    "heat.json": ["21.000", "26.000", "26.000"] + ["41.000"] * 4,
}
HAND["merge-irq.json"] = HAND["merge-a.json"]
# merge-a.json and merge-b.json, one label: one row of 400 samples. Ranks:
# 1 below 0; cell 2 2-51; cell 4 52-100; cell 10 101-395; a's tail bucket
# [77.824, 81.920) 396, now clipped to the merged maximum 120.5 (not
# merge-a's 80), so at most 81.920, P = 4.096 / 81.92 = 5.0 %; b's bucket
# 397-400. p50 (rank 200) and p90 (360) in cell 10: 11.000, where the
# files' own p50 average to 7.000; p99 (396) in a's bucket, where their
# own p99 (5.000 and <=120.500) weigh in at 91.625; p99.9 and up (400):
# <=120.500(-1.4%). avg (4.255 * 100 + 11.919 * 300) / 400 = 10.003.
MERGED_HAND = {
    "files": ("merge-a.json", "merge-b.json"),
    "row": {"samples": "400", "duration (s)": "4.0", "min": "-0.300", "avg": "10.003",
            "max": "120.500", "stddev": "-", "overruns": "3",
            "spread": "max 80.000..120.500, p99.9 <=80.000(-2.7%)..<=120.500(-1.4%) over 2 runs",
            **dict(zip(PCT_COLUMNS, ["11.000", "11.000", "<=81.920(-5.0%)"] +
                       ["<=120.500(-1.4%)"] * 4))},
    "json": {"histogram": {"2": 50, "4": 49, "10": 295}, "underflow": 1, "overflow": 5,
             "tail": [[77.824, 81.92, 1], [118.784, 122.88, 4]]},
}
# heat.json: read 52-67 °C, CPU1 600-1500 MHz, ARM frequency capped in 2
# of its 4 seconds: 10^5 / 1500 = 66.667 us.
HEAT_HAND = {"heat.json": {"rule of thumb": "66.667", "max °C": "67.0", "min MHz": "600",
                           "throttled": "ARM frequency capped"}}
RULE_NOTE = "a rule of thumb for PREEMPT_RT on a tuned board, not a limit"
TITLES = {"tail": "Tail latency", "cdf": "Cumulative distribution of the latency",
          "timeline": "Latency over the run, per second", "histogram": "Latency histogram"}
HEAT_TITLE = "Heat and clock over the run"


def load(path):
    with open(path) as f:
        return json.load(f)


def tail_text(lo, hi, top):
    """How the CLI prints a percentile in the tail bucket [lo, hi) of a run
    whose maximum is top."""
    x = min(hi, top)
    return f"<={x:.3f}(-{100.0 * (x - min(lo, x)) / x:.1f}%)"


def has_tail(doc):
    if "latmon" in doc:
        return False
    if "monitor" in doc:
        return "tail" in doc["total"]
    return all("tail" in t["latency"] for t in doc["thread"].values())


def histograms(doc):
    """The histograms {cell: count} a run's cells are the sum of: a
    monitor's, or every thread's."""
    if "latmon" in doc:
        return [doc["latmon"]["histogram"]]
    if "monitor" in doc:
        return [doc["monitor"]["histogram"]]
    return [t["histogram"] for t in doc["thread"].values()]


def tails(doc):
    """The tail buckets [from, to, count] of every block of @doc."""
    if "monitor" in doc:
        return doc["total"]["tail"]
    return [b for t in doc["thread"].values() for b in t["latency"]["tail"]]


def sample_values(doc, top, with_tail):
    """(sort key, printed text) of each sample of @doc, in a run whose
    maximum is @top and whose tail is read if @with_tail (False when a file
    of the run has none: its overflow is bounded by the maximum alone)."""
    cell_us, total = doc["resolution_in_ns"] / 1000.0, doc["total"]
    values = []
    for h in histograms(doc):
        for cell, count in h.items():
            edge = (int(cell) + 1) * cell_us
            values += [(edge, f"{edge:.3f}")] * count
    if "latmon" in doc:
        # The monitor's histogram, its last cell the overflow: no tail.
        return values + [(math.inf, f"<={top:.3f}")] * total["overflow"]
    # One board: the monitor session's cells, the total's own tail.
    blocks = [total] if "monitor" in doc else [t["latency"] for t in doc["thread"].values()]
    for b in blocks:
        values += [(0.0, "0.000")] * b["underflow"]
        if with_tail:
            for lo, hi, count in b["tail"]:
                values += [(hi, tail_text(lo, hi, top))] * count
        else:
            values += [(math.inf, f"<={top:.3f}")] * b["overflow"]
    return values


def percentiles_of(values):
    values = sorted(values)
    return [values[max(1, math.ceil(len(values) * p / 100.0)) - 1][1] for p in PERCENTILES]


def number(text):
    """X of a percentile's text ("6.000", "<=X", "<=X(-P%)")."""
    return float(text.removeprefix("<=").split("(")[0])


def heat_cells(docs):
    """The heat columns of a row of @docs, from each file's "heat"."""
    heats = [d.get("heat") or {} for d in docs]
    temps = [h["temperature"]["max_c"] for h in heats if h.get("temperature")]
    slow = [h["clock"]["min_mhz"] for h in heats if h.get("clock")]
    fast = [h["clock"]["max_mhz"] for h in heats if h.get("clock")]
    flags = [h["throttling"]["during_run"] for h in heats if h.get("throttling")]
    names = []
    for during in flags:
        names += [n for n in during if n not in names]
    throttled = ", ".join(names) or ("no" if len(flags) == len(docs) else "-")
    return {"rule of thumb": f"{1e5 / max(fast):.3f}" if fast else "-",
            "max °C": f"{max(temps):.1f}" if temps else "-",
            "min MHz": f"{min(slow):.0f}" if slow else "-",
            "throttled": throttled}


def expected_row(docs):
    """The table row of the files @docs as one run, computed without the
    report's code; every column but "run"."""
    first, totals = docs[0], [d["total"] for d in docs]
    top = max(t["max"] for t in totals)
    with_tail = all(has_tail(d) for d in docs)
    values = [v for d in docs for v in sample_values(d, top, with_tail)]
    row = {"kernel": first["sysinfo"]["release"], "preemption": first["sysinfo"]["preemption"],
           "load": first.get("stress", {}).get("name", "none"),
           "context": first["settings"]["context"],
           "period (µs)": str(first["settings"]["period_us"]),
           "samples": str(len(values)),
           "duration (s)": f"{sum(d['duration_ns'] for d in docs) / 1e9:.1f}",
           "min": f"{min(t['min'] for t in totals):.3f}",
           "avg": f"{sum(t['avg'] * t['samples'] for t in totals) / len(values):.3f}",
           "max": f"{top:.3f}",
           "overruns": str(sum(d["overruns"] for d in docs)),
           **dict(zip(PCT_COLUMNS, percentiles_of(values))), **heat_cells(docs)}
    if len(docs) == 1:
        row["avg"] = f"{first['total']['avg']:.3f}"
        stddev = first["total"]["stddev"]
        row["stddev"] = "-" if stddev is None else f"{stddev:.3f}"
        row["spread"] = "1 run"
        return row
    row["stddev"] = "-"
    maxima = sorted(t["max"] for t in totals)
    own = sorted((percentiles_of(sample_values(d, d["total"]["max"], has_tail(d)))[P999]
                  for d in docs), key=lambda t: (number(t), t))
    row["spread"] = (f"max {maxima[0]:.3f}..{maxima[-1]:.3f}, p99.9 {own[0]}..{own[-1]} "
                     f"over {len(docs)} runs")
    return row


def differences(got, want):
    """{column: (got, wanted)} of the cells of @want that @got does not have."""
    return {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}


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


def read_heat(doc):
    """Whether a timeline point of @doc has a temperature or a clock."""
    tl = doc.get("timeline") or {"columns": [], "points": []}
    return any(dict(zip(tl["columns"], p)).get(k) is not None
               for p in tl["points"] for k in ("temp_c", "cpu_mhz"))


def read_table(out):
    """table.md's rows as {heading: cell}, and its notes."""
    with open(os.path.join(out, "table.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    cells = [[c.strip() for c in line.strip().strip("|").split(" | ")]
             for line in lines if line.startswith("| ")]
    rows = [dict(zip(cells[0], r)) for r in cells[1:]]
    return rows, [line[2:] for line in lines if line.startswith("- ")]


def report(tool, out, args):
    return subprocess.run([tool, "-o", out] + args, capture_output=True, text=True)


def expect_refusals(tool, work, prefix, cases):
    """Each (args, said): exit 2, every word of @said on stderr, and no
    output directory made (each case its own, PREFIX-N)."""
    for i, (args, said) in enumerate(cases):
        none = os.path.join(work, f"{prefix}-{i}")
        run = report(tool, none, args)
        check(run.returncode == 2 and all(w in run.stderr for w in said)
              and not os.path.exists(none),
              f"refuses {' '.join(os.path.basename(a) for a in args)}",
              (run.returncode, run.stderr.strip()))


def check_png(path):
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError as e:
        check(False, f"{os.path.basename(path)} is a 1000x600 PNG", e)
        return
    ok = head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    size = struct.unpack(">II", head[16:24]) if ok else None
    check(ok and size == (1000, 600), f"{os.path.basename(path)} is a 1000x600 PNG", size)


def check_svg(path, title):
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        check(False, f"{os.path.basename(path)} parses as XML", e)
        return
    text = " ".join(root.itertext()) + open(path).read()
    check(root.tag.endswith("svg"), f"{os.path.basename(path)} is SVG", root.tag)
    check(title in text or title.replace(" ", "") in text,
          f"{os.path.basename(path)} has its title", title)


def check_images(out, titles):
    for name, title in titles.items():
        check_png(os.path.join(out, f"{name}.png"))
        check_svg(os.path.join(out, f"{name}.svg"), title)


def check_notes(out, rows, notes):
    """The notes under the tables: the rule of thumb, and each throttled run."""
    with open(os.path.join(out, "table.txt"), encoding="utf-8") as f:
        txt = f.read()
    check(any(RULE_NOTE in n for n in notes) and RULE_NOTE in txt,
          "the tables say what the rule of thumb is", notes)
    for row in rows:
        if row["throttled"] not in ("no", "-"):
            said = [n for n in notes if n.startswith(row["run"] + ": throttled")]
            check(len(said) == 1 and "slowed board" in said[0] and said[0] in txt,
                  f"{row['run']}: the tables say it was throttled", notes)
    for row in rows:
        check(all(c in txt for c in row.values()), "table.txt has the same figures", row["run"])


def check_apart(tool, work, runs):
    """--no-merge: a row per file, each cell computed here from its JSON."""
    out = os.path.join(work, "apart")
    run = report(tool, out, ["--no-merge"] + runs)
    check(run.returncode == 0, "--no-merge: runs", run.stderr.strip())
    if run.returncode:     # nothing was made to check
        return
    check_images(out, TITLES)
    rows, notes = read_table(out)
    check(len(rows) == len(runs), "--no-merge: one table row per file, even files of one label",
          len(rows))
    for path, row in zip(runs, rows):
        name, doc = os.path.basename(path), load(path)
        want = expected_row([doc])
        check(not differences(row, want), f"{name}: every cell of its row",
              differences(row, want))
        # The CLI's own percentiles (C, stats.c), where the JSON has them.
        for p, column in zip(PERCENTILES, PCT_COLUMNS):
            cli = cli_text(doc["total"], f"{p:g}", row[column])
            if cli is not None:
                check(cli == row[column], f"{name}: p{p:g} as the CLI computed it",
                      (cli, row[column]))
        if name in HAND:
            got = [row[c] for c in PCT_COLUMNS]
            check(got == HAND[name], f"{name}: the percentiles worked out by hand",
                  f"\n   got  {got}\n   want {HAND[name]}")
        if name in HEAT_HAND:
            check(not differences(row, HEAT_HAND[name]),
                  f"{name}: heat columns and rule of thumb worked out by hand",
                  differences(row, HEAT_HAND[name]))
    check_notes(out, rows, notes)


def check_heat(tool, work, runs):
    """heat.png when a file read a temperature or a clock; else none, and a
    line that says why."""
    cool = [p for p in runs if not read_heat(load(p))]
    if len(cool) < len(runs):
        check_images(os.path.join(work, "apart"), {"heat": HEAT_TITLE})
    if not cool:
        return
    out = os.path.join(work, "cool")
    # Apart: files of one label that cannot be merged (a VM's GPIO monitor
    # runs of two histogram sizes) are refused by the merge, not this check.
    run = report(tool, out, ["--no-merge"] + cool)
    check(run.returncode == 0 and not os.path.exists(os.path.join(out, "heat.png")) and
          "heat.png not written: no run read a temperature or a clock" in run.stdout,
          "no heat read: no heat.png, and a line says why", (run.returncode, run.stdout))


def label_key(doc):
    """What the default label is made of: M:N runs (--threads) apart, with
    their thread and CPU counts; noise runs (--noise) apart by what their
    gaps depend on (threshold, runtime, interrupts off)."""
    st = doc["settings"]
    mn = (st["threads"], st["cpus"]) if st.get("scenario") == "M:N" else None
    noise = doc.get("noise")
    reads = (None if noise is None else
             (noise["threshold_us"], noise["runtime_per_period_us"], noise["irqs_off"]))
    return (doc["sysinfo"]["release"], doc["sysinfo"]["preemption"] or "?",
            st["context"], st["period_us"], mn, doc.get("stress", {}).get("name", "none"),
            reads)


def mergeable(paths, docs):
    """Whether the files of one label can be one run: histograms of one
    shape, and no run twice."""
    shapes = {(d["settings"]["histogram_cells"], d["resolution_in_ns"]) for d in docs}
    runs = [os.path.realpath(p) for p in paths]
    runs += [(d["sysinfo"]["nodename"], d["start_time"], d.get("cmdline"))
             for d in docs if "start_time" in d]
    return len(shapes) == 1 and len(set(runs)) == len(runs)


def summed(pairs):
    """{key: count} of (key, count) pairs, counts of one key summed."""
    sums = {}
    for key, count in pairs:
        sums[key] = sums.get(key, 0) + count
    return sums


def sorted_items(row):
    return sorted(row.items())


def check_merged(tool, work, runs):
    """The default: files of one label are one row (or are refused)."""
    groups = {}
    for path in runs:
        groups.setdefault(label_key(load(path)), []).append(path)
    groups = list(groups.values())
    out, jout = os.path.join(work, "merged"), os.path.join(work, "merged.json")
    run = report(tool, out, ["--json-out", jout] + runs)
    refused = [g for g in groups if not mergeable(g, [load(p) for p in g])]
    if refused:
        check(run.returncode == 2 and any(os.path.basename(p) in run.stderr for p in refused[0]),
              "merged: files of one label that cannot be merged are refused",
              (run.returncode, run.stderr.strip()))
        return
    check(run.returncode == 0, "merged: runs", run.stderr.strip())
    if run.returncode:
        return
    check_images(out, TITLES)
    rows, notes = read_table(out)
    with open(jout) as f:
        merged = json.load(f)["runs"]
    check(len(rows) == len(groups) == len(merged), "merged: one table row per label",
          (len(rows), len(groups), len(merged)))
    for paths, row, js in zip(groups, rows, merged):
        docs, names = [load(p) for p in paths], [os.path.basename(p) for p in paths]
        want = expected_row(docs)
        check(not differences(row, want), f"merged {names}: every cell of its row",
              differences(row, want))
        cells = summed((int(c), n) for d in docs for h in histograms(d) for c, n in h.items())
        check(js["histogram"] == {str(c): n for c, n in sorted(cells.items())},
              f"merged {names}: the histogram is the files' summed cell by cell")
        if all(has_tail(d) for d in docs):
            buckets = summed((lo, n) for d in docs for lo, _, n in tails(d))
            check({lo: n for lo, _, n in js["tail"]} == buckets,
                  f"merged {names}: the tail is the files' summed bucket by bucket",
                  (js["tail"], buckets))
        if tuple(names) == MERGED_HAND["files"]:
            hand = MERGED_HAND
            check(not differences(row, hand["row"]),
                  "merged merge-a + merge-b: the row worked out by hand",
                  differences(row, hand["row"]))
            check(not differences(js, hand["json"]),
                  "merged merge-a + merge-b: histogram, tail, under- and overflow by hand",
                  differences(js, hand["json"]))
    check_notes(out, rows, notes)
    backwards = os.path.join(work, "merged-backwards")
    run = report(tool, backwards, runs[::-1])
    again = read_table(backwards)[0] if run.returncode == 0 else []
    check(sorted(map(sorted_items, again)) == sorted(map(sorted_items, rows)),
          "merged: the same rows from the files in reverse order", run.stderr.strip())
    if any(len(g) > 1 for g in groups):
        check(any("histograms and tails summed" in n for n in notes),
              "merged: the tables say how a row of several runs was made", notes)


def copy_of(path, work, name, change):
    """A copy of @path as @name in @work, changed by @change(doc); it does
    not say when it started, so it is not the same run as @path."""
    doc = load(path)
    doc.pop("start_time", None)
    change(doc)
    copy = os.path.join(work, name)
    with open(copy, "w") as f:
        json.dump(doc, f)
    return copy


def tail_not_adding_up(runs, work):
    """A copy of the first run with a tail, one more sample in the last tail
    bucket of a thread than its overflow counts; None if no run has a tail."""
    for path in runs:
        doc = load(path)
        for t in doc["thread"].values():
            if t["latency"].get("tail"):
                t["latency"]["tail"][-1][2] += 1
                bad = os.path.join(work, "badtail.json")
                with open(bad, "w") as f:
                    json.dump(doc, f)
                return bad
    return None


def other_context(runs, work):
    """Two files of one setup but their context: merge-a.json and
    merge-irq.json if given, else the first file and a copy."""
    names = {os.path.basename(p): p for p in runs}
    if "merge-a.json" in names and "merge-irq.json" in names:
        return [names["merge-a.json"], names["merge-irq.json"]]
    return [runs[0], copy_of(runs[0], work, "othercontext.json",
                             lambda d: d["settings"].update(context="other-context"))]


def check_refusals(tool, work, runs):
    """A clear message naming the file(s), exit 2, no output made."""
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        f.write('{"file_version": 1}')
    cells = copy_of(runs[0], work, "morecells.json",
                    lambda d: d["settings"].update(
                        histogram_cells=d["settings"]["histogram_cells"] + 1))
    pair = other_context(runs, work)
    same = ["--label", "same", "--label", "same"]
    cases = [([bad], ("bad.json",)), ([os.path.join(work, "none.json")], ("none.json",)),
             (["--label", "a", runs[0], runs[0]], ("--label",)),
             (same + pair, [os.path.basename(p) for p in pair] + ["context"]),
             (same + [runs[0], cells], (os.path.basename(runs[0]), "morecells.json",
                                        "histogram cells")),
             ([runs[0], runs[0]], (os.path.basename(runs[0]), "same run"))]
    bad_tail = tail_not_adding_up(runs, work)
    if bad_tail:    # the message names the file and what does not add up
        cases.append(([runs[0], bad_tail], ("badtail.json", "tail", "overflow")))
    expect_refusals(tool, work, "not-made", cases)


# ---- the worst samples (latscope --why: the JSON's "why" and "worst") ----

WORST_TITLE = "The worst samples: what their time went to"
WORST_SHOWN = 8
PARTS = (("irq", "irq_ns"), ("wake", "wake_ns"), ("sched", "sched_ns"), ("run", "run_ns"))
IRQ_CONTEXTS = ("irq", "gpio-monitor")
# The first row of worst.md for the 6.12 VM's files (TCG, emulated: the
# figures say nothing of hardware), from the fixtures' first records.
WORST_HAND = {
    # A kthread lsnoise/1 spinning 4 ms with preemption off on the measured
    # CPU: the worst record is 4199328 ns (the run's maximum, 4199.328),
    # the irq came in lsnoise/1's spin, and lsnoise/1 ran 4122.855 us of it,
    # all while the answer waited: a SCHED_OTHER task beside the FIFO 90
    # responder, so non-preemptible.
    "vm-6.12-why-thread.json": {
        "latency": "4199.328", "CPU": "1", "at (s)": "1.454",
        "irq": "27.8", "wake": "1.1", "sched": "4165.5", "run": "4.9",
        "interrupted": "lsnoise/1 (3280, OTHER) in latscope_noise_spin+0x25/0x70 "
                       "[latscope_noise]",
        "what took the time": "lsnoise/1 (3280, OTHER) 4122.9 (4122.9 non-preemptible); "
                              "hrtimer tick_nohz_handler 48.2; softirq SCHED 6.9"},
    # An irq handler "lsnoise" (irq 24) spinning 4 ms, the irq context: the
    # latency (3547666 ns, the run's maximum) is all irq, and its handler
    # took 3527.967 us of it; the noise's own hrtimer and idle the rest.
    "vm-6.12-why-irq.json": {
        "latency": "3547.666", "CPU": "1", "at (s)": "2.693",
        "irq": "3547.7", "wake": "-", "sched": "-", "run": "-", "interrupted": "idle",
        "what took the time": "irq 24 lsnoise 3528.0; hrtimer noise_timer_fire "
                              "[latscope_nois 10.6; idle (state 1) 8.7"},
}
# The culprit the plot's legend names for each, by hand.
WORST_HAND_CULPRIT = {"vm-6.12-why-thread.json": "lsnoise/1",
                      "vm-6.12-why-irq.json": "irq lsnoise"}
# The line a run without records has instead of a table.
NO_RECORDS = "No worst-sample records"


def has_records(doc):
    return bool(doc.get("worst"))


def read_sections(path):
    """A NAME.md of titled tables: {title: ([{heading: cell}], notes)}."""
    tables, title = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith("## "):
                title = line[3:]
                tables[title] = ([], [])
            elif title and line.startswith("| "):
                tables[title][0].append([c.strip() for c in line.strip().strip("|").split(" | ")])
            elif title and line.startswith("- "):
                tables[title][1].append(line[2:])
    return {t: ([dict(zip(cells[0], r)) for r in cells[1:] if not r[0].startswith("---")],
                notes) for t, (cells, notes) in tables.items()}


def read_worst(out):
    return read_sections(os.path.join(out, "worst.md"))


def top_latencies(docs):
    """The WORST_SHOWN worst records' latencies of the files @docs together,
    as worst.md writes them."""
    ns = sorted((r["latency_ns"] for d in docs for r in d.get("worst", [])), reverse=True)
    return [f"{n / 1000:.3f}" for n in ns[:WORST_SHOWN]]


def culprit_start(item):
    """How a row names the thing that took the most time, as the CLI's line."""
    if item["kind"] == "task":
        return f'{item["name"]} ({item["id"]}, '
    if item["kind"] == "irq":
        return f'irq {item["id"]} {item["name"]} '
    if item["kind"] == "idle":
        return "idle"
    return f'{item["kind"]} {item["name"]} '


def expected_worst_row(doc, rec):
    """The cells of @rec's row in worst.md, computed from the record: all
    but interrupted and what took the time, which must start with these."""
    irq_context = doc["settings"]["context"] in IRQ_CONTEXTS
    row = {"latency": f'{rec["latency_ns"] / 1000:.3f}', "CPU": str(rec["cpu"]),
           "at (s)": f'{rec["elapsed_s"]:.3f}',
           "time": (time.strftime("%H:%M:%S", time.localtime(rec["realtime_ns"] // 10**9))
                    if rec["realtime_ns"] else "?")}
    for name, key in PARTS:
        ns = rec["parts"][key]
        row[name] = ("-" if irq_context and name != "irq" else
                     "?" if ns is None else f"{ns / 1000:.1f}")
    it = rec["interrupted"]
    starts = {"interrupted": "?" if it is None else it["comm"] if it["pid"] else "idle",
              "what took the time": culprit_start(rec["items"][0]) if rec["items"] else ""}
    return row, starts


def check_worst_rows(name, doc, rows):
    """Every row of one file's worst samples against its records: the
    worst first, at most WORST_SHOWN, each cell from its record."""
    want = top_latencies([doc])
    check([r.get("latency") for r in rows] == want,
          f"{name}: worst.md has its worst {len(want)} records, the worst first",
          ([r.get("latency") for r in rows], want))
    for row in rows:
        rec = next((r for r in doc["worst"] if f'{r["latency_ns"] / 1000:.3f}' == row["latency"]
                    and f'{r["elapsed_s"]:.3f}' == row["at (s)"]), None)
        if rec is None:
            check(False, f"{name}: row #{row['#']} is one of its records", row)
            continue
        cells, starts = expected_worst_row(doc, rec)
        check(not differences(row, cells) and
              all(row[k].startswith(v) for k, v in starts.items()),
              f"{name}: row #{row['#']} of worst.md from its record",
              (differences(row, cells), {k: (row[k], v) for k, v in starts.items()}))


def check_worst_apart(work, runs):
    """--no-merge: a section of worst.md per file, in the table's order:
    its records, or the line that says why it has none; worst.png when a
    file has records; the hand-made first rows of the VM's why files."""
    out = os.path.join(work, "apart")
    if not os.path.exists(os.path.join(out, "table.md")):
        return      # --no-merge failed: said there
    sections = read_worst(out)
    titles = [r["run"] for r in read_table(out)[0]]
    check(list(sections) == titles, "worst.md: a section per run, in table.md's order",
          (list(sections), titles))
    with open(os.path.join(out, "worst.txt"), encoding="utf-8") as f:
        txt = f.read()
    for path, title in zip(runs, titles):
        name, doc = os.path.basename(path), load(path)
        rows, notes = sections.get(title, ([], []))
        if has_records(doc):
            check_worst_rows(name, doc, rows)
            check(all(c in txt for row in rows for c in row.values()),
                  f"{name}: worst.txt has the same figures")
            unseen = [k for k in ("irq", "softirq", "switch", "nmi", "idle", "hrtimer")
                      if k not in doc["why"]["seen"]]
            check(not unseen or any(n.startswith("Not seen by the recorder") for n in notes),
                  f"{name}: worst.md says what the recorder did not see", (unseen, notes))
            check(doc["settings"]["context"] not in IRQ_CONTEXTS or
                  any("wake, sched and run do not apply (-)" in n for n in notes),
                  f"{name}: worst.md says the irq context has only the irq part", notes)
        else:
            said = ("the recorder was off" if "why" in doc else "predates the recorder")
            check(not rows and len(notes) == 1 and notes[0].startswith(NO_RECORDS) and
                  said in notes[0] and notes[0] in txt,
                  f"{name}: worst.md says in a line it has no records: {said}", (rows, notes))
        if name in WORST_HAND:
            check(rows and not differences(rows[0], WORST_HAND[name]),
                  f"{name}: the first row of worst.md by hand",
                  differences(rows[0] if rows else {}, WORST_HAND[name]))
            check(svg_says(out, WORST_HAND_CULPRIT[name], "worst"),
                  f"{name}: worst.svg's legend names {WORST_HAND_CULPRIT[name]}")
    check_worst_plot(out, [load(p) for p in runs], "--no-merge")


def check_worst_plot(out, docs, what):
    """worst.png/.svg when a file has records."""
    if any(has_records(d) for d in docs):
        check_images(out, {"worst": WORST_TITLE})
    else:
        check(not os.path.exists(os.path.join(out, "worst.png")),
              f"{what}: no record, no worst.png")


def check_worst_merged(work, runs):
    """Merged (the default): a label's worst samples are the worst
    WORST_SHOWN of its files' records together, in worst.md and
    --json-out; a note names the files they come from when some have none;
    the same sections whatever the files' order."""
    out = os.path.join(work, "merged")
    if not os.path.exists(os.path.join(out, "table.md")):
        return      # refused or failed: said there
    groups = {}
    for path in runs:
        groups.setdefault(label_key(load(path)), []).append(path)
    sections = read_worst(out)
    titles = [r["run"] for r in read_table(out)[0]]
    with open(os.path.join(work, "merged.json")) as f:
        merged = json.load(f)["runs"]
    for paths, title, js in zip(groups.values(), titles, merged):
        docs, names = [load(p) for p in paths], [os.path.basename(p) for p in paths]
        rows, notes = sections.get(title, ([], []))
        want = top_latencies(docs)
        check([r.get("latency") for r in rows] == want and
              [f'{r["latency_ns"] / 1000:.3f}' for r in js["worst"]] == want,
              f"merged {names}: worst.md and --json-out have "
              f"{f'the worst {len(want)} of their records' if want else 'no record'}",
              ([r.get("latency") for r in rows], want))
        check([w["recorder"] for w in js["why"]] ==
              [d["why"]["recorder"] if "why" in d else None for d in docs],
              f"merged {names}: --json-out says what each file says of the recorder",
              js["why"])
        have = sorted(n for n, d in zip(names, docs) if has_records(d))
        if not have:
            check(not rows and any(n.startswith(NO_RECORDS) for n in notes),
                  f"merged {names}: worst.md says it has no records", notes)
        elif len(have) < len(names):
            check(any(f"come from {len(have)} of its {len(names)} files only "
                      f"({', '.join(have)})" in n for n in notes),
                  f"merged {names}: worst.md says the records come from {have} only", notes)
    check_worst_plot(out, [load(p) for p in runs], "merged")
    backwards = os.path.join(work, "merged-backwards")
    if os.path.exists(os.path.join(backwards, "worst.md")):
        check(read_worst(backwards) == sections,
              "merged: the same worst samples from the files in reverse order")


def why_copies(src, work):
    """Copies of @src, a run with records: another run of it whose records
    are each 500 ns less (they interleave with its own), one older than the
    recorder, one with it off, one whose recorder saw no NMI."""
    def less(d):
        for r in d["worst"]:
            r["latency_ns"] -= 500

    def older(d):
        d.pop("why")
        d.pop("worst")

    def off(d):
        d["why"] = {"records_per_cpu": d["why"]["records_per_cpu"], "recorder": False}
        d["worst"] = []

    def no_nmi(d):
        d["why"]["seen"] = [k for k in d["why"]["seen"] if k != "nmi"]

    return [copy_of(src, work, f"worst-{name}.json", change)
            for name, change in (("less", less), ("older", older), ("off", off),
                                 ("no-nmi", no_nmi))]


def check_worst_merges(tool, work, runs):
    """One label: two runs with records keep the worst WORST_SHOWN of both,
    sorted, each row naming its file; a run with records beside two
    without names the one they come from; runs without any say so, and
    no worst.png is written, a line says why. A recorder that saw no NMI
    (a kernel other than x86's) is said to; a record without a key the
    report reads is refused."""
    names = {os.path.basename(p): p for p in runs}
    src = names.get("vm-6.12-why-thread.json") or next(
        (p for p in runs if has_records(load(p))), None)
    if src is None:
        return
    less, older, off, no_nmi = why_copies(src, work)
    same = ["--label", "why", "--label", "why"]
    out = os.path.join(work, "why-two")
    run = report(tool, out, same + [src, less])
    check(run.returncode == 0, "why merged with a copy: runs", run.stderr.strip())
    if run.returncode == 0:
        recs = sorted([(r["latency_ns"], os.path.basename(p)) for p in (src, less)
                       for r in load(p)["worst"]], reverse=True)[:WORST_SHOWN]
        rows = read_worst(out).get("why", ([], []))[0]
        got = [(r.get("latency"), r.get("file")) for r in rows]
        check(got == [(f"{ns / 1000:.3f}", f) for ns, f in recs],
              f"why merged with a copy: its worst {WORST_SHOWN} of both, sorted, each with "
              "its file", got)
    out = os.path.join(work, "why-some")
    run = report(tool, out, same + ["--label", "why", src, older, off])
    check(run.returncode == 0, "why merged with files without records: runs",
          run.stderr.strip())
    if run.returncode == 0:
        rows, notes = read_worst(out).get("why", ([], []))
        check([r.get("latency") for r in rows] == top_latencies([load(src)]) and
              any(f"come from 1 of its 3 files only ({os.path.basename(src)}): the recorder "
                  "was off in worst-off.json; worst-older.json predates the recorder" in n
                  for n in notes),
              "why merged with files without records: the records of the one that has "
              "them, and a note says so", notes)
    out = os.path.join(work, "why-none")
    run = report(tool, out, same + [older, off])
    notes = read_worst(out).get("why", ([], []))[1] if run.returncode == 0 else []
    check(run.returncode == 0 and not os.path.exists(os.path.join(out, "worst.png")) and
          "worst.png not written: no run has worst-sample records" in run.stdout and
          any(n.startswith(NO_RECORDS) for n in notes),
          "no records: no worst.png, a line says why, worst.md says so",
          (run.returncode, run.stdout, notes))
    def no_duration(d):
        d["worst"][-1]["items"][0].pop("duration_ns")

    if load(src)["worst"][-1]["items"]:
        expect_refusals(tool, work, "not-made-worst", [
            ([copy_of(src, work, "worst-no-duration.json", no_duration)],
             ("worst-no-duration.json", "worst-sample record", "duration_ns"))])
    out = os.path.join(work, "why-no-nmi")
    run = report(tool, out, ["--label", "why", no_nmi])
    notes = read_worst(out).get("why", ([], []))[1] if run.returncode == 0 else []
    check(any(n.startswith("Not seen by the recorder on this kernel: NMIs;") for n in notes),
          "a recorder that saw no NMI: worst.md says so", (run.returncode, notes))


def check_worst_bytes(tool, work, runs):
    """A culprit whose name is not UTF-8 (a task may name itself "\\xff";
    latscope before it escaped names wrote the byte as it was): the file is
    read, the name shown with U+FFFD for the byte, as latscope writes it."""
    # An item whose name the table shows (an idle state is shown by number).
    named = [(p, w, i) for p in runs if has_records(load(p))
             for w, rec in enumerate(load(p)["worst"])
             for i, item in enumerate(rec["items"]) if item["kind"] != "idle"]
    if not named:
        return
    src, w, i = named[0]
    marker = "CULPRIT-NAME-MARKER"
    copy = copy_of(src, work, "worst-bytes.json",
                   lambda d: d["worst"][w]["items"][i].update(name=marker))
    with open(copy, "rb") as f:
        raw = f.read().replace(marker.encode(), b"bad\xff")
    with open(copy, "wb") as f:
        f.write(raw)
    out = os.path.join(work, "worst-bytes")
    run = report(tool, out, ["--label", "bytes", copy])
    rows = read_worst(out).get("bytes", ([], []))[0] if run.returncode == 0 else []
    check(run.returncode == 0 and any("bad\ufffd" in r.get("what took the time", "")
                                      for r in rows),
          "a culprit named bad\\xff: read, shown as bad\\ufffd",
          (run.returncode, run.stderr.strip(), rows[:1]))


def check_worst(tool, work, runs):
    check_worst_apart(work, runs)
    check_worst_merged(work, runs)
    check_worst_merges(tool, work, runs)
    check_worst_bytes(tool, work, runs)


# ---- trust.md: the setup verdict and the worst-case estimate ----

# evt.json: small.json with a 900 s timeline whose per-second maxima are the
# Gumbel law of 1000 samples of 40 us + Exp(3 us) (seeded), and the setup
# block of the 6.1 VM's run. The true levels, by hand from that law,
# G(x) = exp(-1000 exp(-(x - 40) / 3)): some sample of a window of W s
# above x with probability 1e-3 at x = 40 + 3 ln(1000 W / 1.0005e-3): a
# minute 93.73 us, an hour 106.0 us, a day 115.55 us.
EVT_TRUE = {("minute", "1e-03"): 93.73, ("hour", "1e-03"): 106.0, ("day", "1e-03"): 115.55}
EVT_COSTS = ["preemption", "isolation", "nohz_full", "rcu_nocbs", "timer_migration", "thp",
             "watchdog", "clock"]


def check_trust(tool, work, runs):
    """trust.md per file: the setup verdict's costing factors, the bounds
    holding the true levels of evt.json's law, a run too short said so."""
    evt = [p for p in runs if os.path.basename(p) == "evt.json"]
    short = [p for p in runs if os.path.basename(p) == "small.json"]
    if not evt or not short:
        return
    out = os.path.join(work, "trust")
    run = report(tool, out, ["--no-merge", "--json-out", os.path.join(out, "r.json")] + evt + short)
    check(run.returncode == 0, "trust: runs", run.stderr.strip())
    if run.returncode:
        return
    sections = read_sections(os.path.join(out, "trust.md"))
    title = next((t for t in sections if t.endswith("setup (" + evt[0] + ")")), None)
    check(title is not None, "trust.md: a setup section for evt.json", list(sections))
    if title:
        rows, notes = sections[title]
        check([r["verdict"] for r in rows] == ["costs latency"] * 8,
              "trust.md: evt.json's 8 costing factors, one row each", rows)
        check(notes[:1] == ["8 of 18 factors cost latency: " + ", ".join(EVT_COSTS)
                            + " (applied for the run: RT throttling off (was 950000 us))"],
              "trust.md: the setup line names them and what was applied", notes[:1])
    title = next((t for t in sections if t.endswith("estimate (" + evt[0] + ")")), None)
    check(title is not None, "trust.md: an estimate section for evt.json", list(sections))
    if title:
        rows, notes = sections[title]
        got = {(r["exceedance of"].split()[-1], r["probability"]): r for r in rows}
        check(sorted(got) == sorted(EVT_TRUE), "trust.md: the three bounds", list(got))
        for key, true in EVT_TRUE.items():
            if key in got:
                upper, est = float(got[key]["upper bound µs"]), float(got[key]["estimate µs"])
                check(upper >= true, f"trust.md: the {key} upper bound holds the true {true} us",
                      upper)
                check(abs(est - true) < 0.1 * true, f"trust.md: the {key} estimate near {true} us",
                      est)
        check(any(n.startswith("with 95 % confidence, under this load some sample") for n in notes),
              "trust.md: the answer in words", notes)
    title = next((t for t in sections if t.endswith("estimate (" + short[0] + ")")), None)
    check(title is not None and any("too short" in n and "10 min" in n for n in sections[title][1]),
          "trust.md: small.json's 2 s too short for an estimate, the minimum named",
          title and sections[title][1])
    rows, _ = read_table(out)
    check(rows and rows[0]["setup"].startswith("8 cost: preemption, isolation"),
          "table.md: the setup column", rows and rows[0].get("setup"))
    with open(os.path.join(out, "r.json"), encoding="utf-8") as f:
        doc = json.load(f)
    check([e["status"] for r in doc["runs"] for e in r["evt"]] == ["ok", "too short"],
          "--json-out: each file's estimate", [r["evt"] for r in doc["runs"]])
    # evt.json's maxima made to drift: refused by a test, the reason said once
    with open(evt[0], encoding="utf-8") as f:
        drift = json.load(f)
    cols = drift["timeline"]["columns"]
    for i, point in enumerate(drift["timeline"]["points"]):
        point[cols.index("max")] = 50.0 + 0.1 * i
    path = os.path.join(work, "drift.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(drift, f)
    out = os.path.join(work, "trust-drift")
    run = report(tool, out, ["--label", "drift", path])
    text = ""
    if run.returncode == 0:
        with open(os.path.join(out, "trust.txt"), encoding="utf-8") as f:
            text = f.read()
    check("no bound (" in text and "): no bound:" not in text,
          "trust.txt: a drifting run's refusal says 'no bound' once",
          [line for line in text.splitlines() if "no bound" in line] or run.stderr)


# ---- the cost suite's files (latscope --cost --json) ----

WORKLOADS = ("queens-1", "queens-all", "hackbench", "switch", "fork", "fsync", "iperf3")
VARIANTS = ("plain", "measured")
COST_TABLES = {"plain": "Running time, plain (s)", "measured": "Running time while measured (s)",
               "cost": "Cost of being measured (%)",
               # Only when a file has runs under load (latscope --cost --stress).
               "loaded": "Running time under load (s)", "load cost": "Cost of the load (%)"}
LOAD_TABLES = ("loaded", "load cost")
# The reports of the hand-made fixtures without a load, as written before
# the runs under load: byte for byte (tests/report/expected/).
EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected")
UNCHANGED = {"cost-mainline-rt": ("cost-mainline.json", "cost-rt.json"),
             "cost-mainline-rt-merged": ("cost-mainline.json", "cost-rt.json", "cost-rt-2.json")}
COST_TITLE = "Running time relative to the first kernel's plain run (= 1.0)"
COST_OUTPUTS = ("cost.txt", "cost.md", "cost.png", "cost.svg")
LATENCY_OUTPUTS = ("table.txt", "table.md", "worst.txt", "worst.md", "tail.png", "tail.svg",
                   "cdf.png", "cdf.svg", "timeline.png", "timeline.svg", "histogram.png",
                   "histogram.svg", "heat.png", "heat.svg", "worst.png", "worst.svg")
# The hand-made cost fixtures, every cell worked out by hand. A cell is the
# mean in s ± the sample stddev (n - 1) (% against the first row's mean);
# the cost table (measured mean - plain mean) / plain mean in %, with its
# 95 % interval: R = mM / mP, a = sP^2 / (nP mP^2), b = sM^2 / (nM mM^2),
# se = R sqrt(a + b), df = (a + b)^2 / (a^2 / (nP - 1) + b^2 / (nM - 1))
# rounded down to a row of T975, 100 (R - 1 +- t se); "no difference at
# this precision (±half its width)" when it holds 0. The intervals of the
# cells below worked out with SciPy's stats.t.ppf (rounded up at the fourth
# decimal, as latscope's table), e.g. cost-rt.json's hackbench: R = 1.1111,
# a = 0, b = .0004 / (3 .25) = 5.33e-4, se = .02566, df = 2, t = 4.3027:
# [+0.1, +22.2]; switch, no spread either way: [+10.0, +10.0].
#
# cost-mainline.json (6.12.0-cost-fixture, the first row):
#   queens-1  plain 1.0 1.2 1.4: mean 1.2, sd sqrt((.04 + 0 + .04) / 2) = 0.2
#             measured 1.3 1.3 1.6: 1.4, sd sqrt((.01 + .01 + .04) / 2) = 0.173
#             cost (1.4 - 1.2) / 1.2 = +16.7 %
#   hackbench plain 0.5 0.7 0.6: 0.6, sd sqrt(.02 / 2) = 0.1; measured 0.6 x 3:
#             0.6, sd 0; cost +0.0 %
#   switch    not in the file: -
#   fsync     plain 0.100 0.104 0.102: 0.102, sd 0.002; measured failed at
#             run 2 ("disk full", one run kept): failed
#   iperf3    skipped ("iperf3 not found")
# cost-rt.json (6.12.0-cost-fixture-rt), against the first row:
#   queens-1  plain 1.5 1.5 1.8: 1.6, sd sqrt((.01 + .01 + .04) / 2) = 0.173,
#             (1.6 - 1.2) / 1.2 = +33.3 %; measured 1.6 1.8 2.0: 1.8, sd 0.2,
#             (1.8 - 1.4) / 1.4 = +28.6 %; cost (1.8 - 1.6) / 1.6 = +12.5 %
#   hackbench plain 0.45 x 3: 0.45, sd 0, -25.0 %; measured 0.48 0.52 0.50:
#             0.5, sd 0.02, (0.5 - 0.6) / 0.6 = -16.7 %; cost 0.05 / 0.45 = +11.1 %
#             (throttled in its plain runs: a note says so)
#   switch    plain 0.3 x 3, measured 0.33 x 3: no base (the first row has
#             none); cost +10.0 %
#   fsync     plain 0.2 0.3 0.25: 0.25, sd sqrt(.005 / 2) = 0.05,
#             (0.25 - 0.102) / 0.102 = +145.1 %; measured 0.25 0.35 0.30: 0.3,
#             sd 0.05, no base (the first failed); cost +20.0 %
#   iperf3    plain 0.9 1.1 1.0: 1.0, sd 0.1, measured 1.0 1.2 1.1: 1.1, sd
#             0.1, no base (the first skipped); cost +10.0 %
# cost-rt-2.json, one run each: queens-1 2.2 / 2.4, hackbench 0.45 / 0.58,
#   switch 0.3 / 0.33, fsync 0.25 / 0.30, iperf3 skipped. Alone (--no-merge):
#   queens-1 2.200 ±- ((2.2 - 1.2) / 1.2 = +83.3 %), 2.400 ±- (+71.4 %).
# cost-rt.json + cost-rt-2.json (one label), the runs together:
#   queens-1  plain 1.5 1.5 1.8 2.2: 7.0 / 4 = 1.75 (the files' means average
#             to 1.9), sd sqrt((.0625 + .0625 + .0025 + .2025) / 3) = 0.332,
#             (1.75 - 1.2) / 1.2 = +45.8 %; measured 1.6 1.8 2.0 2.4: 1.95
#             (means: 2.1), sd sqrt((.1225 + .0225 + .0025 + .2025) / 3) =
#             0.342, (1.95 - 1.4) / 1.4 = +39.3 %; cost 0.2 / 1.75 = +11.4 %
#   hackbench plain 0.45 x 4: -25.0 %; measured 0.48 0.52 0.50 0.58: 0.52
#             (means: 0.54), sd sqrt((.0016 + 0 + .0004 + .0036) / 3) = 0.043,
#             (0.52 - 0.6) / 0.6 = -13.3 %; cost 0.07 / 0.45 = +15.6 %
#   switch    0.3 x 4, 0.33 x 4: +10.0 %
#   fsync     plain 0.2 0.3 0.25 0.25: 0.25, sd sqrt(.005 / 3) = 0.041;
#             measured 0.25 0.35 0.30 0.30: 0.3, sd 0.041; +20.0 %
#   iperf3    cost-rt.json's runs only (skipped in cost-rt-2.json: a note)
#   runs      3 (iperf3) to 4: "3..4"
# cost-scale.json: cost-mainline.json's label at 50 % of the work: refused.
#
# cost-rt-load.json (6.13.0-cost-fixture-rt; latscope --cost --stress
# grinder: the load on CPU0,2-3): cost-rt.json's plain and measured runs,
# iperf3 skipped, and runs under load:
#   queens-1  2.0 2.4 2.2: 2.2, sd sqrt((.04 + .04 + 0) / 2) = 0.2;
#             load (2.2 - 1.6) / 1.6 = +37.5 %
#   hackbench 0.9 x 3: 0.9, sd 0; load (0.9 - 0.45) / 0.45 = +100.0 %
#   switch    failed under load ("run 1: stress-ng exited with status 2")
#   fsync     0.5 0.6 0.4: 0.5, sd sqrt((0 + .01 + .01) / 2) = 0.1;
#             load (0.5 - 0.25) / 0.25 = +100.0 %; throttled under load
#   iperf3    skipped
# cost-rt-load-b.json, made here: cost-rt-load.json as 6.13.0-cost-fixture-rt-b,
#   queens-1 under load 2.64 x 3: 2.64, sd 0, against the first row's 2.2
#   (2.64 - 2.2) / 2.2 = +20.0 %; load (2.64 - 1.6) / 1.6 = +65.0 %
# Report cost-rt-load, cost-rt-load-b, cost-mainline: under load the first
#   row (base), the second against it, cost-mainline without runs under load:
#   runs "-", every cell "not run", in Cost of the load too; load column
#   "grinder on CPU0,2-3", the same, "-".
# cost-mainline first, then cost-rt-load: its cells under load "(no base)".
# cost-rt-load and a copy of it (one label, merged): each run twice, queens-1
#   2.0 2.4 2.2 2.0 2.4 2.2: 2.2, sd sqrt(2 * .08 / 5) = 0.179 (base: one
#   row); load recomputed from the means, (2.2 - 1.6) / 1.6 = +37.5 %.
# Refused: cost-rt.json beside cost-rt-load.json as 6.12.0-cost-fixture-rt
# (one label, one without a load), and cost-rt-load.json beside a copy whose
# preset is classic (one label, two loads).
COST_LOAD_HAND = {
    "files": ("cost-rt-load.json", "cost-mainline.json"),
    "load": ["grinder on CPU0,2-3", "grinder on CPU0,2-3", "-"],
    "loaded": [
        {"runs": "3", "queens-1": "2.200 ±0.200 (base)", "hackbench": "0.900 ±0.000 (base)",
         "switch": "failed", "fsync": "0.500 ±0.100 (base)", "iperf3": "skipped"},
        {"runs": "3", "queens-1": "2.640 ±0.000 (+20.0 %)",
         "hackbench": "0.900 ±0.000 (+0.0 %)", "switch": "failed",
         "fsync": "0.500 ±0.100 (+0.0 %)", "iperf3": "skipped"},
        {"runs": "-", **{n: "not run" for n in ("queens-1", "hackbench", "switch", "fsync",
                                                 "iperf3")}}],
    "load cost": [
        {"queens-1": "+37.5 % [+1.8, +73.2]", "hackbench": "+100.0 % [+100.0, +100.0]",
         "switch": "failed", "fsync": "+100.0 % [+9.3, +190.7]", "iperf3": "skipped"},
        {"queens-1": "+65.0 % [+20.6, +109.4]", "hackbench": "+100.0 % [+100.0, +100.0]",
         "switch": "failed", "fsync": "+100.0 % [+9.3, +190.7]", "iperf3": "skipped"},
        {n: "not run" for n in ("queens-1", "hackbench", "switch", "fsync", "iperf3")}],
    "notes": ['its runs under load ran under the load grinder on CPU0,2-3, its commands: '
              '"while :; do hackbench -l 10000 -g 4; done", "dd if=/dev/zero of=/dev/null '
              'bs=128M".',
              "switch failed in its runs under load: run 1: stress-ng exited with status 2",
              "fsync throttled in its runs under load (soft temperature limit): its figures "
              "are of a slowed board."],
    "no base": {"queens-1": "2.200 ±0.200 (no base)"},
    "merged": {"runs": "6", "queens-1": "2.200 ±0.179 (base)"},
    "merged cost": {"queens-1": "+37.5 % [+21.4, +53.6]"},
}
COST_HAND = {
    "files": ("cost-mainline.json", "cost-rt.json"),
    "plain": [
        {"runs": "3", "queens-1": "1.200 ±0.200 (base)", "hackbench": "0.600 ±0.100 (base)",
         "switch": "-", "fsync": "0.102 ±0.002 (base)", "iperf3": "skipped"},
        {"runs": "3", "queens-1": "1.600 ±0.173 (+33.3 %)",
         "hackbench": "0.450 ±0.000 (-25.0 %)", "switch": "0.300 ±0.000 (no base)",
         "fsync": "0.250 ±0.050 (+145.1 %)", "iperf3": "1.000 ±0.100 (no base)"}],
    "measured": [
        {"runs": "3", "queens-1": "1.400 ±0.173 (base)", "hackbench": "0.600 ±0.000 (base)",
         "switch": "-", "fsync": "failed", "iperf3": "skipped"},
        {"runs": "3", "queens-1": "1.800 ±0.200 (+28.6 %)",
         "hackbench": "0.500 ±0.020 (-16.7 %)", "switch": "0.330 ±0.000 (no base)",
         "fsync": "0.300 ±0.050 (no base)", "iperf3": "1.100 ±0.100 (no base)"}],
    "cost": [
        {"queens-1": "no difference at this precision (±44.5 %)",
         "hackbench": "no difference at this precision (±41.4 %)", "switch": "-",
         "fsync": "failed", "iperf3": "skipped"},
        {"queens-1": "no difference at this precision (±32.1 %)",
         "hackbench": "+11.1 % [+0.1, +22.2]", "switch": "+10.0 % [+10.0, +10.0]",
         "fsync": "no difference at this precision (±57.4 %)",
         "iperf3": "no difference at this precision (±27.3 %)"}],
}
COST_ALONE_HAND = {"file": "cost-rt-2.json",
                   "plain": {"runs": "1", "queens-1": "2.200 ±- (+83.3 %)"},
                   "measured": {"runs": "1", "queens-1": "2.400 ±- (+71.4 %)"}}
COST_MERGED_HAND = {
    "files": ("cost-mainline.json", "cost-rt.json", "cost-rt-2.json"),
    "plain": {"runs": "3..4", "queens-1": "1.750 ±0.332 (+45.8 %)",
              "hackbench": "0.450 ±0.000 (-25.0 %)", "switch": "0.300 ±0.000 (no base)",
              "fsync": "0.250 ±0.041 (+145.1 %)", "iperf3": "1.000 ±0.100 (no base)"},
    "measured": {"runs": "3..4", "queens-1": "1.950 ±0.342 (+39.3 %)",
                 "hackbench": "0.520 ±0.043 (-13.3 %)", "switch": "0.330 ±0.000 (no base)",
                 "fsync": "0.300 ±0.041 (no base)", "iperf3": "1.100 ±0.100 (no base)"},
    "cost": {"queens-1": "no difference at this precision (±37.0 %)",
             "hackbench": "+15.6 % [+0.3, +30.8]", "switch": "+10.0 % [+10.0, +10.0]",
             "fsync": "no difference at this precision (±32.8 %)",
             "iperf3": "no difference at this precision (±27.3 %)"},
    # The files' own means, averaged: what a mean of means would show.
    "mean of means": {("queens-1", "plain"): "1.900", ("queens-1", "measured"): "2.100",
                      ("hackbench", "measured"): "0.540"},
}


def is_cost(doc):
    return doc.get("kind") == "cost"


def cost_label(doc):
    """A cost file's default label: kernel, preemption, how it was measured."""
    si, m = doc["sysinfo"], doc["settings"]["measured"]
    return f'{si["release"]} ({si["preemption"] or "?"}, {m["context"]} every {m["period_us"]} µs)'


def cost_names(groups):
    seen = []
    for docs in groups:
        for d in docs:
            seen += [w["name"] for w in d["workloads"] if w["name"] not in seen]
    return [n for n in WORKLOADS if n in seen] + [n for n in seen if n not in WORKLOADS]


def has_load(docs):
    """Whether the files @docs ran the runs under load (settings.load)."""
    return any(d["settings"].get("load") for d in docs)


def variant_of(w, variant):
    """A workload's variant; the runs under load of a file without them: none."""
    return w.get(variant) or {"runs": [], "failed": None, "mean": None, "stddev": None}


def cost_cell(docs, name, variant):
    """(state, runs, what) of workload @name's variant in the files @docs
    together: the runs of every file that ran it. Under load, a row
    without runs under load is "not run" throughout."""
    if variant == "loaded" and not has_load(docs):
        return "not run", [], None
    have = [w for d in docs for w in d["workloads"] if w["name"] == name]
    if not have:
        return "-", [], None
    ran = [w for w in have if w["skipped"] is None]
    if not ran:
        return "skipped", [], None
    if any(variant_of(w, variant)["failed"] is not None for w in ran):
        return "failed", [], ran[0]["what"]
    runs = [t for w in ran for t in variant_of(w, variant)["runs"]]
    return ("ok" if runs else "not run"), runs, ran[0]["what"]


def cost_mean(docs, name, variant):
    """(mean, stddev or None) of an "ok" cell: the file's own if one file
    ran the workload, else of all the runs together (statistics')."""
    ran = [w for d in docs for w in d["workloads"] if w["name"] == name and w["skipped"] is None]
    if len(ran) == 1:
        s = ran[0][variant]
        return s["mean"], s["stddev"] if len(s["runs"]) > 1 else None
    runs = cost_cell(docs, name, variant)[1]
    return statistics.fmean(runs), statistics.stdev(runs) if len(runs) > 1 else None


def signed(x):
    return f"{round(x, 1) + 0.0:+.1f} %"


# Student's t at 0.975 for the rows of degrees of freedom latscope's table
# has (1 to 30, 40, 60, 120, more): SciPy's stats.t.ppf(0.975, df) rounded
# up at the fourth decimal; 1.96 past 120 only for no spread at all.
T975 = dict(zip(list(range(1, 31)) + [40, 60, 120],
                (12.7063, 4.3027, 3.1825, 2.7765, 2.5706, 2.4470, 2.3647, 2.3061, 2.2622,
                 2.2282, 2.2010, 2.1789, 2.1604, 2.1448, 2.1315, 2.1200, 2.1099, 2.1010,
                 2.0931, 2.0860, 2.0797, 2.0739, 2.0687, 2.0639, 2.0596, 2.0556, 2.0519,
                 2.0485, 2.0453, 2.0423, 2.0211, 2.0003, 1.9800)))


def change_cell(x, plain, other, ci=None):
    """A cost table's change cell: @x in % with the 95 % interval of
    @other (mean, stddev, n) against @plain, as the comment above
    COST_LOAD_HAND says; or with @ci, the interval a file holds, as
    latscope wrote it (the report prints that one: worked out again here
    from the runs, its half width can round the other way at .x5)."""
    (mp, sp, np_), (mo, so, no) = plain, other
    if np_ < 2 or no < 2:
        return f"{signed(x)} (no interval: 1 run)"
    if ci is not None:
        lo, hi = ci
        if lo > 0 or hi < 0:
            return f"{signed(x)} [{round(lo, 1) + 0.0:+.1f}, {round(hi, 1) + 0.0:+.1f}]"
        return f"no difference at this precision (±{(hi - lo) / 2:.1f} %)"
    r = mo / mp
    a, b = sp ** 2 / (np_ * mp ** 2), so ** 2 / (no * mo ** 2)
    if a + b == 0:
        t = 1.96
    else:
        df = (a + b) ** 2 / (a ** 2 / (np_ - 1) + b ** 2 / (no - 1))
        t = T975[max(d for d in T975 if d <= df)]
    lo, hi = (r - t * r * math.sqrt(a + b) - 1) * 100, (r + t * r * math.sqrt(a + b) - 1) * 100
    if lo > 0 or hi < 0:
        return f"{signed(x)} [{round(lo, 1) + 0.0:+.1f}, {round(hi, 1) + 0.0:+.1f}]"
    return f"no difference at this precision (±{(hi - lo) / 2:.1f} %)"


def expected_cost(groups):
    """{table: [{column: cell}]} of cost.md for the rows @groups (each a
    list of docs), computed from the files' runs with statistics; the
    tables under load when a file has runs under load."""
    names = cost_names(groups)
    loaded = any(has_load(docs) for docs in groups)
    want = {"plain": [], "measured": [], "cost": []}
    if loaded:
        want.update({"loaded": [], "load cost": []})
    for i, docs in enumerate(groups):
        for v in VARIANTS + (("loaded",) if loaded else ()):
            row, counts = {}, set()
            for n in names:
                state, runs, what = cost_cell(docs, n, v)
                if state != "ok":
                    row[n] = state
                    continue
                counts.add(len(runs))
                mean, sd = cost_mean(docs, n, v)
                sd = "-" if sd is None else f"{sd:.3f}"
                b_state, _, b_what = cost_cell(groups[0], n, v)
                base = cost_mean(groups[0], n, v)[0] if b_state == "ok" else None
                if i == 0:
                    vs = "base"
                elif not base:
                    vs = "no base"
                elif b_what != what:
                    vs = "other work"
                else:
                    vs = signed((mean - base) / base * 100)
                row[n] = f"{mean:.3f} ±{sd} ({vs})"
            counts = sorted(counts)
            row["runs"] = ("-" if not counts else str(counts[0]) if len(counts) == 1
                           else f"{counts[0]}..{counts[-1]}")
            want[v].append(row)
        for kind, v, own, own_ci in (("cost", "measured", "change_percent", "change_ci95"),
                                     ("load cost", "loaded", "loaded_change_percent",
                                      "loaded_change_ci95")):
            if kind not in want:
                continue
            if v == "loaded" and not has_load(docs):
                want[kind].append({n: "not run" for n in names})
                continue
            row = {}
            for n in names:
                ps, ms = cost_cell(docs, n, "plain")[0], cost_cell(docs, n, v)[0]
                ran = [w for d in docs for w in d["workloads"]
                       if w["name"] == n and w["skipped"] is None]
                stats = [cost_mean(docs, n, x) + (len(cost_cell(docs, n, x)[1]),)
                         for x in ("plain", v)] if ps == ms == "ok" else None
                if ps == ms == "ok" and len(ran) == 1:
                    # The file's own change and interval.
                    row[n] = change_cell(ran[0][own], *stats, ci=ran[0].get(own_ci))
                elif ps == ms == "ok" and cost_mean(docs, n, "plain")[0]:
                    p, m = cost_mean(docs, n, "plain")[0], cost_mean(docs, n, v)[0]
                    row[n] = change_cell((m - p) / p * 100, *stats)
                else:
                    row[n] = next(s for s in ("-", "skipped", "failed", "not run", "ok")
                                  if s in (ps, ms))
            want[kind].append(row)
    return want


def read_cost(out):
    """cost.md's tables as {title: ([{heading: cell}], notes)}."""
    return read_sections(os.path.join(out, "cost.md"))


def cost_rows(tables, kind):
    return tables.get(COST_TABLES[kind], ([], []))[0]


def cost_notes(tables):
    return [n for _, notes in tables.values() for n in notes]


def check_cost_table(out, groups, what):
    """Every cell of cost.md's three tables against expected_cost(@groups);
    returns the tables read."""
    tables = read_cost(out)
    want = expected_cost(groups)
    loaded = "loaded" in want
    kernels = tables.get("Kernels", ([], []))[0]
    check(all(COST_TABLES[k] in tables for k in LOAD_TABLES) == loaded and
          not any(COST_TABLES[k] in tables for k in LOAD_TABLES if not loaded) and
          all(("load" in r) == loaded for r in kernels),
          f"{what}: the tables and the load column under load {'' if loaded else 'not '}"
          "written, as a file has runs under load or not", list(tables))
    if loaded:
        want_load = []
        for docs in groups:
            ld = docs[0]["settings"].get("load")
            want_load.append(f'{ld["name"]} on CPU{ld["cpus"]}' if ld else "-")
        check([r.get("load") for r in kernels] == want_load,
              f"{what}: Kernels names each row's load", ([r.get("load") for r in kernels],
                                                          want_load))
    for kind in want:
        rows = cost_rows(tables, kind)
        check(len(rows) == len(groups), f"{what}: {COST_TABLES[kind]}: a row per kernel",
              (len(rows), len(groups)))
        for docs, row, w in zip(groups, rows, want[kind]):
            names = [os.path.basename(d["_path"]) for d in docs]
            check(not differences(row, w), f"{what}: {names}: every cell of {COST_TABLES[kind]}",
                  differences(row, w))
    with open(os.path.join(out, "cost.txt"), encoding="utf-8") as f:
        txt = f.read()
    check(all(c in txt for kind in want for row in cost_rows(tables, kind) for c in row.values()),
          f"{what}: cost.txt has the same figures")
    return tables


def load_cost_docs(paths):
    docs = []
    for p in paths:
        d = load(p)
        d["_path"] = p
        docs.append(d)
    return docs


def cost_key(doc):
    """What the default label is made of."""
    m = doc["settings"]["measured"]
    return (doc["sysinfo"]["release"], doc["sysinfo"]["preemption"] or "?", m["context"],
            m["period_us"])


def cost_mergeable(docs):
    """Whether cost files of one label can be one row: one scale and CPU
    and priority, each workload that both ran of one work, no suite twice."""
    first = docs[0]
    for d in docs[1:]:
        if (d["settings"]["scale_percent"] != first["settings"]["scale_percent"] or
                d["settings"]["measured"] != first["settings"]["measured"] or
                d["settings"].get("load") != first["settings"].get("load")):
            return False
        for w in d["workloads"]:
            for o in first["workloads"]:
                if (o["name"] == w["name"] and o["skipped"] is None and w["skipped"] is None
                        and o["what"] != w["what"]):
                    return False
    ids = [os.path.realpath(d["_path"]) for d in docs]
    ids += [(d["sysinfo"]["nodename"], d["start_time"], d.get("cmdline"))
            for d in docs if "start_time" in d]
    return len(set(ids)) == len(ids)


def check_cost_apart(tool, work, costs):
    """--no-merge: a row per cost file, each cell computed from its runs and
    equal to the file's own mean, stddev and change where it has them."""
    out = os.path.join(work, "cost-apart")
    run = report(tool, out, ["--no-merge"] + costs)
    check(run.returncode == 0, "cost --no-merge: runs", run.stderr.strip())
    if run.returncode:
        return
    check_images(out, {"cost": COST_TITLE})
    docs = load_cost_docs(costs)
    tables = check_cost_table(out, [[d] for d in docs], "cost --no-merge")
    for d, plain, measured, cost in zip(docs, *(cost_rows(tables, k)
                                               for k in ("plain", "measured", "cost"))):
        name = os.path.basename(d["_path"])
        for w in d["workloads"]:
            for v, row in zip(VARIANTS, (plain, measured)):
                s = w[v]
                if row[w["name"]][0].isdigit():
                    # The CLI's own figures, as the file has them.
                    want = f'{s["mean"]:.3f} ±' + (f'{s["stddev"]:.3f}' if len(s["runs"]) > 1
                                                   else "-")
                    check(row[w["name"]].startswith(want + " "),
                          f"{name}: {w['name']} {v}: the file's own mean and stddev",
                          (row[w["name"]], want))
            if w["change_percent"] is not None and cost[w["name"]][0] in "+-":
                check(abs(float(cost[w["name"]].split()[0]) - w["change_percent"]) <= 0.051,
                      f"{name}: {w['name']}: the file's own change_percent",
                      (cost[w["name"]], w["change_percent"]))
    if any(has_load([d]) for d in docs):
        for d, loaded, cost in zip(docs, *(cost_rows(tables, k) for k in LOAD_TABLES)):
            name = os.path.basename(d["_path"])
            for w in d["workloads"] if has_load([d]) else ():
                s = w["loaded"]
                if loaded[w["name"]][0].isdigit():
                    want = f'{s["mean"]:.3f} ±' + (f'{s["stddev"]:.3f}' if len(s["runs"]) > 1
                                                   else "-")
                    check(loaded[w["name"]].startswith(want + " "),
                          f"{name}: {w['name']} under load: the file's own mean and stddev",
                          (loaded[w["name"]], want))
                if w["loaded_change_percent"] is not None and cost[w["name"]][0] in "+-":
                    check(cost[w["name"]].startswith(signed(w["loaded_change_percent"])),
                          f"{name}: {w['name']}: the file's own loaded_change_percent",
                          (cost[w["name"]], w["loaded_change_percent"]))
    names = {os.path.basename(p): p for p in costs}
    if all(n in names for n in COST_HAND["files"]):
        out = os.path.join(work, "cost-hand")
        run = report(tool, out, [names[n] for n in COST_HAND["files"]])
        check(run.returncode == 0, "cost hand: runs", run.stderr.strip())
        if run.returncode:
            return
        tables = read_cost(out)
        for kind in ("plain", "measured", "cost"):
            got = cost_rows(tables, kind)
            want = COST_HAND[kind]
            check(len(got) == 2 and all(not differences(g, w) for g, w in zip(got, want)),
                  f"cost-mainline + cost-rt: {COST_TABLES[kind]} worked out by hand",
                  [differences(g, w) for g, w in zip(got, want)])
        check(svg_says(out, "+11.1 % [+0.1, +22.2]") and svg_says(out, "n.d. ±32.1 %"),
              "cost hand: cost.svg labels the measured bars with their change and interval")
        notes = cost_notes(tables)
        for said in ("fsync failed in its runs while measured: run 2: disk full",
                     "iperf3 skipped: iperf3 not found",
                     "hackbench throttled in its plain runs (ARM frequency capped): its "
                     "figures are of a slowed board"):
            check(any(said in n for n in notes), f"cost hand: a note says {said!r}", notes)
    if COST_ALONE_HAND["file"] in names:
        got = {k: next((r for r in cost_rows(read_cost(os.path.join(work, "cost-apart")), k)
                        if r["kernel"].endswith(f"[{COST_ALONE_HAND['file']}]")), {})
               for k in VARIANTS}
        for v in VARIANTS:
            check(not differences(got[v], COST_ALONE_HAND[v]),
                  f"{COST_ALONE_HAND['file']}: a single run's cell ({v}) by hand",
                  differences(got[v], COST_ALONE_HAND[v]))


def check_cost_merged(tool, work, costs):
    """The default: cost files of one label are one row, their runs together
    (or refused, each such group on its own)."""
    docs = load_cost_docs(costs)
    groups = {}
    for d in docs:
        groups.setdefault(cost_key(d), []).append(d)
    groups = list(groups.values())
    good = [g for g in groups if cost_mergeable(g)]
    for i, g in enumerate(g for g in groups if g not in good):
        none = os.path.join(work, f"not-made-cost-{i}")
        run = report(tool, none, [d["_path"] for d in g])
        check(run.returncode == 2 and all(os.path.basename(d["_path"]) in run.stderr for d in g)
              and not os.path.exists(none),
              f"cost merged: refuses {[os.path.basename(d['_path']) for d in g]}, one label "
              "but not one setup", (run.returncode, run.stderr.strip()))
    if not good:
        return
    out, jout = os.path.join(work, "cost-merged"), os.path.join(work, "cost-merged.json")
    paths = [d["_path"] for d in docs if any(d in g for g in good)]
    run = report(tool, out, ["--json-out", jout] + paths)
    check(run.returncode == 0, "cost merged: runs", run.stderr.strip())
    if run.returncode:
        return
    check_images(out, {"cost": COST_TITLE})
    check(not any(os.path.exists(os.path.join(out, n)) for n in LATENCY_OUTPUTS) and
          "no latency run given" in run.stdout,
          "cost files only: no latency output, and a line says so", (run.stdout, os.listdir(out)))
    tables = check_cost_table(out, good, "cost merged")
    with open(jout) as f:
        merged = json.load(f)
    check(merged["runs"] == [] and len(merged["cost"]) == len(good),
          "cost merged: --json-out has a cost row per label and no run",
          (len(merged["runs"]), len(merged.get("cost", []))))
    for g, js in zip(good, merged.get("cost", [])):
        names = [os.path.basename(d["_path"]) for d in g]
        for n in cost_names([g]):
            for v in VARIANTS:
                state, runs, _ = cost_cell(g, n, v)
                got = js["workloads"][n][v]
                check(got["state"] == state and (state != "ok" or got["runs"] == runs),
                      f"cost merged {names}: {n} {v}: the runs of its files, together, in order",
                      (got["state"], got["runs"], state, runs))
    if any(len(g) > 1 for g in good):
        check(any("files merged" in n for n in cost_notes(tables)),
              "cost merged: the tables say which files a row merges", cost_notes(tables))


def check_cost_hand_merged(tool, work, costs):
    """cost-rt.json and cost-rt-2.json, one label, after cost-mainline.json:
    the merged row worked out by hand, in either order, not a mean of means."""
    hand, names = COST_MERGED_HAND, {os.path.basename(p): p for p in costs}
    if not all(n in names for n in hand["files"]):
        return
    mainline, rt, rt2 = (names[n] for n in hand["files"])
    rows = {}
    for order, files in (("", [mainline, rt, rt2]), ("-backwards", [mainline, rt2, rt])):
        out = os.path.join(work, "cost-hand-merged" + order)
        run = report(tool, out, files)
        check(run.returncode == 0, f"cost hand merged{order}: runs", run.stderr.strip())
        if run.returncode:
            return
        rows[order] = read_cost(out)
    tables = rows[""]
    for kind in ("plain", "measured", "cost"):
        got = cost_rows(tables, kind)
        check(len(got) == 2 and not differences(got[1], hand[kind]),
              f"merged cost-rt + cost-rt-2: {COST_TABLES[kind]} worked out by hand",
              differences(got[1] if len(got) == 2 else {}, hand[kind]))
        check(got == cost_rows(rows["-backwards"], kind),
              f"merged cost-rt + cost-rt-2: {COST_TABLES[kind]} the same in reverse order")
    docs = load_cost_docs([rt, rt2])
    for (n, v), mom in hand["mean of means"].items():
        per_file = [statistics.fmean(cost_cell([d], n, v)[1]) for d in docs]
        got = cost_rows(tables, v)[1][n]
        check(f"{statistics.fmean(per_file):.3f}" == mom and not got.startswith(mom),
              f"merged cost-rt + cost-rt-2: {n} {v} is not the mean of the means ({mom})", got)
    notes = cost_notes(tables)
    check(any("2 files merged (cost-rt.json, cost-rt-2.json)" in n for n in notes),
          "merged cost-rt + cost-rt-2: a note names the files merged", notes)
    check(any("iperf3 skipped in cost-rt-2.json: iperf3 not found; its figures are of "
              "the file that ran it" in n for n in notes),
          "merged cost-rt + cost-rt-2: a note says iperf3 is cost-rt.json's alone", notes)


def check_cost_kinds(tool, work, runs, costs):
    """A latency-only report makes no cost output; a mixed one makes both,
    --label given once per file of either kind, in order."""
    for name in ("apart", "merged"):
        out = os.path.join(work, name)
        if os.path.isdir(out):
            made = [n for n in COST_OUTPUTS if os.path.exists(os.path.join(out, n))]
            check(not made, f"latency files only ({name}): no cost output", made)
    out = os.path.join(work, "mixed")
    files = [costs[0], runs[0]] + costs[1:] + runs[1:]
    labels = [f"file {i}" for i in range(len(files))]
    args = [a for lab in labels for a in ("--label", lab)]
    run = report(tool, out, ["--no-merge"] + args + files)
    check(run.returncode == 0, "mixed: runs", run.stderr.strip())
    if run.returncode:
        return
    check_images(out, dict(TITLES, cost=COST_TITLE))
    rows = read_table(out)[0]
    kernels = cost_rows(read_cost(out), "plain")
    want_runs = [lab for lab, f in zip(labels, files) if f in runs]
    want_costs = [lab for lab, f in zip(labels, files) if f in costs]
    check([r["run"] for r in rows] == want_runs and
          [r["kernel"] for r in kernels] == want_costs,
          "mixed: table.md a row per run, cost.md a row per cost file, --label in order",
          ([r["run"] for r in rows], [r["kernel"] for r in kernels]))


def first_ran(doc):
    return next(w for w in doc["workloads"] if w["skipped"] is None and
                w["plain"]["runs"] and w["measured"]["runs"])


def check_cost_refusals(tool, work, costs):
    """Cost files of one label but not one setup, one suite twice, a file
    whose mean is not its runs', a document of another kind: exit 2, the
    message naming the files, nothing written."""
    names = {os.path.basename(p): p for p in costs}
    first = costs[0]
    if "cost-mainline.json" in names and "cost-scale.json" in names:
        scale = [names["cost-mainline.json"], names["cost-scale.json"]]
    else:
        scale = [first, copy_of(first, work, "cost-scale.json", lambda d: d["settings"].update(
            scale_percent=d["settings"]["scale_percent"] * 2))]

    def other_work(d):
        first_ran(d)["what"] += " (other work)"

    def bad_mean(d):
        first_ran(d)["plain"]["mean"] += 1.0

    def other_cpu(d):
        d["settings"]["measured"]["cpu"] += 1

    wname = first_ran(load(first))["name"]
    kind = os.path.join(work, "otherkind.json")
    with open(kind, "w") as f:
        json.dump({"file_version": 1, "kind": "energy"}, f)
    cases = [
        (scale, [os.path.basename(p) for p in scale] + ["differ in scale"]),
        ([first, copy_of(first, work, "cost-otherwork.json", other_work)],
         (os.path.basename(first), "cost-otherwork.json", wname, "different work")),
        ([first, copy_of(first, work, "cost-othercpu.json", other_cpu)],
         (os.path.basename(first), "cost-othercpu.json", "measured CPU")),
        ([first, first], (os.path.basename(first), "same suite")),
        ([copy_of(first, work, "cost-badmean.json", bad_mean)],
         ("cost-badmean.json", wname, "mean")),
        ([copy_of(first, work, "cost-noworkloads.json", lambda d: d.pop("workloads"))],
         ("cost-noworkloads.json", "workloads")),
        ([kind], ("otherkind.json", "energy", "neither")),
    ]
    expect_refusals(tool, work, "not-made-cost-refusal", cases)


def check_cost_interrupted(tool, work, costs):
    """A suite interrupted while measured: a workload with no measured run
    is "not run", and notes say the suite was interrupted and how the
    measuring latscope ended."""
    def interrupt(d):
        d["interrupted"] = True
        d["measuring_run"]["exit_code"] = 1
        m = first_ran(d)["measured"]
        m.update(runs=[], mean=None, stddev=None, min=None, max=None)

    name = first_ran(load(costs[0]))["name"]
    copy = copy_of(costs[0], work, "cost-interrupted.json", interrupt)
    out = os.path.join(work, "cost-interrupted")
    run = report(tool, out, [copy])
    check(run.returncode == 0, "interrupted: runs", run.stderr.strip())
    if run.returncode:
        return
    tables = read_cost(out)
    got = [cost_rows(tables, k)[0][name] for k in ("measured", "cost")]
    check(got == ["not run", "not run"], f"interrupted: {name} measured: not run", got)
    notes = cost_notes(tables)
    check(any("interrupted: its figures are of the runs made before the signal" in n
              for n in notes) and
          any("the measuring latscope exited with status 1" in n for n in notes),
          "interrupted: notes say so and how the measuring latscope ended", notes)


def svg_says(out, text, name="cost"):
    """Whether NAME.svg has @text (matplotlib writes each text as a comment)."""
    with open(os.path.join(out, f"{name}.svg"), encoding="utf-8") as f:
        return f"<!-- {text} -->" in f.read()


def check_cost_unchanged(tool, work, costs):
    """Without runs under load, cost.md and cost.txt are byte for byte
    tests/report/expected/'s (the tables before the runs under load, with
    the changes' intervals since), and cost.svg has no bars under load."""
    names = {os.path.basename(p): p for p in costs}
    for exp, files in UNCHANGED.items():
        if not all(n in names for n in files):
            continue
        out = os.path.join(work, "unchanged-" + exp)
        run = report(tool, out, [names[n] for n in files])
        check(run.returncode == 0, f"{exp}: runs", run.stderr.strip())
        if run.returncode:
            continue
        for ext in ("md", "txt"):
            with open(os.path.join(EXPECTED, f"{exp}.{ext}"), "rb") as f:
                want = f.read()
            with open(os.path.join(out, f"cost.{ext}"), "rb") as f:
                got = f.read()
            check(got == want, f"{exp}: cost.{ext} without a load as expected/ has it, byte for byte",
                  f"diff {os.path.join(EXPECTED, exp + '.' + ext)} "
                  f"{os.path.join(out, 'cost.' + ext)}")
        check(svg_says(out, "while measured") and not svg_says(out, "under load"),
              f"{exp}: cost.svg without bars under load")


def check_cost_load(tool, work, costs):
    """cost-rt-load.json (runs under load): the tables under load and the
    load column worked out by hand, the first row without them, merged, the
    plot's third bar, and the refusals of one label with two loads."""
    hand, names = COST_LOAD_HAND, {os.path.basename(p): p for p in costs}
    if not all(n in names for n in hand["files"]):
        return
    rt_load, mainline = (names[n] for n in hand["files"])

    def load_b(d):
        d["sysinfo"]["release"] += "-b"
        w = next(w for w in d["workloads"] if w["name"] == "queens-1")
        w["loaded"].update(runs=[2.64] * 3, mean=2.64, stddev=0.0, min=2.64, max=2.64)
        w["loaded_change_percent"] = 65.0

    b = copy_of(rt_load, work, "cost-rt-load-b.json", load_b)
    out = os.path.join(work, "cost-load-hand")
    run = report(tool, out, [rt_load, b, mainline])
    check(run.returncode == 0, "cost load hand: runs", run.stderr.strip())
    if run.returncode:
        return
    check_images(out, {"cost": COST_TITLE})
    check(svg_says(out, "under load"), "cost load hand: cost.svg has bars under load")
    tables = check_cost_table(out, [[d] for d in load_cost_docs([rt_load, b, mainline])],
                              "cost load hand")
    kernels = tables.get("Kernels", ([], []))[0]
    check([r.get("load") for r in kernels] == hand["load"],
          "cost load hand: the load column by hand", [r.get("load") for r in kernels])
    for kind in LOAD_TABLES:
        got = cost_rows(tables, kind)
        check(len(got) == 3 and all(not differences(g, w) for g, w in zip(got, hand[kind])),
              f"cost-rt-load + cost-rt-load-b + cost-mainline: {COST_TABLES[kind]} worked "
              "out by hand", [differences(g, w) for g, w in zip(got, hand[kind])])
    notes = cost_notes(tables)
    for said in hand["notes"]:
        check(any(said in n for n in notes), f"cost load hand: a note says {said!r}", notes)

    out = os.path.join(work, "cost-load-no-base")
    run = report(tool, out, [mainline, rt_load])
    check(run.returncode == 0, "cost load no base: runs", run.stderr.strip())
    if not run.returncode:
        got = cost_rows(read_cost(out), "loaded")
        check(len(got) == 2 and not differences(got[1], hand["no base"]),
              "cost-mainline + cost-rt-load: under load (no base) without the first row's",
              got)

    again = copy_of(rt_load, work, "cost-rt-load-again.json", lambda d: None)
    out = os.path.join(work, "cost-load-merged")
    run = report(tool, out, [rt_load, again])
    check(run.returncode == 0, "cost load merged: runs", run.stderr.strip())
    if not run.returncode:
        tables = check_cost_table(out, [load_cost_docs([rt_load, again])], "cost load merged")
        got = cost_rows(tables, "loaded")
        gotc = cost_rows(tables, "load cost")
        check(len(got) == 1 and not differences(got[0], hand["merged"]) and
              not differences(gotc[0] if gotc else {}, hand["merged cost"]),
              "cost-rt-load merged with its copy: its runs under load together, by hand",
              (got, gotc))

    def unloaded_rt(d):
        d["sysinfo"]["release"] = "6.12.0-cost-fixture-rt"

    def classic(d):
        d["settings"]["load"]["name"] = "classic"

    cases = []
    if "cost-rt.json" in names:
        cases.append([names["cost-rt.json"],
                      copy_of(rt_load, work, "cost-rt-load-as-rt.json", unloaded_rt)])
    cases.append([rt_load, copy_of(rt_load, work, "cost-rt-load-classic.json", classic)])
    for i, args in enumerate(cases):
        none = os.path.join(work, f"not-made-cost-load-{i}")
        run = report(tool, none, args)
        said = [os.path.basename(a) for a in args] + ["differ in load", "grinder on CPU0,2-3"]
        check(run.returncode == 2 and all(w in run.stderr for w in said)
              and not os.path.exists(none),
              f"refuses {' '.join(os.path.basename(a) for a in args)}: one label, two loads",
              (run.returncode, run.stderr.strip()))


def check_cost(tool, work, runs, costs):
    check_cost_apart(tool, work, costs)
    check_cost_unchanged(tool, work, costs)
    check_cost_load(tool, work, costs)
    check_cost_merged(tool, work, costs)
    check_cost_hand_merged(tool, work, costs)
    if runs:
        check_cost_kinds(tool, work, runs, costs)
    check_cost_refusals(tool, work, costs)
    check_cost_interrupted(tool, work, costs)


def check_files(tool, work, runs):
    """Its files as the CLI writes them: a symlink at each name it writes
    (to a 0600 file the report must not touch) replaced by a regular
    file, never followed; under umask 027 each file 0640; no temporary
    left behind."""
    out, victim = os.path.join(work, "links"), os.path.join(work, "victim")
    os.makedirs(out)
    with open(victim, "w") as f:
        f.write("not the report's\n")
    os.chmod(victim, 0o600)
    names = ("table.txt", "table.md", "tail.png", "tail.svg", "worst.md", "out.json")
    for name in names:
        os.symlink(victim, os.path.join(out, name))
    old = os.umask(0o027)
    try:
        run = report(tool, out, ["--json-out", os.path.join(out, "out.json"), runs[0]])
    finally:
        os.umask(old)
    check(run.returncode == 0, "files: the report over symlinks ran", run.stderr.strip())
    with open(victim) as f:
        kept = f.read()
    check(kept == "not the report's\n" and os.stat(victim).st_mode & 0o7777 == 0o600,
          "files: the symlinks' target untouched (content, mode 0600)",
          (kept[:40], oct(os.stat(victim).st_mode & 0o7777)))
    for name in names:
        st = os.lstat(os.path.join(out, name))
        check(stat.S_ISREG(st.st_mode) and st.st_mode & 0o7777 == 0o640,
              f"files: {name} a regular file, 0640 under umask 027",
              (stat.filemode(st.st_mode)))
    left = [n for n in os.listdir(out) if n.startswith(".")]
    check(not left, "files: no temporary left", left)


def check_no_matplotlib(tool, work, runs, costs):
    """Without matplotlib (a module of that name that fails to import,
    first on PYTHONPATH): the text tables all the same, no plot, one line
    naming python3-matplotlib, exit 3; never a traceback."""
    fake = os.path.join(work, "no-matplotlib")
    out = os.path.join(work, "no-plots")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, "matplotlib.py"), "w") as f:
        f.write('raise ModuleNotFoundError("No module named \'matplotlib\'", '
                'name="matplotlib")\n')
    env = dict(os.environ, PYTHONPATH=fake)
    run = subprocess.run([tool, "-o", out, runs[0]] + costs[:1], capture_output=True,
                         text=True, env=env)
    check(run.returncode == 3, "no matplotlib: exit 3", (run.returncode, run.stderr))
    check(f"latscope-report: 1 run, 1 cost row, files in {out}" in run.stdout if costs else
          f"latscope-report: 1 run, files in {out}" in run.stdout,
          "one run is '1 run', not '1 runs'", run.stdout)
    check("Traceback" not in run.stderr and "install python3-matplotlib" in run.stderr,
          "no matplotlib: one line naming python3-matplotlib, no traceback", run.stderr)
    tables = ["table.txt", "table.md", "worst.txt", "worst.md", "trust.txt", "trust.md"]
    tables += ["cost.txt", "cost.md"] if costs else []
    have = sorted(os.listdir(out)) if os.path.isdir(out) else []
    check(all(t in have for t in tables) and not [n for n in have if n.endswith((".png", ".svg"))],
          "no matplotlib: every text table written, no plot", have)


def main():
    tool, work, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    # A latency run's file has no "kind"; the cost suite's says "cost".
    docs = {p: load(p) for p in paths}
    runs = [p for p in paths if "kind" not in docs[p]]
    costs = [p for p in paths if is_cost(docs[p])]
    others = [p for p in paths if p not in runs and p not in costs]
    check(not others, "every file is a latency run's or the cost suite's", others)
    if not runs:
        check(False, "a latency run's file among the files", paths)
    else:
        check_apart(tool, work, runs)
        check_heat(tool, work, runs)
        check_merged(tool, work, runs)
        check_refusals(tool, work, runs)
        check_worst(tool, work, runs)
        check_trust(tool, work, runs)
        check_files(tool, work, runs)
    if costs:
        check_cost(tool, work, runs, costs)
    if runs:
        check_no_matplotlib(tool, work, runs, costs)
    return summary("report")


if __name__ == "__main__":
    sys.exit(main())
