# SPDX-License-Identifier: GPL-2.0
"""latscope-report's plots of the latency runs (tail, cdf, timeline,
histogram, heat), and matplotlib: loaded by plotting() only, so that
without it the tables are still written."""

import math
import os

from .debian import missing_module
from .files import written_whole
from .runs import PERCENTILES

FAINT = 0.45    # the alpha of each of a merged run's own lines


def save(fig, out, name):
    """Writes @fig as NAME.png and NAME.svg in @out, each file whole."""
    fig.tight_layout()
    for ext in ("png", "svg"):
        with written_whole(os.path.join(out, f"{name}.{ext}"), binary=True) as f:
            fig.savefig(f, format=ext, dpi=100)


def tail_ranges(ax, xs, ys, pcts, color):
    """Draws, below each tail percentile's point, a bar down to the lower
    edge of its bucket; returns whether there was one."""
    ranged = [(x, y, q) for x, y, q in zip(xs, ys, pcts) if q.kind == "tail"]
    if ranged:
        ax.errorbar([x for x, _, _ in ranged], [y for _, y, _ in ranged],
                    yerr=[[y - max(q.lo, 1e-3) for _, y, q in ranged], [0] * len(ranged)],
                    fmt="none", ecolor=color, capsize=5)
    return bool(ranged)


def max_markers(ax, xs, ys, pcts, color):
    """Draws a hollow circle on each percentile only the maximum bounds
    (past the histogram of a run without a tail); returns whether there
    was one."""
    past = [(x, y) for x, y, q in zip(xs, ys, pcts) if q.kind == "max"]
    if past:
        ax.plot(*zip(*past), linestyle="none", marker="o", markersize=10,
                markerfacecolor="white", color=color)
    return bool(past)


def plot_tail(plt, runs, out):
    """tail.png/.svg: each run's percentiles on a log scale; a tail
    percentile with a bar down to its bucket's lower edge, one only the
    maximum bounds as a hollow circle."""
    fig, ax = plt.subplots(figsize=(10, 6))
    xs = [-math.log10(1 - p / 100.0) for p in PERCENTILES]
    ranged = beyond = False
    for i, r in enumerate(runs):
        ys = [max(q.hi, 1e-3) for q in r["pct"]]
        ax.plot(xs, ys, marker="o", color=f"C{i}", label=r["label"])
        ranged |= tail_ranges(ax, xs, ys, r["pct"], f"C{i}")
        beyond |= max_markers(ax, xs, ys, r["pct"], f"C{i}")
    if ranged:
        ax.errorbar([], [], yerr=[[], []], fmt="none", ecolor="grey", capsize=5,
                    label="in the tail: at most the point, at least the bar's foot")
    if beyond:
        ax.plot([], [], linestyle="none", marker="o", markerfacecolor="white", color="grey",
                label="past the histogram: the maximum")
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{p:g}%" for p in PERCENTILES])
    ax.set_yscale("log")
    ax.set_xlabel("percentile")
    ax.set_ylabel("latency (µs, log scale)")
    ax.set_title("Tail latency")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, out, "tail")


def cdf_points(r):
    """The steps of @r's distribution: (upper edge, fraction at or below it)
    of every cell, then of every tail bucket (its edge clipped to the
    maximum); without a tail one step to the maximum for the overflow."""
    xs, ys, seen = [0.0], [r["underflow"] / r["samples"]], r["underflow"]
    for cell in sorted(r["cells"]):
        seen += r["cells"][cell]
        xs.append((cell + 1) * r["cell_us"])
        ys.append(seen / r["samples"])
    for _, hi, n in r["tail"] or ():
        seen += n
        xs.append(min(hi, r["max"]))
        ys.append(seen / r["samples"])
    if r["tail"] is None and r["overflow"]:
        xs.append(r["max"])
        ys.append(1.0)
    return xs, ys


def plot_cdf(plt, runs, out):
    """cdf.png/.svg: each run's cumulative distribution in steps
    (cdf_points())."""
    fig, ax = plt.subplots(figsize=(10, 6))
    for r in runs:
        xs, ys = cdf_points(r)
        ax.step(xs, ys, where="post", label=r["label"])
    ax.set_xlabel("latency (µs)")
    ax.set_ylabel("fraction of samples at or below")
    ax.set_ylim(0, 1.02)
    ax.set_title("Cumulative distribution of the latency")
    ax.grid(True, alpha=0.3)
    ax.legend()
    save(fig, out, "cdf")


def line_style(run):
    """The name and alpha of a run's lines: a merged run's runs do not share
    a time axis, so each has its own fainter line of the run's colour."""
    n = len(run["parts"])
    if n == 1:
        return run["label"], 1.0
    return f"{run['label']} ({n} runs, a line each)", FAINT


def plot_timeline(plt, runs, out):
    """timeline.png/.svg: each run's max, avg and min point by point; a
    merged run a fainter line per file (line_style())."""
    fig, ax = plt.subplots(figsize=(10, 6))
    for i, r in enumerate(runs):
        name, alpha = line_style(r)
        color = f"C{i}"
        for j, part in enumerate(r["parts"]):
            pts = [p for p in part["timeline"]["points"] if p.samples]
            xs = [p.second for p in pts]
            first = j == 0
            ax.plot(xs, [p.max for p in pts], color=color, alpha=alpha,
                    label=f"{name}: max" if first else None)
            ax.plot(xs, [p.avg for p in pts], color=color, linestyle="--", alpha=0.7 * alpha,
                    label="avg" if first else None)
            ax.plot(xs, [p.min for p in pts], color=color, linestyle=":", alpha=0.7 * alpha,
                    label="min" if first else None)
    width = max(p["timeline"]["bucket_s"] for r in runs for p in r["parts"])
    ax.set_xlabel("time since the warm-up (s)" + (f", points of {width} s" if width > 1 else ""))
    ax.set_ylabel("latency (µs)")
    ax.set_title("Latency over the run, per second")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    save(fig, out, "timeline")


def plot_histogram(plt, runs, out):
    """histogram.png/.svg: each run's cells on a log count axis, every
    cell from its first to its last; what lies past them in its legend."""
    fig, ax = plt.subplots(figsize=(10, 6))
    for r in runs:
        past = ""
        if r["overflow"]:
            past = f', {r["overflow"]} past the last cell'
            past += " (in the tail)" if r["tail"] is not None else ""
        if not r["cells"]:
            # Every sample below 0 or past the cells: a legend entry only.
            ax.plot([], [], label=r["label"] + ", no sample in a cell" + past)
            continue
        # Every cell from the first to the last, empty ones at 0.
        lo, hi = min(r["cells"]), max(r["cells"])
        counts = [r["cells"].get(c, 0) for c in range(lo, hi + 1)]
        edges = [c * r["cell_us"] for c in range(lo, hi + 2)]
        ax.stairs(counts, edges, label=r["label"] + past)
    ax.set_yscale("log", nonpositive="clip")
    ax.set_ylim(bottom=0.5)
    ax.set_xlabel("latency (µs)")
    ax.set_ylabel("samples (log scale)")
    ax.set_title("Latency histogram")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, out, "histogram")


def read_heat(run):
    """Whether a timeline point of @run has a temperature or a clock."""
    return any(p.temp_c is not None or p.cpu_mhz is not None
               for part in run["parts"] for p in part["timeline"]["points"])


def shade_throttled(axes, part, color):
    """Shades, on every one of @axes, the points in which @part's CPU was
    throttled; returns whether there was one."""
    width = part["timeline"]["bucket_s"]
    spans = [p.second for p in part["timeline"]["points"] if p.throttled]
    for ax in axes:
        for second in spans:
            ax.axvspan(second, second + width, color=color, alpha=0.15, linewidth=0)
    return bool(spans)


def plot_heat(plt, runs, out):
    """heat.png/.svg: each point's hottest temperature over its slowest clock
    of the measured CPU, throttled points shaded. Returns None, or why it
    wrote nothing."""
    if not any(read_heat(r) for r in runs):
        return "no run read a temperature or a clock (a VM has none)"
    import matplotlib.patches
    fig, (temp_ax, clock_ax) = plt.subplots(2, 1, sharex=True, figsize=(10, 6))
    throttled = False
    for i, r in enumerate(runs):
        if not read_heat(r):
            continue
        name, alpha = line_style(r)
        color = f"C{i}"
        for j, part in enumerate(r["parts"]):
            pts = part["timeline"]["points"]
            temps = [(p.second, p.temp_c) for p in pts if p.temp_c is not None]
            clocks = [(p.second, p.cpu_mhz) for p in pts if p.cpu_mhz is not None]
            if temps:
                temp_ax.plot(*zip(*temps), color=color, alpha=alpha)
            if clocks:
                clock_ax.plot(*zip(*clocks), color=color, alpha=alpha)
            throttled |= shade_throttled((temp_ax, clock_ax), part, color)
        temp_ax.plot([], [], color=color, label=name)
    if throttled:
        temp_ax.add_patch(matplotlib.patches.Rectangle((0, 0), 0, 0, color="grey", alpha=0.3,
                                                       label="throttled (shaded)"))
    width = max(p["timeline"]["bucket_s"] for r in runs if read_heat(r) for p in r["parts"])
    temp_ax.set_ylabel("hottest (°C)")
    clock_ax.set_ylabel("CPU's slowest clock (MHz)")
    clock_ax.set_xlabel("time since the warm-up (s)" +
                        (f", points of {width} s" if width > 1 else ""))
    temp_ax.set_title("Heat and clock over the run")
    for ax in (temp_ax, clock_ax):
        ax.grid(True, alpha=0.3)
    temp_ax.legend(fontsize="small")
    save(fig, out, "heat")
    return None


def plotting():
    """matplotlib's pyplot on the Agg backend and None, or None and why
    not: without it the tables are still written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return None, missing_module(e)
    return plt, None
