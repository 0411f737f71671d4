#!/bin/bash
# Runs the kernel's checkpatch.pl --strict over the driver's sources and
# fails on any error, warning or check.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

src=$(latscope_linux_source)
cd "$top"
# The sources git knows of (build leftovers are ignored), else all of them.
mapfile -t files < <(git ls-files --cached --others --exclude-standard 'driver/*.[ch]' 2>/dev/null |
	sort)
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(find driver -name '*.[ch]' ! -name '*.mod.c' | sort)
# FILE_PATH_CHANGES: no MAINTAINERS file out of tree.
out=$("$src/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES -f "${files[@]}" 2>&1 || true)
bad=$(grep -E ': (ERROR|WARNING|CHECK):' <<<"$out" || true)
if [ -n "$bad" ]; then
	echo "$bad"
	echo "checkpatch --strict: FAIL"
	exit 1
fi
echo "checkpatch --strict: ${#files[@]} files clean"
