#!/bin/bash
# latscope-report on the checked-in fixtures: a hand-made two-CPU run whose
# percentiles were worked out by hand (2, 3, 10, then past the histogram),
# and the kernel-context runs of the 6.12 and 6.12-rt VMs (TCG, emulated).
# Ends with "report: N passed, N failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$top/tests/report/check_report.py" "$top/userspace/latscope-report" "$work" \
	"$top"/tests/report/fixtures/*.json
