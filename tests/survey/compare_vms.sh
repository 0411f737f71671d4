#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The surveys of the 6.12 mainline and PREEMPT_RT VMs (tests/vm/survey_test.sh,
# brought back by scripts/vm.sh into the VMs' files directories A and B) set side
# by side: latscope-report SURVEY_A SURVEY_B writes compare.md and
# compare.html, each phase's maximum its own survey's JSON's
# (check_profile.py), the page rendered by headless chromium
# (tests/report/browser.py). Emulated (TCG): the figures are behaviour,
# not latency. Ends with "compare: N passed, N failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
files_a=${1:?usage: compare_vms.sh A B, the files directories of the mainline and rt VMs}
files_b=${2:?usage: compare_vms.sh A B, the files directories of the mainline and rt VMs}
# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"
a=$(find "$files_a" -mindepth 1 -maxdepth 1 -type d -name 'survey-*' | head -n 1)
b=$(find "$files_b" -mindepth 1 -maxdepth 1 -type d -name 'survey-*' | head -n 1)
if [ -z "$a" ] || [ -z "$b" ]; then
	echo "FAIL both VMs' surveys came back (mainline: '${a}', rt: '${b}')"
	echo "compare: 0 passed, 1 failed"
	exit 1
fi
out=$(dirname "$files_a")/compare
check "latscope-report of the two surveys: exit 0" \
	"$top/userspace/latscope-report" -o "$out" "$a" "$b"
check "each phase's maximum its own survey's JSON's, the boards side by side" \
	/usr/bin/python3 "$top/tests/survey/check_profile.py" compare "$out" "$a" "$b"
check "the rt survey's kernel is PREEMPT_RT, the mainline one's is not" \
	/usr/bin/python3 -c 'import json, sys
pre = [json.load(open(f"{d}/02-user-quiet.json"))["sysinfo"]["preemption"] for d in sys.argv[1:]]
assert pre[1] == "PREEMPT_RT" != pre[0], pre' "$a" "$b"
check "compare.html rendered by headless chromium: every image, no error" \
	/usr/bin/python3 "$top/tests/report/browser.py" "$out/compare.html" "$out/compare.png"
sed -n '/^## How late/,/^## /p' "$out/compare.md" | grep '^|' | cut -c1-160
echo "compare: $passed passed, $failed failed"
[ "$failed" = 0 ]
