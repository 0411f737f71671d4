#!/bin/bash
# The driver's kernel-doc comments, checked by the kernel's own
# scripts/kernel-doc -Wall (Debian's linux-source-6.12): every parameter
# and return value described, every comment that opens with "/**" a
# well-formed one. First on a made-up file with one parameter left out,
# which it must refuse (a check that cannot fail checks nothing), then
# on the driver's files as checkpatch takes them (driver/*.[ch], the
# uapi header among them). Fails on any warning.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

kdoc=$(latscope_linux_source)/scripts/kernel-doc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Its warnings go to stderr, and its exit status does not count them in
# every kernel version: the lines are what is read.
warnings() { "$kdoc" -Wall -none "$@" 2>&1 >/dev/null | grep -E 'warning|error' || true; }

cat >"$tmp/bad.c" <<'C'
/**
 * latscope_bad() - one parameter described, one not
 * @a: described
 *
 * Return: a
 */
int latscope_bad(int a, int b);
C
if ! warnings "$tmp/bad.c" | grep -q "'b' not described"; then
	echo "not ok - kernel-doc: an undescribed parameter went unnoticed"
	exit 1
fi
echo "ok - kernel-doc: an undescribed parameter is refused"

cd "$top"
mapfile -t files < <(latscope_driver_files)
out=$(warnings "${files[@]}")
if [ -n "$out" ]; then
	echo "$out"
	echo "not ok - kernel-doc -Wall: $(wc -l <<<"$out") warnings in the driver"
	exit 1
fi
echo "ok - kernel-doc -Wall: ${#files[@]} driver files clean"
