# SPDX-License-Identifier: GPL-2.0
"""The profile of a survey (latscope --survey DIR), profile.md and
profile.html: what a reader takes to a design review. A summary (the
worst latency, each context under each load, the worst sample
explained, the worst-case bound or why there is none, the setup and the
price of being measured), the board, the survey's plan and outcome, the
setup verdict, the latency tables and plots, the worst samples
explained, the EVT bound of each run, the cost suite. Built of blocks
(page.py) from what latscope-report already made of the survey's files:
its figures are those of table.md, worst.md, trust.md and cost.md.

And the comparison of two surveys (latscope-report DIR_A DIR_B),
compare.md and compare.html: the boards, the setup, each phase's
latency and bound, and the cost suite, side by side."""

import os

from . import page, trust
from .cost_output import cost_tables, measured_change_text
from .cost import workload_names
from .files import written_whole
from .runs import PERCENTILES
from .tables import pct_text
from .worst import worst_sections, worst_table

P9999 = PERCENTILES.index(99.99)
CONTEXTS = ("user", "kernel", "irq", "gpio-user", "gpio-kernel", "latmon")
LOADS = ("none", "grinder", "neighbour", "classic")
# What a board's DMI or model says when it is an emulator's.
VIRTUAL = ("QEMU", "KVM", "VMware", "VirtualBox", "Bochs", "Xen", "Hyper-V", "Firecracker",
           "Standard PC")
# The plots latscope-report makes of the latency runs, in the order shown.
LATENCY_PLOTS = (("tail.png", "latency at each percentile, a line per run"),
                 ("cdf.png", "cumulative distribution of the latency"),
                 ("histogram.png", "histogram of the latency, log count axis"),
                 ("timeline.png", "per-second maximum, average and minimum over each run"),
                 ("heat.png", "temperature and CPU clock over each run"))


def board_of(sv):
    """The board's name: its DMI vendor and product, else its device tree
    model, else its CPU."""
    board = sv.system_value("board")
    if board not in ("unknown", "unknown unknown"):
        return board
    model = sv.system_value("device tree model")
    return model if model != "unknown" else sv.system_value("cpu")


def is_virtual(sv):
    """Whether the board says it is a virtual machine's."""
    text = f'{sv.system_value("board")} {sv.system_value("device tree model")}'
    return any(v.lower() in text.lower() for v in VIRTUAL)


def us(x):
    """A latency in µs to three decimals, as the tables write it."""
    return f"{x:.3f}"


def load_name(load):
    """A run's load as the plan names it: "quiet" for none."""
    return "quiet" if load == "none" else load


def outcome_line(sv):
    """"13 of 14 phases done; 02-user-quiet interrupted, 14-cost failed"."""
    done = [p for p, o in sv.outcomes if o.startswith("done")]
    other = [f"{p} {o.split(':')[0].split(',')[0]}" for p, o in sv.outcomes
             if not o.startswith("done")]
    line = f"{len(done)} of {len(sv.outcomes)} phases done"
    return line + ("; " + ", ".join(other) if other else "")


def row_of(run):
    """A run's row in the summary's table: its phase's words without the
    load ("user", "gpio-kernel", "latmon"), or its context."""
    words = run.get("phase", "").split("-")[1:]
    return "-".join(words[:-1]) if len(words) > 1 else run["context"]


def load_of(run):
    """A run's column in the summary's table: its phase's load word, as
    the plan named it, or its file's load ("none" for quiet)."""
    words = run.get("phase", "").split("-")[1:]
    if len(words) > 1:
        return "none" if words[-1] == "quiet" else words[-1]
    return run["load"]


def matrix(runs):
    """The summary's table: a row per context (timer, GPIO, latmon), a
    column per load, each cell the maximum and p99.99 of that run (µs);
    None when no run is there."""
    by = {}
    for r in runs:
        key = (row_of(r), load_of(r))
        if key not in by or r["max"] > by[key]["max"]:
            by[key] = r
    contexts = [c for c in CONTEXTS if any(k[0] == c for k in by)] + \
        sorted({c for c, _ in by} - set(CONTEXTS))
    loads = [l for l in LOADS if any(k[1] == l for k in by)] + \
        sorted({l for _, l in by} - set(LOADS))
    if not by:
        return None
    rows = [[c] + [f'{us(by[c, l]["max"])} ({pct_text(by[c, l]["pct"][P9999])})'
                   if (c, l) in by else "-" for l in loads] for c in contexts]
    return ("table", ["context"] + [load_name(l) for l in loads], "l" + "r" * len(loads), rows)


def bounded(runs):
    """The runs whose worst case has an EVT bound: (run, its estimate)."""
    return [(r, p["evt"]) for r in runs for p in r["parts"] if p["evt"].get("status") == "ok"]


def hour_bound_of(e):
    """The per-hour bound of an EVT estimate @e, or None."""
    return next((b for b in e.get("bounds", []) if b["per"] == "hour"), None)


def above(run, e):
    """What to add when the run's own maximum is above its per-hour bound:
    the tail holds what the fit did not see."""
    hour = hour_bound_of(e)
    if not hour or hour.get("upper_us") is None or run["max"] <= hour["upper_us"]:
        return ""
    return (f' The run\'s own maximum, {us(run["max"])} µs, is above the per-hour bound '
            f'({hour["upper_us"]:.1f} µs): its tail holds what the fit did not see; take '
            "the maximum, not the bound.")


def bound_text(runs):
    """The summary's line on the worst-case bound: the sentence of each run
    with one, else why the longest quiet run has none."""
    found = bounded(runs)
    if found:
        return [f'Worst-case bound ({r["label"]}): {e["sentence"]}' + above(r, e)
                for r, e in found]
    quiet = sorted((r for r in runs if r["load"] == "none"), key=lambda r: -r["duration_s"])
    why = quiet[0]["parts"][0]["evt"].get("reason") if quiet else "no quiet run"
    return [f"No worst-case bound: {why}"]


def worst_sample_text(run):
    """The worst sample of @run explained in a line, or why there is none."""
    if not run["worst"]:
        return f'{run["label"]} has no worst-sample record (see Why).'
    head, _, rows = worst_table(run)
    cell = dict(zip(head, rows[0]))
    return (f'Its worst sample ({cell["latency"]} µs on CPU{cell["CPU"]}) interrupted '
            f'{cell["interrupted"]}; what took the time: {cell["what took the time"]}.')


def cost_lines(cost_rows):
    """The summary's lines on the price: per workload, how much longer it ran
    while measured, with its interval."""
    lines = []
    for row in cost_rows:
        cells = [f"{n} {measured_change_text(row, n)}" for n in workload_names([row])]
        lines.append(f"What being measured ({row['context']} every {row['period_us']} µs) "
                     "cost each workload, in % of its running time (95 % interval): "
                     f"{'; '.join(cells)}.")
    return lines


def section_blocks(sections, level=3):
    """latscope-report's sections (title, head, align, rows, notes) as blocks."""
    blocks = []
    for title, head, align, rows, notes in sections:
        blocks.append(("h", level, title, None))
        if head:
            blocks.append(("table", head, align, rows))
        if notes:
            blocks.append(("ul", notes))
    return blocks


def heading(text):
    """A section's heading block, its anchor as Markdown viewers make it."""
    return ("h", 2, text, page.anchor(text))


SECTIONS = ("Summary", "The board", "The survey", "The setup verdict", "How late",
            "Why the worst samples", "Can the worst case be trusted", "At what price",
            "Files")


def contents():
    """The table of contents."""
    return [("h", 2, "Contents", "contents"),
            ("ul", [f"[{s}](#{page.anchor(s)})" for s in SECTIONS])]


def summary(sv, runs, cost_rows, unread):
    """The summary: what a reader needs before the details."""
    lines = [f"{outcome_line(sv)}."] + unread
    if is_virtual(sv):
        lines.append(f"Measured in a virtual machine ({board_of(sv)}): its latencies are "
                     "the emulator's, not a board's.")
    if runs:
        top = max(runs, key=lambda r: r["max"])
        lines.append(f'The worst latency measured: **{us(top["max"])} µs**, in {top["label"]} '
                     f'({top["context"]} context, {load_name(top["load"])}), of '
                     f'{sum(r["samples"] for r in runs)} samples in '
                     f'{sum(r["duration_s"] for r in runs):.0f} s of timer runs.')
        lines.append(worst_sample_text(top))
        lines += bound_text(runs)
    else:
        lines.append("No timer run was measured.")
    lines.append("Setup: " + ("; ".join(sv.setup_summary) if sv.setup_summary else
                              "no setup verdict (the setup phase did not run)") + ".")
    lines += cost_lines(cost_rows) or ["The cost suite did not run."]
    blocks = [heading("Summary"), ("ul", lines)]
    m = matrix(runs)
    if m:
        blocks += [("p", "Maximum latency of each context under each load, in µs (p99.99 in "
                    "brackets; `<=X(-P%)`: at most X, at most P % less):"), m]
    return blocks


def board(sv):
    """The board as system.txt describes it."""
    return [heading("The board"),
            ("table", ["", "this board"], "ll", [[k, v] for k, v in sv.system]) if sv.system else
            ("p", "system.txt is missing: the board is not described.")]


def plan(sv):
    """The command, the plan and each phase's outcome."""
    return [heading("The survey"),
            ("p", f"`{sv.command}`"), ("p", f"Settings: {sv.settings}."),
            ("pre", "\n".join(sv.plan)),
            ("table", ["phase", "outcome"], "ll", [[p, o] for p, o in sv.outcomes])]


def setup(sv):
    """The setup verdict the survey began with."""
    blocks = [heading("The setup verdict")]
    if not sv.setup:
        return blocks + [("p", "The setup phase did not run: no verdict.")]
    order = sorted(sv.setup, key=lambda r: trust.VERDICT_ORDER.get(r[0], 1))
    return blocks + [("table", ["factor", "verdict", "this board", "fix"], "llll",
                      [[f, v, value, fix or "-"] for v, f, value, fix in order]),
                     ("ul", sv.setup_summary)]


def plots(written, names):
    """The image blocks of the plots @names this report wrote (@written):
    not one an earlier report left beside them."""
    return [("img", f, alt) for f, alt in names if f in written]


def latency(runs, written):
    """The latency table (the columns a reader compares) and the plots."""
    blocks = [heading("How late")]
    if not runs:
        return blocks + [("p", "No timer run was measured.")]
    head = ["run", "context", "load", "samples", "min", "avg", "max"] + \
        [f"p{p:g}" for p in PERCENTILES[2:5]] + ["overruns"]
    rows = [[r["label"], r["context"], load_name(r["load"]), str(r["samples"]), us(r["min"]),
             us(r["avg"]), us(r["max"])] + [pct_text(q) for q in r["pct"][2:5]] +
            [str(r["overruns"])] for r in runs]
    return blocks + [("p", "Latencies in µs. Every column of every run: [table.md](table.md)."),
                     ("table", head, "lll" + "r" * (len(head) - 3), rows)] + \
        plots(written, LATENCY_PLOTS)


def why(runs, written):
    """The worst samples explained (worst.md's sections)."""
    return [heading("Why the worst samples")] + section_blocks(worst_sections(runs)) + \
        plots(written, (("worst.png", "what the time of each worst sample went to"),))


def bounds(runs):
    """Each run's EVT bound or why it has none; the whole estimate of those
    with one."""
    blocks = [heading("Can the worst case be trusted")]
    rows = []
    for r in runs:
        e = r["parts"][0]["evt"]
        hour = hour_bound_of(e)
        rows.append([r["label"], e.get("status", "?"),
                     trust.us(hour.get("upper_us")) if hour else "-",
                     e.get("sentence") or e.get("reason") or "-"])
    blocks += [("table", ["run", "estimate", "upper bound per hour (µs)", "what it says"],
                "llrl", rows)]
    for r, _ in bounded(runs):
        blocks += section_blocks([trust.evt_section(r, r["parts"][0])])
    return blocks


def cost(cost_rows, written):
    """The cost suite's tables and plot."""
    blocks = [heading("At what price")]
    if not cost_rows:
        return blocks + [("p", "The cost suite did not run.")]
    return blocks + section_blocks(cost_tables(cost_rows)) + \
        plots(written, (("cost.png", "each workload's running time, plain and measured"),))


def files(sv):
    """What each file of the survey holds."""
    rows = [["system.txt", "the board"], ["survey.txt", "the command, plan and outcomes"]]
    for p, _ in sv.outcomes:
        if p == sv.setup_phase:
            rows.append([f"{p}.txt", "the setup verdict"])
        elif p.endswith("-cost"):
            rows.append([f"{p}.json, {p}-latency.json, {p}.txt",
                         "the cost suite, its measuring run, what it printed"])
        else:
            rows.append([f"{p}.json, {p}.plot, {p}.txt", "the run, its histogram, what it printed"])
    rows.append(["profile/", "this profile, and table, worst, trust and cost (.md, .txt), "
                 "the plots (.png, .svg)"])
    return [heading("Files"), ("table", ["file", "what"], "ll", rows)]


def write_page(blocks, out, name, title):
    """NAME.md and NAME.html of @blocks in @out."""
    with written_whole(os.path.join(out, f"{name}.md")) as f:
        f.write(page.to_markdown(blocks))
    with written_whole(os.path.join(out, f"{name}.html")) as f:
        f.write(page.to_html(blocks, title, out))


def write_profile(sv, runs, cost_rows, out, unread, written):
    """profile.md and profile.html of the survey @sv, in @out, beside the
    tables and plots latscope-report wrote there (@written: the plots);
    @unread: the files it could not read, said in the summary."""
    release = runs[0]["release"] if runs else sv.system_value("kernel")
    preemption = f' ({runs[0]["preemption"]})' if runs else ""
    title = f"Real-time profile: {board_of(sv)}, Linux {release}{preemption}"
    blocks = [("h", 1, title, None),
              ("p", f"latscope's survey `{sv.name}`, made by `latscope-report` from its files. "
               "Latencies in µs.")]
    blocks += contents() + summary(sv, runs, cost_rows, unread) + board(sv) + plan(sv) + setup(sv)
    blocks += latency(runs, written) + why(runs, written) + bounds(runs) + \
        cost(cost_rows, written)
    blocks += files(sv)
    write_page(blocks, out, "profile", title)


# ---- two surveys side by side ----

def words(phase):
    """A phase's words without its number: "user-quiet" of "02-user-quiet"."""
    return phase.split("-", 1)[1]


def side_by_side(runs_a, runs_b):
    """The phases both or either measured, in the first's order: (words,
    run of a or None, run of b or None)."""
    by_a = {words(r["phase"]): r for r in runs_a}
    by_b = {words(r["phase"]): r for r in runs_b}
    order = list(by_a) + [w for w in by_b if w not in by_a]
    return [(w, by_a.get(w), by_b.get(w)) for w in order]


def cell(run, what):
    """A comparison cell: @what of @run, or "-" for a phase not measured."""
    return "-" if run is None else what(run)


def hour_bound(run):
    """The per-hour upper bound of @run's EVT estimate, or its status."""
    e = run["parts"][0]["evt"]
    hour = hour_bound_of(e)
    return trust.us(hour.get("upper_us")) if hour and e.get("status") == "ok" else \
        f'no bound ({e.get("status", "?")})'


def compare_latency(names, pairs):
    """The latency of each phase of both surveys."""
    a, b = names
    head = ["phase", f"max {a}", f"max {b}", f"p99.99 {a}", f"p99.99 {b}", f"avg {a}",
            f"avg {b}", f"bound per hour {a}", f"bound per hour {b}"]
    rows = [[w] + [cell(r, lambda r: us(r["max"])) for r in (ra, rb)] +
            [cell(r, lambda r: pct_text(r["pct"][P9999])) for r in (ra, rb)] +
            [cell(r, lambda r: us(r["avg"])) for r in (ra, rb)] +
            [cell(r, hour_bound) for r in (ra, rb)] for w, ra, rb in pairs]
    return [heading("How late"),
            ("p", "Latencies in µs, a row per phase. A maximum is one run's: how far a "
             "repeat of it would land is not known from one run, so two maxima close "
             "together are no difference at this precision; the bound per hour, where "
             "there is one, is the figure that carries its uncertainty (Can the worst "
             "case be trusted, in each profile)."),
            ("table", head, "l" + "r" * (len(head) - 1), rows)]


def compare_boards(svs):
    """The two boards' system.txt side by side."""
    keys = [k for k, _ in svs[0].system] + \
        [k for k, _ in svs[1].system if k not in dict(svs[0].system)]
    rows = [[k] + [s.system_value(k) for s in svs] for k in keys]
    return [heading("The boards"), ("table", [""] + [s.name for s in svs], "lll", rows)]


def setup_by(svs):
    """Each survey's setup verdict by factor, {factor: (verdict, value)},
    and the factors of either, in the first's order."""
    by = [{f: (v, value) for v, f, value, _ in s.setup} for s in svs]
    factors = [f for _, f, _, _ in svs[0].setup] + \
        [f for _, f, _, _ in svs[1].setup if f not in by[0]]
    return by, factors


def compare_setup(svs):
    """The two setup verdicts side by side, a row per factor."""
    by, factors = setup_by(svs)
    rows = [[f] + [f"{d[f][0]}: {d[f][1]}" if f in d else "-" for d in by] for f in factors]
    blocks = [heading("The setup verdicts")]
    if not rows:
        return blocks + [("p", "Neither survey ran its setup phase.")]
    return blocks + [("table", ["factor"] + [s.name for s in svs], "lll", rows),
                     ("ul", [f"{s.name}: {'; '.join(s.setup_summary) or 'no setup phase'}"
                             for s in svs] + [setup_differences(by, factors)])]


def setup_differences(by, factors):
    """The line naming the factors whose verdicts differ between the two."""
    differ = [f for f in factors if (by[0].get(f) or ("-",))[0] != (by[1].get(f) or ("-",))[0]]
    return ("verdicts that differ: " + ", ".join(differ) if differ else
            "every factor has the same verdict in both")


def plot_compare(plt, names, pairs, out):
    """compare.png/.svg: per phase a bar per survey, as long as its maximum,
    a tick at its p99.99; log scale."""
    from .plots import save
    fig, ax = plt.subplots(figsize=(10, 0.5 * len(pairs) + 1.5))
    height = 0.38
    for k, name in enumerate(names):
        ys = [i + (k - 0.5) * height for i in range(len(pairs))]
        runs = [p[1 + k] for p in pairs]
        ax.barh([y for y, r in zip(ys, runs) if r], [r["max"] for r in runs if r],
                height=height, color=f"C{k}", label=f"{name}: maximum")
        ax.plot([r["pct"][P9999].hi for r in runs if r], [y for y, r in zip(ys, runs) if r],
                linestyle="none", marker="|", markersize=12, color="black",
                label="p99.99" if k else None)
    ax.set_yticks(range(len(pairs)))
    ax.set_yticklabels([w for w, _, _ in pairs])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("latency (µs)")
    ax.legend(fontsize="small")
    save(fig, out, "compare")


def write_compare(svs, runs, cost_rows, out, plt, unread, written):
    """compare.md and compare.html of the surveys @svs (two), their runs
    (@runs: a list per survey) and cost rows, in @out, beside the plots
    written (@written); @unread: the files that could not be read. Returns
    the plots it wrote itself."""
    names = [s.name for s in svs]
    pairs = side_by_side(*runs)
    own = set()
    if plt and pairs:
        plot_compare(plt, names, pairs, out)
        plt.close("all")
        own.add("compare.png")
    title = f"Real-time profiles side by side: {names[0]} and {names[1]}"
    lines = []
    for s, rs in zip(svs, runs):
        top = max(rs, key=lambda r: r["max"]) if rs else None
        worst = (f'worst {us(top["max"])} µs in {top["phase"]}' if top else "no timer run")
        virtual = ", a virtual machine" if is_virtual(s) else ""
        kernel = s.system_value("kernel").split(" ")[0]
        lines.append(f"{s.name}: {board_of(s)}{virtual}, Linux {kernel}; {outcome_line(s)}; "
                     f"{worst}.")
        lines += [f"{s.name}: {t}" for t in bound_text(rs)] if rs else []
    if svs[0].setup and svs[1].setup:
        lines.append("Setup " + setup_differences(*setup_by(svs)) + ".")
    blocks = [("h", 1, title, None), ("h", 2, "Summary", "summary"), ("ul", lines + unread)]
    blocks += compare_boards(svs) + compare_setup(svs) + compare_latency(names, pairs)
    blocks += plots(own, (("compare.png", "each phase's maximum, per survey"),))
    blocks += cost(cost_rows, written)
    if cost_rows:
        blocks.append(("p", f"The cost rows compare {cost_rows[-1]['label']} with "
                       f"{cost_rows[0]['label']}, the first row."))
    write_page(blocks, out, "compare", title)
    return own
