# SPDX-License-Identifier: GPL-2.0
"""latscope-report: plots and tables that compare latscope runs and cost suites.

usage: latscope-report [-o DIR] [--label LABEL]... [--no-merge]
                       [--json-out FILE] FILE.json...
       latscope-report [-o DIR] [--json-out FILE] SURVEY
       latscope-report [-o DIR] [--label A --label B] [--json-out FILE] SURVEY_A SURVEY_B

Reads the JSON files `latscope --json` wrote, latency runs and the cost
suite's (`latscope --cost --json`), in any mix, and writes to DIR
(default "."). For the latency runs, one line or bar per run, each
labelled with its kernel release, preemption model, context, period and
load (or --label, given once per file, in order):

  tail.png/.svg       latency at 50, 90, 99, 99.9, 99.99, 99.999, 99.9999 %
  cdf.png/.svg        cumulative distribution of the latency
  timeline.png/.svg   per-second max, avg and min over the run
  histogram.png/.svg  the histogram, log count axis
  heat.png/.svg       temperature and CPU clock over the run, throttled
                      seconds shaded; not written (a line says why) when
                      no run read a temperature or a clock
  table.txt, table.md min, avg, max, the rule of thumb beside it, stddev,
                      percentiles, overruns, heat, samples and duration
                      of every run, and the spread of merged ones
  noise.txt, noise.md with noise runs (latscope --noise), whose samples
                      are the gaps a busy thread saw: per run its
                      runtime, noise, share of the CPU left, largest gap
                      and gaps by kind
  worst.txt, worst.md per run its worst samples (at most 8, the worst
                      first) as latscope's recorder (--why, the JSON's
                      "worst") explained them: latency, CPU, when, the
                      parts (irq, wake, sched, run; ? not known), the
                      task and code interrupted, the longest things that
                      ran; or a line that says why a run has none (the
                      recorder off, a file older than it), notes on
                      files without records and what it could not see
  trust.txt, trust.md per run and file: the setup verdict it was
                      measured with (the factors that cost latency,
                      the fix), then the extreme-value estimate of its
                      worst case (latscope-evt: the tests on its
                      per-second maxima, the bounds at 1e-3 per
                      minute, hour and day, convergence, how much
                      longer to run), or why there is none (a run
                      under 10 min, a test failed); needs python3-scipy
  worst.png/.svg      a bar per worst sample, as long as its latency, its
                      segments what its time went to: a colour per
                      culprit (the 8 that took the most time, the rest
                      "other"), not known, and latscope's own / rest;
                      not written (a line says why) when no run has a
                      record

For the cost files, written only when one is given, one row per file,
labelled with its kernel release, preemption model and how the measuring
run measured: "6.12.0 (PREEMPT_RT, kernel every 1000 µs)", the label
of its measuring run's latency file without the load; its first row is
the one the others are compared with:

  cost.txt, cost.md   the kernels (release, preemption, how measured,
                      scale, files, the measuring run's JSON); the mean
                      running time of each workload plain and, in a
                      second table, while measured, in s ± the runs'
                      stddev, with how much longer in % than the first
                      row's; the cost of being measured (measured against
                      plain, in %, per kernel and workload, with its 95 %
                      interval, or "no difference at this precision
                      (±x %)" when that holds 0); the work of
                      each workload; notes on skipped, failed, throttled
                      and interrupted runs. When a file has runs under
                      load (latscope --cost --stress PRESET: a load runs,
                      nothing is measured), also a load column in the
                      kernels table (preset and CPUs, - for none), the
                      running time under load in a table of its own (%
                      against the first row's under load; "not run" in a
                      row without them) and the cost of the load (loaded
                      against plain, in %, with its interval, "not run"
                      likewise)
  cost.png/.svg       per workload a bar per kernel, plain, and a hatched
                      one while measured (and a dotted one under load,
                      when a file has runs under load), relative to the
                      first kernel's plain mean (1.0), ± stddev, each
                      hatched or dotted bar labelled with its change and
                      interval ("n.d. ±x %": no difference)

Given only cost files, the latency outputs are not written, and a line
says so.

Files of one kind with the same label are repeats of one setup and become
one row. Latency runs: their histograms and tails summed, samples,
overruns, underflow, overflow and duration summed, min and max of all,
avg weighted by samples, stddev "-" (a file holds its stddev, not the
sums that would merge it exactly), percentiles read off the summed
histogram, the worst 8 of all their worst-sample records; the table
gives the range of their maxima and p99.9. They must agree on kernel
release, preemption model, load, context, period and histogram cells,
and be different runs, or nothing is written; files without records
merge as before, and worst.md names those the records come from. Cost
files: each workload's runs of all of them together, mean and stddev
recomputed from those runs (not a mean of means; a row of one file keeps
latscope's own figures); they must agree on kernel release, preemption
model, the measuring run's context, period, CPU and priority, scale,
each workload's work and the load of the runs under load (preset, CPUs
and commands, or none), and be different suites, or nothing is written.
The default cost label leaves the load out (the measuring run it names
ran without it), so two cost files of one kernel, one with runs under
load and one without or with two loads, are refused under it: give them
labels of their own, or --no-merge. --no-merge keeps every file a row of its
own. --json-out FILE writes the runs as tabled, histograms and tails
included, with what each file says of the recorder ("why") and the worst
records as worst.md has them ("worst"), and the cost rows ("cost", with
every run; "load" and each workload's "loaded" when a file has runs under
load) as JSON.

Percentiles are read off the histogram and its logarithmic tail as
latscope itself does, and written as it prints them: a rank in a linear
cell as the cell's upper edge ("6.000"); a rank in a tail bucket as
"<=X(-P%)", at most X (the bucket's upper edge, or the maximum if lower)
and at least P % less (down to the bucket's lower edge); a rank past the
histogram of a file without a tail (an older driver) as "<=max", which
only the maximum bounds.

The rule of thumb beside the maximum is 10^5 / f, f the measured CPU's
highest clock in MHz, in us (100 us at 1000 MHz): what PREEMPT_RT on a
tuned board is often said to reach, not a limit.

A survey's directory (latscope --survey SURVEY) in place of the files:
its profile, in DIR (default SURVEY/profile): everything above of its
runs (each labelled with its phase, "02-user-quiet") and its cost
suite, and

  profile.md          the profile a reader takes to a design review: a
  profile.html        summary (the phases' outcome, the worst latency and
                      where, its worst sample explained, the worst-case
                      bound or why there is none, the setup verdict's
                      count, the price of being measured; the maximum and
                      p99.99 of each context under each load), the board
                      (system.txt), the survey's command, plan and
                      outcomes (survey.txt), the setup verdict (every
                      factor), the latency table and plots, the worst
                      samples explained, each run's EVT bound, the cost
                      suite's tables and plot, the files. The HTML page
                      is one file: its plots embedded, no script, nothing
                      fetched; text in it (a task's name) is never markup

A phase's file that cannot be read (a failed phase's; one with values of
kinds latscope does not write; a symlink, a FIFO, missing) is left out
and said, in the summary and on standard error. Without -o the profile
goes into SURVEY/profile through the directories' descriptors, checked
to be this user's and writable by no one else; the pages embed only the
plots this report wrote, each a PNG read without following a symlink. Two surveys' directories:
both surveys' runs ("NAME: 02-user-quiet", NAME the directory's name or
its --label) and cost suites (the second against the first) in the
files above, and, in DIR (default .),

  compare.md          the two side by side: a summary line each, the
  compare.html        boards (system.txt), the setup verdicts factor by
                      factor, each phase's maximum, p99.99, average and
                      EVT bound per hour of both, the cost suite's tables
  compare.png/.svg    per phase a bar per survey, its maximum, a tick at
                      its p99.99, log scale

Exit status: 0, or 2 for a bad argument, a file that is neither a
latscope latency run's JSON result nor the cost suite's or does not add
up, or files of one label that cannot be merged (named in the message),
a directory that is no survey's (no survey.txt), a survey and files
mixed, more than two surveys, or two of one name without --label, a
survey without -o whose directory is another user's or writable by
others, or whose profile is a symlink (its profile/ could lead anywhere);
3 when matplotlib cannot be loaded: the text tables are written, no plot,
and a line names the Debian package (python3-matplotlib).
"""

import argparse
import json
import os
import sys

from . import trust
from .cost import cost_rows_of, load_cost
from .cost_output import cost_json, cost_tables, plot_cost, write_cost_tables
from .files import written_whole
from .plots import plot_cdf, plot_heat, plot_histogram, plot_tail, plot_timeline, plotting
from .runs import BadRun, load_run, runs_of
from .tables import (run_json, table_notes, table_rows, write_noise_tables, write_sections,
                     write_tables)
from .worst import plot_worst, worst_sections, write_worst_tables
from . import profile
from .survey import Survey, read_bytes


# The largest JSON file read: a day's run with its timeline is some MiB.
JSON_LIMIT = 256 << 20


def load(path, label, follow=True):
    """The latency run or the cost suite's result in @path: a latency run's
    file has no "kind", the cost suite's says "cost". A regular file of at
    most JSON_LIMIT bytes, opened without blocking (a FIFO is refused, not
    waited on), a symlink followed only if @follow. UTF-8 whatever the
    locale; bytes that are not (a task's name in a file written before
    latscope escaped them) read as U+FFFD, as latscope writes them now."""
    data = read_bytes(path, JSON_LIMIT, follow)
    if data is None:
        raise BadRun(f"{path}: No such file or directory")
    try:
        doc = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError) as e:
        raise BadRun(f"{path}: cannot read it as JSON: {str(e)[:200]}") from e
    if isinstance(doc, dict) and doc.get("kind") == "cost":
        return load_cost(path, label, doc)
    if isinstance(doc, dict) and "kind" in doc:
        raise BadRun(f'{path}: a "{doc["kind"]}" document, neither a latency run\'s '
                     "result nor the cost suite's")
    return load_run(path, label, doc)


def write_json(runs, cost_rows, path):
    """The runs, and the cost rows if there are any, as JSON."""
    doc = {"runs": [run_json(r) for r in runs]}
    if cost_rows:
        doc["cost"] = [cost_json(cost_rows, i) for i in range(len(cost_rows))]
    with written_whole(path) as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


def plot_skipped(out, name, why):
    """The line that says NAME.png was not written, and that one already in
    @out is from an earlier report."""
    line = f"latscope-report: {name}.png not written: {why}"
    if os.path.exists(os.path.join(out, f"{name}.png")):
        line += f"; the {name}.png in {out} is an earlier report's"
    return line


LATENCY_OUTPUTS = ["table.txt", "table.md", "worst.txt", "worst.md"] + [
    f"{n}.{e}" for n in ("tail", "cdf", "timeline", "histogram", "heat", "worst")
    for e in ("png", "svg")]


def latency_skipped(out):
    """The line that says no latency output was written, and that those
    already in @out are from an earlier report."""
    line = ("latscope-report: no latency run given: table.txt, table.md, worst.txt, "
            "worst.md, tail, cdf, timeline, histogram, heat and worst not written")
    earlier = [n for n in LATENCY_OUTPUTS if os.path.exists(os.path.join(out, n))]
    if earlier:
        line += f"; the {', '.join(earlier)} in {out} are an earlier report's"
    return line


def write_report(runs, nr_files, cost_rows, nr_costs, out, shown=None):
    """The tables and plots of @runs (of @nr_files files) and @cost_rows (of
    @nr_costs files) in @out (@shown in messages, if other): what each was
    made of, said in a phrase each, what keeps the plots from being made
    (None), and the plots written, by name ("tail.png")."""
    plt, missing = plotting()
    said, written = [], set()
    shown = shown or out
    if runs:
        write_tables(runs, out)
        write_noise_tables(runs, out)
        for name, plot in (("tail", plot_tail), ("cdf", plot_cdf), ("timeline", plot_timeline),
                           ("histogram", plot_histogram)) if plt else ():
            plot(plt, runs, out)
            plt.close("all")
            written.add(f"{name}.png")
        write_worst_tables(runs, out)
        write_sections(out, "trust", (trust.INTRO, trust.INTRO),
                       trust.trust_sections(runs))
        for name, plot in (("heat", plot_heat), ("worst", plot_worst)) if plt else ():
            why = plot(plt, runs, out)
            plt.close("all")
            if why:
                print(plot_skipped(out, name, why).replace(f" in {out} ", f" in {shown} "))
            else:
                written.add(f"{name}.png")
        merged = f" ({nr_files} files)" if nr_files != len(runs) else ""
        said.append(f"{len(runs)} run{'s' if len(runs) != 1 else ''}{merged}")
    else:
        print(latency_skipped(out).replace(f" in {out} ", f" in {shown} "))
    if cost_rows:
        write_cost_tables(cost_rows, out)
        if plt:
            plot_cost(plt, cost_rows, out)
            plt.close("all")
            written.add("cost.png")
        merged = f" ({nr_costs} files)" if nr_costs != len(cost_rows) else ""
        said.append(f"{len(cost_rows)} cost row{'s' if len(cost_rows) != 1 else ''}{merged}")
    return said, missing, written


def tried(f):
    """What the report makes of the file @f alone, made and thrown away: a
    file whose values are not of the kinds latscope writes fails here, and
    is left out of a survey's profile, not its end."""
    if f.get("kind") == "cost":
        cost_tables(cost_rows_of([f], False, True))
        return
    for r in runs_of([f], False, True):
        table_rows([r])
        table_notes([r])
        run_json(r)
        worst_sections([r])
        trust.trust_sections([r])


def read_survey(sv, prefix, cost_label, unread):
    """The runs of the survey @sv, labelled by phase after @prefix, and its
    cost files labelled @cost_label; a file that cannot be read (a phase
    that failed as it wrote it) is said in @unread, not fatal."""
    files, costs = [], []
    unread += sv.missing
    for phase, path in sv.files + sv.cost_files:
        try:
            f = load(path, prefix + phase if not phase.endswith("-cost") else cost_label,
                     follow=False)
            tried(f)
        except BadRun as e:
            unread.append(f"{sv.name}: {phase} left out: {e}")
            continue
        except (TypeError, ValueError, KeyError, AttributeError, IndexError,
                ZeroDivisionError, RecursionError) as e:
            unread.append(f"{sv.name}: {phase} left out: a value of an unexpected kind "
                          f"({type(e).__name__}: {str(e)[:120]})")
            continue
        f["phase"] = phase
        (costs if f.get("kind") == "cost" else files).append(f)
    runs = runs_of(files, False, True) if files else []
    phase_of = {f["label"]: f["phase"] for f in files}
    for r in runs:
        r["phase"] = phase_of[r["label"]]
    return runs, costs


def surveys_main(args):
    """latscope-report DIR (a survey's profile) or DIR_A DIR_B (two side by
    side): the report of their files, then profile.md/.html or
    compare.md/.html; the exit status."""
    if len(args.runs) > 2 or not all(os.path.isdir(p) for p in args.runs):
        print("latscope-report: give one survey's directory (its profile), two (side by "
              "side), or JSON files, not a mix: " + " ".join(args.runs), file=sys.stderr)
        return 2
    if args.label and len(args.label) != len(args.runs):
        print(f"latscope-report: {len(args.label)} --label for {len(args.runs)} surveys: "
              "give one per survey or none", file=sys.stderr)
        return 2
    unread, runs, costs = [], [], []
    try:
        svs = [Survey(p) for p in args.runs]
        for s, l in zip(svs, args.label):
            s.name = l
        if len(svs) == 2 and svs[0].name == svs[1].name:
            raise BadRun(f"two surveys named {svs[0].name}: give each a --label")
        for s in svs:
            two = len(svs) == 2
            r, c = read_survey(s, f"{s.name}: " if two else "", s.name if two else None,
                               unread)
            runs.append(r)
            costs += c
        cost_rows = cost_rows_of(costs, False, True) if costs else []
    except BadRun as e:
        print(f"latscope-report: {e}", file=sys.stderr)
        return 2
    shown = args.output or (os.path.join(args.runs[0], "profile") if len(svs) == 1 else ".")
    every = [r for rs in runs for r in rs]
    try:
        if args.json_out:
            write_json(every, cost_rows, args.json_out)
        if args.output or len(svs) == 2:
            os.makedirs(shown, exist_ok=True)
            out = shown
        else:
            # Into the survey's own profile/, through its descriptor: the
            # survey's files were read; nothing is read by path after this.
            fd = svs[0].open_profile()
            try:
                os.fchdir(fd)
            finally:
                os.close(fd)
            out = "."
        said, missing, written = write_report(every, len(every), cost_rows, len(costs), out,
                                              shown)
        plt, _ = plotting()
        if len(svs) == 1:
            profile.write_profile(svs[0], runs[0], cost_rows, out, unread, written)
            said.append("profile.md and profile.html")
        else:
            written |= profile.write_compare(svs, runs, cost_rows, out, plt, unread, written)
            said.append("compare.md and compare.html")
    except BadRun as e:
        print(f"latscope-report: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"latscope-report: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    for line in unread:
        print(f"latscope-report: {line}", file=sys.stderr)
    print(f"latscope-report: {', '.join(said)}, files in {shown}")
    if missing:
        print(f"latscope-report: tables only, no plot: {missing}", file=sys.stderr)
        return 3
    return 0


def parser():
    """latscope-report's command line (tests/docs parses the docs' examples
    with it)."""
    ap = argparse.ArgumentParser(prog="latscope-report",
                                 description="Plots and tables that compare latscope runs "
                                             "and the cost suite's results.")
    ap.add_argument("-o", "--output", help="directory for the files [., or DIR/profile of "
                    "one survey's DIR]")
    ap.add_argument("--label", action="append", default=[],
                    help="label of a file, once per file (run or cost) in order; "
                         "files of one kind and label are merged into one row")
    ap.add_argument("--no-merge", dest="merge", action="store_false",
                    help="keep every file a row of its own, even with the label of another")
    ap.add_argument("--json-out", metavar="FILE",
                    help="also write the runs (and cost rows) as tabled, as JSON")
    ap.add_argument("runs", nargs="+", metavar="FILE.json",
                    help="latscope --json files: latency runs and cost suites (--cost)")
    return ap


def main(argv):
    """latscope-report with the arguments @argv (this module's docstring):
    reads the files, writes the tables, plots and --json-out; returns the
    exit status."""
    args = parser().parse_args(argv)
    if any(os.path.isdir(p) for p in args.runs):
        return surveys_main(args)
    args.output = args.output or "."
    if args.label and len(args.label) != len(args.runs):
        print(f"latscope-report: {len(args.label)} --label for {len(args.runs)} files: "
              "give one per file or none", file=sys.stderr)
        return 2
    labels = args.label or [None] * len(args.runs)
    try:
        loaded = [load(p, l) for p, l in zip(args.runs, labels)]
        files = [f for f in loaded if f.get("kind") != "cost"]
        costs = [f for f in loaded if f.get("kind") == "cost"]
        runs = runs_of(files, args.merge, bool(args.label)) if files else []
        cost_rows = cost_rows_of(costs, args.merge, bool(args.label)) if costs else []
    except BadRun as e:
        print(f"latscope-report: {e}", file=sys.stderr)
        return 2
    try:
        os.makedirs(args.output, exist_ok=True)
        if args.json_out:
            write_json(runs, cost_rows, args.json_out)
    except OSError as e:
        print(f"latscope-report: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    said, missing, _ = write_report(runs, len(files), cost_rows, len(costs), args.output)
    print(f"latscope-report: {', '.join(said)}, files in {args.output}")
    if missing:
        print(f"latscope-report: tables only, no plot: {missing}", file=sys.stderr)
        return 3
    return 0
