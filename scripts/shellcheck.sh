#!/bin/bash
# Runs shellcheck (every severity, style notes included) over every shell
# script git knows of: each *.sh file and each file whose first line is a
# sh or bash shebang (tests/vm/init, .ci/run, and any new one). -x follows
# the files a "# shellcheck source=" directive names, paths from the top.
# Fails on any finding.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
command -v shellcheck >/dev/null || {
	echo "shellcheck: not installed (run scripts/install-deps.sh)" >&2
	exit 1
}

# The files git knows of (build leftovers are ignored), else all of them.
list() {
	git ls-files -z --cached --others --exclude-standard 2>/dev/null ||
		find . -path ./.git -prune -o -type f -printf '%P\0'
}

files=()
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue		# deleted, not yet staged
	case $f in
	*.sh | *.bash-completion)
		files+=("$f")
		continue
		;;
	esac
	first=
	IFS= read -r first <"$f" || true
	# #!/bin/sh, #!/bin/bash, #!/usr/bin/env bash, #!/bin/busybox sh, ...
	if [[ $first =~ ^#!.*[/[:space:]](ba|da|a|k)?sh([[:space:]]|$) ]]; then
		files+=("$f")
	fi
done < <(list | sort -z)

if [ ${#files[@]} -eq 0 ]; then
	echo "shellcheck: no shell script found" >&2
	exit 1
fi
if ! shellcheck -x -f gcc "${files[@]}"; then
	echo "shellcheck: FAIL"
	exit 1
fi
echo "shellcheck: ${#files[@]} files clean"
