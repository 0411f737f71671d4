# SPDX-License-Identifier: GPL-2.0
"""latscope-report's worst samples as latscope's recorder (--why, the
JSON's "worst") explained them: worst.txt/worst.md and worst.png/.svg."""

import collections
import os
import time

from .plots import save
from .tables import write_sections

# The parts of a sample's latency as the CLI names them, and their keys.
PARTS = (("irq", "irq_ns"), ("wake", "wake_ns"), ("sched", "sched_ns"), ("run", "run_ns"))
# What the recorder hooks ("seen"), named as the CLI's "not seen on this
# kernel" line names it.
SEEN = (("irq", "irqs"), ("softirq", "softirqs"), ("switch", "task switches"),
        ("nmi", "NMIs"), ("idle", "idle states"), ("hrtimer", "hrtimer callbacks"))
# The contexts whose events are answered in the irq handler: the latency is
# all its irq part.
IRQ_CONTEXTS = ("irq", "gpio-monitor")
# What a record's flags add to its row, as the CLI's line says it; "cut" has
# its own words, "idle" and "user_mode" are in the interrupted column.
FLAG_TEXT = {"threshold": "crossed -b", "responder_busy": "the responder was busy when woken",
             "responder_elsewhere": "the responder ran on another CPU: its part not seen"}
CULPRITS_SHOWN = 3      # the things a row of worst.md names
WORST_INTRO = (
    "The worst samples as latscope's recorder (--why) explained them; times in "
    "microseconds\n",
    "The worst samples as latscope's recorder (`--why`) explained them; times in "
    "microseconds.\n\n")
WORST_LEGEND = (
    "#: the rank in the run, the worst first; at (s): when the sample's event was due, in "
    "seconds since the warm-up ended; time: the local time of day then (this computer's "
    "time zone); irq: the ideal time to the interrupt, wake: the interrupt to the "
    "responder's wake-up, sched: the wake-up to the responder running, run: running to "
    "the answer (? not known, - no such part in the context); interrupted: the task and "
    "code the event's interrupt interrupted; what took the time: the longest things that "
    "ran on the CPU in the sample's window and how long, in brackets a task's part while "
    "the answer waited for it (non-preemptible, or at a priority at least the "
    "responder's), then how many more things and how long, and the time the record "
    "could not attribute (not known).")


def files_text(parts):
    """The files' names, sorted: the same whatever order they were given in."""
    return ", ".join(sorted(os.path.basename(p["path"]) for p in parts))


def without_records(run):
    """Why the files of @run without a record have none, a phrase per kind:
    the recorder was off, the file is older than it, or it kept none."""
    parts = [p for p in run["parts"] if not p["records"]]
    alone = len(run["parts"]) == 1
    off = [p for p in parts if p["why"]["recorder"] is False]
    older = [p for p in parts if p["why"]["recorder"] is None]
    empty = [p for p in parts if p["why"]["recorder"]]
    said = []
    if off:
        said.append("the recorder was off (latscope --no-why)" if alone else
                    f"the recorder was off in {files_text(off)}")
    if older:
        said.append('the file predates the recorder (it has no "why")' if alone else
                    f"{files_text(older)} predate{'s' if len(older) == 1 else ''} the "
                    "recorder")
    if empty:
        said.append("the recorder kept none" if alone else
                    f"the recorder kept none in {files_text(empty)}")
    return said


def not_seen(run):
    """What the recorder of any of @run's files could not see on its kernel."""
    on = [p for p in run["parts"] if p["why"]["recorder"]]
    return [what for key, what in SEEN if any(key not in p["why"]["seen"] for p in on)]


def worst_notes(run):
    """The lines under a run's worst samples: the files they come from, how
    many records there were, what the recorder could not see, and what the
    irq context leaves out."""
    parts, notes = run["parts"], []
    have = [p for p in parts if p["records"]]
    if len(have) < len(parts):
        notes.append(f"The records come from {len(have)} of its {len(parts)} files only "
                     f"({files_text(have)}): {'; '.join(without_records(run))}.")
    total = sum(len(p["records"]) for p in have)
    if total > len(run["worst"]):
        together = f", of its {len(have)} files together" if len(have) > 1 else ""
        notes.append(f"The worst {len(run['worst'])} of {total} records (every measured "
                     f"CPU's{together}).")
    if not_seen(run):
        notes.append(f"Not seen by the recorder on this kernel: {', '.join(not_seen(run))}; "
                     "no row names them.")
    if run["context"] in IRQ_CONTEXTS:
        notes.append(f'In the {run["context"]} context the event is answered in its irq '
                     "handler: the latency is its irq part; wake, sched and run do not "
                     "apply (-).")
    return notes


def us(ns):
    """A time in ns as µs to one decimal, as the CLI writes it: "4122.9"."""
    return f"{ns / 1000:.1f}"


def sched_text(policy, prio):
    """A policy as the CLI writes it: "FIFO 50", "OTHER", "OTHER nice 5"."""
    if policy in ("FIFO", "RR"):
        return f"{policy} {prio}"
    return f"{policy} nice {prio}" if prio else policy


def part_text(record, key, irq_context):
    """A part of the latency, "?" where the record does not know it, "-"
    where the context has no such part."""
    if irq_context and key != "irq_ns":
        return "-"
    ns = record["parts"].get(key)
    return "?" if ns is None else us(ns)


def clock_text(realtime_ns):
    """The local time of day the sample's event was due, as the CLI's line
    has it; "?" for a record without one."""
    if not realtime_ns:
        return "?"
    return time.strftime("%H:%M:%S", time.localtime(realtime_ns // 1000000000))


def interrupted_text(record):
    """The task and code the event's interrupt interrupted, as the CLI's
    line names them; "?" when the record does not say."""
    it = record["interrupted"]
    if it is None:
        return "?"
    if not it["pid"]:
        return "idle"
    task = f'{it["comm"]} ({it["pid"]}, {sched_text(it["policy"], it["prio"])})'
    if it["user_mode"]:
        return f"{task} in user space"
    return f'{task} in {it["where"]}' if it["where"] else task


def blocking_word(item, irq_context, priority):
    """What a task did while the answer waited for it: held the irq off (the
    irq context), ran at a priority at least the responder's, or ran where
    it could not be preempted."""
    if irq_context:
        return "while the irq was due"
    if item.get("policy") in ("FIFO", "RR") and item.get("prio", 0) >= priority:
        return "at higher priority"
    return "non-preemptible"


def item_text(item, irq_context, priority):
    """A thing that took a sample's time, as the CLI's line names it:
    "lsnoise/1 (3280, OTHER) 4122.9 (4122.9 non-preemptible)", "irq 24
    lsnoise 3528.0", "idle (state 1) 8.7", "softirq SCHED x2 6.9"."""
    kind, ns = item["kind"], item["duration_ns"]
    if kind == "task":
        sched = sched_text(item["policy"], item["prio"])
        text = f'{item["name"]} ({item["id"]}, {sched}) {us(ns)}'
        if item["blocking_ns"]:
            text += f' ({us(item["blocking_ns"])} {blocking_word(item, irq_context, priority)})'
        return text
    if kind == "irq":
        text = f'irq {item["id"]} {item["name"]}'
    elif kind == "idle":
        text = f'idle (state {item["id"]})' if item["id"] >= 0 else "idle"
    else:
        text = f'{kind} {item["name"]}'
    return text + (f' x{item["count"]}' if item["count"] > 1 else "") + f" {us(ns)}"


def culprits_text(record, irq_context):
    """The CULPRITS_SHOWN longest things that ran in the sample's window,
    how many more and how long, what the record could not attribute, and
    what its flags say."""
    items = record["items"]
    said = [item_text(i, irq_context, record["responder_priority"])
            for i in items[:CULPRITS_SHOWN]]
    more = len(items[CULPRITS_SHOWN:]) + record["more_items"]
    if more:
        rest = sum(i["duration_ns"] for i in items[CULPRITS_SHOWN:]) + record["more_ns"]
        said.append(f"{more} more {us(rest)}")
    if record["unknown_ns"]:
        said.append(f'{us(record["unknown_ns"])} not known')
    if "cut" in record["flags"]:
        said.append(f'record cut: it covers the last {us(record["window_ns"])}')
    said += [FLAG_TEXT[f] for f in record["flags"] if f in FLAG_TEXT]
    return "; ".join(said) or "-"


def worst_table(run):
    """(head, alignment, rows) of @run's worst samples; a file column when
    it merges several files."""
    irq_context = run["context"] in IRQ_CONTEXTS
    several = len(run["parts"]) > 1
    head = (["#", "latency", "CPU"] + (["file"] if several else []) + ["at (s)", "time"] +
            [name for name, _ in PARTS] + ["interrupted", "what took the time"])
    align = "rrr" + ("l" if several else "") + "rl" + "r" * len(PARTS) + "ll"
    rows = [[str(rank), f'{r["latency_ns"] / 1000:.3f}', str(r["cpu"])] +
            ([os.path.basename(r["file"])] if several else []) +
            [f'{r["elapsed_s"]:.3f}', clock_text(r["realtime_ns"])] +
            [part_text(r, key, irq_context) for _, key in PARTS] +
            [interrupted_text(r), culprits_text(r, irq_context)]
            for rank, r in enumerate(run["worst"], 1)]
    return head, align, rows


def worst_sections(runs):
    """worst.txt/.md's sections: per run its worst samples and the notes
    under them, or the line that says why it has none."""
    sections = []
    for run in runs:
        if run["worst"]:
            sections.append((run["label"], *worst_table(run), worst_notes(run)))
        else:
            sections.append((run["label"], None, None, [],
                             [f"No worst-sample records: {'; '.join(without_records(run))}."]))
    return sections


def write_worst_tables(runs, out):
    """worst.txt and worst.md (worst_sections())."""
    write_sections(out, "worst", (WORST_INTRO[0] + WORST_LEGEND, WORST_INTRO[1] + WORST_LEGEND),
                   worst_sections(runs))


# The plot's segments that are no culprit of their own, and how they look.
OTHER, NOT_KNOWN, OWN = "other", "not known", "latscope's own / rest"
SEGMENT_STYLE = {OTHER: {"facecolor": "C7"},
                 NOT_KNOWN: {"facecolor": "white", "hatch": "///", "edgecolor": "grey"},
                 OWN: {"facecolor": "black"}}
# The culprits' colours, the most time first; C7 (grey) is "other".
CULPRIT_COLORS = ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C8")
WORST_TITLE = "The worst samples: what their time went to"


def culprit_of(item):
    """An item's name in the plot, one for all its occurrences: a task's
    command, "irq lsnoise", "hrtimer tick_nohz_handler", "idle"."""
    if item["kind"] == "task":
        return item["name"]
    if item["kind"] == "idle":
        return "idle"
    return f'{item["kind"]} {item["name"]}'


def segments(record):
    """[(culprit, ns)]: what a sample's time went to, summing to its
    latency: each item's time, the items past the record's 8 (other), the
    time it could not attribute or did not cover (a cut record: not known),
    and the rest, the responder's own running and the measurement's handler."""
    segs = [(culprit_of(i), i["duration_ns"]) for i in record["items"]]
    if record["more_ns"]:
        segs.append((OTHER, record["more_ns"]))
    unknown = record["unknown_ns"] + max(0, record["latency_ns"] - record["window_ns"])
    if unknown:
        segs.append((NOT_KNOWN, unknown))
    rest = record["latency_ns"] - sum(ns for _, ns in segs)
    if rest > 0:
        segs.append((OWN, rest))
    return segs


def culprit_colors(runs):
    """{culprit: colour} of the culprits that took the most time over every
    plotted sample, one colour each; the others are drawn as "other"."""
    total = collections.Counter()
    for run in runs:
        for r in run["worst"]:
            for name, ns in segments(r):
                if name not in SEGMENT_STYLE:
                    total[name] += ns
    top = sorted(total, key=lambda name: (-total[name], name))[:len(CULPRIT_COLORS)]
    return dict(zip(top, CULPRIT_COLORS))


def plot_worst(plt, runs, out):
    """worst.png/.svg: under each run's label a bar per worst sample, the
    worst first, as long as its latency, its segments what the time went to
    (segments()), one colour per culprit. Returns None, or why it wrote
    nothing."""
    shown = [r for r in runs if r["worst"]]
    if not shown:
        return ("no run has worst-sample records (the files predate the recorder, or "
                "latscope ran with --no-why)")
    import matplotlib.patches
    colors = culprit_colors(shown)
    # A line per run's label and per bar; smaller text where they crowd.
    crowded = sum(len(r["worst"]) + 1 for r in shown) > 40
    small, smaller = (6.5, 5) if crowded else ("small", "x-small")
    fig, ax = plt.subplots(figsize=(10, 6))
    ticks, used, y = [], set(), 0
    for run in shown:
        ax.text(0, y, run["label"], va="center", fontsize=small, fontweight="bold")
        y += 1
        for rank, r in enumerate(run["worst"], 1):
            left = 0.0
            for name, ns in segments(r):
                key = name if name in colors or name in SEGMENT_STYLE else OTHER
                used.add(key)
                style = SEGMENT_STYLE.get(key) or {"facecolor": colors[key]}
                ax.barh(y, ns / 1000, left=left, height=0.8, linewidth=0.3,
                        **{"edgecolor": "white", **style})
                left += ns / 1000
            ax.text(left, y, f' {r["latency_ns"] / 1000:.1f}', va="center", fontsize=smaller)
            ticks.append((y, f"#{rank}"))
            y += 1
    ax.set_yticks([t for t, _ in ticks])
    ax.set_yticklabels([name for _, name in ticks], fontsize=smaller)
    ax.set_ylim(y - 0.5, -0.7)     # the first run on top
    top = max(r["latency_ns"] for run in shown for r in run["worst"]) / 1000
    ax.set_xlim(0, top * 1.12)     # room for the latencies at the bars' ends
    ax.set_xlabel("latency (µs)")
    ax.set_title(WORST_TITLE)
    ax.grid(True, axis="x", alpha=0.3)
    handles = [matplotlib.patches.Patch(label=name, facecolor=color)
               for name, color in colors.items() if name in used]
    handles += [matplotlib.patches.Patch(label=key, **{"edgecolor": "white", **style})
                for key, style in SEGMENT_STYLE.items() if key in used]
    ax.legend(handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    save(fig, out, "worst")
    return None
