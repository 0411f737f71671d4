#!/bin/bash
# The worst-sample recorder's price (docs/measurements/why-cost.md):
# Debian 12's 6.12 mainline and PREEMPT_RT kernels in the test VM (QEMU
# TCG, 2 CPUs: emulated, not real hardware), each booted once to run
# LATSCOPE_WHY_ROUNDS (4) interleaved rounds of LATSCOPE_WHY_SECONDS (8)
# second runs on CPU1, kernel and user contexts, quiet and under --stress
# grinder, with the recorder and without (tests/vm/why_cost.sh); then the
# ratios with/without of the average and the maximum, per round, and
# their medians. Usage: scripts/why-cost.sh [OUTDIR] (default
# docs/measurements/why-cost: the JSON files and the table).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

out=${1:-$top/docs/measurements/why-cost}
mkdir -p "$out"
for flavour in amd64 rt-amd64; do
	files=$(mktemp -d)
	LATSCOPE_VM_FILES=$files LATSCOPE_COMPARE_SECONDS=${LATSCOPE_WHY_SECONDS:-8} \
		"$top/scripts/vm.sh" 6.12 "$flavour" why-cost | grep -E '^(ok|not ok|#)' || true
	mkdir -p "$out/6.12-$flavour"
	cp "$files"/why-cost-*.json "$out/6.12-$flavour/"
	rm -rf "$files"
done
python3 "$top/scripts/why-cost.py" "$out"/6.12-amd64 "$out"/6.12-rt-amd64 | tee "$out/table.md"
