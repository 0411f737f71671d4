#!/usr/bin/env python3
"""Checks the plot and JSON files the CLI wrote inside the test VM.

JSON: parses, has rt-tests' keys, per-thread histogram + underflow +
overflow = cycles, each tail holds its block's overflow and its maximum,
totals agree with the threads. Plot: gnuplot reads it
as it is (plot 'FILE' with histeps). Ends with "N passed, N failed".
"""
import json
import os
import re
import pathlib
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import check, setup, summary  # noqa: E402  (tests/lib/checks.py)

# A failure's line has the ": " even without a detail.
setup(always=True)


def check_tail(name, what, block):
    """The tail of a statistics block holds its overflow, in sorted,
    disjoint buckets of at most 1/16 relative width, the maximum in the
    last one; each percentile's range is [from, to] with to the value."""
    tail = block.get("tail")
    check(tail is not None, f"{name}: {what} has a tail")
    if tail is None:
        return
    check(sum(b[2] for b in tail) == block["overflow"],
          f"{name}: {what} tail holds the overflow", (tail, block["overflow"]))
    check(all(a[1] <= b[0] for a, b in zip(tail, tail[1:])) and
          all(0 < b[1] - b[0] <= b[0] / 16 + 0.0015 and b[2] > 0 for b in tail),
          f"{name}: {what} tail buckets sorted, disjoint, 1/16 wide at most", tail)
    if tail:
        check(tail[-1][0] <= block["max"] < tail[-1][1],
              f"{name}: {what} maximum in the last tail bucket", (tail[-1], block["max"]))
    ranges = block.get("percentile_ranges", {})
    check(len(ranges) == 5 and all(lo <= hi and block["percentiles"][p] == hi
                                   for p, (lo, hi) in ranges.items()),
          f"{name}: {what} percentile ranges", ranges)


def check_cost(name, doc, files):
    """A cost suite's JSON: every workload ran both ways, each run timed,
    the figures add up, and the measuring run's JSON is beside it."""
    names = [w["name"] for w in doc["workloads"]]
    check(names == ["queens-1", "queens-all", "hackbench", "switch", "fork", "fsync",
                    "iperf3"], f"{name}: the seven workloads", names)
    for w in doc["workloads"]:
        for v in ("plain", "measured"):
            runs = w[v]["runs"]
            check(w["skipped"] is None and w[v]["failed"] is None and len(runs) == 2 and
                  all(t > 0 for t in runs) and
                  abs(w[v]["mean"] - sum(runs) / len(runs)) < 1e-5 and
                  w[v]["min"] == min(runs) and w[v]["max"] == max(runs),
                  f"{name}: {w['name']} {v}: two runs, their figures", w[v])
        check(w["check"] != "" and abs(w["change_percent"] - 100 * (
              w["measured"]["mean"] - w["plain"]["mean"]) / w["plain"]["mean"]) < 0.01,
              f"{name}: {w['name']}: checked, its change", (w["check"], w["change_percent"]))
    lat = files / os.path.basename(doc["measuring_run"]["json"] or "none")
    check(doc["measuring_run"]["exit_code"] == 0 and lat.exists() and
          doc["measuring_run"]["rts"].startswith("RTS|") and
          doc["settings"]["measured"] == {"context": "kernel", "cpu": 1, "period_us": 1000,
                                          "priority": 90},
          f"{name}: the measuring run", doc["measuring_run"])


files = pathlib.Path(sys.argv[1])
jsons = sorted(files.glob("*.json"))
plots = sorted(files.glob("*.plot"))
# A part of the stage alone (LATSCOPE_VM_TESTS, scripts/vm.sh) writes fewer.
partial = bool(os.environ.get("LATSCOPE_VM_TESTS"))
check(len(jsons) >= (1 if partial else 3) and len(plots) >= (0 if partial else 4),
      "files came back from the VM", [p.name for p in files.iterdir()])
for path in jsons:
    try:
        doc = json.loads(path.read_text())
    except ValueError as e:
        check(False, f"{path.name} parses", e)
        continue
    if doc.get("kind") == "cost":     # the cost suite's (cli_test.sh)
        check_cost(path.name, doc, files)
        continue
    check(all(k in doc for k in ("file_version", "sysinfo", "num_threads", "thread")),
          f"{path.name}: rt-tests keys")
    threads = doc["thread"]
    check(len(threads) == doc["num_threads"], f"{path.name}: num_threads")
    for n, t in threads.items():
        cells = sum(t["histogram"].values())
        lat = t["latency"]
        check(cells + lat["underflow"] + lat["overflow"] == t["cycles"] == lat["samples"],
              f"{path.name}: thread {n} histogram adds up to cycles",
              (cells, lat["underflow"], lat["overflow"], t["cycles"]))
        check(t["min"] <= t["avg"] <= t["max"], f"{path.name}: thread {n} min <= avg <= max")
        for part in ("latency", "irq"):
            if part in t:
                check_tail(path.name, f"thread {n} {part}", t[part])
    latmon = doc.get("latmon")
    # One board: the totals are the driver's monitor session's, the one
    # thread the application's local split (tests/vm/gpiod_test.sh).
    board = "monitor" in doc
    if board:
        check_tail(path.name, "total", doc["total"])
        total = doc["total"]
        check(sum(doc["monitor"]["histogram"].values()) + total["underflow"] +
              total["overflow"] == total["samples"] == doc["monitor"]["samples"],
              f"{path.name}: the monitor's histogram adds up to the total", doc["monitor"])
        check(doc["total"]["samples"] <= sum(t["cycles"] for t in threads.values()),
              f"{path.name}: the monitor timed no more answers than were made")
    elif latmon:
        # The totals are a latmon monitor's: its histogram (the last cell
        # the overflow) adds up to them; the threads are this board's part.
        check(sum(latmon["histogram"].values()) + doc["total"]["overflow"] ==
              latmon["histogram_samples"] == doc["total"]["samples"] == latmon["samples"],
              f"{path.name}: the monitor's histogram adds up to its samples", latmon)
        check(doc["total"]["stddev"] is None, f"{path.name}: no stddev from a monitor")
    else:
        check_tail(path.name, "total", doc["total"])
        check(doc["total"]["samples"] == sum(t["cycles"] for t in threads.values()),
              f"{path.name}: total = sum of threads")
    # Every period of the measured time is an event: samples + overruns.
    # (Remote GPIO pulses come at the monitor's pace: no period; a latmon
    # monitor's pace is its own, and a test double's is faster; a noise
    # run's events are its gaps: tests/vm/check_noise.py.)
    period_us = doc["settings"]["period_us"]
    expected = (doc["duration_ns"] / 1e3 / period_us
                if period_us and not latmon and not board and "noise" not in doc else None)
    for n, t in threads.items():
        if expected is not None:
            check(abs(t["events"] - expected) <= 0.1 * expected + 2,
                  f"{path.name}: thread {n} events match the duration",
                  (t["events"], expected))
        check(t["cycles"] + t["overruns"] <= t["events"] + 1,
              f"{path.name}: thread {n} samples + overruns <= events")
    # The timeline is the per-second records: without a dropped record,
    # they hold every sample, the worst one, and one point a second.
    points = doc["timeline"]["points"]
    # A checkpoint's timeline lags its snapshot by up to a second.
    if doc["bulk_dropped"] == 0 and doc["total"]["samples"] and not doc["checkpoint"]:
        check(sum(p[1] for p in points) == doc["total"]["samples"],
              f"{path.name}: timeline samples add up", (len(points), doc["total"]["samples"]))
        check(max(p[5] for p in points if p[1]) == doc["total"]["max"],
              f"{path.name}: timeline has the worst sample")
        # Remote GPIO pulses come when the monitor sends them: a second
        # without one has no record, so no point.
        seconds = doc["duration_ns"] / 1e9
        every = doc["settings"]["period_us"] != 0
        check(latmon or doc["timeline"]["bucket_s"] == 1 and
              (abs(len(points) - seconds) <= 1.5 if every else len(points) <= seconds + 1.5),
              f"{path.name}: a timeline point a second" + ("" if every else " at most"),
              (len(points), doc["duration_ns"]))
    # Heat: the VM has none; heat-*.json read a board's files (cli_test.sh),
    # throttled from a second on, that flag set in every later point.
    heat = doc.get("heat", "missing")
    if path.stem.startswith("heat-"):
        flags = [p[8] for p in points]
        first = flags.index(2) if 2 in flags else len(flags)
        check(heat != "missing" and heat and
              heat["throttling"]["during_run"] == ["ARM frequency capped"] and
              heat["temperature"]["min_c"] == 52.0 and heat["temperature"]["max_c"] == 67.0 and
              heat["clock"] == {"cpu": 1, "min_mhz": 600.0, "max_mhz": 1500.0},
              f"{path.name}: heat read from the board's files", heat)
        check(0 < first < len(flags) and all(f == 0 for f in flags[:first]) and
              all(f == 2 for f in flags[first:]) and
              heat["throttling"]["seconds"] == len(flags) - first,
              f"{path.name}: timeline throttled from mid-run on", flags)
    elif heat != "missing" and heat is not None:
        check(heat["temperature"] is None and heat["clock"] is None and
              heat["throttling"] is None and all(p[6:9] == [None] * 3 for p in points),
              f"{path.name}: no heat in the VM", heat)
    if path.stem.startswith("mn-"):     # --threads 6 on CPUs 0-1 (cli_test.sh)
        check(doc["settings"]["scenario"] == "M:N" and doc["settings"]["threads"] == 6 and
              [t["cpu"] for t in threads.values()] == [0, 1, 0, 1, 0, 1] and
              all(t["cycles"] > 0 for t in threads.values()),
              f"{path.name}: six threads, three a CPU, each with its samples",
              (doc["settings"], [(t["cpu"], t["cycles"]) for t in threads.values()]))
    context = doc["settings"]["context"]
    check(context.removeprefix("gpio-") in path.stem or context == "user" or
          context == "inband-gpio" and "gpiod" in path.stem or
          context.startswith("noise-") and context.removeprefix("noise-") in path.stem,
          f"{path.name}: context {context}")

for path in plots:
    run = subprocess.run(["gnuplot", "-e",
                          f"set terminal dumb; plot '{path}' with histeps"],
                         capture_output=True, text=True)
    # Every sample the header counts is in a row ("-1" below 0, "N+" past
    # the histogram), in the one count column or the CPUs' columns.
    text = path.read_text()
    count = int(re.search(r"^# sample count: (\d+)$", text, re.M).group(1))
    rows = [line.split() for line in text.splitlines()
            if line and not line.startswith("#")]
    # One row (every sample past the cells: TCG's round trips through the
    # trace-event wires) is a point: gnuplot says its ranges are empty.
    warning = run.stderr.lower()
    if len(rows) == 1:
        warning = re.sub(r"warning: empty [xy] range", "", warning)
    check(run.returncode == 0 and "warning" not in warning,
          f"{path.name}: gnuplot reads it", run.stderr.strip())
    check(all(re.fullmatch(r"-1|\d+\+?", r[0]) for r in rows),
          f"{path.name}: rows are <us>, -1 or N+", rows[:3])
    check(sum(int(v) for r in rows for v in r[1:]) == count,
          f"{path.name}: rows add up to the sample count ({count})",
          sum(int(v) for r in rows for v in r[1:]))

sys.exit(summary("files"))
