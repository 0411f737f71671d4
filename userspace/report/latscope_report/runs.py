# SPDX-License-Identifier: GPL-2.0
"""latscope-report's latency runs: a `latscope --json` file read and
checked (its histogram and tail, timeline, heat, worst-sample records,
setup verdict and EVT estimate), the files of one label merged into one
run, and latscope's percentiles read off a run's histogram and tail."""

import collections
import math
import os

from . import trust

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999)
P999 = PERCENTILES.index(99.9)

# A percentile in us: kind "cell" (a linear cell, hi its upper edge),
# "tail" (a tail bucket, lo..hi, hi clipped to the maximum) or "max" (past
# the histogram of a run without a tail: hi is the maximum). hi is the value.
Pct = collections.namedtuple("Pct", "kind lo hi")

# A timeline point; files older than the heat columns leave them None, as
# does a point whose figure was not read.
Point = collections.namedtuple(
    "Point", "second samples overruns min avg max temp_c cpu_mhz throttled")

# The worst samples of a run tabled and plotted (latscope --why keeps 8 per
# CPU by default).
WORST_SHOWN = 8

# What files of one label must share to be one run, and its name in a message.
MUST_AGREE = (("release", "kernel release"), ("preemption", "preemption model"),
              ("load", "load"), ("context", "context"), ("period_us", "period (µs)"),
              ("scenario", "scenario (1:1, N:N, M:N)"),
              ("hist_cells", "histogram cells"), ("cell_us", "cell width (µs)"),
              ("noise_setup", "noise settings (threshold, runtime, interrupts off)"))


class BadRun(Exception):
    """A file that is no run, does not add up, or cannot be merged with the
    others of its label; the message names it and says why (exit 2)."""


def thread_tail(t):
    """Thread @t's latency tail as [(from, to, count)] in us, or None if
    the file has none (a driver older than the tail)."""
    tail = t["latency"].get("tail")
    if tail is None:
        return None
    return [(float(lo), float(hi), int(n)) for lo, hi, n in tail]


def sum_tails(tails):
    """Tails summed bucket by bucket, sorted [(from, to, count)], or None if
    one is None. Tails of histograms of one size share their buckets' bounds,
    even the first one's, clipped to the histogram's end."""
    summed = {}
    for tail in tails:
        if tail is None:
            return None
        for lo, hi, n in tail:
            summed[lo, hi] = summed.get((lo, hi), 0) + n
    return [(lo, hi, n) for (lo, hi), n in sorted(summed.items())]


def sum_cells(histograms):
    """{cell: count} summed cell by cell."""
    cells = {}
    for h in histograms:
        for k, v in h.items():
            cells[int(k)] = cells.get(int(k), 0) + v
    return cells


def merged_histogram(doc):
    """{cell: count} over every thread, underflow, overflow and the merged
    tail (None without one). A run measured by a latmon monitor has the
    monitor's: its cells, the last one (past them) as the overflow; one
    measured by this board's monitor (one board) the monitor's cells and
    the total's underflow, overflow and tail."""
    if "latmon" in doc:
        cells = sum_cells([doc["latmon"]["histogram"]])
        return cells, 0, doc["total"]["overflow"], None
    if "monitor" in doc:
        # One board: the driver's monitor session; the thread is the local split.
        cells = sum_cells([doc["monitor"]["histogram"]])
        tail = ([(float(lo), float(hi), int(n)) for lo, hi, n in doc["total"]["tail"]]
                if "tail" in doc["total"] else None)
        return cells, doc["total"]["underflow"], doc["total"]["overflow"], tail
    threads = doc["thread"].values()
    return (sum_cells(t["histogram"] for t in threads),
            sum(t["latency"]["underflow"] for t in threads),
            sum(t["latency"]["overflow"] for t in threads),
            sum_tails(thread_tail(t) for t in threads))


def check_tails(path, doc):
    """BadRun if a thread's tail does not hold exactly its overflow."""
    for name, t in doc["thread"].items():
        tail = thread_tail(t)
        if tail is not None and sum(n for _, _, n in tail) != t["latency"]["overflow"]:
            raise BadRun(f"{path}: the tail of thread {name} holds "
                         f"{sum(n for _, _, n in tail)} samples, not its overflow of "
                         f"{t['latency']['overflow']}")


def percentile(run, p):
    """latscope's p-th percentile of @run as a Pct: where the sample of rank
    ceil(samples * p / 100) lies, the samples below zero first, then the
    linear cells, then the tail buckets; past them only the maximum."""
    rank = max(1, math.ceil(run["samples"] * p / 100.0))
    seen = run["underflow"]
    if seen >= rank:
        return Pct("cell", run["min"], 0.0)
    for cell in sorted(run["cells"]):
        seen += run["cells"][cell]
        if seen >= rank:
            return Pct("cell", cell * run["cell_us"], (cell + 1) * run["cell_us"])
    for lo, hi, n in run["tail"] or ():
        seen += n
        if seen >= rank:
            hi = min(hi, run["max"])
            return Pct("tail", min(lo, hi), hi)   # lo > hi: the tail disagrees with max
    return Pct("max", run["max"], run["max"])


def scenario_of(doc):
    """How the responders sat on the CPUs: "1:1", "N:N", or "M:N" with
    more responders than CPUs (--threads); files from before --threads
    have one responder per CPU."""
    st = doc["settings"]
    if "scenario" in st:
        return st["scenario"]
    return "1:1" if doc.get("num_threads", 1) <= 1 else "N:N"


def label_of(doc):
    """The default label: what files must share to be merged, so that two
    files share it only if they are repeats of one setup. M:N says how many
    responders on how many CPUs."""
    load = doc.get("stress", {}).get("name", "none")
    si, st = doc["sysinfo"], doc["settings"]
    mn = (f', M:N {st["threads"]} threads on {st["cpus"]} CPUs'
          if scenario_of(doc) == "M:N" else "")
    noise = doc.get("noise")
    reads = ""
    if noise is not None:
        reads = (f', {noise["runtime_per_period_us"]:.0f} µs read, gaps from '
                 f'{noise["threshold_us"]:g} µs{", interrupts off" if noise["irqs_off"] else ""}')
    return (f'{si["release"]} ({si["preemption"] or "?"}, {st["context"]} '
            f'every {st["period_us"]} µs{reads}{mn}, load {load})')


def noise_setup_of(doc):
    """What a noise run's gaps depend on (threshold, runtime, interrupts
    off), or None for a latency run: runs merge only if it is the same."""
    noise = doc.get("noise")
    if noise is None:
        return None
    return (noise["threshold_us"], noise["runtime_per_period_us"], noise["irqs_off"])


def timeline_of(doc):
    """The timeline as {"bucket_s", "points": [Point]}, its columns found by
    name; empty if the file has none."""
    tl = doc.get("timeline")
    if not tl:
        return {"bucket_s": 1, "points": []}
    columns = tl.get("columns", Point._fields[:6])
    points = []
    for values in tl["points"]:
        named = dict(zip(columns, values))
        points.append(Point(*(named.get(f) for f in Point._fields)))
    return {"bucket_s": tl["bucket_s"], "points": points}


def heat_of(doc):
    """The run's heat figures from the JSON's "heat", each None where it was
    not read (a VM; a file older than the heat has no "heat" at all):
    hottest °C, slowest and fastest MHz of the measured CPU, the throttling
    flags seen during the run ([] for none) and in how many seconds."""
    heat = doc.get("heat") or {}
    temp, clock, throttling = heat.get("temperature"), heat.get("clock"), heat.get("throttling")
    return {
        "max_c": temp["max_c"] if temp else None,
        "min_mhz": clock["min_mhz"] if clock else None,
        "max_mhz": clock["max_mhz"] if clock else None,
        "throttled": list(throttling["during_run"]) if throttling else None,
        "throttled_s": throttling["seconds"] if throttling else 0,
    }


# The keys of a worst-sample record the report reads (the CLI's "worst"),
# of each of its items, and of what it interrupted (when it says).
RECORD_KEYS = ("cpu", "latency_ns", "realtime_ns", "elapsed_s", "parts", "flags",
               "window_ns", "interrupted", "items", "more_items", "more_ns", "unknown_ns")
ITEM_KEYS = ("kind", "id", "name", "count", "duration_ns", "blocking_ns")
INTERRUPTED_KEYS = ("pid", "comm", "policy", "prio", "user_mode", "where")


def why_of(doc):
    """What the file says of the worst-sample recorder: "recorder" True,
    False (--no-why), or None for a file older than the recorder; "seen"
    what it hooked (None unless it was on)."""
    why = doc.get("why")
    if why is None:
        return {"recorder": None, "seen": None}
    on = bool(why["recorder"])
    return {"recorder": on, "seen": list(why["seen"]) if on else None}


def record_lacks(rec):
    """The keys a worst-sample record lacks of those the report reads."""
    lacks = [k for k in RECORD_KEYS if k not in rec]
    for item in rec.get("items") or ():
        lacks += [f"item's {k}" for k in ITEM_KEYS + (("policy", "prio") if
                                                       item.get("kind") == "task" else ())
                  if k not in item and f"item's {k}" not in lacks]
    if rec.get("interrupted"):
        lacks += [f"interrupted's {k}" for k in INTERRUPTED_KEYS if k not in rec["interrupted"]]
    return lacks


def records_of(path, doc):
    """The file's worst-sample records, every CPU's, as the file has them,
    each with its file and the responder's priority (which says whether a
    task that held it off ran at a higher priority); [] for none."""
    if "why" not in doc:
        return []
    priority = doc["settings"].get("priority", 0)
    records = []
    for rec in doc["worst"]:
        lacks = record_lacks(rec)
        if lacks:
            raise BadRun(f"{path}: a worst-sample record without {', '.join(lacks)}")
        records.append(dict(rec, file=path, responder_priority=priority))
    return records


KINDS = ("irq", "softirq", "thread", "nmi", "unexplained", "unknown")


def noise_of(doc):
    """A noise run's figures, all its CPUs summed (runtime, noise, the
    largest gap, gaps by kind), or None for a latency run."""
    noise = doc.get("noise")
    if noise is None:
        return None
    cpus = noise["cpus"]
    return {
        "runtime_s": float(sum(c["runtime_s"] for c in cpus)),
        "noise_us": float(sum(c["noise_us"] for c in cpus)),
        "max_gap_us": float(max((c["max_gap_us"] for c in cpus), default=0.0)),
        "gaps": int(sum(c["gaps"] for c in cpus)),
        "kinds": {k: int(sum(c["kinds"][k] for c in cpus)) for k in KINDS},
        "threshold_us": float(noise["threshold_us"]),
        "irqs_off": bool(noise["irqs_off"]),
    }


def merge_noise(parts):
    """The noise figures of several runs of one label, summed."""
    if any(p is None for p in parts):
        return None
    return dict(parts[0],
                runtime_s=sum(p["runtime_s"] for p in parts),
                noise_us=sum(p["noise_us"] for p in parts),
                max_gap_us=max(p["max_gap_us"] for p in parts),
                gaps=sum(p["gaps"] for p in parts),
                kinds={k: sum(p["kinds"][k] for p in parts) for k in KINDS})


def run_id(doc):
    """What tells one run from another: host, start and command line; None
    for a file that does not say when it started."""
    if "start_time" not in doc:
        return None
    return doc["sysinfo"]["nodename"], doc["start_time"], doc.get("cmdline")


def load_run(path, label, doc):
    """The latency run of @doc, read from @path, as the report keeps it:
    totals, histogram and tail, timeline, heat, worst-sample records,
    setup verdict, EVT estimate, percentiles. BadRun if it is not a
    latscope result or its histogram does not add up to its samples."""
    try:
        total = doc["total"]
        cells, under, over, tail = merged_histogram(doc)
        check_tails(path, doc)
        run = {
            "path": path,
            "label": label or label_of(doc),
            "release": doc["sysinfo"]["release"],
            "preemption": doc["sysinfo"]["preemption"],
            "load": doc.get("stress", {}).get("name", "none"),
            "context": doc["settings"]["context"],
            "period_us": doc["settings"]["period_us"],
            "scenario": scenario_of(doc),
            "hist_cells": doc["settings"]["histogram_cells"],
            "run_id": run_id(doc),
            "samples": total["samples"],
            "min": total["min"], "avg": total["avg"], "max": total["max"],
            "stddev": total["stddev"],
            "overruns": doc["overruns"],
            "duration_s": doc["duration_ns"] / 1e9,
            "cell_us": doc["resolution_in_ns"] / 1000.0,
            "cells": cells, "underflow": under, "overflow": over, "tail": tail,
            "timeline": timeline_of(doc),
            "heat": heat_of(doc),
            "why": why_of(doc),
            "records": records_of(path, doc),
            "setup": trust.setup_of(doc),
            "evt": trust.evt_of(doc),
            "noise": noise_of(doc),
            "noise_setup": noise_setup_of(doc),
        }
    except KeyError as e:
        raise BadRun(f"{path}: not a latscope JSON result (no {e})") from e
    except (TypeError, ValueError, AttributeError) as e:
        raise BadRun(f"{path}: not a latscope JSON result ({e})") from e
    if sum(cells.values()) + under + over != run["samples"]:
        raise BadRun(f"{path}: its {'monitor' + chr(39) + 's ' if 'latmon' in doc or 'monitor' in doc else ''}"
                     f"histogram does not add up to its {run['samples']} samples")
    if not run["samples"]:
        raise BadRun(f"{path}: the run has no sample")
    run["pct"] = [percentile(run, p) for p in PERCENTILES]
    return run


# ---- merging the files of one label ----

def group_by_label(files):
    """[[file run]] of one label each, in the order labels first appear."""
    groups = {}
    for f in files:
        groups.setdefault(f["label"], []).append(f)
    return list(groups.values())


def check_agree(first, f, must_agree):
    """BadRun unless file @f agrees with @first, the first file of its
    label, on every key of @must_agree ((key, its name in the message))."""
    for key, what in must_agree:
        if f.get(key) != first.get(key):
            raise BadRun(f'{first["path"]} and {f["path"]} are both labelled '
                         f'"{first["label"]}" but differ in {what}: {first[key]} and '
                         f'{f[key]}; a label joins repeats of one setup: give them '
                         'labels of their own, or --no-merge')


def same_run(f, others):
    """The file of @others that is file @f again (the same file, or one
    that says it is the same run: host, start and command line), or None."""
    for other in others:
        if (os.path.realpath(f["path"]) == os.path.realpath(other["path"]) or
                f["run_id"] is not None and f["run_id"] == other["run_id"]):
            return other
    return None


def check_mergeable(group):
    """BadRun unless the files of @group are different runs of one setup."""
    first = group[0]
    for i, f in enumerate(group[1:], 1):
        check_agree(first, f, MUST_AGREE)
        other = same_run(f, group[:i])
        if other is not None:
            raise BadRun(f'{other["path"]} and {f["path"]} are the same run (one file '
                         'twice, or a --checkpoint copy and its final file): '
                         'merged, its samples would count twice; give it once')


def merge_heat(heats):
    """The heat figures of several runs: the hottest, the slowest and fastest
    clock of those that read one; the throttling flags of all, [] only if
    every run read them and none throttled."""
    def extreme(pick, key):
        read = [h[key] for h in heats if h[key] is not None]
        return pick(read) if read else None

    read = [h["throttled"] for h in heats if h["throttled"] is not None]
    names = []
    for during in read:
        names += [n for n in during if n not in names]
    if names:
        throttled = names
    elif len(read) == len(heats):
        throttled = []
    else:
        throttled = None
    return {
        "max_c": extreme(max, "max_c"),
        "min_mhz": extreme(min, "min_mhz"),
        "max_mhz": extreme(max, "max_mhz"),
        "throttled": throttled,
        "throttled_s": sum(h["throttled_s"] for h in heats),
    }


def merge(group):
    """One run of the file runs of @group (check_mergeable()'d); "parts"
    keeps them, for the spread and the timelines. A single file stays as it
    is."""
    first = group[0]
    if len(group) == 1:
        return dict(first, parts=group, worst=worst_of(group))
    samples = sum(f["samples"] for f in group)
    run = dict(first)
    run.update({
        "parts": group,
        "samples": samples,
        "min": min(f["min"] for f in group),
        "max": max(f["max"] for f in group),
        # Of the files' averages, rounded to the ns: within half a ns.
        "avg": sum(f["avg"] * f["samples"] for f in group) / samples,
        "stddev": None,     # the files hold no sum of squares to merge exactly
        "overruns": sum(f["overruns"] for f in group),
        "duration_s": sum(f["duration_s"] for f in group),
        "cells": sum_cells(f["cells"] for f in group),
        "underflow": sum(f["underflow"] for f in group),
        "overflow": sum(f["overflow"] for f in group),
        "tail": sum_tails(f["tail"] for f in group),
        "heat": merge_heat([f["heat"] for f in group]),
        "worst": worst_of(group),
        "noise": merge_noise([f.get("noise") for f in group]),
    })
    run["pct"] = [percentile(run, p) for p in PERCENTILES]
    return run


def worst_order(record):
    """The worst first; ties by time, file and CPU, so that the files'
    order does not matter."""
    return -record["latency_ns"], record["realtime_ns"], record["file"], record["cpu"]


def worst_of(group):
    """The worst WORST_SHOWN records of the files of @group, together."""
    return sorted((r for f in group for r in f["records"]), key=worst_order)[:WORST_SHOWN]


def tell_apart(files):
    """Adds its file's name to the label of each file whose default label
    another one has (files of one kernel, context, period and load)."""
    labels = [f["label"] for f in files]
    for f in files:
        if labels.count(f["label"]) > 1:
            f["label"] += f' [{os.path.basename(f["path"])}]'


def rows_of(files, merging, labelled, check, merge_group):
    """The rows of files of one kind: the files of each label checked by
    @check and made one row by @merge_group, or with --no-merge each file
    a row alone (told apart by name if not --label'd)."""
    if merging:
        groups = group_by_label(files)
        for g in groups:
            check(g)
        return [merge_group(g) for g in groups]
    if not labelled:
        tell_apart(files)
    return [merge_group([f]) for f in files]


def runs_of(files, merging, labelled):
    """The runs to plot and table: the files of one label merged, or with
    --no-merge each file alone (told apart by name if not --label'd)."""
    return rows_of(files, merging, labelled, check_mergeable, merge)
