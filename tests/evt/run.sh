#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# latscope-evt, the extreme-value bound of a run's worst case: coverage.py
# (does the bound hold as often as it says, on synthetic runs of known
# tails; are periodic, cycling and drifting loads refused; the edge
# cases), then the command line: a missing file, a file that is not
# JSON and one without a timeline exit 2 with one line on stderr; a run
# read from stdin; --cli prints exactly two lines, the EVT| line (a
# refusal's reason whole) and the result as JSON; empty stdin does not hang; a reader that goes away
# (| head) gets status 0; without numpy or scipy, exit 3 naming the
# Debian package. Debian's python3 (SciPy)
# runs it, one BLAS thread. Ends with "evt: N passed, N failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
evt=$top/userspace/latscope-evt
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

# shellcheck source=tests/lib/check.sh
. "$top/tests/lib/check.sh"

# exits_2 FILE: latscope-evt FILE exits 2, with one line on stderr
exits_2() {
	local rc=0
	"$evt" "$1" >"$work/out" 2>"$work/err" || rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && [ ! -s "$work/out" ]
}

# a run of 300 one-second blocks whose maxima are 50 us + the maximum of
# 1000 exponential samples of 2 us, seeded
"$py" - "$work/run.json" <<'EOF'
import json, sys
import numpy as np
rng = np.random.default_rng(1)
x = 50 - 2 * np.log(-np.expm1(np.log(rng.random(900)) / 1000))
points = [[i, 1000, 0, 40.0, 45.0, round(float(v), 3)] for i, v in enumerate(x)]
json.dump({"timeline": {"bucket_s": 1, "columns": ["second", "samples", "overruns",
                        "min", "avg", "max"], "points": points}}, open(sys.argv[1], "w"))
EOF
# the same maxima drifting up and swinging every half minute: refused,
# with a reason longer than 160 characters
"$py" - "$work/run.json" "$work/drift.json" <<'EOF'
import json, sys
import numpy as np
doc = json.load(open(sys.argv[1]))
for p in doc["timeline"]["points"]:
    p[5] = round(p[5] + p[0] * 0.02 + 5 * np.sin(p[0] / 5.0), 3)
json.dump(doc, open(sys.argv[2], "w"))
EOF
echo '{"timeline": ' >"$work/cut.json"
echo '{"kind": "cost"}' >"$work/cost.json"

set +e
"$py" "$top/tests/evt/coverage.py" --json-out "$work/coverage.json" | tee "$work/coverage.txt"
set -e
counts=$(sed -n 's/^coverage: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$work/coverage.txt")
if [ -n "$counts" ]; then
	passed=$((passed + ${counts% *}))
	failed=$((failed + ${counts#* }))
else
	echo "FAIL coverage.py ended without its counts"
	failed=$((failed + 1))
fi
check "coverage.py wrote its figures as JSON" "$py" -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/coverage.json"

check "a missing file: exit 2, one line on stderr" exits_2 "$work/missing.json"
check "a file that is not JSON: exit 2, one line on stderr" exits_2 "$work/cut.json"
check "JSON without a timeline: exit 2, one line on stderr" exits_2 "$work/cost.json"
check "the error names the problem" grep -q "no timeline" "$work/err"

"$evt" - <"$work/run.json" >"$work/stdin.json"
check "a run from stdin: indented JSON with status ok" "$py" -c '
import json, sys
assert json.load(open(sys.argv[1]))["status"] == "ok"' "$work/stdin.json"

"$evt" --cli "$work/run.json" >"$work/cli.txt"
check "--cli: exactly two lines" [ "$(wc -l <"$work/cli.txt")" -eq 2 ]
check "--cli: the first starts 'EVT| ', at most 1023 characters" "$py" -c '
import sys
first = open(sys.argv[1]).readline().rstrip("\n")
assert first.startswith("EVT| ") and len(first) <= 1023, first' "$work/cli.txt"
check "--cli: the second is the result as one line of JSON" "$py" -c '
import json, sys
result = json.loads(open(sys.argv[1]).readlines()[1])
assert result["status"] == "ok" and len(result["bounds"]) == 3' "$work/cli.txt"

"$evt" --cli "$work/drift.json" >"$work/drift.txt"
check "--cli: a refusal's EVT| line holds its reason whole, however long" "$py" -c '
import json, sys
first, second = open(sys.argv[1]).read().splitlines()
reason = json.loads(second)["reason"]
assert len(reason) > 160 and first == "EVT| " + reason, (first, reason)' "$work/drift.txt"

rc=0
timeout 20 "$evt" --cli - </dev/null >/dev/null 2>&1 || rc=$?
check "empty stdin: exit 2 at once, no hang" [ "$rc" -eq 2 ]

# The reader goes away before the bound is printed (| true, | head):
# status 0, no traceback.
rc=0
"$evt" "$work/run.json" 2>"$work/err" | true
rc=${PIPESTATUS[0]}
quiet_0() { [ "$rc" -eq 0 ] && [ ! -s "$work/err" ]; }
check "a reader that went away: exit 0 (was $rc), nothing on stderr" quiet_0

# Without numpy or scipy (a module of that name that fails to import,
# first on PYTHONPATH): exit 3, one line naming the Debian package.
names_package() {
	[ "$rc" -eq 3 ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
		grep -q "install python3-$lib" "$work/err"
}
for lib in numpy scipy; do
	mkdir -p "$work/no-$lib"
	echo "raise ModuleNotFoundError(\"No module named '$lib'\", name='$lib')" \
		>"$work/no-$lib/$lib.py"
	rc=0
	PYTHONPATH=$work/no-$lib "$evt" "$work/run.json" >"$work/out" 2>"$work/err" || rc=$?
	check "no $lib: exit 3 (was $rc), one line naming python3-$lib, no traceback" names_package
done

echo "evt: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
