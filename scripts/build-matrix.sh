#!/bin/bash
# Builds latscope.ko with W=1 against every kernel of the matrix (Debian 12's
# 6.1 and 6.12, mainline and PREEMPT_RT; Debian 11's 5.10 and unstable's
# newest, each in a chroot of its suite, built by its own gcc; and the arm64
# 6.12 one, cross) and runs sparse (C=2) on each.
# Fails on any compiler or sparse warning. Objects go to the cache, so the
# work tree stays clean.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

out=$(latscope_cache)/build-matrix
fail=0
for entry in "${LATSCOPE_MATRIX[@]}" "${LATSCOPE_MATRIX_RANGE[@]}"; do
	# shellcheck disable=SC2086 # $entry is "SERIES FLAVOUR": two arguments
	kdir=$(latscope_headers_dir $entry) || {
		echo "FAIL $entry: no headers installed (run scripts/install-deps.sh)"
		fail=1
		continue
	}
	name=$(basename "$kdir")
	dir=$out/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$top/driver/." "$dir/"
	log=$dir/build.log
	# No CONFIG_LATSCOPE=m: the bare out-of-tree build DKMS runs must build it.
	if latscope_kbuild "$kdir" "$dir" W=1 C=2 modules >"$log" 2>&1 &&
	   ! grep -E 'warning:|error:' "$log" >/dev/null && [ -f "$dir/latscope.ko" ]; then
		echo "ok   $name (W=1, sparse)"
	else
		echo "FAIL $name"
		grep -E 'warning:|error:' "$log" | sed 's/^/     /' || tail -n 20 "$log"
		fail=1
	fi
done
# Debian's arm64 6.12 kernel, the one the Raspberry Pi checks boot.
if ko=$("$top/scripts/arm64-module.sh"); then
	echo "ok   arm64 $(modinfo -F vermagic "$ko" | cut -d' ' -f1) (cross, W=1, sparse)"
else
	echo "FAIL arm64 cross-build"
	fail=1
fi
exit $fail
