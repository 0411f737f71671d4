#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The EVT bound judged on a real run: fit on the start of a latscope run
(its first 10 %, or its first evt.MIN_RUN_S seconds when 10 % is
fewer), then count how often the rest of the same run went above the
bounds. Prints a markdown table, one row per file.

usage: scripts/evt-holdout.py [--fraction 0.1] RUN.json...

For each bound (1e-3 per minute, per hour, per day): the rest's seconds
whose maximum exceeded it, and how many such windows the rest lasted (a
bound at 1e-3 per window should be exceeded in about one window of a
thousand)."""

import argparse
import copy
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..",
                                "userspace", "report"))
from latscope_report import evt  # noqa: E402


def points_of(doc):
    tl = doc["timeline"]
    cols = tl["columns"]
    return [dict(zip(cols, p)) for p in tl["points"]], tl


def holdout(path, fraction):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    points, tl = points_of(doc)
    fit_n = max(int(len(points) * fraction), int(evt.MIN_RUN_S / tl.get("bucket_s", 1)))
    if fit_n >= len(points):
        return {"file": path, "status": f"only {len(points)} blocks: nothing left to judge on"}
    head = copy.deepcopy(doc)
    head["timeline"] = dict(tl, points=tl["points"][:fit_n])
    res = evt.estimate(head)
    row = {"file": path, "blocks": len(points), "fit_blocks": fit_n, "bucket_s": tl["bucket_s"],
           "status": res["status"], "reason": res["reason"]}
    if res["status"] != "ok":
        return row
    rest = [p for p in points[fit_n:] if p.get("samples") and p.get("max") is not None]
    samples = sum(p["samples"] for p in rest)
    row["rest_s"] = len(rest) * tl["bucket_s"]
    row["rest_samples"] = samples
    row["fit_max_us"] = max(p["max"] for p in points[:fit_n] if p.get("max") is not None)
    row["rest_max_us"] = max(p["max"] for p in rest)
    row["bounds"] = []
    for b in res["bounds"]:
        above = sum(1 for p in rest if p["max"] > b["upper_us"])
        windows = row["rest_s"] / evt.WINDOW_S[b["per"]]
        row["bounds"].append(dict(b, seconds_above=above, windows=windows))
    return row


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fraction", type=float, default=0.1)
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args(argv)
    rows = [holdout(p, args.fraction) for p in args.runs]
    print("| file | blocks | fit on | max in fit | max after | bound | upper µs "
          "| seconds above after | windows after |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for r in rows:
        if r["status"] != "ok":
            print(f"| {r['file']} | {r.get('blocks', '-')} | {r.get('fit_blocks', '-')} "
                  f"| - | - | {r['status']}: {r.get('reason') or ''} | - | - | - |")
            continue
        for b in r["bounds"]:
            rate = f"{b['windows']:.3g}"
            print(f"| {os.path.basename(r['file'])} | {r['blocks']} | {r['fit_blocks']} "
                  f"| {r['fit_max_us']:.1f} | {r['rest_max_us']:.1f} "
                  f"| {b['p']:.0e} per {b['per']} | {b['upper_us']:.1f} "
                  f"| {b['seconds_above']} of {r['rest_s']:.0f} | {rate} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
