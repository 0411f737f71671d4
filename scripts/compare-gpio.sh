#!/bin/bash
# The comparison of docs/measurements/gpio-responders.md: in the GPIO
# test VM (QEMU TCG, 2 CPUs, gpio-sim lines joined by a trace-event wire:
# emulated, not real hardware), on the PREEMPT and the PREEMPT_RT 6.12
# kernel, latscope's latmon monitor times the same wiring for the fixture
# alone and for each responder, LATSCOPE_COMPARE_SECONDS (20) each at
# 100 Hz (tests/vm/gpio_compare.sh), and a table is printed of the round
# trips and the local splits. Usage: scripts/compare-gpio.sh [OUTDIR]
# (default docs/measurements/gpio: the JSON files and table.md).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

out=${1:-$top/docs/measurements/gpio}
mkdir -p "$out"
files=$(mktemp -d)
trap 'rm -rf "$files"' EXIT
for flavour in amd64 rt-amd64; do
	rm -f "$files"/gpio-compare-*.json
	LATSCOPE_COMPARE_SECONDS=${LATSCOPE_COMPARE_SECONDS:-20} LATSCOPE_VM_FILES=$files \
		"$top/scripts/vm.sh" gpio "$flavour" gpio-compare | grep -E '^(RTS|LOC|GPIO|ok|not ok)' || true
	for f in "$files"/gpio-compare-*.json; do
		cp "$f" "$out/$flavour-$(basename "$f" | sed 's/^gpio-compare-//')"
	done
done
python3 - "$out" <<'PY' | tee "$out/table.md"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
rows = [("monitor-fixture", "the fixture alone (--calibrate: wire, no responder)"),
        ("kernel", "driver, kernel thread (-k)"),
        ("user", "driver, /dev/latscope user thread (-u)"),
        ("gpiod", "application thread, libgpiod (--gpiod)"),
        ("gpiod-irqprio", "application thread, libgpiod, --irq-prio 95")]
kernels = [("amd64", "6.12 PREEMPT"), ("rt-amd64", "6.12 PREEMPT_RT")]
print("| responder | kernel | round trip avg / max (us) | samples | this board's split avg / max (us) |")
print("| --- | --- | --- | --- | --- |")
for key, label in rows:
    for fl, kname in kernels:
        f = out / f"{fl}-{key}.json"
        if not f.exists():
            continue
        d = json.loads(f.read_text())
        t = d["total"]
        split = "-"
        th = d["thread"].get("0")
        if key != "monitor-fixture" and th:
            lat = th["latency"]
            split = f"{lat['avg']:.0f} / {lat['max']:.0f}"
            if "irq" in th and key.startswith("gpiod"):
                split += f" (edge to running {th['irq']['avg']:.0f} / {th['irq']['max']:.0f})"
        print(f"| {label} | {kname} | {t['avg']:.0f} / {t['max']:.0f} | {t['samples']} | {split} |")
PY
