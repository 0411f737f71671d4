#!/bin/bash
# Builds the GPIO test kernel (kconfig/gpio-debug.config on x86_64
# tinyconfig, from Debian's linux-source-6.12) once per config and prints
# its build directory: arch/x86/boot/bzImage to boot, and the tree
# out-of-tree modules build against. The cache key is the fragment's
# content (not its path) and the kernel source's.
# Usage: scripts/gpio-kernel.sh [preempt|rt]
#   (rt: kconfig/gpio-debug-rt.config on top)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

flavour=${1:-preempt}
src=$(latscope_linux_source)
frag=$(mktemp)
trap 'rm -f "$frag"' EXIT
case $flavour in
preempt) cp "$top/kconfig/gpio-debug.config" "$frag" ;;
rt)	grep -v '^CONFIG_PREEMPT=' "$top/kconfig/gpio-debug.config" >"$frag"
	cat "$top/kconfig/gpio-debug-rt.config" >>"$frag" ;;
*)	echo "gpio-kernel: flavour '$flavour' is not preempt or rt" >&2
	exit 2 ;;
esac
key=$(cat "$frag" "$(latscope_cache)/linux-source-6.12.stamp" | sha256sum | cut -c1-12)
build=$(latscope_cache)/gpio-kernel-$flavour-$key
if [ -f "$build/.done" ]; then
	echo "$build"
	exit 0
fi
rm -rf "$build"
mkdir -p "$build"
log=$build/build.log
{
	make -C "$src" O="$build" ARCH=x86_64 tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$frag"
	make -C "$src" O="$build" ARCH=x86_64 olddefconfig
	# Every line of the fragment must have survived olddefconfig.
	grep '^CONFIG_' "$frag" | while read -r line; do
		grep -qx "$line" "$build/.config" || { echo "gpio-kernel: $line did not stick"; exit 1; }
	done
	make -C "$src" O="$build" ARCH=x86_64 -j"$(nproc)" bzImage modules
} >"$log" 2>&1 || {
	tail -n 30 "$log" >&2
	echo "gpio-kernel: build failed, log in $log" >&2
	exit 1
}
# Old builds of other configs go.
find "$(latscope_cache)" -maxdepth 1 -name "gpio-kernel-*" ! -name "gpio-kernel-preempt-*" \
	! -name "gpio-kernel-rt-*" -exec rm -rf {} +
find "$(latscope_cache)" -maxdepth 1 -name "gpio-kernel-$flavour-*" ! -path "$build" -exec rm -rf {} +
touch "$build/.done"
echo "$build"
