#!/bin/bash
# Installs the Debian 12 packages latscope's build, tests and demo need.
# Idempotent and silent when everything is there; needs root otherwise.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

want=(
	build-essential gcc-12-multilib libc6-dev-i386 bc bison flex libelf-dev libssl-dev python3 xz-utils
	sparse linux-source-6.12 qemu-system-x86 busybox-static cpio
	linux-headers-amd64 linux-headers-rt-amd64 gnuplot-nox rt-tests python3-matplotlib stress-ng iputils-ping
	device-tree-compiler python3-libfdt python3-venv qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	shellcheck libgpiod-dev groff-base
)

missing=()
for p in "${want[@]}"; do
	latscope_pkg_installed "$p" || missing+=("$p")
done
# Debian ships no metapackage for 6.12 headers in bookworm: take the newest.
for flavour in amd64 rt-amd64; do
	latscope_headers_dir "6.12" "$flavour" >/dev/null 2>&1 || missing+=("6.12:$flavour")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing ${missing[*]}; run as root to install them" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
apt-get update -qq
pkgs=()
for p in "${missing[@]}"; do
	case $p in
	6.12:*)
		v=$(apt-cache pkgnames linux-headers-6.12. |
		    grep -E "^linux-headers-6\.12\.[0-9]+\+deb12-${p#6.12:}\$" |
		    sort -V | tail -n 1)
		[ -n "$v" ] || { echo "install-deps: no 6.12 ${p#6.12:} headers in the archive" >&2; exit 1; }
		pkgs+=("$v")
		;;
	*)
		pkgs+=("$p")
		;;
	esac
done
apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
