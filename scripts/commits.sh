#!/bin/bash
# The subjects of the commits since the last release: "area: summary",
# 75 characters at most, no "wip" ("fixup!" has no area), no full stop at
# the end; git's 'Revert "area: summary"' is one too (docs/testing.md,
# "Commits"). Whether a summary is imperative
# and a body says why is left to review.
# Usage: scripts/commits.sh [REPO [BASE]]
#   REPO: the git tree (default: this one); BASE: the first commit not
#   checked (default: the newest v* tag; without one, v0.1.0's commit,
#   named below, so that a clone without tags checks the same).
# Prints "ok - ..." or a "not ok - HASH: why: SUBJECT" line for each
# commit it refuses; exits 1 if it refused any, 2 if it could not check.
set -euo pipefail
# v0.1.0: the release the rule starts from.
first_release=92bc557
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if [ ! -e "$repo/.git" ]; then
	echo "ok - commits: $repo is not a git tree (a tarball): nothing to check"
	exit 0
fi
if ! err=$(git -C "$repo" rev-parse --git-dir 2>&1 >/dev/null); then
	echo "not ok - commits: git cannot read $repo: $err"
	exit 2
fi
base=${2:-$(git -C "$repo" describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || echo "$first_release")}
if ! git -C "$repo" rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
	echo "not ok - commits: the base '$base' is not in $repo (a shallow clone?)"
	exit 2
fi
area='[A-Za-z0-9][A-Za-z0-9._/,+ -]*: [^ ]'
form="^$area"
revert="^Revert \"$area.*\"\$"
wip='(^|[^a-z])wip([^a-z]|$)'
bad=0 n=0
while IFS=' ' read -r hash subject; do
	n=$((n + 1))
	why=
	if [ ${#subject} -gt 75 ]; then
		why="${#subject} characters, over 75"
	elif ! [[ $subject =~ $form || $subject =~ $revert ]]; then
		why='not "area: summary"'
	elif [[ ${subject,,} =~ $wip ]]; then
		why='work in progress'
	elif [[ $subject == *. ]]; then
		why='ends with a full stop'
	fi
	if [ -n "$why" ]; then
		echo "not ok - commit $hash: $why: $subject"
		bad=$((bad + 1))
	fi
done < <(git -C "$repo" log --no-merges --format='%h %s' "$base..HEAD")
if [ $bad -gt 0 ]; then
	echo "not ok - commits: $bad of $n subjects since $base break the rule"
	exit 1
fi
echo "ok - commits: $n since $base, each \"area: summary\", 75 characters at most"
