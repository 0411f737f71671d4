#!/bin/bash
# scripts/commits.sh on a made-up history: every kind of subject it
# refuses is refused, with its reason, and the good ones pass; then on
# this tree since its last release.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/scripts/commits.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1"; fail=$((fail + 1)); }

git init -q "$tmp/repo"
g() { git -C "$tmp/repo" -c user.name=t -c user.email=t@example.org "$@"; }
commit() { g commit -q --allow-empty -m "$1"; }
commit "docs: the first commit, not checked"
base=$(g rev-parse HEAD)
good=("driver: rcuwait replaces swait for the PULSE waiter"
	"bench.py: one p99_us() for cyclictest's and rtla's cells"
	"unit tests: one check_refusals() for the five tables"
	'Revert "cli: refuse --force without -g or --json"'
	"$(printf 'docs: %069d' 0)")
for s in "${good[@]}"; do commit "$s"; done
out=$("$check" "$tmp/repo" "$base")
rc=$?
if [ $rc = 0 ] && [[ $out == *"5 since"* ]]; then
	ok "five good subjects pass"
else
	nok "five good subjects: exit $rc: $out"
fi

# Each bad subject alone after the good ones: refused, with its reason.
bad=("$(printf 'docs: %070d' 0)|76 characters, over 75"
	"Fix the build|not \"area: summary\""
	"driver:no space after the colon|not \"area: summary\""
	": no area|not \"area: summary\""
	"wip: flight record hold|work in progress"
	"driver: WIP ring|work in progress"
	"fixup! driver: rcuwait replaces swait|not \"area: summary\""
	"docs: say what the bench measures.|ends with a full stop")
for entry in "${bad[@]}"; do
	s=${entry%|*} why=${entry##*|}
	g branch -q -f probe HEAD
	commit "$s"
	out=$("$check" "$tmp/repo" "$base")
	rc=$?
	if [ $rc = 1 ] && grep -qF "$why: $s" <<<"$out" &&
		[ "$(grep -c '^not ok - commit ' <<<"$out")" = 1 ]; then
		ok "refused, $why: $s"
	else
		nok "'$s': exit $rc, wanted 1 and '$why': $out"
	fi
	g reset -q --hard probe
done

out=$("$check" "$tmp/repo" no-such-base 2>&1)
rc=$?
if [ $rc = 2 ] && [[ $out == *"'no-such-base' is not in"* ]]; then
	ok "an unknown base: exit 2, named"
else
	nok "an unknown base: exit $rc: $out"
fi

# A tree git will not read (another owner's) is an error, not a tarball.
out=$(GIT_CONFIG_GLOBAL=/dev/null GIT_DIR=/nonexistent "$check" "$tmp/repo" "$base" 2>&1)
rc=$?
if [ $rc = 2 ] && [[ $out == *"git cannot read"* ]]; then
	ok "a tree git cannot read: exit 2, named"
else
	nok "a tree git cannot read: exit $rc: $out"
fi
mkdir "$tmp/tarball"
out=$("$check" "$tmp/tarball")
rc=$?
if [ $rc = 0 ] && [[ $out == *"not a git tree"* ]]; then
	ok "a tree without .git: nothing to check, said"
else
	nok "a tree without .git: exit $rc: $out"
fi

out=$("$check")
rc=$?
if [ $rc = 0 ]; then
	ok "this tree: ${out#ok - }"
else
	echo "$out"
	nok "this tree's subjects since its last release"
fi

echo "commits: $pass passed, $fail failed"
[ $fail = 0 ]
