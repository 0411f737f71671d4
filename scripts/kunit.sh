#!/bin/bash
# Runs the latscope KUnit suite: drops driver/ into Debian's linux-source-6.12
# as drivers/misc/latscope, then has tools/testing/kunit/kunit.py build an
# x86_64 kernel and boot it under QEMU (TCG, 2 CPUs, so CPU hotplug and two
# sessions at once are exercised). The source tree and the build are cached
# under $LATSCOPE_CACHE, the build keyed by the kunitconfig.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

src=$(latscope_linux_source)
dst=$src/drivers/misc/latscope

# Sync driver/ into the tree, touching only files that changed, so make
# rebuilds nothing it does not have to.
mkdir -p "$dst"
sync_file() {
	cmp -s "$1" "$2" 2>/dev/null || cp "$1" "$2"
}
(cd "$top/driver" && find . -type f \( -name '*.[ch]' -o -name Kbuild -o -name .kunitconfig \)) |
while read -r f; do
	mkdir -p "$dst/$(dirname "$f")"
	sync_file "$top/driver/$f" "$dst/$f"
done
(cd "$dst" && find . -type f \( -name '*.[ch]' -o -name Kbuild \)) |
while read -r f; do
	[ -e "$top/driver/$f" ] || rm -f "$dst/$f"
done
sync_file "$top/Kconfig" "$dst/Kconfig"
grep -q 'drivers/misc/latscope/Kconfig' "$src/drivers/misc/Kconfig" ||
	echo 'source "drivers/misc/latscope/Kconfig"' >>"$src/drivers/misc/Kconfig"
# shellcheck disable=SC2016 # a Makefile line: $(CONFIG_LATSCOPE) is make's
grep -q 'latscope/' "$src/drivers/misc/Makefile" ||
	echo 'obj-$(CONFIG_LATSCOPE) += latscope/' >>"$src/drivers/misc/Makefile"

# kunit.py redoes the .config itself when the kunitconfig changes; the key
# only keeps builds of different configs from evicting one another.
key=$(sha256sum <"$top/driver/.kunitconfig" | cut -c1-12)
build=$(latscope_cache)/kunit-x86_64-$key
mkdir -p "$build"
# Builds for configs the tree no longer has are about 1 GiB each.
find "$(latscope_cache)" -maxdepth 1 -name 'kunit-x86_64-*' ! -path "$build" -exec rm -rf {} +

cd "$src"
# Raw console to a log, then parsed: a lockdep, KASAN or WARN splat does not
# fail a KUnit case by itself, so the log is scanned for them as well.
log=$build/console.log
if ! python3 tools/testing/kunit/kunit.py run \
	--arch=x86_64 \
	--qemu_args='-smp 2' \
	--kunitconfig="$dst/.kunitconfig" \
	--build_dir="$build" \
	--jobs="$(nproc)" \
	--timeout=900 \
	--raw_output=all \
	"$@" >"$log" 2>&1; then
	tail -n 40 "$log"
	echo "kunit: build or boot failed, log in $log"
	exit 1
fi
status=0
python3 tools/testing/kunit/kunit.py parse "$log" || status=1
# The figure latscope_sample_cost prints (emulated: not the hardware's).
grep -o 'per-sample cost.*' "$log" | sed 's/^/kunit (TCG): /' || true
if sed -n '/^Running tests with:/,$p' "$log" |
	grep -E 'BUG:|WARNING:|Oops|general protection|blocked for more than|scheduling while atomic|possible circular|inconsistent lock|lock held when returning'; then
	echo "kunit: the kernel log has the splats above, log in $log"
	status=1
fi
exit $status
