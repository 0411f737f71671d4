#!/bin/bash
# Cross-builds latscope.ko for Debian 12's arm64 6.12 kernel (the one the
# Raspberry Pi checks boot): Debian's linux-source-6.12 configured with that
# package's config and prepared once per config (cached), the headers
# package's Module.symvers, W=1 and sparse, any warning fails. The module
# goes to DIR (default: the cache); prints its path.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
tree=$("$top/scripts/arm64-kernel.sh")
config=$(echo "$tree"/boot/config-*)
release=${config##*/config-}
src=$(latscope_linux_source)
key=$( (echo "$release"; cat "$config" "$tree/Module.symvers") | sha256sum | cut -c1-12)
kdir=$(latscope_cache)/arm64-kdir-$key

latscope_lock arm64-kdir
if [ ! -f "$kdir/.done" ]; then
	find "$(latscope_cache)" -maxdepth 1 -name 'arm64-kdir-*' -exec rm -rf {} +
	mkdir -p "$kdir"
	cp "$config" "$kdir/.config"
	make -s -C "$src" O="$kdir" "${cross[@]}" olddefconfig >/dev/null
	make -s -C "$src" O="$kdir" "${cross[@]}" KERNELRELEASE="$release" \
		-j"$(nproc)" modules_prepare >/dev/null
	cp "$tree/Module.symvers" "$kdir/"
	touch "$kdir/.done"
fi

out=${1:-$(latscope_cache)/arm64-module}
rm -rf "$out"
mkdir -p "$out"
cp -r "$top/driver/." "$out/"
log=$out/build.log
if make -C "$kdir" M="$out" "${cross[@]}" KERNELRELEASE="$release" \
	CONFIG_LATSCOPE=m W=1 C=2 modules >"$log" 2>&1 &&
	! grep -E 'warning:|error:' "$log" >/dev/null && [ -f "$out/latscope.ko" ]; then
	echo "$out/latscope.ko"
else
	echo "arm64-module: cross-build for $release failed:" >&2
	grep -E 'warning:|error:' "$log" >&2 || tail -n 20 "$log" >&2
	exit 1
fi
