#!/usr/bin/env python3
"""The recorder's price from scripts/why-cost.sh's files: for each kernel,
load and context, the ratio with/without (--why / --no-why) of the
average and of the maximum latency in each interleaved round, and their
medians, as a Markdown table on stdout.

Usage: why-cost.py [--what=TEXT] DIR... (each a kernel's
why-cost-LOAD-CTX-VARIANT-ROUND.json). --what says what "with" is, for a
comparison other than the recorder's (scripts/snapshot-cost.sh).
"""
import json
import os
import re
import statistics
import sys

NAME = re.compile(r"why-cost-(\w+)-(\w+)-(on|off)-(\d+)\.json$")


def runs(directory):
    """{(load, ctx): {round: {variant: total}}}"""
    out = {}
    for name in sorted(os.listdir(directory)):
        m = NAME.match(name)
        if not m:
            continue
        load, ctx, variant, rnd = m.groups()
        with open(os.path.join(directory, name)) as f:
            doc = json.load(f)
        out.setdefault((load, ctx), {}).setdefault(int(rnd), {})[variant] = doc["total"]
    return out


def row(kernel, load, ctx, rounds):
    pairs = [r for r in rounds.values() if "on" in r and "off" in r and r["off"]["avg"] > 0]
    avg = [r["on"]["avg"] / r["off"]["avg"] for r in pairs]
    mx = [r["on"]["max"] / r["off"]["max"] for r in pairs if r["off"]["max"] > 0]
    on = statistics.median(r["on"]["avg"] for r in pairs)
    off = statistics.median(r["off"]["avg"] for r in pairs)
    return (f"| {kernel} | {load} | {ctx} | {len(pairs)} | {off:.1f} | {on:.1f} | "
            f"{statistics.median(avg):.3f} ({min(avg):.2f}-{max(avg):.2f}) | "
            f"{statistics.median(mx):.3f} ({min(mx):.2f}-{max(mx):.2f}) |"), statistics.median(avg)


def main(dirs):
    if dirs and dirs[0].startswith("--what="):
        print(f"with: {dirs[0][len('--what='):]}\n")
        dirs = dirs[1:]
    print("| kernel | load | context | rounds | avg without (us) | avg with (us) "
          "| avg with/without, median (range) | max with/without, median (range) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    medians = []
    for d in dirs:
        kernel = os.path.basename(os.path.normpath(d))
        for (load, ctx), rounds in sorted(runs(d).items()):
            line, med = row(kernel, load, ctx, rounds)
            medians.append(med)
            print(line)
    if medians:
        print(f"\nWorst median ratio of the average: {max(medians):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
