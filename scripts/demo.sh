#!/bin/bash
# The latscope demo: installs what is missing, builds latscope.ko against
# Debian 12's linux 6.12 headers, boots that kernel under QEMU (TCG), loads
# the module and measures 10 s of user-context timer latency, printing one
# line per second and the totals. Run as root on Debian 12.
# Figures under TCG emulation say nothing about real hardware.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
exec "$top/scripts/vm.sh" 6.12 amd64 demo
