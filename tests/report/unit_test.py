#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of latscope-report's arithmetic (userspace/report/latscope_report),
beside the golden tests of its output (check_report.py): percentiles read
off a histogram and its tail, summed tails and cells, two runs merged
(and refused), the cost suite's mean and stddev recomputed from the runs
and the 95 % interval of its changes, and what the EVT estimator takes from a timeline (its block maxima, "no
data", "too short", MIN_RUN_S). Each expected value is worked out by
hand in the comment above it. Also: the package's modules import only
those after them in __init__.py's list.

Needs Debian's numpy and SciPy (python3-scipy) for the EVT part. Ends
with "report unit: N passed, N failed"; exits 1 on any failure.

usage: unit_test.py [unittest's options, e.g. -k merge]
"""

import ast
import os
import re
import sys
import unittest

import numpy as np

PACKAGE = os.path.join(os.path.dirname(os.path.realpath(__file__)),
                       "..", "..", "userspace", "report")
sys.path.insert(0, PACKAGE)
sys.dont_write_bytecode = True      # no __pycache__ in the source tree
from latscope_report import cost, cost_output, evt, page, runs, survey, tables  # noqa: E402

# A timeline's columns as latscope writes them.
COLUMNS = ["second", "samples", "overruns", "min", "avg", "max"]


def pct_of(run, p):
    """latscope's p-th percentile of @run as the table writes it."""
    return tables.pct_text(runs.percentile(run, p))


def hist_run(**over):
    """A run as percentile() reads it: 10 samples, 5 in cell 0 (0-1 us),
    3 in cell 1 (1-2 us), then one in the tail bucket 2-4 us and one in
    4-8 us; the maximum 6.5 us, inside the last bucket."""
    run = {"samples": 10, "underflow": 0, "min": 0.2, "max": 6.5, "cell_us": 1.0,
           "cells": {0: 5, 1: 3}, "overflow": 2, "tail": [(2.0, 4.0, 1), (4.0, 8.0, 1)]}
    run.update(over)
    return run


class Percentiles(unittest.TestCase):
    """runs.percentile() and tables.pct_text(): the sample of rank
    ceil(samples * p / 100), below zero first, then the cells, then the tail."""

    def test_in_a_cell_its_upper_edge(self):
        # p50: rank ceil(10 * 0.5) = 5; cell 0 holds ranks 1-5: "<1 us",
        # written as the cell's upper edge, 1.000.
        self.assertEqual(runs.percentile(hist_run(), 50), runs.Pct("cell", 0.0, 1.0))
        self.assertEqual(pct_of(hist_run(), 50), "1.000")
        # p80: rank 8, the last of cell 1 (ranks 6-8): 2.000.
        self.assertEqual(pct_of(hist_run(), 80), "2.000")

    def test_cell_width(self):
        # Cells of 0.5 us: cell 1 ends at 1.0 us; p80's rank 8 is in it.
        self.assertEqual(pct_of(hist_run(cell_us=0.5), 80), "1.000")

    def test_in_a_tail_bucket_at_most_its_edge(self):
        # p90: rank 9, past the cells' 8: the bucket 2-4 us. At most 4.000,
        # at least its lower edge 2, (4000 - 2000) / 4000 = 50.0 % less.
        self.assertEqual(runs.percentile(hist_run(), 90), runs.Pct("tail", 2.0, 4.0))
        self.assertEqual(pct_of(hist_run(), 90), "<=4.000(-50.0%)")

    def test_tail_bucket_clipped_to_the_maximum(self):
        # p99: rank ceil(9.9) = 10, the bucket 4-8 us; its edge 8 clipped to
        # the maximum 6.5: (6500 - 4000) / 6500 = 38.46 % less, "-38.5%".
        self.assertEqual(runs.percentile(hist_run(), 99), runs.Pct("tail", 4.0, 6.5))
        self.assertEqual(pct_of(hist_run(), 99), "<=6.500(-38.5%)")

    def test_past_the_histogram_without_a_tail(self):
        # An older driver's file: no tail, 2 samples past the cells. p90's
        # rank 9 is past the 8 in cells: only the maximum bounds it.
        run = hist_run(tail=None)
        self.assertEqual(runs.percentile(run, 90), runs.Pct("max", 6.5, 6.5))
        self.assertEqual(pct_of(run, 90), "<=6.500")

    def test_below_zero(self):
        # 3 of 10 samples below zero: p30's rank 3 is among them, written
        # 0.000 (the cell below zero ends at 0).
        run = hist_run(underflow=3, cells={0: 2, 1: 3}, min=-1.5)
        self.assertEqual(runs.percentile(run, 30), runs.Pct("cell", -1.5, 0.0))
        self.assertEqual(pct_of(run, 30), "0.000")
        # p40: rank 4, the first of cell 0 (ranks 4-5): 1.000.
        self.assertEqual(pct_of(run, 40), "1.000")

    def test_rank_at_least_one(self):
        # p0 is the first sample's (rank max(1, 0) = 1), in cell 0.
        self.assertEqual(pct_of(hist_run(), 0), "1.000")

    def test_six_nines_of_a_million(self):
        # 10^6 samples: p99.9999's rank is ceil(999999.0) = 999999, the
        # last one in cell 0 (999999 samples); the one sample left is in
        # the tail. A float rank of 999999.0000001 would push it there.
        run = {"samples": 10 ** 6, "underflow": 0, "min": 0.1, "max": 30.0, "cell_us": 1.0,
               "cells": {0: 999999}, "overflow": 1, "tail": [(16.0, 32.0, 1)]}
        self.assertEqual(pct_of(run, 99.9999), "1.000")
        self.assertEqual(pct_of(run, 100), "<=30.000(-46.7%)")   # (30 - 16) / 30


class Sums(unittest.TestCase):
    """runs.sum_tails() and runs.sum_cells(): bucket by bucket, cell by cell."""

    def test_tails_summed_bucket_by_bucket(self):
        # 2-4: 1; 4-8: 2 + 3 = 5; 8-16: 1; sorted by bucket.
        a = [(4.0, 8.0, 2), (2.0, 4.0, 1)]
        b = [(4.0, 8.0, 3), (8.0, 16.0, 1)]
        self.assertEqual(runs.sum_tails([a, b]),
                         [(2.0, 4.0, 1), (4.0, 8.0, 5), (8.0, 16.0, 1)])

    def test_a_missing_tail_leaves_none(self):
        # One file without a tail: the sum cannot say where its overflow lies.
        self.assertIsNone(runs.sum_tails([[(2.0, 4.0, 1)], None]))

    def test_cells_summed_json_keys_as_numbers(self):
        # Cell 0: 2 + 1 = 3, cell 3: 1, cell 5: 4 (the JSON's keys are strings).
        self.assertEqual(runs.sum_cells([{"0": 2, "3": 1}, {"0": 1, "5": 4}]),
                         {0: 3, 3: 1, 5: 4})


def file_run(**over):
    """A file's run as load_run() leaves it, before merging: 4 samples of
    the 6.12 kernel context, 3 in cell 1 and 1 in the tail bucket 4-8."""
    run = {"path": "a.json", "label": "6.12 (PREEMPT_RT, kernel every 1000 µs, load none)",
           "release": "6.12.0", "preemption": "PREEMPT_RT", "load": "none",
           "context": "kernel", "period_us": 1000, "scenario": "1:1", "hist_cells": 100,
           "cell_us": 1.0, "run_id": ("board", 1000, "latscope -k"),
           "samples": 4, "min": 1.0, "avg": 2.0, "max": 5.0, "stddev": 1.2,
           "overruns": 1, "duration_s": 2.0, "cells": {1: 3}, "underflow": 0,
           "overflow": 1, "tail": [(4.0, 8.0, 1)],
           "heat": {"max_c": 50.0, "min_mhz": 600.0, "max_mhz": 1500.0, "throttled": [],
                    "throttled_s": 0},
           "records": []}
    run.update(over)
    return run


def other_run(**over):
    """A second run of file_run()'s setup: 6 samples, 1 below zero, 2 in
    cell 1, 3 in cell 2, no tail bucket used; it read no heat."""
    run = file_run(path="b.json", run_id=("board", 2000, "latscope -k"),
                   samples=6, min=0.5, avg=3.0, max=9.0, stddev=2.0, overruns=2,
                   duration_s=3.0, cells={1: 2, 2: 3}, underflow=1, overflow=0, tail=[],
                   heat={"max_c": None, "min_mhz": None, "max_mhz": None, "throttled": None,
                         "throttled_s": 0})
    run.update(over)
    return run


class Merging(unittest.TestCase):
    """runs.merge() and runs.check_mergeable(): repeats of one setup."""

    def test_merged_run(self):
        run = runs.merge([file_run(), other_run()])
        # samples 4 + 6 = 10, overruns 1 + 2 = 3, duration 2 + 3 = 5 s;
        # min of 1.0 and 0.5, max of 5.0 and 9.0.
        self.assertEqual((run["samples"], run["overruns"], run["duration_s"]), (10, 3, 5.0))
        self.assertEqual((run["min"], run["max"]), (0.5, 9.0))
        # avg weighted by samples: (2.0 * 4 + 3.0 * 6) / 10 = 2.6, not the
        # mean of the means (2.5); stddev not mergeable: None.
        self.assertAlmostEqual(run["avg"], 2.6)
        self.assertIsNone(run["stddev"])
        # cell 1: 3 + 2 = 5, cell 2: 3; underflow 0 + 1, overflow 1 + 0;
        # the tails summed: 4-8 holds 1.
        self.assertEqual(run["cells"], {1: 5, 2: 3})
        self.assertEqual((run["underflow"], run["overflow"]), (1, 1))
        self.assertEqual(run["tail"], [(4.0, 8.0, 1)])
        self.assertEqual([p["path"] for p in run["parts"]], ["a.json", "b.json"])

    def test_merged_percentiles_of_the_sum(self):
        # Ranks: 1 below zero, 2-6 cell 1, 7-9 cell 2, 10 the tail 4-8 (max
        # 9 does not clip it). p50: rank 5, cell 1: 2.000. p90: rank 9,
        # cell 2: 3.000. p99: rank 10: <=8.000, (8 - 4) / 8 = 50.0 % less.
        run = runs.merge([file_run(), other_run()])
        self.assertEqual([tables.pct_text(q) for q in run["pct"][:3]],
                         ["2.000", "3.000", "<=8.000(-50.0%)"])

    def test_merged_heat(self):
        # The hottest and the clocks of the run that read them; throttling
        # None: one run read no flags, so "none throttled" is not known.
        heat = runs.merge([file_run(), other_run()])["heat"]
        self.assertEqual((heat["max_c"], heat["min_mhz"], heat["max_mhz"]), (50.0, 600.0, 1500.0))
        self.assertIsNone(heat["throttled"])

    def test_one_file_stays_as_it_is(self):
        run = runs.merge([file_run()])
        self.assertEqual((run["avg"], run["stddev"], run["samples"]), (2.0, 1.2, 4))

    def test_refused_when_the_setup_differs(self):
        for key, value, what in (("release", "6.1.0", "kernel release"),
                                 ("context", "irq", "context"),
                                 ("period_us", 500, "period (µs)"),
                                 ("hist_cells", 200, "histogram cells"),
                                 ("cell_us", 0.5, "cell width (µs)")):
            with self.subTest(key=key):
                with self.assertRaisesRegex(runs.BadRun, re.escape(f"differ in {what}")):
                    runs.check_mergeable([file_run(), other_run(**{key: value})])

    def test_refused_when_one_run_twice(self):
        # A --checkpoint copy of a run says the same host, start and command line.
        with self.assertRaisesRegex(runs.BadRun, "are the same run"):
            runs.check_mergeable([file_run(), other_run(run_id=file_run()["run_id"])])
        # The same file given twice.
        with self.assertRaisesRegex(runs.BadRun, "are the same run"):
            runs.check_mergeable([file_run(), other_run(path="./a.json", run_id=None)])

    def test_different_runs_pass(self):
        runs.check_mergeable([file_run(), other_run()])

    def test_runs_of_merges_by_label_or_tells_apart(self):
        # Merging: one label, one run of both files.
        self.assertEqual(len(runs.runs_of([file_run(), other_run()], True, False)), 1)
        # --no-merge without --label: a row each, the file's name added.
        rows = runs.runs_of([file_run(), other_run()], False, False)
        self.assertEqual([r["label"][-8:] for r in rows], ["[a.json]", "[b.json]"])


def cost_doc(plain, scale=100, stddev=None):
    """A cost suite's document with one workload, fork, whose plain runs
    are @plain (its mean theirs, its stddev @stddev as latscope wrote it)
    and measured runs the same; at @scale % of the work."""
    variant = {"runs": plain, "mean": sum(plain) / len(plain), "stddev": stddev,
               "failed": None}
    return {"kind": "cost",
            "sysinfo": {"release": "6.12.0", "preemption": "PREEMPT_RT"},
            "settings": {"measured": {"context": "kernel", "cpu": 1, "period_us": 1000,
                                      "priority": 98},
                         "scale_percent": scale},
            "interrupted": False, "measuring_run": {"json": None, "exit_code": 0},
            "workloads": [{"name": "fork", "what": "10000 forks", "skipped": None,
                           "change_percent": 0.0, "plain": variant, "measured": variant}]}


class CostStat(unittest.TestCase):
    """cost.stat() and cost.merge_cost(): the runs' mean and sample stddev."""

    def test_stat(self):
        # Mean (1 + 2 + 3 + 4) / 4 = 2.5; squared deviations 2.25, 0.25,
        # 0.25, 2.25 sum to 5, / (n - 1 = 3): sqrt(5 / 3) = 1.2909944.
        mean, sd = cost.stat([1.0, 2.0, 3.0, 4.0])
        self.assertEqual(mean, 2.5)
        self.assertAlmostEqual(sd, 1.2909944, places=6)

    def test_stat_of_one_and_none(self):
        self.assertEqual(cost.stat([2.0]), (2.0, None))
        self.assertEqual(cost.stat([]), (None, None))

    def test_merged_from_the_runs_not_the_means(self):
        a = cost.load_cost("c1.json", None, cost_doc([1.0, 2.0], stddev=0.707))
        b = cost.load_cost("c2.json", None, cost_doc([4.0, 5.0, 6.0], stddev=1.0))
        row = cost.merge_cost([a, b])["workloads"]["fork"]["plain"]
        # The 5 runs together: mean 18 / 5 = 3.6 (the means' mean would be
        # 3.25); deviations -2.6 -1.6 0.4 1.4 2.4, squares 6.76 2.56 0.16
        # 1.96 5.76 sum to 17.2, / 4 = 4.3: stddev sqrt(4.3) = 2.0736441.
        self.assertEqual(row["runs"], [1.0, 2.0, 4.0, 5.0, 6.0])
        self.assertEqual(row["n"], 5)
        self.assertAlmostEqual(row["mean"], 3.6)
        self.assertAlmostEqual(row["stddev"], 2.0736441, places=6)

    def test_one_file_keeps_its_own_figures(self):
        # latscope's own stddev (0.707 here, from runs before rounding), not
        # one recomputed from the rounded runs (0.7071068).
        a = cost.load_cost("c1.json", None, cost_doc([1.0, 2.0], stddev=0.707))
        row = cost.merge_cost([a])["workloads"]["fork"]["plain"]
        self.assertEqual((row["mean"], row["stddev"]), (1.5, 0.707))

    def test_refused_when_the_work_differs(self):
        a = cost.load_cost("c1.json", None, cost_doc([1.0, 2.0]))
        b = cost.load_cost("c2.json", None, cost_doc([4.0, 5.0], scale=50))
        with self.assertRaisesRegex(runs.BadRun, re.escape("differ in scale")):
            cost.check_cost_mergeable([a, b])

    def test_a_mean_not_its_runs_refused(self):
        doc = cost_doc([1.0, 2.0])
        doc["workloads"][0]["plain"] = dict(doc["workloads"][0]["plain"], mean=1.6)
        with self.assertRaisesRegex(runs.BadRun, "is not that of its runs"):
            cost.load_cost("c1.json", None, doc)


def variant_of(runs_):
    """A row's variant as interval() reads it: n, mean, sample stddev."""
    mean, sd = cost.stat(runs_)
    return {"n": len(runs_), "mean": mean, "stddev": sd}


class CostInterval(unittest.TestCase):
    """cost.interval() and cost_output.change_text(): the 95 % interval of a
    change, as latscope's cost/stat.c (tests/unit/test_cost.c has the
    same cases, worked out with SciPy's stats.t.ppf(0.975, floor(df)))."""

    def test_t_rounded_down_to_a_row(self):
        self.assertEqual(cost.t975(1), 12.7063)
        self.assertEqual(cost.t975(1.9), 12.7063)
        self.assertEqual(cost.t975(39.9), 2.0423)
        self.assertEqual(cost.t975(1e9), 1.98)
        self.assertEqual(cost.t975(float("inf")), 1.96)
        self.assertIsNone(cost.t975(0.5))

    def test_two_runs_a_side(self):
        # {1.0, 1.2} vs {1.3, 1.5}: R = 1.2727, a = .02 / (2 1.21) = .0082645,
        # b = .02 / (2 1.96) = .0051020, se = R sqrt(a + b) = .147145,
        # df = (a + b)^2 / (a^2 + b^2) = 1.89 -> 1, t = 12.7063:
        # [-159.69, +214.24], holding 0.
        lo, hi = cost.interval(variant_of([1.0, 1.2]), variant_of([1.3, 1.5]))
        self.assertAlmostEqual(lo, -159.692, places=2)
        self.assertAlmostEqual(hi, 214.238, places=2)
        self.assertEqual(cost_output.change_text(27.27, (lo, hi)),
                         "no difference at this precision (±187.0 %)")

    def test_ten_percent_slower(self):
        # 1.00 +- 0.02 vs 1.10 +- 0.02, 5 runs each: df 7.93 -> 7, t 2.3647:
        # [+7.51, +12.49]: a price.
        a = [1.00, 1.02, 0.98, 1.01, 0.99]
        lo, hi = cost.interval(variant_of(a), variant_of([x + 0.1 for x in a]))
        self.assertAlmostEqual(lo, 7.5143, places=3)
        self.assertAlmostEqual(hi, 12.4857, places=3)
        self.assertEqual(cost_output.change_text(10.0, (lo, hi)), "+10.0 % [+7.5, +12.5]")

    def test_no_spread_no_width(self):
        # 0.3 x 3 vs 0.33 x 3: df infinite, se 0: the change itself.
        lo, hi = cost.interval(variant_of([0.3] * 3), variant_of([0.33] * 3))
        self.assertAlmostEqual(lo, 10.0)
        self.assertAlmostEqual(hi, 10.0)

    def test_aa_control_labelled_and_kept_apart(self):
        # latscope --cost --cost-aa: nothing measured, said in the label and
        # the Kernels table; under one label with a measured suite, refused.
        doc = cost_doc([1.0, 2.0])
        doc["settings"]["aa"] = True
        aa = cost.load_cost("aa.json", None, doc)
        self.assertEqual(aa["label"], "6.12.0 (PREEMPT_RT, A/A control)")
        row = cost.merge_cost([aa])
        self.assertTrue(row["aa"])
        self.assertTrue(cost_output.measured_text(row).startswith("nothing (A/A control"))
        measured = cost.load_cost("m.json", "one", cost_doc([1.0, 2.0]))
        aa = cost.load_cost("aa.json", "one", doc)
        with self.assertRaisesRegex(runs.BadRun, re.escape("A/A control")):
            cost.check_cost_mergeable([measured, aa])

    def test_the_files_own_interval(self):
        # One file: latscope's own interval, as it wrote it; a bad one refused.
        doc = cost_doc([1.0, 2.0])
        doc["workloads"][0]["change_ci95"] = [-1.5, 2.5]
        row = cost.merge_cost([cost.load_cost("c.json", None, doc)])
        self.assertEqual(cost_output.measured_interval(row, "fork"), (-1.5, 2.5))
        for bad in ([1.0], [2.0, 1.0], ["a", 1.0], [float("nan"), 1.0], "1,2"):
            doc["workloads"][0]["change_ci95"] = bad
            with self.assertRaisesRegex(runs.BadRun, "an interval that is not"):
                cost.load_cost("c.json", None, doc)

    def test_a_single_run_no_interval(self):
        self.assertIsNone(cost.interval(variant_of([1.0]), variant_of([1.1, 1.2])))
        self.assertEqual(cost_output.change_text(9.06, None), "+9.1 % (no interval: 1 run)")
        # cost.png's labels: the same, "n.d." for no difference.
        self.assertEqual(cost_output.change_text(9.06, None, short=True),
                         "+9.1 % (no interval: 1 run)")
        self.assertEqual(cost_output.change_text(1.0, (-31.0, 33.0), short=True), "n.d. ±32.0 %")


def timeline(points, columns=COLUMNS, bucket_s=1):
    """A latscope document holding only a timeline."""
    return {"timeline": {"bucket_s": bucket_s, "columns": columns, "points": points}}


def steady(n, samples=1000, top=5.0):
    """@n one-second points of @samples samples each, every maximum @top."""
    return [[s, samples, 0, 1.0, 2.0, top] for s in range(n)]


class EvtInputs(unittest.TestCase):
    """What latscope_report.evt takes from a timeline before any fit."""

    def test_block_maxima(self):
        # Second 2 has no sample: left out, whatever its figures say
        # (latscope writes them null; 0 here, so that the count decides).
        # Second 3 has 400 samples, under half the median 1000: not full (a
        # partial block's maximum is smaller), so its maximum is no block
        # maximum. The median is of the 4 blocks with samples: 1000.
        doc = timeline([[0, 1000, 0, 1, 2, 10.0], [1, 1000, 0, 1, 2, 12.0],
                        [2, 0, 0, 0.0, 0.0, 0.0], [3, 400, 0, 1, 2, 30.0],
                        [4, 1000, 0, 1, 2, 11.0]])
        b = evt.blocks_of(doc)
        self.assertEqual(list(b.seconds), [0, 1, 3, 4])
        self.assertEqual(list(b.full), [True, True, False, True])
        self.assertEqual(list(b.maxima[b.full]), [10.0, 12.0, 11.0])
        # The observed maximum is every block's with samples, partial ones
        # too: 30 at 3 s; the run spans 0..5 s, so it last rose at the end
        # of that block, (3 + 1) / 5 = 0.8 of the way.
        rise = evt.last_rise(b)
        self.assertEqual((rise["observed_max_us"], rise["max_last_rose_at_s"]), (30.0, 3.0))
        self.assertEqual(rise["max_last_rose_at_fraction"], 0.8)

    def test_columns_by_name(self):
        # The same maxima with the columns in another order.
        doc = timeline([[10.0, 0, 1000], [12.0, 1, 1000]], columns=["max", "second", "samples"])
        self.assertEqual(list(evt.blocks_of(doc).maxima), [10.0, 12.0])

    def test_no_data(self):
        # No point, or no point with a sample: nothing to estimate from.
        for points in ([], [[0, 0, 0, None, None, None], [1, 0, 0, None, None, None]]):
            with self.subTest(points=len(points)):
                res = evt.estimate(timeline(points))
                self.assertEqual(res["status"], "no data")
                self.assertEqual(res["blocks"], 0)

    def test_min_run(self):
        # Ten minutes (the module docstring's why), 100 blocks for a fit.
        self.assertEqual((evt.MIN_RUN_S, evt.MIN_FIT_BLOCKS), (600, 100))

    def test_too_short(self):
        # 599 full buckets and a partial one (100 of 1000 samples): the
        # partial bucket does not count, 599 s < 600 s, 1 s more.
        res = evt.estimate(timeline(steady(599) + [[599, 100, 0, 1.0, 2.0, 5.0]]))
        self.assertEqual((res["status"], res["run_s"], res["skipped_blocks"]),
                         ("too short", 599, 1))
        self.assertEqual(res["reason"], "only 9 min 59 s of full blocks; the estimate needs "
                                        "at least 10 min of the run (about 1 s more)")

    def test_too_short_in_buckets_of_2_s(self):
        # 250 buckets of 2 s: 500 s, 100 s short.
        res = evt.estimate(timeline(steady(250), bucket_s=2))
        self.assertIn("(about 100 s more)", res["reason"])

    def test_long_enough_at_min_run(self):
        # 600 s pass the length test; their maxima all 5 us then leave
        # nothing to fit: refused for that, not as too short.
        res = evt.estimate(timeline(steady(600)))
        self.assertEqual(res["status"], "refused")
        self.assertEqual(res["reason"], "all 600 block maxima are 5 us: no spread to fit, "
                                        "no bound")

    def test_lengths(self):
        # Multiples of the bucket; the bucket itself when none is.
        self.assertEqual(evt.lengths_for(1.0), [1, 2, 5, 10, 20, 30, 60])
        self.assertEqual(evt.lengths_for(2.0), [2, 10, 20, 30, 60])
        self.assertEqual(evt.lengths_for(128.0), [128.0])

    def test_recut(self):
        # 2 s blocks of 1 s buckets: seconds 0-1, 2-3 (second 3 partial:
        # the block is left out), 4-5 (second 5 missing: left out), 6-7.
        doc = timeline([[0, 1000, 0, 1, 2, 10.0], [1, 1000, 0, 1, 2, 12.0],
                        [2, 1000, 0, 1, 2, 11.0], [3, 100, 0, 1, 2, 30.0],
                        [4, 1000, 0, 1, 2, 9.0], [6, 1000, 0, 1, 2, 8.0],
                        [7, 1000, 0, 1, 2, 7.0]])
        self.assertEqual(list(evt.recut(evt.blocks_of(doc), 2.0)), [12.0, 8.0])

    def test_block_probability(self):
        # An hour of 1 s blocks at 1e-3: 1 - (1 - 1e-3)^(1/3600) =
        # 2.77917e-7; a minute in 60 s blocks: p itself; in 120 s blocks
        # too (the block's maximum bounds the minute's).
        self.assertAlmostEqual(evt.block_probability("hour", 1e-3, 1.0) / 2.77917e-7, 1.0,
                               places=5)
        self.assertEqual(evt.block_probability("minute", 1e-3, 60.0), 1e-3)
        self.assertEqual(evt.block_probability("minute", 1e-3, 120.0), 1e-3)

    def test_reduced_variate(self):
        # q = 1e-3: y = -log(1 - q) = 1.0005003e-3, log y = -6.9072553.
        self.assertAlmostEqual(evt.log_reduced_variate(1e-3), -6.9072553, places=6)

    def test_return_level(self):
        # Gumbel (loc 0, scale e^0 = 1) at y = e^-5: -log y = 5. GEV with
        # xi = 0.5: (y^-xi - 1) / xi = (e^2.5 - 1) / 0.5 = 22.3649879.
        self.assertAlmostEqual(evt.return_level((0.0, 0.0), -5.0), 5.0)
        self.assertAlmostEqual(evt.return_level((0.0, 0.0, 0.5), -5.0), 22.3649879, places=6)

    def test_period(self):
        # Ranks that repeat every 5 blocks: lag 5; a slow drift: none.
        rng = np.random.default_rng(1)
        x = rng.random(600) + (np.arange(600) % 5 == 0)
        self.assertEqual(evt.period_of(x)[0], 5)
        self.assertIsNone(evt.period_of(rng.random(600) + np.linspace(0, 3, 600)))


def module_tree(name):
    """The syntax tree of the package's module @name."""
    with open(os.path.join(PACKAGE, "latscope_report", f"{name}.py"), encoding="utf-8") as f:
        return ast.parse(f.read())


def package_order():
    """The modules in __init__.py's list, each before those it may use."""
    return re.findall(r"^  (\w+)  ", ast.get_docstring(module_tree("__init__")), re.M)


class Page(unittest.TestCase):
    """The profile's page: text is never markup in the HTML page (a task's
    name is the board's users' to choose), Markdown tables stay tables."""

    def test_text_escaped(self):
        hostile = '<img src=x onerror=alert(1)> "<idle>" & <script>x()</script>'
        doc = page.to_html([("h", 2, hostile, 'a"b'), ("p", hostile), ("ul", [hostile]),
                            ("table", [hostile], "l", [[hostile]]), ("pre", hostile),
                            ("img", "none.png", hostile)], hostile, "/nonexistent")
        self.assertNotIn("<img src=x", doc)
        self.assertNotIn("<script", doc)
        self.assertNotIn('id="a"b"', doc)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt; &quot;&lt;idle&gt;&quot; &amp;", doc)
        self.assertIn("<p>(none.png cannot be read: No such file or directory)</p>", doc)

    def test_inline_and_links(self):
        self.assertEqual(page.inline_html("a `<b>` **c&d** [x](#the-board)"),
                         'a <code>&lt;b&gt;</code> <strong>c&amp;d</strong> '
                         '<a href="#the-board">x</a>')
        # Only a link to a heading of the page becomes one.
        self.assertEqual(page.inline_html("[x](javascript:alert(1))"),
                         "[x](javascript:alert(1))")

    def test_markdown_text(self):
        # A task's name with line breaks and a tag: no heading, row or
        # markup of its own in profile.md.
        md = page.to_markdown([("ul", ["x\n\n# All clear <img src=x>"]),
                               ("table", ["a"], "l", [["y\r| 0.1 | fake"]]),
                               ("pre", "a ``` b")])
        self.assertEqual(md, "- x  # All clear &lt;img src=x>\n\n| a |\n|---|\n"
                             "| y \\| 0.1 \\| fake |\n\n````\na ``` b\n````\n")
        self.assertEqual(page.md_text("p99.9 <=4.000 and <idle>"), "p99.9 <=4.000 and &lt;idle>")

    def test_only_a_png_embedded(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "fake.png"), "w") as f:
                f.write("root:x:0:0")
            os.symlink(os.path.join(d, "fake.png"), os.path.join(d, "link.png"))
            with open(os.path.join(d, "real.png"), "wb") as f:
                f.write(page.PNG_SIGNATURE + b"rest")
            for name in ("fake.png", "link.png"):
                with self.assertRaises(OSError, msg=name):
                    page.data_uri(os.path.join(d, name))
            self.assertTrue(page.data_uri(os.path.join(d, "real.png")).startswith(
                "data:image/png;base64,iVBORw0KGg"))

    def test_markdown_table(self):
        self.assertEqual(page.to_markdown([("table", ["a|b", "n"], "lr", [["x|y", "1"]])]),
                         "| a\\|b | n |\n|---|---:|\n| x\\|y | 1 |\n")

    def test_anchor(self):
        # As GitHub and the profile's contents make it.
        self.assertEqual(page.anchor("Can the worst case be trusted"),
                         "can-the-worst-case-be-trusted")
        self.assertEqual(page.anchor("Why: the worst"), "why-the-worst")


class SurveyFiles(unittest.TestCase):
    """A survey's text files read as the CLI writes them."""

    def test_setup_line(self):
        # printf("SET| %-13s %-39s %s%s%s"): a title of 38 characters.
        title = "RT threads at the responder's priority"
        line = f"SET| {'costs latency':<13} {title:<39} FIFO 99 | fix: lower it"
        rows, summary = survey.parse_setup(line + "\nSET| 1 of 18 factors cost latency\n")
        self.assertEqual(rows, [("costs latency", title, "FIFO 99", "lower it")])
        self.assertEqual(summary, ["1 of 18 factors cost latency"])

    def test_survey_txt(self):
        text = ("latscope survey, latscope --survey d -T 1m\nsettings: CPUs 1\n\n"
                "SURVEY| plan\n  01-setup  x\n\nOutcome:\n  01-setup             done\n"
                "  02-user-quiet        failed, exit 1: a file not written\n")
        command, settings, plan, outcomes = survey.parse_survey_txt("s", text)
        self.assertEqual((command, settings), ("latscope --survey d -T 1m", "CPUs 1"))
        self.assertEqual(outcomes, [("01-setup", "done"),
                                    ("02-user-quiet", "failed, exit 1: a file not written")])
        self.assertEqual(survey.outcome_word(outcomes[1][1]), "failed")
        with self.assertRaises(runs.BadRun):
            survey.parse_survey_txt("s", "latscope survey, x\nno outcome\n")
        with self.assertRaises(runs.BadRun):
            survey.parse_survey_txt("s", "something else\nOutcome:\n  01-setup  done\n")
        with self.assertRaisesRegex(runs.BadRun, "phase 01-setup twice"):
            survey.parse_survey_txt("s", "latscope survey, x\nOutcome:\n  01-setup  done\n"
                                         "  01-setup  done\n")


class Layers(unittest.TestCase):
    """The package's dependencies point one way, as __init__.py lists them."""

    def test_every_module_listed(self):
        files = sorted(f[:-3] for f in os.listdir(os.path.join(PACKAGE, "latscope_report"))
                       if f.endswith(".py") and f != "__init__.py")
        self.assertEqual(sorted(package_order()), files)

    def test_imports_only_modules_after_it(self):
        order = package_order()
        for name in order:
            used = set()
            for node in ast.walk(module_tree(name)):
                if isinstance(node, ast.ImportFrom) and node.level == 1:
                    used |= {node.module} if node.module else {a.name for a in node.names}
            for dep in used:
                with self.subTest(module=name, uses=dep):
                    self.assertGreater(order.index(dep), order.index(name),
                                       f"{name} uses {dep}, listed before it")


def main():
    """Runs the tests; "report unit: N passed, N failed"; the exit status."""
    prog = unittest.main(argv=sys.argv, exit=False, verbosity=2)
    res = prog.result
    # One "not ok" line each, as the other checks print them (check.sh
    # repeats those of a failed stage at the end).
    for test, trace in res.failures + res.errors:
        print(f"not ok - report unit: {test.id()}: {trace.strip().splitlines()[-1]}")
    # A test counted once however many of its subtests failed.
    failed = len({getattr(test, "test_case", test).id()
                  for test, _ in res.failures + res.errors}) + len(res.unexpectedSuccesses)
    print(f"report unit: {res.testsRun - failed - len(res.skipped)} passed, {failed} failed")
    return 0 if res.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
