#!/bin/bash
# Runs every test latscope has, stage by stage, with the time each took:
# packages, checkpatch, kernel-doc, pyflakes on every Python file,
# then shellcheck on every shell script, the layering check
# (docs/design/layers.md), the W=1 + sparse build matrix, the KUnit
# suite, the hostile command lines to a sanitized
# CLI, the front door (tests/docs/run.sh: README and --help budgets,
# links, every example parsed), the files it creates against an unprivileged racer, the host build
# of the test program, the Raspberry Pi overlay checks,
# the ABI and CLI tests in a VM of each kernel of the matrix, the GPIO suite,
# the latmon client and monitor over loopback (tests/vm/latmon_test.sh)
# and the fuzz and race stage in a VM of the gpio-sim debug kernel
# (LATSCOPE_FUZZ_SECONDS of chaos, 60 by default), and Debian's arm64
# kernel on an emulated Raspberry Pi 3 with the overlay, and the demo as a
# newcomer runs it (tests/demo/run.sh). Ends with
# "check: N passed, N failed"; non-zero on any failure.
# Run as root on Debian 12 (it installs what is missing).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

# Each stage's outcome, a line each ("ok NAME" or "FAIL NAME"): the lanes
# below run in subshells, so the counts are made from this file.
results=$(mktemp)
logs=$(mktemp -d)
# The 6.12 VMs' files (their surveys), for the stage that compares them.
vmfiles=$(mktemp -d)
trap 'rm -rf "$results" "$logs" "$vmfiles"' EXIT

# A failed stage's "not ok" lines and its last lines are kept apart and
# printed again at the very end: a CI log that keeps only its tail must
# still say which check failed.
stage() {
	local name=$1 start rc log
	shift
	echo "=== $name"
	start=$(date +%s)
	log=$(mktemp "$logs/stage.XXXXXX")
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ]; then
		echo "ok $name" >>"$results"
		echo "=== $name: ok ($(($(date +%s) - start)) s)"
	else
		echo "FAIL $name" >>"$results"
		echo "=== $name: FAIL, exit $rc ($(($(date +%s) - start)) s)"
		{
			echo "--- $name: exit $rc; its failed checks, then its last lines:"
			grep -a 'not ok' "$log" | head -n 30
			echo "..."
			tail -n 12 "$log"
		} >>"$logs/failures"
	fi
	rm -f "$log"
	return "$rc"
}

# The uapi header as userspace sees it: the VM test builds warning-free, and
# the frozen layout holds for 64-bit and 32-bit programs alike.
host_build() {
	local inc=-I"$top/driver/include/uapi" out m

	out=$(latscope_cache)
	gcc -std=c11 -O2 -Wall -Wextra -Werror -pthread "$inc" \
		"$top/tests/vm/abi_test.c" -o "$out/abi_test-host" || return 1
	for m in 64 32; do
		# shellcheck disable=SC2046 # latscope_mflags prints several flags
		gcc $(latscope_mflags $m) -std=c11 -Wall -Wextra -Werror "$inc" \
			"$top/tests/abi_layout.c" -o "$out/abi_layout-m$m" &&
			"$out/abi_layout-m$m" || return 1
		echo "ABI layout -m$m: ok"
	done
}

stage "install packages" "$top/scripts/install-deps.sh" || exit 1
stage "checkpatch --strict" "$top/scripts/checkpatch.sh"
stage "kernel-doc -Wall on the driver (the kernel's scripts/kernel-doc)" \
	bash "$top/scripts/kernel-doc.sh"
stage "pyflakes on every Python file (the report's package, its scripts, tests, scripts/)" \
	bash "$top/scripts/pyflakes.sh"
stage "one version (VERSION, driver, CLI, dkms.conf, debian/changelog)" "$top/scripts/version.sh"
stage "shellcheck" "$top/scripts/shellcheck.sh"
stage "commit subjects since the last release (area: summary, 75 at most)" \
	bash "$top/tests/commits/run.sh"
stage "layers (userspace folders, driver files: no upward link, no circle)" \
	bash -c "python3 '$top/scripts/layers.py' && bash '$top/tests/layers/run.sh'"
stage "build matrix (W=1, sparse; 5.10 and unstable's newest in chroots of their suites, cached)" \
	"$top/scripts/build-matrix.sh"
stage "KUnit (x86_64 QEMU, 2 CPUs)" "$top/scripts/kunit.sh"
stage "CLI unit tests" bash "$top/tests/unit/run.sh"
stage "CLI hostile input (ASan/UBSan)" bash "$top/tests/unit/hostile.sh"
stage "exporter's door: a slow-header and a burst peer on loopback, an honest scrape within 2 s" \
	bash "$top/tests/serve/run.sh"
stage "setup verdict on fake roots (every factor good and bad, --apply-setup set back)" \
	bash "$top/tests/setup/run.sh"
stage "cost suite's A/A control on this machine (at most 2 of 4 workloads differ at 95 %)" \
	bash "$top/tests/cost/run.sh"
stage "survey: the plan, bad values, a short survey and Ctrl-C in it (fake device)" \
	bash "$top/tests/survey/run.sh"
stage "files latscope creates, against an unprivileged racer (setpriv, fake device)" \
	bash "$top/tests/files/run.sh"
stage "docs: README and --help budgets, links, every example parsed, GPIO pins as the overlays" \
	bash "$top/tests/docs/run.sh"
stage "latscope-report on fixtures (tables, PNG, SVG)" bash "$top/tests/report/run.sh"
stage "bench.py on hand-made runs (ratios, the 99th percentiles, refusals)" \
	bash "$top/tests/bench/run.sh"
stage "EVT bound: coverage on known tails, refusals, latscope-evt's command line" \
	bash "$top/tests/evt/run.sh"
stage "fleet pieces: Prometheus rules checked and unit-tested, the dashboard's queries parsed" \
	bash "$top/tests/fleet/run.sh"
stage "uapi header in userspace (-Werror, -m64/-m32 layout)" host_build
stage "Raspberry Pi overlay (dtc, fdtoverlay on Debian's arm64 DTBs)" bash "$top/tests/dt/run.sh"
# What both lanes below use, built once into the cache before they start
# (two builds of one thing at once would clobber each other).
vm_tools() {
	"$top/scripts/libmicrohttpd.sh" && "$top/scripts/libgpiod2.sh" && "$top/scripts/rtla.sh"
}
stage "tools the VMs take (libmicrohttpd without TLS, libgpiod 2.x, rtla 6.12; cached)" vm_tools

# The VM stages in two lanes side by side. QEMU runs single-threaded TCG
# here (scripts/vm.sh), one host core a VM, so two VMs share this 2-core
# machine; each VM test waits for conditions, never for a host's speed.
# A lane's output is printed whole when both are done.
lane_abi() {
	local entry flavour

	# The ends of the range, 5.10 and unstable's newest (sid), here: a cold
	# cache builds both GPIO kernels in the other lane first.
	for entry in "${LATSCOPE_MATRIX[@]}" "5.10 amd64" "5.10 rt-amd64" "sid amd64" "sid rt-amd64"; do
		# The 6.12 VMs' files (their surveys) kept for the comparison.
		# shellcheck disable=SC2086 # $entry is "SERIES FLAVOUR": two arguments
		stage "VM ABI test $entry" env LATSCOPE_VM_FILES="$vmfiles/${entry// /-}" \
			"$top/scripts/vm.sh" $entry test
	done
	stage "the two 6.12 VMs' surveys side by side (latscope-report DIR_A DIR_B)" \
		bash "$top/tests/survey/compare_vms.sh" "$vmfiles/6.12-amd64" "$vmfiles/6.12-rt-amd64"
	stage "demo as a newcomer sees it (no warning, emulated label, overflow, next steps)" \
		bash "$top/tests/demo/run.sh"
	for flavour in amd64 rt-amd64; do
		stage "VM stress presets 6.12 $flavour (load placement, cleanup on every exit)" \
			"$top/scripts/vm.sh" 6.12 $flavour stress
	done
	stage "emulated Raspberry Pi 3 (arm64 6.12, overlay, raspi3b)" "$top/scripts/pi-vm.sh" sut
	stage "emulated Raspberry Pi 3, monitor role (latscope-monitor overlay)" \
		"$top/scripts/pi-vm.sh" monitor
}
lane_gpio() {
	local flavour

	for flavour in preempt rt; do
		stage "GPIO debug kernel $flavour (linux-source-6.12, gpio-sim, KASAN, kmemleak, lockdep, cached)" \
			"$top/scripts/gpio-kernel.sh" $flavour
	done
	stage "VM GPIO + latmon test + fuzz (debug kernel, PREEMPT)" "$top/scripts/vm.sh" gpio amd64 gpio
	stage "VM GPIO + latmon test + fuzz (debug kernel, PREEMPT_RT)" \
		"$top/scripts/vm.sh" gpio rt-amd64 gpio
	stage "Debian packages: make install/uninstall, build, lintian, DKMS on four kernels, each booted, arm64 on the Pi, purge" \
		bash "$top/tests/pkg/run.sh"
}
# LATSCOPE_LANES=1: one after the other, as they print.
if [ "${LATSCOPE_LANES:-2}" = 1 ]; then
	lane_abi
	lane_gpio
else
	echo "=== two lanes side by side: the ABI, demo, stress and Pi stages; the GPIO and package stages"
	echo "    (as they go: tail -f $logs/abi.log $logs/gpio.log)"
	lane_abi >"$logs/abi.log" 2>&1 &
	abi=$!
	lane_gpio >"$logs/gpio.log" 2>&1
	wait $abi
	cat "$logs/abi.log" "$logs/gpio.log"
fi

passed=$(grep -c '^ok ' "$results")
failed=$(grep -c '^FAIL ' "$results")
if [ "$failed" -gt 0 ]; then
	cat "$logs/failures"
	echo "failed stages:"
	sed -n 's/^FAIL /  /p' "$results"
fi
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
