#!/bin/bash
# A Debian chroot of SUITE, where the kernels Debian 12 does not carry are
# built for as their users build them: bullseye (Debian 11: Linux 5.10,
# gcc 10) and sid (unstable: the newest Linux Debian ships, built by its
# own gcc). Made once with debootstrap into the cache, with build-essential,
# sparse and the amd64 and rt-amd64 kernel headers; prints its path.
# LATSCOPE_CHROOT_REFRESH=1 makes it again (sid moves on).
# Usage: scripts/chroot.sh bullseye|sid
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

suite=${1:-}
case $suite in
bullseye | sid) ;;
*)
	echo "chroot: '$suite' is not bullseye or sid" >&2
	exit 2
	;;
esac
latscope_lock "chroot-$suite"
root=$(latscope_cache)/chroot-$suite
if [ -f "$root/.done" ] && [ -z "${LATSCOPE_CHROOT_REFRESH:-}" ]; then
	echo "$root"
	exit 0
fi
command -v debootstrap >/dev/null || {
	echo "chroot: debootstrap is not installed (scripts/install-deps.sh)" >&2
	exit 1
}
tmp=$root.tmp
rm -rf "$tmp"
log=$(latscope_cache)/chroot-$suite.log
debootstrap --variant=minbase --include=build-essential,sparse,xz-utils,bc,kmod \
	"$suite" "$tmp" http://deb.debian.org/debian >"$log" 2>&1 || {
	tail -n 20 "$log" >&2
	echo "chroot: debootstrap $suite failed (its log: $log)" >&2
	exit 1
}
# Only the suite itself (bullseye-security may list what its pool lacks);
# a mirror's snapshot of sid may be past its Valid-Until.
echo "deb http://deb.debian.org/debian $suite main" >"$tmp/etc/apt/sources.list"
echo 'Acquire::Check-Valid-Until "false";' >"$tmp/etc/apt/apt.conf.d/90latscope"
chroot "$tmp" sh -c 'apt-get update -qq &&
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		linux-headers-amd64 linux-headers-rt-amd64' >>"$log" 2>&1 || {
	tail -n 20 "$log" >&2
	echo "chroot: the kernel headers of $suite could not be installed (its log: $log)" >&2
	exit 1
}
touch "$tmp/.done"
rm -rf "$root"
mv "$tmp" "$root"
echo "$root"
