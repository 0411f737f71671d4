#!/bin/bash
# The Debian packages and `make install`, as a board gets them (run as
# root on Debian 12; it installs and then purges the packages here):
#  1. `make install DESTDIR=...` then `make uninstall` leaves nothing;
#  2. latscope and latscope-dkms built with dpkg-buildpackage from a fresh
#     clone of the committed tree, and lintian on them: no error, no
#     warning (what is overridden says why, in debian/*.lintian-overrides);
#  3. both installed with apt: DKMS builds and installs latscope.ko for
#     each kernel of the matrix (6.1 and 6.12, mainline and rt) that has
#     its headers; then, for each, the module removed and built again as
#     a kernel installed later gets it (dkms autoinstall);
#  4. each of those kernels booted in the VM with the module from where
#     DKMS put it and the packaged CLI, for a short run (scripts/vm.sh pkg);
#  5. purged: no file of theirs left, no DKMS tree, no module;
#  6. latscope cross-built for arm64 (dpkg-buildpackage -aarm64), lintian,
#     and its CLI run on the emulated Raspberry Pi 3 (scripts/pi-vm.sh).
# Prints each step's time. Ends with "pkg: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
t0=$(date +%s)
took() { echo "# $1: $(($(date +%s) - t0)) s"; t0=$(date +%s); }

work=$(mktemp -d)
installed=0
cleanup() {
	if [ $installed = 1 ]; then
		apt-get purge -y -qq latscope latscope-dkms >/dev/null 2>&1
	fi
	rm -rf "$work"
}
trap cleanup EXIT
version=$(cat "$top/VERSION")

# ---- 1. make install / make uninstall into a scratch root ----
rel=
for entry in "${LATSCOPE_MATRIX[@]}"; do
	# shellcheck disable=SC2086 # $entry is "SERIES FLAVOUR"
	rel=$(latscope_headers_dir $entry) && break
done
rel=${rel#/usr/src/linux-headers-}
clone=$work/src
git clone -q "$top" "$clone"
dest=$work/dest
if make -s -C "$clone" install DESTDIR="$dest" PREFIX=/usr KRELEASE="$rel" >"$work/install.log" 2>&1; then
	ok "make install DESTDIR (module for $rel)"
else
	nok "make install DESTDIR" "$(tail -20 "$work/install.log")"
fi
n=$(find "$dest" -type f | wc -l)
if [ "$n" -ge 12 ] && find "$dest/lib/modules/$rel/updates" -name 'latscope.ko*' | grep -q .; then
	ok "make install: $n files, the module among them"
else
	nok "make install: the files" "$(find "$dest" -type f)"
fi
make -s -C "$clone" uninstall DESTDIR="$dest" PREFIX=/usr KRELEASE="$rel" >>"$work/install.log" 2>&1
left=$(find "$dest" -mindepth 1 2>/dev/null)
if [ -z "$left" ]; then ok "make uninstall: an empty tree"; else nok "make uninstall: an empty tree" "$left"; fi
took "make install and uninstall"

# ---- 1b. DKMS from the tree: add, install for one kernel, remove ----
v=
git clone -q "$top" "$work/tree"
if dkms add "$work/tree/driver" >"$work/dkms-tree.log" 2>&1 &&
	dkms install "latscope/$version" -k "$rel" >>"$work/dkms-tree.log" 2>&1; then
	v=$(modinfo -F version "$(find "/lib/modules/$rel/updates/dkms" -name 'latscope.ko*' | head -n 1)")
fi
if [ "$v" = "$version" ]; then
	ok "DKMS from the tree: dkms add ./driver, dkms install latscope/$version for $rel"
else
	nok "DKMS from the tree" "$(tail -20 "$work/dkms-tree.log")"
fi
dkms remove "latscope/$version" --all >>"$work/dkms-tree.log" 2>&1
rm -rf "/usr/src/latscope-$version"
if [ -e /var/lib/dkms/latscope ] || find /lib/modules -name 'latscope.ko*' | grep -q .; then
	nok "DKMS from the tree: removed" "$(ls -d /var/lib/dkms/latscope 2>&1; find /lib/modules -name 'latscope.ko*')"
else
	ok "DKMS from the tree: dkms remove --all leaves no module"
fi
took "DKMS from the tree"

# ---- 2. dpkg-buildpackage from a fresh clone, lintian ----
rm -rf "$clone"
git clone -q "$top" "$clone"
if (cd "$clone" && dpkg-buildpackage -us -uc >"$work/build.log" 2>&1); then
	ok "dpkg-buildpackage -us -uc"
else
	nok "dpkg-buildpackage -us -uc" "$(tail -30 "$work/build.log")"
fi
took "dpkg-buildpackage"
deb=$work/latscope_${version}_$(dpkg --print-architecture).deb
dkmsdeb=$work/latscope-dkms_${version}_all.deb
changes=$work/latscope_${version}_$(dpkg --print-architecture).changes
lintian --fail-on error,warning --info "$changes" >"$work/lintian.log" 2>&1
st=$?
sed 's/^/# lintian: /' "$work/lintian.log"
if [ $st = 0 ]; then ok "lintian: no error, no warning"; else nok "lintian" "exit $st"; fi
took "lintian"
if [ ! -f "$deb" ] || [ ! -f "$dkmsdeb" ]; then
	nok "packages" "$(ls "$work")"
	echo "pkg: $pass passed, $fail failed"
	exit 1
fi
for p in "$deb" "$dkmsdeb"; do
	echo "# $(basename "$p"): $(dpkg-deb -c "$p" | awk '$1 !~ /^d/' | wc -l) files"
done

# ---- 3. apt install, DKMS for each kernel of the matrix ----
if [ -d /var/lib/dkms/latscope ] || [ -d "/usr/src/latscope-$version" ]; then
	nok "nothing of latscope installed before" "$(ls -d /var/lib/dkms/latscope /usr/src/latscope-* 2>&1)"
fi
installed=1
if apt-get install -y -qq -o DPkg::Lock::Timeout=300 "$deb" "$dkmsdeb" >"$work/apt.log" 2>&1; then
	ok "apt install of both packages"
else
	nok "apt install" "$(tail -20 "$work/apt.log")"
fi
dpkg -L latscope latscope-dkms | sort -u >"$work/files"
cliver=$(latscope --version | awk '{ print $2 }')
if [ "$cliver" = "$version" ]; then ok "latscope --version: $cliver"; else nok "latscope --version" "'$cliver'"; fi
took "apt install"
kos=()
for entry in "${LATSCOPE_MATRIX[@]}"; do
	# shellcheck disable=SC2086 # $entry is "SERIES FLAVOUR"
	kdir=$(latscope_headers_dir $entry) || {
		nok "headers of $entry" "not installed"
		continue
	}
	r=${kdir#/usr/src/linux-headers-}
	# The package's postinst built it for each kernel with headers.
	if dkms status latscope -k "$r" | grep -q installed; then
		ok "$r: the package's install had DKMS build and install latscope"
	else
		nok "$r: built at the package's install" "$(dkms status latscope)"
	fi
	# As for a kernel installed later: gone, then its hook's autoinstall.
	dkms remove "latscope/$version" -k "$r" >"$work/dkms-$r.log" 2>&1
	if find "/lib/modules/$r/updates/dkms" -name 'latscope.ko*' 2>/dev/null | grep -q .; then
		nok "$r: dkms remove" "the module is still there"
	fi
	dkms autoinstall -k "$r" >>"$work/dkms-$r.log" 2>&1
	ko=$(find "/lib/modules/$r/updates/dkms" -name 'latscope.ko*' 2>/dev/null | head -n 1)
	if [ -n "$ko" ] && dkms status latscope -k "$r" | grep -q installed; then
		ok "$r: dkms autoinstall built and installed it again (AUTOINSTALL)"
		kos+=("$r=$ko")
	else
		nok "DKMS autoinstall for $r" "$(tail -20 "$work/dkms-$r.log"; tail -20 "/var/lib/dkms/latscope/$version/build/make.log" 2>/dev/null)"
	fi
	v=$(modinfo -F version "$ko" 2>/dev/null)
	if [ "$v" = "$version" ]; then ok "$r: modinfo version $v"; else nok "$r: modinfo version" "'$v'"; fi
	# Debian's DKMS signs what it builds with its own key (a MOK to
	# enroll once for Secure Boot: docs/guide/install.md).
	signer=$(modinfo -F signer "$ko" 2>/dev/null)
	echo "# $r: signed by '$signer'"
	if [ -n "$signer" ]; then ok "$r: DKMS signed it"; else nok "$r: DKMS signed it" "no signer"; fi
done
took "DKMS, four kernels"

# ---- 4. each kernel in the VM: the module DKMS installed, the packaged CLI ----
for entry in "${LATSCOPE_MATRIX[@]}"; do
	# shellcheck disable=SC2086 # $entry is "SERIES FLAVOUR"
	kdir=$(latscope_headers_dir $entry) || continue
	r=${kdir#/usr/src/linux-headers-}
	ko=
	for k in "${kos[@]}"; do
		[ "${k%%=*}" = "$r" ] && ko=${k#*=}
	done
	[ -n "$ko" ] || continue
	# shellcheck disable=SC2086
	if LATSCOPE_VM_MODULE=$ko LATSCOPE_VM_CLI=/usr/bin/latscope \
		"$top/scripts/vm.sh" $entry pkg >"$work/vm-$r.log" 2>&1; then
		ok "$r in the VM: the packaged CLI measured on the module DKMS built"
	else
		nok "$r in the VM" "$(grep -E 'ok -|not ok|vm:' "$work/vm-$r.log" | tail -20)"
	fi
	grep -E '^(ok|not ok) - pkg' "$work/vm-$r.log" | sed "s/^/# $r: /"
done
took "VM boots"

# ---- 5. purge: nothing left ----
apt-get purge -y -qq -o DPkg::Lock::Timeout=300 latscope latscope-dkms >"$work/purge.log" 2>&1
st=$?
installed=0
if [ $st = 0 ]; then ok "apt purge"; else nok "apt purge" "$(tail -20 "$work/purge.log")"; fi
left=
while read -r f; do
	[ -d "$f" ] && continue		# a folder others share (/usr/bin, ...)
	[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
done <"$work/files"
for d in /var/lib/dkms/latscope "/usr/src/latscope-$version"; do
	[ -e "$d" ] && left="$left $d"
done
left="$left $(find /lib/modules -name 'latscope.ko*' 2>/dev/null | tr '\n' ' ')"
if [ -z "${left// /}" ]; then ok "purged: no file, DKMS tree or module left"; else nok "purged: nothing left" "$left"; fi
took "purge"

# ---- 6. the arm64 package, cross-built, its CLI run on the emulated Pi 3 ----
# (arm64 is a foreign architecture of dpkg here, with the cross toolchain
# and the arm64 -dev packages: scripts/install-deps.sh.)
armdeb=$work/latscope_${version}_arm64.deb
if (cd "$clone" && dpkg-buildpackage -aarm64 -B -us -uc >"$work/cross.log" 2>&1); then
	ok "dpkg-buildpackage -aarm64 -B"
else
	nok "dpkg-buildpackage -aarm64 -B" "$(tail -30 "$work/cross.log")"
fi
arch=$(dpkg-deb -f "$armdeb" Architecture 2>/dev/null)
file=$(dpkg-deb --fsys-tarfile "$armdeb" 2>/dev/null | tar -xO ./usr/bin/latscope | file -)
if [ "$arch" = arm64 ] && [[ $file == *"ARM aarch64"* ]]; then
	ok "the arm64 .deb: an aarch64 binary"
else
	nok "the arm64 .deb" "Architecture '$arch', $file"
fi
echo "# arm64 Depends: $(dpkg-deb -f "$armdeb" Depends 2>/dev/null)"
lintian --fail-on error,warning "$work/latscope_${version}_arm64.changes" >"$work/lintian-arm64.log" 2>&1
st=$?
sed 's/^/# lintian arm64: /' "$work/lintian-arm64.log"
if [ $st = 0 ]; then ok "lintian arm64: no error, no warning"; else nok "lintian arm64" "exit $st"; fi
took "arm64 cross build"
if LATSCOPE_PI_DEB=$armdeb "$top/scripts/pi-vm.sh" sut >"$work/pi.log" 2>&1; then
	ok "the arm64 .deb's CLI on the emulated Pi 3"
else
	nok "the arm64 .deb's CLI on the emulated Pi 3" "$(grep -E '(ok|not ok) -|pi-vm' "$work/pi.log" | tail -20)"
fi
grep -E "^(ok|not ok) - the .deb's CLI" "$work/pi.log" | sed 's/^/# pi: /'
took "the emulated Pi 3"

echo "pkg: $pass passed, $fail failed"
[ "$fail" = 0 ]
