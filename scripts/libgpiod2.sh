#!/bin/bash
# Builds libgpiod 2.x (a static library, its header and a pkg-config file)
# once into the cache and prints the directory to put in PKG_CONFIG_PATH.
# Debian 12 has libgpiod 1.6 only; the C sources of 2.x come with the
# source distribution of the "gpiod" package on PyPI (its lib/ and
# include/), fetched from PyPI at a pinned version and checked by its
# SHA-256.
# Usage: PKG_CONFIG_PATH=$(scripts/libgpiod2.sh) make -C userspace
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

version=2.5.0
sha256=53ae5a1f14d6388c155b591ca0fc0cfa73b44d4f6d8d117e8a9e68f5902d187a
dir=$(latscope_cache)/libgpiod2-py$version
pc=$dir/lib/pkgconfig

if [ ! -f "$dir/.done" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/src" "$dir/include" "$pc"
	tarball=$dir/gpiod-$version.tar.gz
	# PyPI's simple index gives the sdist's address; the hash above decides.
	/usr/bin/python3 - "$version" "$tarball" <<'PY'
import re, sys, urllib.request
version, dest = sys.argv[1], sys.argv[2]
with urllib.request.urlopen("https://pypi.org/simple/gpiod/", timeout=60) as r:
    page = r.read().decode()
name = f"gpiod-{version}.tar.gz"
url = next(h for h in re.findall(r'href="([^"#]+)', page) if h.endswith("/" + name))
with urllib.request.urlopen(url, timeout=120) as r, open(dest, "wb") as f:
    f.write(r.read())
PY
	echo "$sha256  $tarball" | sha256sum -c --quiet
	tar -C "$dir/src" --strip-components=1 -xzf "$tarball"
	api=$(cat "$dir/src/libgpiod-version.txt")
	case $api in
	2.*) ;;
	*) echo "libgpiod2: gpiod $version carries libgpiod '$api', not 2.x" >&2; exit 1 ;;
	esac
	for f in "$dir"/src/lib/*.c; do
		gcc -O2 -g -std=gnu11 -D_GNU_SOURCE -fPIC -DGPIOD_API_VERSION_STR="\"$api\"" \
			-I"$dir/src/include" -I"$dir/src/lib" -c "$f" -o "$dir/src/$(basename "$f" .c).o"
	done
	ar rcs "$dir/lib/libgpiod.a" "$dir"/src/*.o
	cp "$dir/src/include/gpiod.h" "$dir/include/"
	cat >"$pc/libgpiod.pc" <<PC
prefix=$dir
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: libgpiod
Description: libgpiod $api, built by latscope from PyPI's gpiod $version
Version: $api
Cflags: -I\${includedir}
Libs: -L\${libdir} -lgpiod
PC
	touch "$dir/.done"
fi
echo "$pc"
