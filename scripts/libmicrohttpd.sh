#!/bin/bash
# Builds libmicrohttpd without TLS (a static library, its header and a
# pkg-config file) once into the cache and prints the directory to put in
# PKG_CONFIG_PATH, for the static CLI the VMs run: Debian's own library
# links GnuTLS, which has no static build. The sources are Debian 12's
# (the orig tarball of libmicrohttpd 0.9.75-6 in Debian's pool, checked by
# the SHA-256 its .dsc gives), so the VM's exporter runs the library the
# package would.
# Usage: PKG_CONFIG_PATH=$(scripts/libmicrohttpd.sh) make -C userspace MHD=auto LDFLAGS=-static
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

version=0.9.75
sha256=796e7e217a4802679fcac667a4e98501c53185dcf50ca0583870e84192620131
url=http://deb.debian.org/debian/pool/main/libm/libmicrohttpd/libmicrohttpd_$version.orig.tar.xz
dir=$(latscope_cache)/libmicrohttpd-$version-notls
pc=$dir/lib/pkgconfig

if [ ! -f "$dir/.done" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/src"
	tarball=$dir/libmicrohttpd-$version.orig.tar.xz
	/usr/bin/python3 - "$url" "$tarball" <<'PY'
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=120) as r, open(sys.argv[2], "wb") as f:
    f.write(r.read())
PY
	echo "$sha256  $tarball" | sha256sum -c --quiet
	tar -C "$dir/src" --strip-components=1 -xJf "$tarball"
	(
		cd "$dir/src"
		./configure --quiet --prefix="$dir" --enable-static --disable-shared \
			--disable-https --disable-doc --disable-examples --disable-curl \
			--without-gnutls --disable-nls >"$dir/configure.log" 2>&1 ||
			{ cat "$dir/configure.log" >&2; exit 1; }
		make -s -j"$(nproc)" -C src/microhttpd >"$dir/make.log" 2>&1 ||
			{ tail -40 "$dir/make.log" >&2; exit 1; }
		{
			make -s -C src/microhttpd install
			make -s -C src/include install
			make -s install-pkgconfigDATA
		} >>"$dir/make.log" 2>&1
	)
	if [ ! -f "$dir/lib/libmicrohttpd.a" ] || [ ! -f "$pc/libmicrohttpd.pc" ]; then
		echo "libmicrohttpd: the build left no static library or pkg-config file in $dir" >&2
		exit 1
	fi
	rm -rf "$dir/src" "$tarball"
	touch "$dir/.done"
fi
echo "$pc"
