#!/bin/bash
# The comparison of docs/measurements/mainline-vs-rt.md: Debian 12's 6.12
# mainline (PREEMPT_DYNAMIC) and PREEMPT_RT kernels in the test VM (QEMU
# TCG, 2 CPUs: emulated, not real hardware), each measuring the kernel
# context on CPU1 for LATSCOPE_COMPARE_SECONDS (60) under --stress
# grinder, then running the cost suite (--cost) at
# LATSCOPE_COMPARE_COST_SCALE (10) percent of its work, 3 runs each way;
# then latscope-report on all of it. Usage: scripts/compare.sh [OUTDIR]
# (default docs/measurements: the JSON files, the plots and the tables).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

out=${1:-$top/docs/measurements}
mkdir -p "$out"
files=$(mktemp -d)
trap 'rm -rf "$files"' EXIT
for flavour in amd64 rt-amd64; do
	LATSCOPE_VM_FILES=$files "$top/scripts/vm.sh" 6.12 "$flavour" compare |
		grep -E '^(RTS|ok|not ok)' || true
	cp "$files/compare.json" "$out/6.12-$flavour.json"
	cp "$files/compare-cost.json" "$out/6.12-$flavour-cost.json"
	cp "$files/compare-cost-latency.json" "$out/6.12-$flavour-cost-latency.json"
done
# From the output directory, so the pages name the files as they sit
# beside them, not by this machine's absolute paths.
cd "$out"
"$top/userspace/latscope-report" -o . \
	--label "6.12 mainline (PREEMPT_DYNAMIC), grinder, emulated" \
	--label "6.12 PREEMPT_RT, grinder, emulated" \
	--label "6.12 mainline (PREEMPT_DYNAMIC), emulated" \
	--label "6.12 PREEMPT_RT, emulated" \
	6.12-amd64.json 6.12-rt-amd64.json \
	6.12-amd64-cost.json 6.12-rt-amd64-cost.json
