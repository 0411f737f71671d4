#!/bin/bash
# The latscope demo: installs what it uses (scripts/install-deps.sh demo,
# saying how much first), builds latscope.ko against Debian 12's linux
# 6.12 headers and the CLI, boots that kernel under QEMU with software
# emulation (TCG), loads the module, runs `latscope -u -T 10 -g demo.plot`
# there, prints what latscope printed and its histogram (gnuplot's dumb
# terminal, with the samples past its cells marked), and ends with the
# commands for a real board. Build and VM logs stay out of the way and
# are shown only when something fails. Run as root on Debian 12.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

emulated="emulated (QEMU, software emulation on this machine): says nothing about a real board"

"$top/scripts/install-deps.sh" demo
kdir=$(latscope_headers_dir 6.12 amd64)
release=${kdir#/usr/src/linux-headers-}
cache=$(latscope_cache)
mb=$(latscope_image_mb "$release")
if [ -n "$mb" ]; then
	echo "demo: downloading Debian's linux-image-$release ($mb MB) once, into $cache/images"
fi

# Each demo keeps its files in a directory of its own; those of demos
# more than two days old go.
mkdir -p "$cache/demo"
find "$cache/demo" -mindepth 1 -maxdepth 1 -type d -mtime +2 -exec rm -rf {} + 2>/dev/null || true
out=$(mktemp -d "$cache/demo/run.XXXXXX")
echo "demo: building latscope.ko and the CLI, booting linux $release in QEMU, measuring 10 s..."
if ! LATSCOPE_VM_FILES=$out "$top/scripts/vm.sh" 6.12 amd64 demo >"$out/vm.log" 2>&1; then
	cat "$out/vm.log"
	echo "demo: failed (the log above is $out/vm.log)" >&2
	exit 1
fi

echo
echo "== latscope -u -T 10 -g demo.plot, in the VM: $emulated"
echo
cat "$out/demo.out"

echo
echo "== the histogram, count on a log scale: $emulated"
"$top/scripts/demo-histogram.sh" "$out/demo.plot"
echo "Files: $out (demo.plot, the VM's log)."
cat <<EOT

== On a real board (Debian or Raspberry Pi OS, as root, in this directory):

    apt install build-essential linux-headers-\$(uname -r)
    make && make install && modprobe latscope
    latscope -T 1m -g lat.plot

then read README.md (reading the output, tuning the board) and man latscope.
EOT
