#!/bin/bash
# The user context against cyclictest and against another build of
# latscope, the kernel and irq contexts against rtla timerlat, side by
# side in one boot per kernel (docs/measurements/
# bench.md): Debian 12's 6.12 mainline and PREEMPT_RT kernels in the test
# VM (QEMU TCG, 2 CPUs: emulated, not real hardware), each booted once to
# run ROUNDS interleaved rounds of SECONDS-second runs on CPU1 at a 1 ms
# period, SCHED_FIFO 90 (tests/vm/bench.sh); then, per kernel, the ratios
# latscope/cyclictest of the average, the 99th percentile and the
# maximum, round by round, their medians and ranges (scripts/bench.py).
# A benchmark, not a test: it fails only when a run does.
# Usage: scripts/bench.sh [REV] [OUTDIR]
#   REV: the other build (driver and CLI of that git revision), by
#   default the newest tag; none if there is no tag
#   OUTDIR: where the runs' files and table.md go (default: a directory
#   under the cache, printed)
# LATSCOPE_BENCH_ROUNDS (10), LATSCOPE_BENCH_SECONDS (5),
# LATSCOPE_BENCH_KERNELS ("amd64 rt-amd64": flavours of 6.12),
# LATSCOPE_BENCH_VARIANTS (all: new, old, ct, pulse, sleep, kern, irq,
# rtla, comma- or space-separated; tests/vm/bench.sh says what each is),
# LATSCOPE_BENCH_BOOTS (1: how many times each kernel is booted, its
# runs in 6.12-FLAVOUR-bootN, and bench.py says whether the boots agree),
# LATSCOPE_BENCH_TCG (icount: both virtual CPUs on one host thread, the
# guest's clock counting its instructions, so that a latency is a path's
# length, deaf to the host's load; single: the same without icount, the
# guest's clock the host's, as the test VMs run; multi: a host thread
# each); then the KUnit per-sample figure of this tree
# (LATSCOPE_BENCH_KUNIT=0: not).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

rev=${1:-$(git -C "$top" describe --tags --abbrev=0 2>/dev/null || true)}
out=${2:-$(latscope_cache)/bench/$(date +%Y%m%d-%H%M%S)}
rounds=${LATSCOPE_BENCH_ROUNDS:-10}
secs=${LATSCOPE_BENCH_SECONDS:-5}
kernels=${LATSCOPE_BENCH_KERNELS:-amd64 rt-amd64}
boots=${LATSCOPE_BENCH_BOOTS:-1}
tcg=${LATSCOPE_BENCH_TCG:-icount}
case $tcg in
single | multi | icount) ;;
*) echo "bench: LATSCOPE_BENCH_TCG is single, multi or icount, not '$tcg'" >&2; exit 2 ;;
esac
case $rounds$secs$boots in
*[!0-9]*) echo "bench: LATSCOPE_BENCH_ROUNDS, _SECONDS and _BOOTS are whole numbers ('$rounds', '$secs', '$boots')" >&2; exit 2 ;;
esac
[ "$boots" -ge 1 ] || { echo "bench: LATSCOPE_BENCH_BOOTS is 1 or more, not '$boots'" >&2; exit 2; }
old=
trap 'rm -rf ${old:+"$old"}' EXIT
if [ -n "$rev" ]; then
	sha=$(git -C "$top" rev-parse --verify --short "$rev^{commit}" 2>/dev/null) || {
		echo "bench: '$rev' is not a git revision here" >&2
		exit 2
	}
	old=$(mktemp -d)
	git -C "$top" archive "$sha" driver userspace | tar -x -C "$old"
	PKG_CONFIG_PATH=$("$top/scripts/libmicrohttpd.sh") \
		latscope_static_cli "$old" "$old/latscope-old" MHD=auto >"$old/cli.log" 2>&1 || {
		cat "$old/cli.log"
		echo "bench: the CLI of $rev ($sha) did not build" >&2
		exit 1
	}
	export LATSCOPE_VM_OLD_DRIVER=$old/driver LATSCOPE_VM_OLD_CLI=$old/latscope-old
fi
mkdir -p "$out"
echo "# bench: HEAD $(git -C "$top" rev-parse --short HEAD)${sha:+ against $rev ($sha)}, $rounds rounds of $secs s, $boots boot(s) a kernel, TCG $tcg, into $out"
dirs=()
for flavour in $kernels; do
	for boot in $(seq "$boots"); do
		dir=$out/6.12-$flavour
		[ "$boots" = 1 ] || dir=$dir-boot$boot
		rm -rf "$dir"
		mkdir -p "$dir"
		status=0
		LATSCOPE_VM_FILES=$dir LATSCOPE_WHY_ROUNDS=$rounds LATSCOPE_COMPARE_SECONDS=$secs \
			LATSCOPE_VM_TCG_THREAD=$tcg LATSCOPE_VM_TESTS=${LATSCOPE_BENCH_VARIANTS:-} \
			"$top/scripts/vm.sh" 6.12 "$flavour" bench >"$dir/vm.log" 2>&1 || status=$?
		grep -E '^(ok|not ok|#|vm:)' "$dir/vm.log" || true
		if [ $status != 0 ]; then
			echo "bench: the 6.12 $flavour VM failed (exit $status), its log: $dir/vm.log" >&2
			exit 1
		fi
		dirs+=("$dir")
	done
done
python3 "$top/scripts/bench.py" ${sha:+"--old=$rev ($sha)"} "${dirs[@]}" | tee "$out/table.md"
# Beside it, the driver's own per-sample figure (KUnit, TCG), this tree's.
if [ "${LATSCOPE_BENCH_KUNIT:-1}" = 1 ]; then
	"$top/scripts/kunit.sh" 'latscope_timeline.latscope_sample_cost' 2>&1 |
		grep '^kunit (TCG): per-sample' | tee -a "$out/table.md"
fi
