#!/bin/bash
# latscope-report on the checked-in fixtures: two hand-made two-CPU runs
# whose percentiles were worked out by hand (small.json: 2, 3, 10, then one
# tail bucket; tail.json: p99.9 to p99.9999 in four tail buckets of both
# CPUs merged), and the kernel-context runs of the 6.12 and 6.12-rt VMs
# (TCG, emulated; files without a tail, bounded by the maximum past the
# histogram). Hand-made too: merge-a.json and merge-b.json, two runs of
# one setup that merge into one row worked out by hand in check_report.py;
# merge-irq.json, merge-a.json in the irq context, refused under one label
# with it; heat.json, a board that heats, slows to 600 MHz and is
# throttled in 2 of its 4 seconds. Also a file whose tail does not add up
# to its overflow. The cost suite's files (latscope --cost --json): hand-made
# cost-mainline.json and cost-rt.json (a workload skipped, one failed while
# measured, one in only one of them; every cell of cost.md worked out by
# hand in check_report.py), cost-rt-2.json (cost-rt.json's label: merged,
# its runs with cost-rt.json's), cost-scale.json (cost-mainline.json's
# label at 50 % of the work: refused), cost-rt-load.json (with runs under
# load, --stress grinder: their tables and the load column worked out by
# hand; one label with two loads refused), and the 6.12 VM's suite at 2 %
# (vm-6.12-cost.json). Without runs under load, cost.md and cost.txt must
# be byte for byte those in tests/report/expected/. The worst-sample
# recorder's files of the 6.12 VM (latscope --why, TCG: emulated):
# vm-6.12-why-thread.json (a kthread lsnoise/1 spinning 4 ms with
# preemption off on the measured CPU: its worst samples name it),
# vm-6.12-why-irq.json (an irq handler "lsnoise" spinning 4 ms, the irq
# context) and vm-6.12-why-off.json (--no-why: no records); the first and
# last share vm-6.12-kernel.json's label, so they merge with it, a file
# older than the recorder. evt.json (hand-made): small.json with a 900 s
# timeline of a known Gumbel law and the 6.1 VM's setup block: trust.md's
# setup rows and bounds that hold the law's true levels. First, the
# arithmetic alone (unit_test.py: percentiles, summed tails, merging, the
# cost statistics, what the EVT estimator takes from a timeline), by
# Debian's python3, the one the scripts run under (numpy and SciPy).
# Ends with "report: N passed, N failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unit=0
/usr/bin/python3 "$top/tests/report/unit_test.py" || unit=$?
python3 "$top/tests/report/check_report.py" "$top/userspace/latscope-report" "$work" \
	"$top"/tests/report/fixtures/*.json
[ "$unit" -eq 0 ]
