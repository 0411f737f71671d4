#!/bin/bash
# pyflakes (Debian's pyflakes3) over every Python file git knows of: each
# *.py file and each file whose first line is a python shebang (the
# userspace/latscope-report and latscope-evt entry points, which must be
# among them, and any new one). pyflakes finds names used but never
# defined, imports and variables never used, and the like, without running
# the code. First on a made-up file with an unused import, which it must
# refuse (a check that cannot fail checks nothing). Fails on any finding.
# Python inside shell scripts' here-documents is not read.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
cd "$top"
command -v pyflakes3 >/dev/null || {
	echo "not ok - pyflakes: pyflakes3 not installed (run scripts/install-deps.sh)"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'import os\n' >"$tmp/unused.py"
if pyflakes3 "$tmp/unused.py" >"$tmp/out" 2>&1 ||
	! grep -q "'os' imported but unused" "$tmp/out"; then
	cat "$tmp/out"
	echo "not ok - pyflakes: an unused import went unnoticed"
	exit 1
fi
echo "ok - pyflakes: an unused import is refused"

# #!/usr/bin/python3, #!/usr/bin/env python3, ...
shebang='^#!.*[/[:space:]]python[0-9.]*([[:space:]]|$)'
mapfile -t -d '' files < <(latscope_files_of "$shebang" '*.py')

for entry in userspace/latscope-report userspace/latscope-evt; do
	if [[ " ${files[*]} " != *" $entry "* ]]; then
		echo "not ok - pyflakes: $entry not found among the Python files"
		exit 1
	fi
done

if ! out=$(pyflakes3 "${files[@]}" 2>&1); then
	echo "$out"
	n=$(grep -c . <<<"$out")
	echo "not ok - pyflakes: $n finding$([ "$n" = 1 ] || echo s) in ${#files[@]} Python files"
	exit 1
fi
echo "ok - pyflakes: ${#files[@]} Python files clean"
