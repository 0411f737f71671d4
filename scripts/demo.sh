#!/bin/bash
# The latscope demo: installs what is missing, builds latscope.ko against
# Debian 12's linux 6.12 headers, boots that kernel under QEMU (TCG), loads
# the module, runs `latscope -u -T 10 -g demo.plot` (latmus's RTT/RTH/RTD/RTS
# lines), and draws the histogram with gnuplot's dumb terminal. Run as root
# on Debian 12.
# Figures under TCG emulation say nothing about real hardware.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
exec "$top/scripts/vm.sh" 6.12 amd64 demo
