# SPDX-License-Identifier: GPL-2.0
"""latscope-report's text tables: table.txt/table.md of the latency runs
(percentiles written as latscope prints them), a run as --json-out writes
it, and the sections of text and markdown tables that worst, trust and
cost are written as."""

import os

from . import trust
from .files import written_whole
from .runs import P999, PERCENTILES


def tail_less(pct):
    """P of "<=X(-P%)": how much below X a tail percentile may be, in % of
    X. Computed in whole ns as latscope does, so that both round alike."""
    lo, hi = round(pct.lo * 1000), round(pct.hi * 1000)
    return 100.0 * (hi - lo) / hi if hi > 0 else 0.0


def pct_text(pct):
    """A percentile as latscope prints it: "6.000" for a linear cell's
    upper edge, "<=X(-P%)" for a tail bucket, "<=X" when only the maximum
    bounds it."""
    if pct.kind == "tail":
        return f"<={pct.hi:.3f}(-{tail_less(pct):.1f}%)"
    if pct.kind == "max":
        return f"<={pct.hi:.3f}"
    return f"{pct.hi:.3f}"


def rule_of_thumb_us(run):
    """10^5 / f, f the measured CPU's highest clock in MHz, in us: about
    100 us at 1000 MHz. None where no clock was read."""
    mhz = run["heat"]["max_mhz"]
    return 1e5 / mhz if mhz else None


def spread_text(run):
    """How far the runs of a merged row are apart: the range of their maxima
    and of their p99.9, each written as in its own row."""
    parts = run["parts"]
    if len(parts) == 1:
        return "1 run"
    maxima = sorted(p["max"] for p in parts)
    p999 = sorted((p["pct"][P999] for p in parts), key=lambda q: (q.hi, pct_text(q)))
    return (f"max {maxima[0]:.3f}..{maxima[-1]:.3f}, "
            f"p99.9 {pct_text(p999[0])}..{pct_text(p999[-1])} over {len(parts)} runs")


def throttled_text(heat):
    """The throttling flags seen during the run, "no", or "-" if not read."""
    if heat["throttled"] is None:
        return "-"
    return ", ".join(heat["throttled"]) or "no"


def figure(value, fmt):
    """@value formatted by @fmt, or "-" for None (not read)."""
    return "-" if value is None else format(value, fmt)


# The table's columns: heading, "l" or "r" (alignment), the cell of a run.
COLUMNS = [
    ("run", "l", lambda r: r["label"]),
    ("kernel", "l", lambda r: r["release"]),
    ("preemption", "l", lambda r: r["preemption"]),
    ("load", "l", lambda r: r["load"]),
    ("context", "l", lambda r: r["context"]),
    ("period (µs)", "r", lambda r: str(r["period_us"])),
    ("samples", "r", lambda r: str(r["samples"])),
    ("duration (s)", "r", lambda r: f"{r['duration_s']:.1f}"),
    ("min", "r", lambda r: f"{r['min']:.3f}"),
    ("avg", "r", lambda r: f"{r['avg']:.3f}"),
    ("max", "r", lambda r: f"{r['max']:.3f}"),
    ("rule of thumb", "r", lambda r: figure(rule_of_thumb_us(r), ".3f")),
    ("stddev", "r", lambda r: figure(r["stddev"], ".3f")),
] + [
    (f"p{p:g}", "r", lambda r, i=i: pct_text(r["pct"][i])) for i, p in enumerate(PERCENTILES)
] + [
    ("overruns", "r", lambda r: str(r["overruns"])),
    ("max °C", "r", lambda r: figure(r["heat"]["max_c"], ".1f")),
    ("min MHz", "r", lambda r: figure(r["heat"]["min_mhz"], ".0f")),
    ("throttled", "l", lambda r: throttled_text(r["heat"])),
    ("spread", "l", spread_text),
    ("setup", "l", lambda r: "; ".join(sorted({trust.setup_cell(p["setup"])
                                               for p in r["parts"]}))),
]


def table_rows(runs):
    """table.txt/.md's head and a row of cells per run (COLUMNS)."""
    return [c[0] for c in COLUMNS], [[cell(r) for _, _, cell in COLUMNS] for r in runs]


def table_notes(runs):
    """The lines under the table: what the rule of thumb is, how merged rows
    were made, and which runs were throttled."""
    notes = ["rule of thumb: 10^5 / the measured CPU's highest clock in MHz, in µs "
             "(100 µs at 1000 MHz), a rule of thumb for PREEMPT_RT on a tuned board, "
             "not a limit; - where no clock was read."]
    if any(len(r["parts"]) > 1 for r in runs):
        notes.append("A row of several runs has their histograms and tails summed and its "
                     "percentiles read off the sum; its avg is their averages weighted by "
                     "samples; its stddev is - (a file holds its stddev, not the sums that "
                     "would merge it exactly).")
    for r in runs:
        if r["heat"]["throttled"]:
            during = "the run" if len(r["parts"]) == 1 else f'its {len(r["parts"])} runs'
            notes.append(f'{r["label"]}: throttled during {during} '
                         f'({", ".join(r["heat"]["throttled"])}, in {r["heat"]["throttled_s"]} s): '
                         "its figures are of a slowed board.")
    return notes


def write_tables(runs, out):
    """table.txt and table.md: a row per run, then the notes."""
    head, rows = table_rows(runs)
    notes = table_notes(runs)
    left = [align == "l" for _, align, _ in COLUMNS]
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    with written_whole(os.path.join(out, "table.txt")) as f:
        f.write("latencies in microseconds\n")
        for row in [head] + rows:
            f.write("  ".join(c.ljust(w) if l else c.rjust(w)
                              for c, w, l in zip(row, widths, left)).rstrip() + "\n")
        f.write("\n" + "".join(f"{n}\n" for n in notes))
    with written_whole(os.path.join(out, "table.md")) as f:
        f.write("Latencies in microseconds.\n\n")
        f.write("| " + " | ".join(head) + " |\n")
        f.write("|" + "|".join("---" if l else "---:" for l in left) + "|\n")
        for row in rows:
            f.write("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n")
        f.write("\n" + "".join(f"- {n}\n" for n in notes))


def available_text(noise):
    """The share of the CPU the busy thread kept, in %, or "-"."""
    if not noise["runtime_s"]:
        return "-"
    return f'{100.0 * (1 - noise["noise_us"] / (noise["runtime_s"] * 1e6)):.4f}'


# noise.txt/.md's columns: heading, alignment, the cell of a noise run.
NOISE_COLUMNS = [
    ("run", "l", lambda r: r["label"]),
    ("context", "l", lambda r: r["context"]),
    ("runtime (s)", "r", lambda r: f'{r["noise"]["runtime_s"]:.3f}'),
    ("noise (µs)", "r", lambda r: f'{r["noise"]["noise_us"]:.3f}'),
    ("CPU left (%)", "r", lambda r: available_text(r["noise"])),
    ("largest gap (µs)", "r", lambda r: f'{r["noise"]["max_gap_us"]:.3f}'),
    ("gaps", "r", lambda r: str(r["noise"]["gaps"])),
] + [
    (k, "r", lambda r, k=k: str(r["noise"]["kinds"][k]))
    for k in ("irq", "softirq", "thread", "nmi", "unexplained", "unknown")
]


def write_noise_tables(runs, out):
    """noise.txt and noise.md, if any run is a noise run (latscope
    --noise): a row per such run, its gaps by kind."""
    noisy = [r for r in runs if r.get("noise")]
    if not noisy:
        return False
    head = [c[0] for c in NOISE_COLUMNS]
    rows = [[cell(r) for _, _, cell in NOISE_COLUMNS] for r in noisy]
    left = [align == "l" for _, align, _ in NOISE_COLUMNS]
    notes = ["The gaps a busy thread saw between two clock reads, of the threshold or "
             "more, counted once in each kind that began in them (docs/guide/noise.md); "
             "a row of several runs sums them."]
    notes += [f'{r["label"]}: read with interrupts off: what is left is NMIs and the '
              "hardware's (or a hypervisor's)." for r in noisy if r["noise"]["irqs_off"]]
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    with written_whole(os.path.join(out, "noise.txt")) as f:
        for row in [head] + rows:
            f.write("  ".join(c.ljust(w) if l else c.rjust(w)
                              for c, w, l in zip(row, widths, left)).rstrip() + "\n")
        f.write("\n" + "".join(f"{n}\n" for n in notes))
    with written_whole(os.path.join(out, "noise.md")) as f:
        f.write("| " + " | ".join(head) + " |\n")
        f.write("|" + "|".join("---" if l else "---:" for l in left) + "|\n")
        for row in rows:
            f.write("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n")
        f.write("\n" + "".join(f"- {n}\n" for n in notes))
    return True


def run_json(run):
    """A run as --json-out writes it: its table row's figures, the
    histogram and tail its percentiles were read off, what each file says
    of the recorder and the worst records as worst.md has them."""
    return {
        "label": run["label"],
        "files": [p["path"] for p in run["parts"]],
        **{k: run[k] for k in ("release", "preemption", "load", "context", "period_us",
                               "samples", "duration_s", "min", "avg", "max", "stddev",
                               "overruns", "underflow", "overflow")},
        "histogram": {str(c): n for c, n in sorted(run["cells"].items())},
        "tail": None if run["tail"] is None else [list(b) for b in run["tail"]],
        "percentiles": {f"{p:g}": pct_text(q) for p, q in zip(PERCENTILES, run["pct"])},
        "spread": spread_text(run),
        "heat": run["heat"],
        "rule_of_thumb_us": rule_of_thumb_us(run),
        "why": [dict(file=p["path"], **p["why"]) for p in run["parts"]],
        "setup": [dict(file=p["path"], line=trust.setup_line(p["setup"]),
                       verdict=p["setup"]) for p in run["parts"]],
        "evt": [dict(file=p["path"], **p["evt"]) for p in run["parts"]],
        "worst": run["worst"],
        "noise": run.get("noise"),
    }


def text_table(head, align, rows):
    """Lines of a table in columns, "l" or "r" aligned."""
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    return ["  ".join(c.ljust(w) if a == "l" else c.rjust(w)
                      for c, w, a in zip(row, widths, align)).rstrip()
            for row in [head] + rows]


def write_sections(out, name, intro, sections):
    """NAME.txt and NAME.md: @intro (the text's line, the markdown's), then
    per section (title, head, alignment, rows, notes) its title, its table
    and its notes; a section without a head has its notes alone."""
    with written_whole(os.path.join(out, f"{name}.txt")) as f:
        f.write(f"{intro[0]}\n")
        for title, head, align, cells, notes in sections:
            f.write(f"\n{title}\n")
            if head:
                f.write("".join(f"{line}\n" for line in text_table(head, align, cells)))
            f.write("".join(f"{n}\n" for n in notes))
    with written_whole(os.path.join(out, f"{name}.md")) as f:
        f.write(f"{intro[1]}\n")
        for title, head, align, cells, notes in sections:
            f.write(f"\n## {title}\n")
            if head:
                f.write("\n| " + " | ".join(head) + " |\n")
                f.write("|" + "|".join("---" if a == "l" else "---:" for a in align) + "|\n")
                for row in cells:
                    f.write("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n")
            if notes:
                f.write("\n" + "".join(f"- {n}\n" for n in notes))
