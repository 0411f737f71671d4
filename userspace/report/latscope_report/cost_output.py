# SPDX-License-Identifier: GPL-2.0
"""What latscope-report writes of the cost rows: cost.txt/cost.md, the
rows as --json-out writes them, and cost.png/.svg."""

import os

from .cost import (ALL_VARIANTS, VARIANT_RUNS, VARIANTS, cell_state, has_load, interval,
                   workload_names)
from .plots import save
from .tables import figure, write_sections


def signed(x):
    """@x with its sign and one decimal, "+9.1"; never "-0.0"."""
    return f"{round(x, 1) + 0.0:+.1f}"


def percent_text(x):
    """A change in % with its sign, "+9.1 %"; never "-0.0 %"."""
    return f"{signed(x)} %"


def change(base, other):
    """How much longer @other took than @base, in % of @base; None without a base."""
    return None if not base else (other - base) / base * 100.0


def vs_first(rows, i, name, v):
    """An "ok" cell against the first row's same cell: how much longer in %
    of it, or "base" (it is the first row), "no base" (the first row has no
    mean) or "other work" (the first row's workload did other work)."""
    if i == 0:
        return "base"
    first = rows[0]
    if cell_state(first, name, v) != "ok" or not first["workloads"][name][v]["mean"]:
        return "no base"
    if first["workloads"][name]["what"] != rows[i]["workloads"][name]["what"]:
        return "other work"
    return change(first["workloads"][name][v]["mean"], rows[i]["workloads"][name][v]["mean"])


def time_text(rows, i, name, v):
    """A running time's cell: "0.612 ±0.004 (+9.1 %)", or what it has instead."""
    state = cell_state(rows[i], name, v)
    if state != "ok":
        return state
    s = rows[i]["workloads"][name][v]
    vs = vs_first(rows, i, name, v)
    vs = vs if isinstance(vs, str) else percent_text(vs)
    return f'{s["mean"]:.3f} ±{figure(s["stddev"], ".3f")} ({vs})'


def measured_change(row, name, v="measured"):
    """How much longer @name ran measured (or loaded, @v) than plain on
    @row's kernel, in %, or None (the word for it: cell_state())."""
    w = row["workloads"].get(name)
    if not all(cell_state(row, name, x) == "ok" for x in ("plain", v)):
        return None
    own = w["change" if v == "measured" else "load_change"]
    if own is not None:
        return own
    return change(w["plain"]["mean"], w[v]["mean"])


def measured_interval(row, name, v="measured"):
    """The 95 % interval (lo, hi) of measured_change(): for one file the
    one latscope wrote, if it did, else worked out from the runs; None (a
    single run a side, or no change)."""
    if measured_change(row, name, v) is None:
        return None
    w = row["workloads"][name]
    own = w["change_ci95" if v == "measured" else "load_change_ci95"]
    if own is not None:
        return own     # latscope's, as it wrote it
    return interval(w["plain"], w[v])


def change_text(x, ci, short=False):
    """A change @x in % with its interval @ci: "+9.1 % [+3.1, +15.0]";
    "no difference at this precision (±2.1 %)" when the interval holds 0
    (@short: "n.d. ±2.1 %", for a plot); "+9.1 % (no interval: 1 run)"
    without one."""
    if ci is None:
        return f"{percent_text(x)} (no interval: 1 run)"
    lo, hi = ci
    if lo > 0 or hi < 0:
        return f"{percent_text(x)} [{signed(lo)}, {signed(hi)}]"
    half = f"±{(hi - lo) / 2:.1f} %"
    return f"n.d. {half}" if short else f"no difference at this precision ({half})"


def measured_change_text(row, name, v="measured"):
    """measured_change() as a cell of the cost tables, with its interval
    (change_text()), or why there is none: "-", "skipped", "failed", "not
    run" or "no base"."""
    if v == "loaded" and not has_load(row):
        return "not run"
    x = measured_change(row, name, v)
    if x is not None:
        return change_text(x, measured_interval(row, name, v))
    states = [cell_state(row, name, x) for x in ("plain", v)]
    for state in ("-", "skipped", "failed", "not run"):
        if state in states:
            return state
    return "no base"     # a plain mean of 0


def runs_text(row, names, v):
    """How many runs the row's cells of variant @v are means of: "5", "2..5"."""
    counts = sorted({row["workloads"][n][v]["n"] for n in names
                     if cell_state(row, n, v) == "ok"})
    if not counts:
        return "-"
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}..{counts[-1]}"


def measured_text(row):
    """How the measuring latscope measured: "kernel on CPU1 every 1000 µs,
    priority 98"; "nothing (A/A control)" for latscope --cost --cost-aa."""
    if row["aa"]:
        return "nothing (A/A control: the second runs plain too)"
    return (f'{row["context"]} on CPU{row["cpu"]} every {row["period_us"]} µs, '
            f'priority {row["priority"]}')


LEGEND = ("skipped: the workload did not run, failed: a run of it failed, not run: "
          "no run of it was made (why: in the notes under Kernels); -: not in the file.")


def load_text(row):
    """The Kernels table's load cell: the load of the row's runs under
    load, "-" for none."""
    return row["load"] if has_load(row) else "-"


def cost_tables(rows):
    """[(title, head, alignment ("l"/"r" per column), rows, notes)] of cost.txt/.md.
    The load column and the tables of the loaded runs only when a row has them."""
    names = workload_names(rows)
    loaded = any(has_load(r) for r in rows)
    head = ["kernel", "release", "preemption", "measured"] + (["load"] if loaded else []) + \
        ["scale", "files", "measuring run's JSON"]
    kernels = (
        "Kernels", head, "l" * len(head),
        [[r["label"], r["release"], r["preemption"] or "?", measured_text(r)] +
         ([load_text(r)] if loaded else []) +
         [f'{r["scale_percent"]} %', ", ".join(os.path.basename(p["path"]) for p in r["parts"]),
          ", ".join(p["measuring_json"] or "-" for p in r["parts"])] for r in rows],
        ["measured: how the measuring latscope measured while the measured runs ran; " +
         ("load: the load (latscope --cost --stress: its preset and CPUs) the runs under "
          "load ran under, nothing measured; - for none; " if loaded else "") +
         "scale: the amount of work in % of the suite's full amount (--cost-scale); "
         "measuring run's JSON: the file the measuring latscope wrote, a latency run "
         "of this kernel."] + kernel_notes(rows))
    tables = [kernels]
    for v, title, when in (("plain", "Running time, plain (s)", "with nothing measured"),
                           ("measured", "Running time while measured (s)",
                            "while latscope measured (measured, in Kernels)")):
        tables.append((
            title, ["kernel", "runs"] + names, "lr" + "r" * len(names),
            [[r["label"], runs_text(r, names, v)] + [time_text(rows, i, n, v) for n in names]
             for i, r in enumerate(rows)],
            [f"Mean running time in seconds of each workload's runs {when}, ± their "
             "standard deviation (n - 1; - for a single run); in brackets how much longer "
             "(+) or shorter (-) it is than the first row's mean, in % of that: "
             "(mean - first mean) / first mean. Lower is faster. runs: how many runs "
             "each mean is of. no base: the first row has no mean to compare with; "
             "other work: its work differs from the first row's (Workloads). " + LEGEND]))
    tables.append((
        "Cost of being measured (%)", ["kernel"] + names, "l" + "r" * len(names),
        [[r["label"]] + [measured_change_text(r, n) for n in names] for r in rows],
        ["How much longer (+) or shorter (-) each workload ran while measured than "
         "plain on the same kernel, in % of plain: (measured mean - plain mean) / plain "
         "mean, from the two tables above, with its 95 % confidence interval in "
         "brackets (Welch's t on the two means, the ratio's spread by the delta method, "
         "the degrees of freedom rounded down, as latscope --cost works it out); "
         "no difference at this precision (±x %): the interval, x either side, holds 0, "
         "the runs cannot tell a price from their noise; no interval: a single run. " +
         LEGEND]))
    if loaded:
        tables.append((
            "Running time under load (s)", ["kernel", "runs"] + names, "lr" + "r" * len(names),
            [[r["label"], runs_text(r, names, "loaded")] +
             [time_text(rows, i, n, "loaded") for n in names] for i, r in enumerate(rows)],
            ["Mean running time in seconds of each workload's runs while the load ran, "
             "nothing measured (load, in Kernels), ± their standard deviation (n - 1; - "
             "for a single run); in brackets how much longer (+) or shorter (-) it is than "
             "the first row's mean under load, in % of that. Lower is faster. runs: how "
             "many runs each mean is of. not run: also every cell of a row without runs "
             "under load (load -); no base: the first row has no mean under load. " +
             LEGEND]))
        tables.append((
            "Cost of the load (%)", ["kernel"] + names, "l" + "r" * len(names),
            [[r["label"]] + [measured_change_text(r, n, "loaded") for n in names]
             for r in rows],
            ["How much longer (+) or shorter (-) each workload ran under load than plain "
             "on the same kernel, in % of plain: (loaded mean - plain mean) / plain mean, "
             "from Running time, plain and the table above, with its 95 % interval as in "
             "Cost of being measured. " + LEGEND]))
    tables.append(("Workloads", ["workload", "kernel", "what"], "lll",
                   workload_rows(rows, names),
                   ["what: the fixed work of each run, as the files say; kernel: the rows "
                    "whose runs did it (all: every row that ran the workload). A row whose "
                    "work differs from the first row's is not compared with it (other work)."]))
    return tables


def workload_rows(rows, names):
    """What each workload does, as its files say: a line per different
    work, with the rows that did it ("all" if every row that ran it did)."""
    out = []
    for n in names:
        ran = [r for r in rows if cell_state(r, n, "plain") not in ("-", "skipped")] or \
            [r for r in rows if n in r["workloads"]][:1]
        whats = {}
        for r in ran:
            whats.setdefault(r["workloads"][n]["what"], []).append(r["label"])
        for what, labels in whats.items():
            out.append([n, "all" if len(whats) == 1 else "; ".join(labels), what])
    return out


def kernel_notes(rows):
    """Notes on rows: merged files, interruptions, measuring runs that
    failed, workloads skipped or failed or throttled."""
    notes = []
    for r in rows:
        name, parts = r["label"], r["parts"]
        if has_load(r):
            cmds = ", ".join(f'"{c}"' for c in r["load_commands"]) or "-"
            notes.append(f'{name}: its runs under load ran under the load {r["load"]}, its '
                         f"commands: {cmds}.")
        if len(parts) > 1:
            notes.append(f'{name}: {len(parts)} files merged '
                         f'({", ".join(os.path.basename(p["path"]) for p in parts)}): each '
                         "mean and stddev is of all their runs of the workload together.")
        for p in parts:
            file = f' ({os.path.basename(p["path"])})' if len(parts) > 1 else ""
            if p["interrupted"]:
                notes.append(f"{name}{file}: interrupted: its figures are of the runs made "
                             "before the signal.")
            if p["measuring_exit"] != 0:
                notes.append(f'{name}{file}: the measuring latscope exited with status '
                             f'{p["measuring_exit"]}.')
        for n in workload_names([r]):
            w = r["workloads"][n]
            if w["skipped"]:
                notes.append(f'{name}: {n} skipped: {w["skipped"]}')
                continue
            ran = "the file" if w["ran_in"] == 1 else f'the {w["ran_in"]} files'
            for path, why in w["not_ran"]:
                notes.append(f'{name}: {n} skipped in {os.path.basename(path)}: {why}; its '
                             f'figures are of {ran} that ran it.')
            if w["missing_in"]:
                missing = ", ".join(map(os.path.basename, w["missing_in"]))
                notes.append(f'{name}: {n} not in {missing}; its figures are of {ran} '
                             'that ran it.')
            for v in ALL_VARIANTS:
                for path, why in w[v]["failed"]:
                    file = f" in {os.path.basename(path)}" if len(parts) > 1 else ""
                    notes.append(f'{name}: {n} failed {VARIANT_RUNS[v]}{file}: {why}')
                for path, flags in w[v]["throttled"]:
                    file = f" in {os.path.basename(path)}" if len(parts) > 1 else ""
                    notes.append(f'{name}: {n} throttled {VARIANT_RUNS[v]}{file} '
                                 f'({", ".join(flags)}): its figures are of a slowed board.')
    return notes


def write_cost_tables(rows, out):
    """cost.txt and cost.md of the cost rows (cost_tables())."""
    write_sections(out, "cost", ("The cost suite (latscope --cost): running times in seconds",
                                 "The cost suite (`latscope --cost`): running times in seconds."),
                   cost_tables(rows))


def cost_json(rows, i):
    """A cost row as --json-out writes it: its files, settings, and per
    workload its runs and figures as tabled; when a row has runs under load,
    every row also its load and those runs ("loaded")."""
    r = rows[i]
    loaded = any(has_load(x) for x in rows)

    def variant(n, v):
        s = r["workloads"][n][v]
        vs = vs_first(rows, i, n, v) if cell_state(r, n, v) == "ok" else None
        return {"state": cell_state(r, n, v), "runs": s["runs"], "n": s["n"],
                "mean": s["mean"], "stddev": s["stddev"],
                "failed": [[p, why] for p, why in s["failed"]],
                "vs_first_percent": vs if isinstance(vs, float) else None}
    doc = {
        "label": r["label"],
        "files": [p["path"] for p in r["parts"]],
        **{k: r[k] for k in ("release", "preemption", "context", "cpu", "period_us",
                             "priority", "scale_percent")},
        "interrupted": any(p["interrupted"] for p in r["parts"]),
        "workloads": {n: {"what": w["what"], "skipped": w["skipped"],
                          **{v: variant(n, v) for v in VARIANTS},
                          "measured_vs_plain_percent": measured_change(r, n),
                          "measured_vs_plain_ci95": measured_interval(r, n)}
                      for n, w in r["workloads"].items()},
    }
    if loaded:
        doc["load"] = r["load_doc"] if has_load(r) else None
        for n, w in doc["workloads"].items():
            w["loaded"] = variant(n, "loaded")
            w["loaded_vs_plain_percent"] = measured_change(r, n, "loaded")
            w["loaded_vs_plain_ci95"] = measured_interval(r, n, "loaded")
    return doc


COST_TITLE = "Running time relative to the first kernel's plain run (= 1.0)"


HATCH = {"plain": None, "measured": "//", "loaded": ".."}


def change_label(row, name, v):
    """The label above a measured (or loaded) bar: its change against
    plain with the 95 % interval, "+11.1 % [+0.1, +22.2]", or "n.d. ±32.1 %"
    (no difference at this precision); None without a change."""
    x = measured_change(row, name, v)
    if x is None:
        return None
    return change_text(x, measured_interval(row, name, v), short=True)


def plot_cost(plt, rows, out):
    """cost.png/.svg: per workload a bar per kernel, plain, and beside it a
    hatched one while measured and, when a row has them, a dotted one
    under load, each divided by the first kernel's plain mean of that
    workload, ± stddev likewise, and above each hatched or dotted bar its
    change against the row's plain with the 95 % interval (change_label());
    a workload the first kernel has no plain mean of has no bar."""
    import matplotlib.lines
    import matplotlib.patches
    names = workload_names(rows)
    variants = ALL_VARIANTS if any(has_load(r) for r in rows) else VARIANTS
    fig, ax = plt.subplots(figsize=(10, 6))
    width = 0.8 / (len(variants) * len(rows))
    ticks = []
    for x, n in enumerate(names):
        first = rows[0]
        base = (first["workloads"][n]["plain"]["mean"]
                if cell_state(first, n, "plain") == "ok" else None)
        ticks.append(n if base else f"{n}\n(no base)")
        if not base:
            continue
        for i, r in enumerate(rows):
            for j, v in enumerate(variants):
                pos = x - 0.4 + (len(variants) * i + j + 0.5) * width
                state = cell_state(r, n, v)
                if state == "ok" and r["workloads"][n]["what"] == first["workloads"][n]["what"]:
                    s = r["workloads"][n][v]
                    top = (s["mean"] + (s["stddev"] or 0)) / base
                    ax.bar(pos, s["mean"] / base, width, color=f"C{i}",
                           hatch=HATCH[v],
                           edgecolor="black" if HATCH[v] else f"C{i}",
                           yerr=None if s["stddev"] is None else s["stddev"] / base,
                           capsize=3)
                    label = change_label(r, n, v) if v != "plain" else None
                    if label:
                        ax.text(pos, top * 1.02, label, rotation=90, ha="center",
                                va="bottom", fontsize="xx-small")
                else:
                    ax.text(pos, 0.02, "other work" if state == "ok" else state,
                            rotation=90, ha="center", va="bottom", fontsize="x-small")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(ticks)
    ax.set_ylabel("running time / first kernel's plain mean")
    ax.set_title(COST_TITLE)
    ax.grid(True, axis="y", alpha=0.3)
    handles = [matplotlib.patches.Patch(color=f"C{i}", label=r["label"])
               for i, r in enumerate(rows)]
    handles += [matplotlib.patches.Patch(facecolor="white", edgecolor="black", label="plain"),
                matplotlib.patches.Patch(facecolor="white", edgecolor="black", hatch="//",
                                         label="while measured")]
    if "loaded" in variants:
        handles.append(matplotlib.patches.Patch(facecolor="white", edgecolor="black",
                                                hatch="..", label="under load"))
    handles.append(matplotlib.lines.Line2D([], [], color="black", label="± stddev"))
    handles.append(matplotlib.patches.Patch(
        color="none", label="above a bar: its change against plain, 95 % interval;\n"
        "n.d.: no difference at this precision (± half the interval)"))
    # Room above the bars for their labels and the legend.
    ax.set_ylim(0, ax.get_ylim()[1] * (1.45 + 0.05 * (len(rows) + len(variants) - 1)))
    ax.legend(handles=handles, fontsize="small", loc="upper center", ncol=2)
    save(fig, out, "cost")
