#!/bin/bash
# latscope's version is one number, written in five places: VERSION, the
# driver (MODULE_VERSION, GET_INFO: driver/latscope.h), the CLI
# (--version, the JSON: userspace/core/core.h), DKMS (driver/dkms.conf)
# and the Debian package (debian/changelog, native). With no argument it
# checks they agree; "set X.Y.Z" writes X.Y.Z into the first four (the
# changelog takes a new entry by hand: dch -v X.Y.Z).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "${1:-}" = set ]; then
	v=${2:?usage: scripts/version.sh set X.Y.Z}
	[[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
		echo "version: '$v' is not X.Y.Z" >&2
		exit 2
	}
	echo "$v" >VERSION
	sed -i "s/^#define LATSCOPE_VERSION\t\".*\"/#define LATSCOPE_VERSION\t\"$v\"/" driver/latscope.h
	sed -i "s/^#define LS_VERSION\t\t\".*\"/#define LS_VERSION\t\t\"$v\"/" userspace/core/core.h
	sed -i "s/^PACKAGE_VERSION=\".*\"/PACKAGE_VERSION=\"$v\"/" driver/dkms.conf
	echo "version: $v written; add its debian/changelog entry (dch -v $v)"
	exit 0
fi

want=$(cat VERSION)
fail=0
check() { # where, value
	if [ "$2" = "$want" ]; then
		echo "ok - version $want: $1"
	else
		echo "not ok - version: $1 says '$2', VERSION says '$want'"
		fail=1
	fi
}
check "driver/latscope.h" "$(sed -n 's/^#define LATSCOPE_VERSION\t"\(.*\)"/\1/p' driver/latscope.h)"
check "userspace/core/core.h" "$(sed -n 's/^#define LS_VERSION\t\t"\(.*\)"/\1/p' userspace/core/core.h)"
check "driver/dkms.conf" "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' driver/dkms.conf)"
check "debian/changelog" "$(sed -n '1s/^latscope (\([^)]*\)).*/\1/p' debian/changelog)"
exit $fail
