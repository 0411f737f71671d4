#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A survey of Debian 12's 6.12 mainline (PREEMPT_DYNAMIC) and PREEMPT_RT
# kernels in the test VM (QEMU TCG, 2 CPUs: emulated, not a board), each
# latscope --survey -T LATSCOPE_COMPARE_SECONDS (600) -c 1 with the
# plan's cost suite, the two VMs side by side on this 2-core machine; then
# each survey's profile and the two compared (latscope-report DIR,
# latscope-report DIR_A DIR_B). Usage: scripts/survey-vm.sh OUTDIR (the
# two survey directories, their profile/, and compare/).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/survey-vm.sh OUTDIR}
mkdir -p "$out"
export LATSCOPE_COMPARE_SECONDS=${LATSCOPE_COMPARE_SECONDS:-600}
pids=()
for flavour in amd64 rt-amd64; do
	LATSCOPE_VM_FILES=$out/$flavour "$top/scripts/vm.sh" 6.12 "$flavour" survey \
		>"$out/vm-$flavour.log" 2>&1 &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=1
done
dirs=()
for flavour in amd64 rt-amd64; do
	d=$(find "$out/$flavour" -mindepth 1 -maxdepth 1 -type d -name 'survey-*' | head -n 1)
	[ -n "$d" ] || { echo "survey-vm: no survey came back from $flavour: $out/vm-$flavour.log"; exit 1; }
	"$top/userspace/latscope-report" "$d"
	dirs+=("$d")
done
"$top/userspace/latscope-report" -o "$out/compare" --label "6.12 mainline (emulated)" \
	--label "6.12 PREEMPT_RT (emulated)" "${dirs[@]}"
exit $status
