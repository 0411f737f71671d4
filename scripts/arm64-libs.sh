#!/bin/bash
# Copies the arm64 shared libraries an arm64 program needs (its NEEDED
# entries, and theirs, found in this machine's multiarch directories) and
# the dynamic loader into ROOT, at the same paths, for a VM's initramfs.
# Usage: scripts/arm64-libs.sh PROGRAM ROOT
set -euo pipefail
prog=$1 root=$2
dirs=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib)
declare -A seen=()

needed() {
	aarch64-linux-gnu-readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}
copy() { # file: into ROOT at its path
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
}
walk() { # file
	local lib d found
	for lib in $(needed "$1"); do
		[ -n "${seen[$lib]:-}" ] && continue
		seen[$lib]=1
		found=
		for d in "${dirs[@]}"; do
			if [ -e "$d/$lib" ]; then
				found=$d/$lib
				break
			fi
		done
		if [ -z "$found" ]; then
			echo "arm64-libs: $lib (needed by $1) is not installed for arm64" >&2
			exit 1
		fi
		copy "$found"
		walk "$found"
	done
}
walk "$prog"
interp=$(aarch64-linux-gnu-readelf -l "$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
copy "$(readlink -f "$interp")"
mkdir -p "$root$(dirname "$interp")"
[ -e "$root$interp" ] || cp -L "$interp" "$root$interp"
