# shellcheck shell=bash
# Shared helpers for latscope's scripts: where the cache lives and which
# Debian kernels make up the test matrix.

latscope_cache() {
	local dir=${LATSCOPE_CACHE:-/var/cache/latscope}

	mkdir -p "$dir"
	echo "$dir"
}

# Extracts Debian's linux-source-6.12 once into the cache; prints its path.
latscope_linux_source() {
	local tarball=/usr/src/linux-source-6.12.tar.xz
	local cache stamp dir

	cache=$(latscope_cache)
	dir=$cache/linux-source-6.12
	stamp=$cache/linux-source-6.12.stamp
	if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(stat -c %Y-%s "$tarball")" ]; then
		rm -rf "$dir"
		tar -C "$cache" -xf "$tarball"
		stat -c %Y-%s "$tarball" >"$stamp"
	fi
	echo "$dir"
}

latscope_pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# Newest installed Debian header tree for a series (6.1, 6.12) and flavour
# (amd64, rt-amd64); fails if there is none.
latscope_headers_dir() {
	local series=$1 flavour=$2 d best=

	for d in /usr/src/linux-headers-"$series".*-"$flavour"; do
		[ -f "$d/Makefile" ] || continue
		# linux-headers-6.1.0-56-amd64 must not match the rt-amd64 flavour
		# and 6.1 must not match 6.12.
		case ${d#/usr/src/linux-headers-} in
		*-rt-amd64) [ "$flavour" = rt-amd64 ] || continue ;;
		esac
		case ${d#/usr/src/linux-headers-} in
		"$series".[0-9]*) ;;
		*) continue ;;
		esac
		best=$(printf '%s\n%s\n' "$best" "$d" | sed '/^$/d' | sort -V | tail -n 1)
	done
	[ -n "$best" ] || return 1
	echo "$best"
}

# Flags for -m32/-m64 test programs. Debian's gcc-multilib conflicts with
# the arm64 cross compiler the Raspberry Pi checks need; without it the
# 32-bit build lacks only its /usr/include/asm link, and the x86 asm headers
# there serve both widths.
latscope_mflags() {
	echo "-m$1 -idirafter /usr/include/x86_64-linux-gnu"
}

# Builds the CLI static into DEST (make arguments after it, e.g. CC=), in a
# copy of userspace/ and the uapi header of its own: no object of another
# build or architecture is reused, nothing is left in the work tree, and two
# VM runs from one tree do not build into each other. Usage: TOP DEST [ARG...]
latscope_static_cli() {
	local top=$1 dest=$2 tmp rc=0

	shift 2
	tmp=$(mktemp -d)
	mkdir -p "$tmp/driver"
	cp -r "$top/userspace" "$tmp/userspace"
	cp -r "$top/driver/include" "$tmp/driver/include"
	make -s -C "$tmp/userspace" clean
	make -s -C "$tmp/userspace" LDFLAGS=-static "$@" latscope &&
		mv "$tmp/userspace/latscope" "$dest" || rc=1
	rm -rf "$tmp"
	return $rc
}

# The Raspberry Pi overlay as its loopback_pin parameter leaves it on a Pi:
# fragments 0 and 1 off, the dormant 2 and 3 on. Prints the source.
latscope_loopback_overlay() {
	sed 's/__overlay__/__live__/; s/__dormant__/__overlay__/; s/__live__/__dormant__/' \
		"$1/dts-overlays/latscope-gpio-overlay.dts"
}

# The kernel matrix every change is built and tested against.
# shellcheck disable=SC2034 # read by the scripts that source this file
LATSCOPE_MATRIX=("6.1 amd64" "6.1 rt-amd64" "6.12 amd64" "6.12 rt-amd64")
