#!/bin/bash
# Builds rtla from Debian's linux-source-6.12 (tools/tracing/rtla, with
# timerlat's auto-analysis, which Debian 12's rtla 6.1 lacks) against
# Debian's libtracefs and libtraceevent, once, into the cache; prints the
# binary's path. The recorder's VM test runs it beside latscope
# (tests/vm/why_test.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

cache=$(latscope_cache)
tarball=/usr/src/linux-source-6.12.tar.xz
out=$cache/rtla-6.12
stamp=$out/stamp
want=$(stat -c %Y-%s "$tarball")
if [ -x "$out/rtla" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
	echo "$out/rtla"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/src"
tar -C "$out/src" -xf "$tarball" --strip-components=1 \
	linux-source-6.12/tools/tracing/rtla linux-source-6.12/tools/build \
	linux-source-6.12/tools/scripts linux-source-6.12/tools/include \
	linux-source-6.12/tools/arch linux-source-6.12/scripts
make -s -C "$out/src/tools/tracing/rtla" -j"$(nproc)" >"$out/build.log" 2>&1 || {
	cat "$out/build.log" >&2
	echo "rtla: the build failed" >&2
	exit 1
}
cp "$out/src/tools/tracing/rtla/rtla" "$out/rtla"
rm -rf "$out/src"
echo "$want" >"$stamp"
echo "$out/rtla"
