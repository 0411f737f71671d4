#!/bin/bash
# The cost suite's A/A control on this machine: latscope --cost --cost-aa
# runs the second pass of each round plainly too and measures nothing (no
# driver), so every difference it reports is noise, and at 95 % about one
# workload in 20 differs by chance. Here queens-1, queens-all, fsync and
# fork (when stress-ng is installed), --cost-repeat 6, each timing at least
# 200 ms (--cost-min-run). Requires exit 0, the A/A line, and at most 2 of
# the 4 workloads differing: with 4 comparisons at 5 % each, 3 or more
# differ by chance 1 time in 2,000 (binomial, 4.8e-4), while intervals
# too narrow for the noise (a broken formula, or a drift that alternating
# passes no longer cancel) make most of them differ. Also: the JSON says
# "aa": true and the batches, and no measuring run's file is written.
# The interval's own calibration on 4,000 synthetic A/A pairs is a unit
# test (tests/unit/test_cost.c). Ends with "cost: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${LATSCOPE_BIN:-$top/userspace/latscope}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }

[ -x "$bin" ] || make -s -C "$top/userspace" latscope || exit 1
only=queens-1,queens-all,fsync
command -v stress-ng >/dev/null && only=$only,fork
n=$(echo "$only" | tr , '\n' | wc -l)

(cd "$work" && "$bin" --cost --cost-aa --cost-only "$only" --cost-repeat 6 --cost-min-run 200 \
	--cost-dir "$work" --json aa.json >aa.out 2>&1)
rc=$?
sed 's/^/# /' "$work/aa.out"
if [ $rc = 0 ]; then ok "A/A: exit 0"; else nok "A/A: exit 0" "exit $rc"; fi
line=$(grep '^COST| A/A: ' "$work/aa.out")
read -r nd nt < <(echo "$line" |
	sed -n 's/.*measured: \([0-9]*\) of \([0-9]*\) workloads differ.*/\1 \2/p')
if [ -n "${nt:-}" ] && [ "$nt" = "$n" ] && [ "$nd" -le 2 ]; then
	ok "A/A: $nd of $nt workloads differ at 95 % (at most 2)"
else
	nok "A/A: at most 2 of $n workloads differ at 95 %" "${line:-no A/A line}"
fi
if grep -q '^COST| workload    plain                           again ' "$work/aa.out" &&
	! grep -q '^COST| measured:' "$work/aa.out"; then
	ok "A/A: the second column is 'again', no measuring run named"
else
	nok "A/A: the second column is 'again', no measuring run named" "$(head -3 "$work/aa.out")"
fi
if /usr/bin/python3 - "$work/aa.json" "$n" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s, ws = doc["settings"], doc["workloads"]
assert s["aa"] is True and s["order"] == "alternating" and s["min_run_ms"] == 200, s
assert doc["measuring_run"]["json"] is None and doc["measuring_run"]["exit_code"] == -1
assert len(ws) == int(sys.argv[2]), len(ws)
for w in ws:
    runs = w["plain"]["runs"]
    assert len(runs) == 6 and len(w["measured"]["runs"]) == 6, w["name"]
    # A timing of batch runs lasts 200 ms or more; its time is of one run.
    assert w["batch"] >= 1 and w["batch"] * min(runs) >= 0.2 * 0.5, (w["name"], w["batch"], runs)
    lo, hi = w["change_ci95"]
    assert lo <= w["change_percent"] <= hi, w["name"]
PY
then
	ok "A/A: the JSON: aa, alternating, batches at least 200 ms, each change inside its interval"
else
	nok "A/A: the JSON" "$(head -c 400 "$work/aa.json")"
fi
if ls "$work"/aa-latency.json >/dev/null 2>&1; then
	nok "A/A: no measuring run's file" "aa-latency.json written"
else
	ok "A/A: no measuring run's file"
fi
echo "cost: $pass passed, $fail failed"
[ $fail = 0 ]
