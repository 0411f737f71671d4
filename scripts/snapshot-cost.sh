#!/bin/bash
# What a once-a-second SNAPSHOT costs the user responder with the recorder
# on (docs/measurements/snapshot-cost.md): Debian 12's 6.12 mainline
# kernel in the test VM (QEMU TCG, single-threaded, 2 CPUs: emulated, not
# real hardware), booted once to run LATSCOPE_WHY_ROUNDS (4) interleaved
# rounds of LATSCOPE_WHY_SECONDS (8) second `-u --why` runs on CPU1, with
# `--checkpoint 1s` and without, quiet and with the recorder's builder
# starved (tests/vm/snapshot_cost.sh); then the ratios with/without of
# the average and the maximum, per round, and their medians
# (scripts/why-cost.py). LATSCOPE_SNAPSHOT_OLD=REV runs the driver of git
# revision REV (or the driver tree LATSCOPE_VM_OLD_DRIVER) in the same
# boot too, round by round, for the comparison.
# Then, in the same boot, what hooking the recorder's tracepoints at each
# SETUP costs against keeping them hooked (tests/vm/hook_cost.c).
# Usage: scripts/snapshot-cost.sh [OUTDIR] (default
# docs/measurements/snapshot-cost: the JSON files and the table).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

out=${1:-$top/docs/measurements/snapshot-cost}
files=$(mktemp -d)
old=
trap 'rm -rf "$files" ${old:+"$old"}' EXIT
mods=new
if [ -n "${LATSCOPE_SNAPSHOT_OLD:-}" ]; then
	old=$(mktemp -d)
	git -C "$top" archive "$LATSCOPE_SNAPSHOT_OLD" driver | tar -x -C "$old"
	export LATSCOPE_VM_OLD_DRIVER=$old/driver
fi
[ -z "${LATSCOPE_VM_OLD_DRIVER:-}" ] || mods="new old"
LATSCOPE_VM_FILES=$files LATSCOPE_COMPARE_SECONDS=${LATSCOPE_WHY_SECONDS:-8} \
	"$top/scripts/vm.sh" 6.12 amd64 snapshot-cost | grep -E '^(ok|not ok|#)' || true
dirs=()
for mod in $mods hooks; do
	dir=$out/6.12-amd64-$mod
	rm -rf "$dir"
	mkdir -p "$dir"
	for f in "$files/$mod"-why-cost-*.json; do
		cp "$f" "$dir/${f#"$files/$mod"-}"
	done
	dirs+=("$dir")
done
{
	python3 "$top/scripts/why-cost.py" "--what=a SNAPSHOT a second (--checkpoint 1s)" \
		"${dirs[@]:0:${#dirs[@]}-1}"
	echo
	python3 "$top/scripts/why-cost.py" \
		"--what=the recorder's tracepoints held (held/none), hooked by a loop of SETUPs (cold/none), a loop of SETUPs beside a held recorder (warm/held)" \
		"${dirs[-1]}"
} | tee "$out/table.md"
