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
given twice, documents of another kind (the cost suite's, which are left
out of the checks above).

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
    run = report(tool, out, cool)
    check(run.returncode == 0 and not os.path.exists(os.path.join(out, "heat.png")) and
          "heat.png not written: no run read a temperature or a clock" in run.stdout,
          "no heat read: no heat.png, and a line says why", (run.returncode, run.stdout))


def label_key(doc):
    """What the default label is made of."""
    return (doc["sysinfo"]["release"], doc["sysinfo"]["preemption"] or "?",
            doc["settings"]["context"], doc["settings"]["period_us"],
            doc.get("stress", {}).get("name", "none"))


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
    for i, (args, said) in enumerate(cases):
        none = os.path.join(work, f"not-made-{i}")
        run = report(tool, none, args)
        check(run.returncode == 2 and all(w in run.stderr for w in said)
              and not os.path.exists(none),
              f"refuses {' '.join(os.path.basename(a) for a in args)}",
              (run.returncode, run.stderr.strip()))


def check_other_kinds(tool, work, others):
    """Documents of another kind (the cost suite's) are refused, named."""
    for i, path in enumerate(others):
        none = os.path.join(work, f"not-made-kind-{i}")
        run = report(tool, none, [path])
        check(run.returncode == 2 and os.path.basename(path) in run.stderr and
              "not a latency run" in run.stderr and not os.path.exists(none),
              f"refuses {os.path.basename(path)}, of kind {load(path)['kind']}",
              (run.returncode, run.stderr.strip()))


def main():
    tool, work, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    # A latency run's file has no "kind"; the cost suite's ("cost") is not one.
    runs = [p for p in paths if "kind" not in load(p)]
    check_other_kinds(tool, work, [p for p in paths if p not in runs])
    if not runs:
        check(False, "a latency run's file among the files", paths)
        return summary("report")
    check_apart(tool, work, runs)
    check_heat(tool, work, runs)
    check_merged(tool, work, runs)
    check_refusals(tool, work, runs)
    return summary("report")


if __name__ == "__main__":
    sys.exit(main())
