# shellcheck shell=bash
# Shared helpers for latscope's scripts: where the cache lives and which
# Debian kernels make up the test matrix.

latscope_cache() {
	local dir=${LATSCOPE_CACHE:-/var/cache/latscope}

	mkdir -p "$dir"
	echo "$dir"
}

# Holds the cache's lock NAME until the calling script exits: two stages
# side by side (scripts/check.sh's lanes) that fill the same part of the
# cache take turns.
latscope_lock() { # name
	local fd

	exec {fd}>"$(latscope_cache)/$1.lock"
	flock "$fd"
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

# The driver's sources and headers, the uapi header among them, relative
# to the tree's top (the caller's working directory): those git knows of,
# so that no build leftover counts, else every one but a build's *.mod.c.
latscope_driver_files() {
	local files

	files=$(git ls-files --cached --others --exclude-standard 'driver/*.[ch]' 2>/dev/null || true)
	[ -n "$files" ] || files=$(find driver -name '*.[ch]' ! -name '*.mod.c')
	sort <<<"$files"
}

# The tree's files named by one of the GLOBs or whose first line matches
# the regular expression RE (a shebang), relative to the tree's top (the
# caller's working directory), sorted, each ended by a NUL: of the files
# git knows of, so that no build leftover counts, else (no git) of all.
latscope_files_of() { # re glob...
	local re=$1 f g first

	shift
	while IFS= read -r -d '' f; do
		[ -f "$f" ] || continue		# deleted, not yet staged
		for g in "$@"; do
			# shellcheck disable=SC2053 # $g is a glob, to match as one
			if [[ $f == $g ]]; then
				printf '%s\0' "$f"
				continue 2
			fi
		done
		first=
		IFS= read -r first <"$f" || true
		if [[ $first =~ $re ]]; then
			printf '%s\0' "$f"
		fi
	done < <({ git ls-files -z --cached --others --exclude-standard 2>/dev/null ||
		find . -path ./.git -prune -o -type f -printf '%P\0'; } | sort -z)
}

latscope_pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# Newest installed Debian header tree for a series (6.1, 6.12: this
# machine's; 5.10, sid: in the chroot of Debian 11 or unstable that
# scripts/chroot.sh makes) and flavour (amd64, rt-amd64); fails if there
# is none.
latscope_headers_dir() {
	local series=$1 flavour=$2 d best="" src=/usr/src rel

	case $series in
	5.10) src=$("$(dirname "${BASH_SOURCE[0]}")/chroot.sh" bullseye)/usr/src || return 1 ;;
	sid) src=$("$(dirname "${BASH_SOURCE[0]}")/chroot.sh" sid)/usr/src || return 1 ;;
	esac
	for d in "$src"/linux-headers-*-"$flavour"; do
		[ -f "$d/Makefile" ] || continue
		rel=${d#"$src"/linux-headers-}
		# linux-headers-6.1.0-56-amd64 must not match the rt-amd64 flavour
		# and 6.1 must not match 6.12.
		case $rel in
		*-rt-amd64) [ "$flavour" = rt-amd64 ] || continue ;;
		*-cloud-amd64) continue ;;
		esac
		case $series in
		sid) ;;
		*) case $rel in "$series".[0-9]*) ;; *) continue ;; esac ;;
		esac
		best=$(printf '%s\n%s\n' "$best" "$d" | sed '/^$/d' | sort -V | tail -n 1)
	done
	[ -n "$best" ] || return 1
	echo "$best"
}

# The chroot a header tree lies in (scripts/chroot.sh), or nothing.
latscope_chroot_of() { # kdir
	case $1 in
	*/chroot-*/usr/src/*) echo "${1%%/usr/src/*}" ;;
	esac
}

# make for an out-of-tree module in DIR against the header tree KDIR, with
# more arguments; where KDIR lies in a chroot, in that chroot as its suite
# builds (DIR copied in and back, /proc mounted for objtool, one build
# at a time per chroot).
latscope_kbuild() { # kdir dir args...
	local kdir=$1 dir=$2 root tmp rc=0
	shift 2
	root=$(latscope_chroot_of "$kdir")
	if [ -z "$root" ]; then
		make -C "$kdir" M="$dir" "$@"
		return
	fi
	(
		latscope_lock "kbuild-$(basename "$root")"
		tmp=$(mktemp -d "$root/build.XXXXXX")
		cp -r "$dir/." "$tmp/"
		mount -t proc proc "$root/proc"
		chroot "$root" make -C "${kdir#"$root"}" M="${tmp#"$root"}" "$@" || rc=$?
		umount "$root/proc"
		cp -r "$tmp/." "$dir/"
		rm -rf "$tmp"
		exit $rc
	)
}

# Debian's kernel image for a release of the matrix: the installed one
# (the headers package depends on it), else fetched once into the cache;
# its path is printed. latscope_image_mb says how big the package that
# carries it is, in MB, when neither is there yet (nothing otherwise).
latscope_kernel_image() { # release [chroot: fetched with its apt]
	local release=$1 root=${2:-} cache tmp

	# In a chroot's suite the image is in linux-image-R (5.10's signed one,
	# /boot/vmlinuz-R), or, since 7.x split it, in linux-binary-R
	# (/usr/lib/modules/R/vmlinuz).
	if [ -n "$root" ] && [ ! -f "$(latscope_cache)/images/vmlinuz-$release" ]; then
		local pkg
		mkdir -p "$(latscope_cache)/images"
		tmp=$(mktemp -d "$root/image.XXXXXX")
		for pkg in "linux-image-$release" "linux-binary-$release"; do
			rm -f "$tmp"/*.deb
			chroot "$root" sh -c "cd ${tmp#"$root"} && apt-get download -q -o APT::Sandbox::User=root $pkg" \
				>/dev/null 2>&1 || continue
			dpkg-deb --fsys-tarfile "$tmp/$pkg"_*.deb |
				tar -x -C "$tmp" "./boot/vmlinuz-$release" 2>/dev/null && break
			dpkg-deb --fsys-tarfile "$tmp/$pkg"_*.deb |
				tar -x -C "$tmp" "./usr/lib/modules/$release/vmlinuz" 2>/dev/null || continue
			mkdir -p "$tmp/boot"
			mv "$tmp/usr/lib/modules/$release/vmlinuz" "$tmp/boot/vmlinuz-$release"
			break
		done
		[ -f "$tmp/boot/vmlinuz-$release" ] || { rm -rf "$tmp"; return 1; }
		mv "$tmp/boot/vmlinuz-$release" "$(latscope_cache)/images/vmlinuz-$release"
		rm -rf "$tmp"
	fi
	if [ -r "/boot/vmlinuz-$release" ]; then
		echo "/boot/vmlinuz-$release"
		return 0
	fi
	cache=$(latscope_cache)
	if [ ! -f "$cache/images/vmlinuz-$release" ]; then
		mkdir -p "$cache/images"
		tmp=$(mktemp -d)
		chmod 755 "$tmp"	# apt's _apt user downloads into it
		# A stale package list may not know the image yet: refresh once.
		(cd "$tmp" && { apt-get download -q "linux-image-$release" >/dev/null 2>&1 ||
			{ apt-get update -qq && apt-get download -q "linux-image-$release" >/dev/null; }; }) ||
			{ rm -rf "$tmp"; return 1; }
		dpkg-deb --fsys-tarfile "$tmp"/linux-image-"$release"_*.deb |
			tar -x -C "$tmp" "./boot/vmlinuz-$release"
		mv "$tmp/boot/vmlinuz-$release" "$cache/images/vmlinuz-$release"
		rm -rf "$tmp"
	fi
	echo "$cache/images/vmlinuz-$release"
}

# Copies modules of the Debian kernel RELEASE (paths under kernel/, no
# .ko suffix) into DEST, uncompressed, for busybox's insmod: from
# /lib/modules if this machine has that kernel, else from its image
# package, downloaded once and the modules asked for kept in the cache.
# Usage: latscope_kernel_modules RELEASE DEST net/core/failover ...
latscope_kernel_modules() {
	local release=$1 dest=$2 m f src cache tmp
	shift 2
	src=/lib/modules/$release/kernel
	cache=$(latscope_cache)/modules-$release
	mkdir -p "$dest"
	for m; do
		f=$(find "$src" "$cache/lib/modules/$release/kernel" -path "*/$m.ko*" 2>/dev/null | head -1)
		if [ -z "$f" ]; then
			tmp=$(mktemp -d)
			chmod 755 "$tmp"	# apt's _apt user downloads into it
			(cd "$tmp" && { apt-get download -q "linux-image-$release" >/dev/null 2>&1 ||
				{ apt-get update -qq && apt-get download -q "linux-image-$release" >/dev/null; }; }) ||
				{ rm -rf "$tmp"; return 1; }
			mkdir -p "$cache"
			dpkg-deb --fsys-tarfile "$tmp"/linux-image-"$release"_*.deb |
				tar -x -C "$cache" --wildcards "./lib/modules/$release/kernel/$m.ko*"
			rm -rf "$tmp"
			f=$(find "$cache/lib/modules/$release/kernel" -path "*/$m.ko*" | head -1)
			[ -n "$f" ] || return 1
		fi
		case $f in
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -dc "$f" ;;
		*) cat "$f" ;;
		esac >"$dest/$(basename "$m").ko"
	done
}

latscope_image_mb() {
	local release=$1

	[ -r "/boot/vmlinuz-$release" ] && return 0
	[ -f "$(latscope_cache)/images/vmlinuz-$release" ] && return 0
	apt-cache show --no-all-versions "linux-image-$release" 2>/dev/null |
		awk '/^Size:/ { printf "%.0f\n", $2 / 1e6; exit }'
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

# Builds the CLI with AddressSanitizer and UBSan into DEST, their runtimes
# linked in (glibc and libgpiod stay shared: copy what ldd lists), as
# latscope_static_cli does, in a copy of its own. Usage: TOP DEST
latscope_asan_cli() {
	local top=$1 dest=$2 tmp rc=0 san

	san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -static-libasan -static-libubsan"
	tmp=$(mktemp -d)
	mkdir -p "$tmp/driver"
	cp -r "$top/userspace" "$tmp/userspace"
	cp -r "$top/driver/include" "$tmp/driver/include"
	make -s -C "$tmp/userspace" clean
	make -s -C "$tmp/userspace" CFLAGS="-O1 -g -fno-omit-frame-pointer $san" \
		LDFLAGS="$san" latscope &&
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
# Its ends, built for in chroots (scripts/chroot.sh): Debian 11's 5.10 and
# unstable's newest, mainline and PREEMPT_RT.
# shellcheck disable=SC2034
LATSCOPE_MATRIX_RANGE=("5.10 amd64" "5.10 rt-amd64" "sid amd64" "sid rt-amd64")
