#!/bin/bash
# Runs shellcheck (every severity, style notes included) over every shell
# script git knows of: each *.sh file and each file whose first line is a
# sh or bash shebang (tests/vm/init, .ci/run, and any new one). -x follows
# the files a "# shellcheck source=" directive names, paths from the top.
# Fails on any finding.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
cd "$top"
command -v shellcheck >/dev/null || {
	echo "shellcheck: not installed (run scripts/install-deps.sh)" >&2
	exit 1
}

# #!/bin/sh, #!/bin/bash, #!/usr/bin/env bash, #!/bin/busybox sh, ...
shebang='^#!.*[/[:space:]](ba|da|a|k)?sh([[:space:]]|$)'
mapfile -t -d '' files < <(latscope_files_of "$shebang" '*.sh' '*.bash-completion')

if [ ${#files[@]} -eq 0 ]; then
	echo "shellcheck: no shell script found" >&2
	exit 1
fi
if ! shellcheck -x -f gcc "${files[@]}"; then
	echo "shellcheck: FAIL"
	exit 1
fi
echo "shellcheck: ${#files[@]} files clean"
