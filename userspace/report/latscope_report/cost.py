# SPDX-License-Identifier: GPL-2.0
"""latscope-report's cost suite files (`latscope --cost --json`): read and
checked, the files of one label merged into one row (each workload's runs
together, mean and stddev recomputed from them), and what a row's cells
hold."""

import math

from .runs import BadRun, check_agree, rows_of, run_id, same_run

# The suite's workloads in the order latscope runs them: the cost tables'
# columns; a workload latscope-report does not know comes after them.
WORKLOADS = ("queens-1", "queens-all", "hackbench", "switch", "fork", "fsync", "iperf3")
VARIANTS = ("plain", "measured")
# With the loaded pass (latscope --cost --stress): the runs while a load ran,
# nothing measured. A file without one has a loaded variant of no run.
ALL_VARIANTS = VARIANTS + ("loaded",)
VARIANT_RUNS = {"plain": "in its plain runs", "measured": "in its runs while measured",
                "loaded": "in its runs under load"}
# What cost files of one label must share to be one row, and its name in a
# message: one kernel, measured alike, the same amount of work and the same
# load (or none) for the loaded runs.
COST_MUST_AGREE = (("release", "kernel release"), ("preemption", "preemption model"),
                   ("context", "measured context"), ("period_us", "measured period (µs)"),
                   ("cpu", "measured CPU"), ("priority", "measured priority"),
                   ("scale_percent", "scale (%, the amount of work)"),
                   ("load", "load (of the runs under load)"),
                   ("load_commands", "load's commands"),
                   ("aa", "A/A control (--cost-aa)"))

# Student's t at 0.975 by degrees of freedom, a row each, as latscope's
# cost/stat.c has them: SciPy's stats.t.ppf(0.975, df) rounded up at the
# fourth decimal; the degrees of freedom are rounded down to a row.
T975 = ((1, 12.7063), (2, 4.3027), (3, 3.1825), (4, 2.7765), (5, 2.5706), (6, 2.4470),
        (7, 2.3647), (8, 2.3061), (9, 2.2622), (10, 2.2282), (11, 2.2010), (12, 2.1789),
        (13, 2.1604), (14, 2.1448), (15, 2.1315), (16, 2.1200), (17, 2.1099),
        (18, 2.1010), (19, 2.0931), (20, 2.0860), (21, 2.0797), (22, 2.0739),
        (23, 2.0687), (24, 2.0639), (25, 2.0596), (26, 2.0556), (27, 2.0519),
        (28, 2.0485), (29, 2.0453), (30, 2.0423), (40, 2.0211), (60, 2.0003),
        (120, 1.9800), (math.inf, 1.9600))


def cost_label_of(doc):
    """A cost file's default label: its kernel as a latency run's label
    names it, and how the measuring run measured (its context and period);
    a latency run's label adds its load."""
    si, m = doc["sysinfo"], doc["settings"]["measured"]
    if doc["settings"].get("aa"):
        return f'{si["release"]} ({si["preemption"] or "?"}, A/A control)'
    return f'{si["release"]} ({si["preemption"] or "?"}, {m["context"]} every {m["period_us"]} µs)'


def load_of(path, st):
    """The load of the loaded runs: ("NAME on CPUs", [commands]), or ("none",
    []) for a file without them (settings.load null, or older)."""
    ld = st.get("load")
    if ld is None:
        return "none", []
    if not isinstance(ld, dict) or not isinstance(ld.get("name"), str):
        raise BadRun(f"{path}: settings.load is {ld!r}, not null or a load")
    cpus = ld.get("cpus")
    return (f'{ld["name"]} on CPU{cpus}' if cpus else ld["name"]), list(ld.get("commands") or [])


NO_RUN = {"runs": [], "mean": None, "stddev": None, "failed": None, "throttled": []}


def throttled_of(heat):
    """The throttling flags seen during a variant's runs, [] if none or not read."""
    throttling = (heat or {}).get("throttling")
    return list(throttling["during_run"]) if throttling else []


def cost_variant(path, name, v):
    """A workload's variant: its runs (s), why it failed (None), the
    throttling flags seen. BadRun if its mean is not its runs'."""
    runs = [float(t) for t in v["runs"]]
    if any(not math.isfinite(t) or t < 0 for t in runs):
        raise BadRun(f"{path}: {name}: a running time that is not a time: {v['runs']}")
    if runs and (v["mean"] is None or
                 abs(v["mean"] - sum(runs) / len(runs)) > 1e-5 + 1e-6 * abs(v["mean"])):
        raise BadRun(f"{path}: {name}: its mean {v['mean']} is not that of its runs {v['runs']}")
    failed = v["failed"]
    if failed is not None and not isinstance(failed, str):
        raise BadRun(f"{path}: {name}: \"failed\" is {failed!r}, not null or a reason")
    return {"runs": runs, "mean": v["mean"] if runs else None,
            "stddev": v["stddev"] if len(runs) > 1 else None,
            "failed": failed, "throttled": throttled_of(v.get("heat"))}


def ci95_of(path, name, ci):
    """A workload's interval as its file has it: None, or (lo, hi), two
    finite numbers, lo <= hi; BadRun if it is anything else."""
    if ci is None:
        return None
    if (not isinstance(ci, list) or len(ci) != 2 or
            not all(isinstance(x, (int, float)) and math.isfinite(x) for x in ci) or
            ci[0] > ci[1]):
        raise BadRun(f"{path}: {name}: an interval that is not [lo, hi]: {ci!r}")
    return float(ci[0]), float(ci[1])


def load_cost(path, label, doc):
    """A cost suite's file: its kernel, how it measured, and per workload
    what it did, why it was skipped (None) and its variants: plain, measured
    and under load (of no run in a file without runs under load)."""
    try:
        si, st = doc["sysinfo"], doc["settings"]
        m = st["measured"]
        load_name, load_commands = load_of(path, st)
        cost = {
            "kind": "cost",
            "path": path,
            "label": label or cost_label_of(doc),
            "release": si["release"],
            "preemption": si["preemption"],
            "context": m["context"], "cpu": m["cpu"], "period_us": m["period_us"],
            "priority": m["priority"],
            "scale_percent": st["scale_percent"],
            # --cost-aa: the "measured" runs ran plain, nothing measured.
            "aa": bool(st.get("aa", False)),
            "run_id": run_id(doc),
            # The load of the runs under load: "none" without them.
            "load": load_name, "load_commands": load_commands, "load_doc": st.get("load"),
            "interrupted": bool(doc["interrupted"]),
            "measuring_json": doc["measuring_run"]["json"],
            "measuring_exit": doc["measuring_run"]["exit_code"],
            "workloads": {},
        }
        for w in doc["workloads"]:
            name = w["name"]
            if name in cost["workloads"]:
                raise BadRun(f"{path}: workload {name} twice")
            loaded = w.get("loaded")
            if loaded is not None and cost["load"] == "none":
                raise BadRun(f"{path}: {name} has runs under load but settings.load "
                             "names no load")
            cost["workloads"][name] = {
                "what": w["what"], "skipped": w["skipped"], "change": w["change_percent"],
                "load_change": w.get("loaded_change_percent"),
                # latscope's own intervals (from its runs before rounding), when it wrote them.
                "change_ci95": ci95_of(path, name, w.get("change_ci95")),
                "load_change_ci95": ci95_of(path, name, w.get("loaded_change_ci95")),
                **{v: cost_variant(path, name, w[v]) for v in VARIANTS},
                "loaded": NO_RUN if loaded is None else cost_variant(path, name, loaded)}
    except KeyError as e:
        raise BadRun(f"{path}: not a latscope cost suite's result (no {e})") from e
    except (TypeError, ValueError, AttributeError) as e:
        raise BadRun(f"{path}: not a latscope cost suite's result ({e})") from e
    return cost


def check_cost_mergeable(group):
    """BadRun unless the cost files of @group are different runs of one
    kernel, measured alike, with the same work."""
    first = group[0]
    for i, f in enumerate(group[1:], 1):
        check_agree(first, f, COST_MUST_AGREE)
        for name, w in f["workloads"].items():
            other = first["workloads"].get(name)
            if other and not other["skipped"] and not w["skipped"] and \
                    other["what"] != w["what"]:
                raise BadRun(f'{first["path"]} and {f["path"]} are both labelled '
                             f'"{first["label"]}" but their {name} did different work: '
                             f'"{other["what"]}" and "{w["what"]}"; give them labels of '
                             'their own, or --no-merge')
        other = same_run(f, group[:i])
        if other is not None:
            raise BadRun(f'{other["path"]} and {f["path"]} are the same suite (one '
                         'file twice): merged, its runs would count twice; give it once')


def stat(runs):
    """Mean and sample standard deviation (n - 1, None for one run) of @runs,
    as latscope computes them; (None, None) for no run."""
    n = len(runs)
    if not n:
        return None, None
    mean = sum(runs) / n
    if n == 1:
        return mean, None
    return mean, math.sqrt(sum((t - mean) ** 2 for t in runs) / (n - 1))


def t975(df):
    """Student's t at 0.975 for @df degrees of freedom rounded down to a
    row of T975; None below 1."""
    rows = [t for d, t in T975 if d <= df]
    return rows[-1] if rows else None


def interval(base, other):
    """The 95 % interval (lo, hi) of how much longer @other took than
    @base, in % of @base's mean, as latscope's cost/stat.c works it out:
    Welch's t on the two means, the ratio's spread by the delta method,
    the degrees of freedom rounded down; None with a single run a side.
    @base, @other: a row's variants (n, mean, stddev)."""
    if base["n"] < 2 or other["n"] < 2 or not base["mean"] or not other["mean"]:
        return None
    r = other["mean"] / base["mean"]
    a = base["stddev"] ** 2 / (base["n"] * base["mean"] ** 2)
    b = other["stddev"] ** 2 / (other["n"] * other["mean"] ** 2)
    se = r * math.sqrt(a + b)
    df = (a + b) ** 2 / (a * a / (base["n"] - 1) + b * b / (other["n"] - 1)) \
        if a + b > 0 else math.inf
    t = t975(df)
    return (r - t * se - 1) * 100.0, (r + t * se - 1) * 100.0


def merge_cost(group):
    """One row of the cost files of @group (check_cost_mergeable()'d): per
    workload and variant the runs of every file that ran it, together, and
    their mean and stddev recomputed from them all; "parts" keeps the files.
    A single file keeps its own mean and stddev (latscope's, from its runs
    before they were rounded to the ns)."""
    row = {k: group[0][k] for k in ("label", "release", "preemption", "context", "cpu",
                                    "period_us", "priority", "scale_percent", "aa", "load",
                                    "load_commands", "load_doc")}
    row["parts"] = group
    row["workloads"] = {}
    names = []
    for f in group:
        names += [n for n in f["workloads"] if n not in names]
    for name in names:
        have = [(f, f["workloads"][name]) for f in group if name in f["workloads"]]
        ran = [(f, w) for f, w in have if not w["skipped"]]
        merged = {
            "what": (ran or have)[0][1]["what"],
            # Skipped only if no file ran it; else the files that ran it.
            "skipped": None if ran else have[0][1]["skipped"],
            "files": len(group), "ran_in": len(ran),
            "not_ran": [(f["path"], w["skipped"]) for f, w in have if w["skipped"]] if ran else [],
            "missing_in": [f["path"] for f in group if name not in f["workloads"]],
            # Measured against plain, in %: one file's own (latscope's), else None
            # for measured_change() to work out from the means.
            "change": ran[0][1]["change"] if len(ran) == 1 else None,
            "load_change": ran[0][1]["load_change"] if len(ran) == 1 else None,
            "change_ci95": ran[0][1]["change_ci95"] if len(ran) == 1 else None,
            "load_change_ci95": ran[0][1]["load_change_ci95"] if len(ran) == 1 else None,
        }
        for v in ALL_VARIANTS:
            runs = [t for _, w in ran for t in w[v]["runs"]]
            if len(ran) == 1:
                mean, sd = ran[0][1][v]["mean"], ran[0][1][v]["stddev"]
            else:
                mean, sd = stat(runs)
            merged[v] = {
                "runs": runs, "n": len(runs), "mean": mean, "stddev": sd,
                "failed": [(f["path"], w[v]["failed"]) for f, w in ran if w[v]["failed"]],
                "throttled": [(f["path"], w[v]["throttled"]) for f, w in ran
                              if w[v]["throttled"]],
            }
        row["workloads"][name] = merged
    return row


def cost_rows_of(files, merging, labelled):
    """The cost table's rows: the files of one label merged, or with
    --no-merge each file alone (told apart by name if not --label'd)."""
    return rows_of(files, merging, labelled, check_cost_mergeable, merge_cost)


def workload_names(rows):
    """The workloads of any row: the suite's in its order, then others."""
    seen = []
    for r in rows:
        seen += [n for n in r["workloads"] if n not in seen]
    return [n for n in WORKLOADS if n in seen] + [n for n in seen if n not in WORKLOADS]


def has_load(row):
    """Whether @row's files ran the loaded pass (--stress)."""
    return row["load"] != "none"


def cell_state(row, name, v):
    """What a workload's variant of @row has: "ok" (a mean), "-" (not in
    the files), "skipped", "failed" or "not run" (no run made; every
    loaded cell of a row without the loaded pass)."""
    w = row["workloads"].get(name)
    if v == "loaded" and not has_load(row):
        return "not run"
    if w is None:
        return "-"
    if w["skipped"]:
        return "skipped"
    if w[v]["failed"]:
        return "failed"
    return "ok" if w[v]["n"] else "not run"
