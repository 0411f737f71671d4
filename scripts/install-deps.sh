#!/bin/bash
# Installs the Debian 12 packages latscope needs: `install-deps.sh demo`
# what the demo uses (a compiler, Debian's 6.12 headers, QEMU, busybox,
# gnuplot), `install-deps.sh` (or `all`) what the build, every test and
# the comparisons need. Says what it installs and how much it downloads
# before it does. Idempotent and silent when everything is there; needs
# root otherwise.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

set=${1:-all}
demo=(make gcc libc6-dev qemu-system-x86 busybox-static cpio gnuplot-nox)
case $set in
demo)
	want=("${demo[@]}")
	flavours=(amd64)
	;;
all)
	want=(
		"${demo[@]}"
		build-essential gcc-12-multilib libc6-dev-i386 bc bison flex libelf-dev libssl-dev python3 xz-utils
		sparse linux-source-6.12
		linux-headers-amd64 linux-headers-rt-amd64 rt-tests python3-matplotlib python3-scipy stress-ng iputils-ping iperf3
		libmicrohttpd-dev prometheus python3-prometheus-client systemd
		device-tree-compiler python3-libfdt python3-venv qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		shellcheck pyflakes3 libgpiod-dev groff-base libtracefs-dev libtraceevent-dev pkg-config
		bash-completion dkms dh-dkms debhelper dpkg-dev lintian debootstrap file strace
		chromium chromium-driver python3-selenium
	)
	flavours=(amd64 rt-amd64)
	;;
*)
	echo "install-deps: unknown set '$set': demo or all" >&2
	exit 2
	;;
esac

# The arm64 package's cross build (tests/pkg/run.sh), the Debian way:
# arm64 a foreign architecture of dpkg (multiarch), the cross toolchain
# and the arm64 libraries latscope links.
foreign=0
if [ "$set" = all ]; then
	want+=(crossbuild-essential-arm64 libgpiod-dev:arm64 libmicrohttpd-dev:arm64 pkgconf:arm64)
	dpkg --print-foreign-architectures | grep -qx arm64 || foreign=1
fi

missing=()
for p in "${want[@]}"; do
	[ $foreign = 1 ] && [[ $p == *:arm64 ]] && { missing+=("$p"); continue; }
	latscope_pkg_installed "$p" || missing+=("$p")
done
# Debian ships no metapackage for 6.12 headers in bookworm: take the newest.
for flavour in "${flavours[@]}"; do
	latscope_headers_dir "6.12" "$flavour" >/dev/null 2>&1 || missing+=("6.12:$flavour")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing ${missing[*]}; run as root to install them" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ $foreign = 1 ]; then
	echo "install-deps: adding arm64 as a foreign architecture of dpkg (multiarch), for the arm64 package"
	dpkg --add-architecture arm64
fi
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
echo "install-deps: installing ${pkgs[*]} (and what they depend on)"
# apt's own sums: "Need to get N MB of archives.", "After this operation, ..."
apt-get install --no-install-recommends --assume-no "${pkgs[@]}" 2>/dev/null |
	sed -n 's/^\(Need to get\|After this operation\)/install-deps: \1/p' || true
# Its chatter (debconf, initramfs hooks) is shown only when it fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >"$log" 2>&1 || {
	cat "$log" >&2
	echo "install-deps: apt-get install failed" >&2
	exit 1
}
