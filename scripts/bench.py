#!/usr/bin/env python3
"""The ratios of scripts/bench.sh's runs: for each kernel and latscope
build (new: this tree, old: the other), latscope/cyclictest of the
average, the 99th percentile and the maximum in each interleaved round,
their medians and ranges, and new/old the same way; then where a cost
lies: the bare PULSE loop against the same loop on clock_nanosleep (the
driver's path), the CLI against the bare loop (the CLI's), and the
clock_nanosleep loop against cyclictest (the tools' own ways); and the
kernel (kern) and irq contexts against rtla timerlat's thread and irq
latencies in the same round; a Markdown table on stdout. Directories
named KERNEL-bootN are boots of one kernel: after the table, each
comparison's median in every boot and whether the boots agree (a
difference only when every boot's 95 % interval lies on the same side
of 1).

Usage: bench.py [--old=TEXT] DIR... (each a kernel's bench-new-R.json,
bench-old-R.json, bench-kern-R.json, bench-irq-R.json, bench-ct-R.txt,
bench-pulse-R.txt, bench-sleep-R.txt, bench-rtla-R.txt;
the directory's name is the kernel's, KERNEL-bootN a boot of it).
A 99th percentile is its cell's middle: 1 us cells for cyclictest and
rtla, the CLI's percentile range for latscope (1 us up to its histogram's end,
wider in the tail past it).
"""
import json
import math
import os
import re
import statistics
import sys

BOOT = re.compile(r"^(.*)-boot(\d+)$")
NAME = re.compile(r"bench-(new|old|kern|irq)-(\d+)\.json$|bench-(ct|pulse|sleep)-(\d+)\.txt$"
                  r"|bench-rtla-(\d+)\.txt$")
# The comparisons, in the table's order: (figure, over this one, named).
PAIRS = (("new", "ct", "cyclictest"), ("old", "ct", "cyclictest"), ("new", "old", "old"),
         ("pulse", "sleep", "sleep loop"), ("new", "pulse", "pulse loop"),
         ("sleep", "ct", "cyclictest"), ("kern", "rtla-thr", "rtla timerlat thread"),
         ("irq", "rtla-irq", "rtla timerlat irq"))
SUMMARY = re.compile(r"^# (Min|Avg|Max) Latencies: *(\d+)")
# The average to the ns (tests/vm/bench_loop.c) or 10 ns (cyclictest's
# JSON, tests/vm/bench.sh): preferred to the summary's whole us.
PRECISE_AVG = re.compile(r"^# avg: *(\d+(?:\.\d+)?) us$")
OVERFLOWS = re.compile(r"^# Histogram Overflows: *(\d+)")


def latscope_figures(path):
    """{min, avg, p99, max} in us from the CLI's JSON."""
    try:
        with open(path) as f:
            total = json.load(f)["total"]
        lo, hi = total["percentile_ranges"]["99"]
        return {"min": total["min"], "avg": total["avg"], "p99": (lo + hi) / 2,
                "max": total["max"]}
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not the CLI's JSON with total figures ({e!r})") from e


def p99_us(cells, count, scale):
    """The 99th percentile of @count samples, @cells (cell, samples) of
    1/@scale us each: the middle of the 1 us cell it falls in, as every
    variant's is read (bench_loop's cells, latscope's percentile ranges),
    none finer; None if it lies past the cells."""
    seen = 0
    for cell, n in sorted(cells):
        seen += n
        if count and seen >= 0.99 * count:
            return cell // scale + 0.5
    return None


def cyclictest_figures(path):
    """{min, avg, p99, max} in us from cyclictest's summary and cells (in
    ns after a "# unit: ns" line, cyclictest -N: 1 ns cells), the average
    from a "# avg:" line if there is one; p99 the middle of its 1 us
    cell, None if it lies past the histogram."""
    out, cells, over, precise, scale = {}, [], 0, None, 1
    with open(path) as f:
        for line in f:
            if line.strip() == "# unit: ns":
                scale = 1000
                continue
            m = PRECISE_AVG.match(line)
            if m:
                precise = float(m.group(1))
                continue
            m = SUMMARY.match(line)
            if m:
                out[m.group(1).lower()] = float(m.group(2)) / scale
                continue
            m = OVERFLOWS.match(line)
            if m:
                over = int(m.group(1))
                continue
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                cells.append((int(parts[0]), int(parts[1])))
    if set(out) != {"min", "avg", "max"}:
        raise ValueError(f"{path}: no Min/Avg/Max Latencies lines")
    if precise is not None:
        out["avg"] = precise
    out["p99"] = p99_us(cells, sum(n for _, n in cells) + over, scale)
    return out


def rtla_figures(path):
    """{"rtla-irq": figures, "rtla-thr": figures} in us from rtla timerlat
    hist -n -b 1000 (ns, 1 us cells) on one CPU: the first count, min,
    avg and max rows (the CPU's; an ALL section repeats them) and the
    cells; p99 is None if it lies past the histogram (count includes
    the samples past it)."""
    rows, cells, nano = {}, [], False
    with open(path) as f:
        for line in f:
            parts = line.split()
            if line.startswith("# Time unit is nanoseconds"):
                nano = True
            elif parts and parts[0] in ("count:", "min:", "avg:", "max:"):
                if parts[0][:-1] not in rows and len(parts) >= 3:
                    rows[parts[0][:-1]] = parts[1:3]
            elif len(parts) >= 3 and all(p.isdigit() for p in parts):
                cells.append([int(p) for p in parts[:3]])
    if not nano or set(rows) != {"count", "min", "avg", "max"} or \
            any(not v.isdigit() for vals in rows.values() for v in vals):
        raise ValueError(f"{path}: not rtla timerlat hist -n output with an irq and a "
                         "thread column and their count, min, avg and max")
    out = {}
    for col, name in ((0, "rtla-irq"), (1, "rtla-thr")):
        figs = {k: int(rows[k][col]) / 1000 for k in ("min", "avg", "max")}
        figs["p99"] = p99_us([(c[0], c[col + 1]) for c in cells], int(rows["count"][col]),
                             1000)
        out[name] = figs
    return out


def runs(directory):
    """{round: {variant: figures}}"""
    out = {}
    for name in sorted(os.listdir(directory)):
        m = NAME.match(name)
        if not m:
            continue
        path = os.path.join(directory, name)
        if m.group(1):
            out.setdefault(int(m.group(2)), {})[m.group(1)] = latscope_figures(path)
        elif m.group(3):
            out.setdefault(int(m.group(4)), {})[m.group(3)] = cyclictest_figures(path)
        else:
            out.setdefault(int(m.group(5)), {}).update(rtla_figures(path))
    return out


def median_interval(values):
    """The distribution-free 95 % interval of the median of @values (sorted):
    the k-th smallest to the k-th largest, k the largest with
    P(Binomial(n, 1/2) < k) <= 2.5 %; None for fewer than 6 values."""
    n = len(values)
    below, k = 0.0, 0
    while k < n and below + math.comb(n, k) / 2 ** n <= 0.025:
        below += math.comb(n, k) / 2 ** n
        k += 1
    if k == 0:
        return None
    return values[k - 1], values[n - k]


def spread(values):
    """'median [its 95 % interval] (min-max)' of ratios, the interval
    left out for fewer than 6 rounds; '-' for none."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return "-"
    ci = median_interval(values)
    inside = f" [{ci[0]:.2f}-{ci[1]:.2f}]" if ci else ""
    return (f"{statistics.median(values):.2f}{inside} "
            f"({values[0]:.2f}-{values[-1]:.2f})")


def ratios(rounds, num, den, key):
    return [r[num][key] / r[den][key] for r in rounds
            if r[num][key] is not None and r[den][key]]


def verdict(intervals):
    """Whether the boots agree that a ratio differs from 1, from each
    boot's 95 % interval of the median (None: too few rounds)."""
    if any(ci is None for ci in intervals):
        return "too few rounds for an interval"
    # At the precision printed: 1.004 is no difference.
    intervals = [(round(lo, 2), round(hi, 2)) for lo, hi in intervals]
    if all(lo > 1 for lo, _ in intervals):
        return "above 1 in every boot"
    if all(hi < 1 for _, hi in intervals):
        return "below 1 in every boot"
    above = sum(lo > 1 for lo, _ in intervals)
    below = sum(hi < 1 for _, hi in intervals)
    if above and below:
        return "the boots disagree: no difference at this precision"
    if above or below:
        return (f"{'above' if above else 'below'} 1 in {above or below} of "
                f"{len(intervals)} boots: no difference at this precision")
    return "no difference at this precision"


def across_boots(byboot):
    """The lines that put each comparison's boots side by side;
    @byboot: {kernel: [(boot, {round: {variant: figures}})]}."""
    lines = ["", "| kernel | build | against | boots | avg ratio, each boot's median "
             "[95 %] | verdict |", "|---|---|---|---|---|---|"]
    for kernel, boots in byboot.items():
        for num, den, against in PAIRS:
            per, cis = [], []
            for boot, byround in sorted(boots):
                rounds = [r for r in byround.values() if num in r and den in r]
                values = sorted(ratios(rounds, num, den, "avg"))
                if not values:
                    continue
                ci = median_interval(values)
                cis.append(ci)
                per.append(f"{boot}: {statistics.median(values):.2f}" +
                           (f" [{ci[0]:.2f}-{ci[1]:.2f}]" if ci else ""))
            if len(per) >= 2:
                lines.append(f"| {kernel} | {num} | {against} | {len(per)} | "
                             f"{'; '.join(per)} | {verdict(cis)} |")
    return lines if len(lines) > 3 else []


def table(dirs, old):
    """The table's lines: every file is read before one is printed."""
    lines = []
    byboot = {}
    lines.append("| kernel | build | against | rounds | avg (us, median) | avg ratio "
                 "| p99 ratio | max ratio | min (us, range) |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for directory in dirs:
        kernel = os.path.basename(os.path.normpath(directory))
        byround = runs(directory)
        m = BOOT.match(kernel)
        if m:
            byboot.setdefault(m.group(1), []).append((int(m.group(2)), byround))
        for num, den, against in PAIRS:
            rounds = [r for r in byround.values() if num in r and den in r]
            if not rounds:
                continue
            mins = [r[num]["min"] for r in rounds]
            avg = statistics.median(r[num]["avg"] for r in rounds)
            lines.append(f"| {kernel} | {num} | {against} | {len(rounds)} | {avg:.1f} | "
                         f"{spread(ratios(rounds, num, den, 'avg'))} | "
                         f"{spread(ratios(rounds, num, den, 'p99'))} | "
                         f"{spread(ratios(rounds, num, den, 'max'))} | "
                         f"{min(mins):.1f}-{max(mins):.1f} |")
    lines.append("")
    lines.append("Ratios: median [its 95 % interval, from 6 rounds] (range) over the "
                 "rounds of the build's figure over "
                 "the other's in the same round; new is this tree" +
                 (f", old is {old}" if old else "") + "; pulse is the smallest "
                 "responder on this tree's PULSE, sleep the same loop on "
                 "clock_nanosleep (tests/vm/bench_loop.c); kern and irq are latscope "
                 "-k and -i against rtla timerlat's thread and irq latencies. "
                 "Emulated (QEMU TCG): a "
                 "comparison in one boot, not a board's latency.")
    return lines + across_boots(byboot)


def main(argv):
    old = None
    args = []
    for arg in argv[1:]:
        if arg.startswith("--old="):
            old = arg[len("--old="):]
        else:
            args.append(arg)
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        lines = table(args, old)
    except (OSError, ValueError, KeyError) as e:
        print(f"bench.py: {e!s}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
