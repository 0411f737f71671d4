#!/bin/bash
# Fetches Debian 12's newest arm64 6.12 kernel package, its headers'
# Module.symvers and busybox-static for arm64, with an APT configuration of
# its own (architecture arm64, state in the cache) so the machine's dpkg
# setup is not touched, and unpacks them once per kernel version. Prints
# the unpacked tree: boot/vmlinuz-*, boot/config-*,
# usr/lib/linux-image-*/broadcom/*.dtb (the Raspberry Pi DTBs),
# Module.symvers and bin/busybox.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

latscope_lock arm64-kernel
apt_dir=$(latscope_cache)/apt-arm64
mkdir -p "$apt_dir"/etc/apt/sources.list.d "$apt_dir"/etc/apt/apt.conf.d \
	"$apt_dir"/etc/apt/preferences.d "$apt_dir"/lists/partial \
	"$apt_dir"/archives/partial "$apt_dir"/debs
: >"$apt_dir/status"
cp /etc/apt/sources.list.d/*.sources "$apt_dir/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$apt_dir/etc/apt/"
cat >"$apt_dir/apt.conf" <<EOF
APT::Architecture "arm64";
APT::Architectures { "arm64"; };
Dir::Etc "$apt_dir/etc/apt";
Dir::Etc::trusted "/etc/apt/trusted.gpg";
Dir::Etc::trustedparts "/etc/apt/trusted.gpg.d";
Dir::State::lists "$apt_dir/lists";
Dir::State::status "$apt_dir/status";
Dir::Cache "$apt_dir";
Dir::Cache::archives "$apt_dir/archives";
EOF
export APT_CONFIG=$apt_dir/apt.conf

apt-get update -qq >/dev/null
pkg=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-arm64-unsigned$' |
	cut -d' ' -f1 | sort -V | tail -n 1)
[ -n "$pkg" ] || { echo "arm64-kernel: no linux-image-6.12 arm64 package in the archive" >&2; exit 1; }
tree=$(latscope_cache)/arm64-${pkg#linux-image-}
if [ ! -f "$tree/.done" ]; then
	rm -rf "$tree"
	mkdir -p "$tree"
	release=${pkg#linux-image-}
	release=${release%-unsigned}
	headers=linux-headers-$release
	(cd "$apt_dir/debs" && rm -f ./*.deb &&
		apt-get download -qq "$pkg" "$headers" busybox-static 2>/dev/null)
	dpkg-deb --fsys-tarfile "$apt_dir"/debs/"$pkg"_*.deb |
		tar -C "$tree" -x --wildcards './usr/lib/linux-image-*' './boot/*'
	dpkg-deb --fsys-tarfile "$apt_dir"/debs/"$headers"_*.deb |
		tar -C "$tree" -x --wildcards --no-anchored 'Module.symvers'
	find "$tree/usr/src" -name Module.symvers -exec mv {} "$tree/Module.symvers" \;
	rm -rf "$tree/usr/src"
	dpkg-deb --fsys-tarfile "$apt_dir"/debs/busybox-static_*.deb |
		tar -C "$tree" -x ./bin/busybox
	if [ ! -f "$tree/Module.symvers" ] || [ ! -x "$tree/bin/busybox" ]; then
		echo "arm64-kernel: $headers or busybox-static lacks what is needed" >&2
		exit 1
	fi
	rm -f "$apt_dir"/debs/*.deb
	# Other versions' trees are stale.
	find "$(latscope_cache)" -maxdepth 1 -name 'arm64-6.12.*' ! -path "$tree" -exec rm -rf {} +
	touch "$tree/.done"
fi
echo "$tree"
