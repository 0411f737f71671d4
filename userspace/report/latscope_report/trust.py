# SPDX-License-Identifier: GPL-2.0
"""latscope-report's trust.txt/trust.md: can each run's worst case be
trusted? Per run (a label, one file or several merged), per file: the
setup verdict the run carried (latscope's "setup": which factors cost
latency, and how to fix them), and the extreme-value estimate of its
worst case (evt.py: the tests, the bounds, whether the maximum has
stopped moving, how much longer to run), or why there is none."""

import re

VERDICT_ORDER = {"costs latency": 0, "unknown": 1, "ok": 2}


def evt_of(doc):
    """The estimate of a run's JSON document; without SciPy, a result that
    says so (the other tables and plots do not need it)."""
    try:
        from . import evt
    except ImportError as e:
        return {"status": "no estimate", "reason": f"latscope_report.evt cannot be loaded ({e}); "
                "it needs python3-scipy"}
    return evt.estimate(doc)


def setup_of(doc):
    """The setup verdict a run's file holds, or None (older files, monitors)."""
    setup = doc.get("setup")
    if not isinstance(setup, dict) or not isinstance(setup.get("checks"), list):
        return None
    return setup


def setup_line(setup):
    """"3 of 18 factors cost latency: preemption, isolation, irqs"."""
    if setup is None:
        return "no setup verdict in this file (latscope before --check-setup)"
    costs = [c["name"] for c in setup["checks"] if c.get("verdict") == "costs latency"]
    unknown = [c["name"] for c in setup["checks"] if c.get("verdict") == "unknown"]
    text = f'{len(costs)} of {len(setup["checks"])} factors cost latency'
    if costs:
        text += ": " + ", ".join(costs)
    if unknown:
        text += f'; {len(unknown)} unknown: ' + ", ".join(unknown)
    if setup.get("applied"):
        text += f' (applied for the run: {setup["applied"]})'
    return text


def setup_cell(setup):
    """The table's column: "3 cost: preemption, isolation, irqs", "ok", "-"."""
    if setup is None:
        return "-"
    costs = [c["name"] for c in setup["checks"] if c.get("verdict") == "costs latency"]
    return f'{len(costs)} cost: {", ".join(costs)}' if costs else "ok"


def setup_section(run, part):
    """A section of the factors that did not say ok, worst first."""
    setup = part["setup"]
    title = f'{run["label"]}: setup ({part["path"]})'
    if setup is None:
        return (title, None, None, None, [setup_line(setup)])
    bad = sorted((c for c in setup["checks"] if c.get("verdict") != "ok"),
                 key=lambda c: VERDICT_ORDER.get(c.get("verdict"), 1))
    rows = [[c.get("title", c.get("name", "?")), c.get("verdict", "?"), c.get("value", ""),
             c.get("fix", "")] for c in bad]
    notes = [setup_line(setup)]
    if not rows:
        return (title, None, None, None, notes)
    return (title, ["factor", "verdict", "this board", "fix"], ["l", "l", "l", "l"], rows, notes)


def us(x):
    """A figure in µs to one decimal; "-" for None."""
    return "-" if x is None else f"{x:.1f}"


def evt_section(run, part):
    """The estimate: its sentence, the bounds, the tests, convergence, advice."""
    e = part["evt"]
    title = f'{run["label"]}: worst-case estimate ({part["path"]})'
    status = e.get("status", "?")
    if status != "ok":
        # The reason may say "no bound: ..." itself: said once.
        reason = re.sub(r"^no bound:\s*", "", e.get("reason") or "")
        notes = [f'no bound ({status}): {reason}']
        for t in e.get("tests", []):
            notes.append(f'{t["name"]}: p = {t["p"]:.3g}, {"passed" if t["pass"] else "FAILED"} '
                         f'({t["what"]})')
        return (title, None, None, None, notes)
    rows = [[f'1 {b["per"]}', f'{b["p"]:.0e}', us(b.get("estimate_us")), us(b.get("upper_us"))]
            for b in e.get("bounds", [])]
    notes = [e.get("sentence", ""), e.get("method", "")]
    notes += [f'{t["name"]}: p = {t["p"]:.3g}, {"passed" if t["pass"] else "FAILED"} ({t["what"]})'
              for t in e.get("tests", [])]
    conv = e.get("convergence") or []
    if conv:
        steps = ", ".join(f'{c["fraction"]:.0%}: {us(c.get("upper_us"))}' for c in conv)
        moving = {True: "stable", False: "still moving", None: "not known"}[e.get("stable")]
        notes.append(f"convergence of the per-hour upper bound over the run (µs): {steps}; "
                     f"{moving}")
    if e.get("max_last_rose_at_s") is not None:
        notes.append(f'the observed maximum ({us(e.get("observed_max_us"))} µs) last rose '
                     f'at {e["max_last_rose_at_s"]:.0f} s')
    adv = e.get("advice") or {}
    if adv:
        more = adv.get("minutes_more")
        notes.append(f'run length: {adv.get("target", "")}: '
                     + ("reached" if more == 0 else "not known" if more is None
                        else f"about {more:.0f} more minutes of this load"))
    return (title, ["exceedance of", "probability", "estimate µs", "upper bound µs"],
            ["l", "r", "r", "r"], rows, notes)


def trust_sections(runs):
    """write_sections()'s sections for trust.txt/.md: per run and file, its
    setup verdict, then its estimate."""
    sections = []
    for run in runs:
        for part in run["parts"]:
            sections.append(setup_section(run, part))
            sections.append(evt_section(run, part))
    return sections


INTRO = ("Can each run's worst case be trusted: the setup each run was measured on "
         "(what cost latency, and the fix), and an extreme-value estimate of its worst "
         "case from its per-second maxima, with the tests it must pass first.")
