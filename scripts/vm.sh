#!/bin/bash
# Boots one Debian 12 kernel of the matrix under QEMU (TCG) with a busybox
# initramfs holding latscope.ko built against that kernel's headers and the
# ABI test, and runs it. Usage: scripts/vm.sh SERIES FLAVOUR [test|demo|stress]
#   (stress: tests/vm/stress_test.sh, the --stress loads; survey:
#   scripts/survey-vm.sh's whole survey of LATSCOPE_COMPARE_SECONDS, its
#   directory left in files/; compare: one
#   side of scripts/compare.sh, its JSON left in the work dir's files/)
#   e.g. scripts/vm.sh 6.12 rt-amd64 test
# scripts/vm.sh gpio amd64|rt-amd64 boots the GPIO test kernel
# (scripts/gpio-kernel.sh preempt|rt: gpio-sim and the full debug options
# built in) instead and runs tests/vm/gpio_test.sh, tests/vm/latmon_test.sh
# (the latmon client and monitor over loopback), then the fuzz and race
# stage tests/vm/fuzz_test.sh for LATSCOPE_FUZZ_SECONDS (60) of chaos,
# seeded with LATSCOPE_FUZZ_SEED (default: the time; it prints the seed).
# tests/vm/gpiod_test.sh (the application's responder, libgpiod),
# tests/vm/serve_gpio_test.sh (the exporter on the GPIO sources and the
# monitor) and tests/vm/netfuzz_test.sh (both latmon ends, built with
# ASan and UBSan, against tests/vm/latmon_fuzz.c: LATSCOPE_NETFUZZ_RUNS
# turns, 6) run before the fuzz; the CLI links libgpiod 1.6 on PREEMPT and
# 2.x on PREEMPT_RT. LATSCOPE_VM_TESTS="gpiod" runs only the parts named
# (setup gpio survey_gpio latmon gpiod serve_gpio netfuzz fuzz), for work on one of
# them; in the test mode: cli setup serve why survey noise noise_peer
# (why, survey and noise on 6.12 only; survey: a short survey whose
# directory comes back and gets its profile here; noise: the noise
# source; noise_peer: beside rtla osnoise where the kernel has its tracer,
# 6.12 rt here and the GPIO VM's PREEMPT kernel, which runs it after
# setup, LATSCOPE_NOISE_ROUNDS rounds of LATSCOPE_NOISE_SECONDS, 2 of 3 s).
# Each run works in a directory of its own, $LATSCOPE_CACHE/vm/RELEASE.XXXXXX
# (its logs are kept; the image and tree only when the run failed), so
# runs beside each other do not clobber one another; the files the CLI
# wrote in the VM go to $LATSCOPE_VM_FILES (default: the work dir's files/).
# demo (scripts/demo.sh) boots with the module and the CLI alone.
# Prints the VM's report; exits 0 only if the VM says rc=0.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"

series=$1 flavour=$2 mode=${3:-test}
cache=$(latscope_cache)
if [ "$series" = gpio ]; then
	case $flavour in
	rt-amd64) kdir=$("$top/scripts/gpio-kernel.sh" rt) ;;
	*) kdir=$("$top/scripts/gpio-kernel.sh" preempt) ;;
	esac
	release=$(cat "$kdir/include/config/kernel.release")-gpio-$flavour
	vmlinuz=$kdir/arch/x86/boot/bzImage
	mode=${3:-gpio}
else
	kdir=$(latscope_headers_dir "$series" "$flavour") || {
		echo "vm: no $series $flavour headers (run scripts/install-deps.sh)" >&2
		exit 1
	}
	release=$(basename "$kdir")
	release=${release#linux-headers-}
	# The kernel image that matches the headers, fetched once into the
	# cache (with the chroot's apt for 5.10 and sid: scripts/chroot.sh).
	vmlinuz=$(latscope_kernel_image "$release" "$(latscope_chroot_of "$kdir")") || {
		echo "vm: linux-image-$release could not be downloaded" >&2
		exit 1
	}
fi
mkdir -p "$cache/vm"
# Work dirs of runs more than two days old go; a running one is younger.
find "$cache/vm" -mindepth 1 -maxdepth 1 -type d -name '*.??????' -mtime +2 \
	-exec rm -rf {} + 2>/dev/null || true
work=$(mktemp -d "$cache/vm/$release.XXXXXX")

# The module, built out of the work tree.
# The module, built out of the work tree; in pkg mode the one DKMS
# installed (LATSCOPE_VM_MODULE, tests/pkg/run.sh), as it is.
rm -rf "$work/mod"
mkdir -p "$work/mod"
if [ "$mode" = pkg ]; then
	case ${LATSCOPE_VM_MODULE:?pkg mode: LATSCOPE_VM_MODULE=the installed latscope.ko} in
	*.xz) xz -dc "$LATSCOPE_VM_MODULE" ;;
	*.zst) zstd -dc "$LATSCOPE_VM_MODULE" ;;
	*) cat "$LATSCOPE_VM_MODULE" ;;
	esac >"$work/mod/latscope.ko"
else
	cp -r "$top/driver/." "$work/mod/"
	latscope_kbuild "$kdir" "$work/mod" -s CONFIG_LATSCOPE=m modules >"$work/build.log" 2>&1 || {
		cat "$work/build.log"
		exit 1
	}
fi
# Another driver tree to compare with in the same boot (snapshot-cost,
# bench):
# /latscope-old.ko beside the module.
if [ -n "${LATSCOPE_VM_OLD_DRIVER:-}" ]; then
	rm -rf "$work/old"
	cp -r "$LATSCOPE_VM_OLD_DRIVER/." "$work/old/"
	latscope_kbuild "$kdir" "$work/old" -s CONFIG_LATSCOPE=m modules >"$work/build-old.log" 2>&1 || {
		cat "$work/build-old.log"
		exit 1
	}
fi

add_test_programs() {
	# The same test as a 32-bit program exercises the compat ioctl path.
	for m in 64 32; do
		# shellcheck disable=SC2046 # latscope_mflags prints several flags
		gcc $(latscope_mflags $m) -std=c11 -static -O2 -Wall -Wextra -Werror -pthread \
			-I"$top/driver/include/uapi" "$top/tests/vm/abi_test.c" -o "$root/abi_test$m"
	done
	# The CLI, static, and its in-VM test: the GPIO VM's RT kernel gets it
	# built on libgpiod 2.x, every other VM on Debian's 1.6; all on a
	# libmicrohttpd without TLS, for the exporter (scripts/libmicrohttpd.sh).
	local pc
	pc=$("$top/scripts/libmicrohttpd.sh")
	if [ "$series-$flavour" = gpio-rt-amd64 ]; then
		pc=$pc:$("$top/scripts/libgpiod2.sh")
	fi
	PKG_CONFIG_PATH=$pc latscope_static_cli "$top" "$root/bin/latscope" MHD=auto
	cp "$top/tests/vm/cli_test.sh" "$root/cli_test.sh"
	# The setup verdict's test, with the config this kernel was built with.
	cp "$top/tests/vm/setup_test.sh" "$root/setup_test.sh"
	# The exporter's test, and its flood of connections.
	cp "$top/tests/vm/serve_test.sh" "$root/serve_test.sh"
	gcc -std=c11 -static -O2 -Wall -Wextra -Werror "$top/tests/vm/http_flood.c" -o "$root/http_flood"
	gcc -std=c11 -static -O2 -Wall -Wextra -Werror "$top/tests/vm/http_time.c" -o "$root/http_time"
	mkdir -p "$root/boot"
	cp "$kdir/.config" "$root/boot/config-vm"
	cp "$top/tests/vm/lib.sh" "$root/vm_lib.sh"
	cp "$top/tests/vm/gpio_test.sh" "$root/gpio_test.sh"
	cp "$top/tests/vm/survey_gpio_test.sh" "$root/survey_gpio_test.sh"
	gcc -std=c11 -static -O2 -Wall -Wextra -Werror "$top/tests/vm/gpio_loop.c" -o "$root/gpio_loop"
	gcc -std=c11 -static -O2 -Wall -Wextra -Werror -pthread -I"$top/driver/include/uapi" \
		"$top/tests/vm/fuzz.c" -o "$root/fuzz"
	cp "$top/tests/vm/fuzz_test.sh" "$root/fuzz_test.sh"
	gcc -std=c11 -static -O2 -Wall -Wextra -Werror "$top/tests/vm/latmon_peer.c" -o "$root/latmon_peer"
	gcc -std=c11 -static -O2 -Wall -Wextra -Werror "$top/tests/vm/gpio_wire.c" -o "$root/gpio_wire"
	cp "$top/tests/vm/latmon_test.sh" "$root/latmon_test.sh"
	cp "$top/tests/vm/gpiod_test.sh" "$root/gpiod_test.sh"
	cp "$top/tests/vm/serve_gpio_test.sh" "$root/serve_gpio_test.sh"
	cp "$top/tests/vm/gpio_compare.sh" "$root/gpio_compare.sh"
	# The network fuzz of both latmon ends (GPIO VM): the CLI with ASan
	# and UBSan, and the libraries it links.
	if [ "$series" = gpio ]; then
		latscope_asan_cli "$top" "$root/bin/latscope-asan"
		gcc -std=c11 -static -O2 -Wall -Wextra -Werror "$top/tests/vm/latmon_fuzz.c" \
			-o "$root/latmon_fuzz"
		cp "$top/tests/vm/netfuzz_test.sh" "$root/netfuzz_test.sh"
		ldd "$root/bin/latscope-asan" | awk '/=>/ { print $3 } /^\t\// { print $1 }' |
		while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	fi
	# cyclictest from rt-tests, to run beside latscope in the same VM, and
	# the load tools of --stress (tests/vm/stress_test.sh), each with the
	# libraries it links; and a user that is not root.
	mkdir -p "$root/usr/bin"
	for tool in /usr/bin/cyclictest /usr/bin/hackbench /usr/bin/stress-ng /usr/bin/ping /usr/bin/iperf3; do
		cp "$tool" "$root/usr/bin/"
		ldd "$tool" | awk '/=>/ { print $3 } /^\t\// { print $1 }' |
		while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
	cp "$top/tests/vm/stress_test.sh" "$root/stress_test.sh"
	cp "$top/tests/vm/why_cost.sh" "$root/why_cost.sh"
	cp "$top/tests/vm/snapshot_cost.sh" "$root/snapshot_cost.sh"
	cp "$top/tests/vm/bench.sh" "$root/bench.sh"
	for prog in hook_cost bench_loop; do
		gcc -std=c11 -static -O2 -Wall -Wextra -Werror -I"$top/driver/include/uapi" \
			"$top/tests/vm/$prog.c" -o "$root/$prog"
	done
	# The recorder's test (Debian 12's 6.12, mainline and rt, within the
	# time budget): the noise module, built against the same headers, and
	# rtla where the kernel has timerlat.
	if [ "$series" = 6.12 ]; then
		rm -rf "$work/noise"
		cp -r "$top/tests/noise" "$work/noise"
		latscope_kbuild "$kdir" "$work/noise" -s modules >"$work/noise-build.log" 2>&1 || {
			cat "$work/noise-build.log"
			return 1
		}
		cp "$work/noise/latscope_noise.ko" "$root/"
		cp "$top/tests/vm/why_test.sh" "$root/why_test.sh"
		cp "$top/tests/vm/survey_test.sh" "$root/survey_test.sh"
		cp "$top/tests/vm/noise_test.sh" "$root/noise_test.sh"
	fi
	# The noise source beside rtla osnoise, where the kernel has the
	# tracer: Debian's 6.12 rt, and the GPIO VM's PREEMPT kernel, the
	# mainline 6.12 that has it (its RT twin is Debian's rt: not twice).
	if { [ "$series" = 6.12 ] || [ "$series-$flavour" = gpio-amd64 ]; } &&
		grep -q '^CONFIG_OSNOISE_TRACER=y' "$kdir/.config"; then
		add_tool "$("$top/scripts/rtla.sh")" rtla
		cp "$top/tests/vm/noise_peer_test.sh" "$root/noise_peer_test.sh"
	fi
}

# Copies a program into the image's /usr/bin as NAME, with the libraries
# it links, and libgcc_s, which glibc's pthread_exit() loads at run time.
add_tool() { # path, name
	local gcc_s

	mkdir -p "$root/usr/bin"
	cp "$1" "$root/usr/bin/$2"
	gcc_s=$(gcc -print-file-name=libgcc_s.so.1)
	{ ldd "$1" | awk '/=>/ { print $3 } /^\t\// { print $1 }'; readlink -f "$gcc_s"; } |
	while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cp -L "$gcc_s" "$root/lib/x86_64-linux-gnu/libgcc_s.so.1"
}

# The initramfs: busybox, the module, the test program, our init.
root=$work/root
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp /bin/busybox "$root/bin/busybox"
cp "$top/tests/vm/init" "$root/init"
chmod +x "$root/init"
cp "$work/mod/latscope.ko" "$root/"
[ -z "${LATSCOPE_VM_OLD_DRIVER:-}" ] || cp "$work/old/latscope.ko" "$root/latscope-old.ko"
# And that build's CLI, static (scripts/bench.sh): /bin/latscope-old.
[ -z "${LATSCOPE_VM_OLD_CLI:-}" ] || cp "$LATSCOPE_VM_OLD_CLI" "$root/bin/latscope-old"
# The CLI, static, and for the tests their programs and tools.
if [ "$mode" = demo ]; then
	latscope_static_cli "$top" "$root/bin/latscope" >"$work/cli-build.log" 2>&1 || {
		cat "$work/cli-build.log"
		exit 1
	}
elif [ "$mode" = pkg ]; then
	# The packaged CLI, with the libraries it links (LATSCOPE_VM_CLI).
	add_tool "${LATSCOPE_VM_CLI:?pkg mode: LATSCOPE_VM_CLI=the installed latscope}" latscope
	cp "$top/tests/vm/lib.sh" "$root/vm_lib.sh"
else
	add_test_programs
fi
# One stage's exporter is scraped by a real Prometheus on this host,
# through QEMU's user network (restrict=on: nothing leaves it) and a port
# forwarded on 127.0.0.1 (tests/vm/serve_test.sh, tests/vm/check_prom.py).
netargs=()
if [ "$mode" = test ] && [ "$series-$flavour" = 6.12-amd64 ]; then
	latscope_kernel_modules "$release" "$root/netmod" net/core/failover \
		drivers/net/net_failover drivers/net/virtio_net || {
		echo "vm: no virtio_net module for $release"
		exit 1
	}
	prom=$work/prometheus
	rm -rf "$prom"
	mkdir -p "$prom"
	free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
	fwd=$(free_port)
	promport=$(free_port)
	cat >"$prom/prometheus.yml" <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [ '$top/fleet/latscope-rules.yml' ]
scrape_configs:
  - job_name: latscope
    static_configs: [ { targets: ['127.0.0.1:$fwd'] } ]
YML
	prometheus --config.file="$prom/prometheus.yml" --storage.tsdb.path="$prom/data" \
		--web.listen-address="127.0.0.1:$promport" --log.level=warn >"$prom/log" 2>&1 &
	prompid=$!
	# (|| true: under set -e the trap's status, 143, would be the script's.)
	trap 'kill $prompid 2>/dev/null; wait $prompid 2>/dev/null || true' EXIT
	netargs=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$fwd-:19380"
		-device "virtio-net-pci,netdev=n0")
fi
mkdir -p "$root/etc"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

log=$work/console-$mode.log
# The fuzz stage of the GPIO VM: its length, and a seed to replay.
fuzz="lsfuzz=${LATSCOPE_FUZZ_SECONDS:-60}${LATSCOPE_FUZZ_SEED:+ lsseed=$LATSCOPE_FUZZ_SEED}"
fuzz="$fuzz lsnetfuzz=${LATSCOPE_NETFUZZ_RUNS:-6}"
tests=${LATSCOPE_VM_TESTS:+ lstests=$(echo "$LATSCOPE_VM_TESTS" | tr ' ' ,)}
# RDRAND, trusted, seeds the kernel's CRNG before the second CPU starts:
# without it the CRNG got ready ~10 s in, mid-test, and flipping its
# static key (live code patching with int3) on a loaded host once oopsed
# a task that ran the patched code under TCG.
# The fuzz stage may run up to 120 s past its length on a slow host, until
# each kind of work was done once (tests/vm/fuzz.c): the bound allows it.
# Where the worst-sample recorder hooks tracepoints (live patching of
# kernel code), TCG runs single-threaded: multi-threaded TCG was seen to let
# the other virtual CPU run a stale int3 of the patch (an oops). The modes
# that never ask for the recorder keep both host threads.
# The ends of the kernel range (5.10, sid) run the ABI test and a short
# CLI check (lsmode=abi), within the time budget; 6.1 and 6.12 run it all.
if [ "$mode" = test ] && { [ "$series" = 5.10 ] || [ "$series" = sid ]; }; then
	mode=abi
fi
icount=()
case $mode in
demo | stress | compare | gpio-compare) accel=tcg ;;
# bench: as scripts/bench.sh asks (LATSCOPE_VM_TCG_THREAD single, multi
# or icount): one host thread for both virtual CPUs makes what one does
# cost the other's time too; icount makes the guest's clock count its
# instructions (4 ns each; when every CPU idles, the clock jumps to the
# next timer), so that a latency is the length of the path that ran,
# whatever else the host does meanwhile.
bench)
	case ${LATSCOPE_VM_TCG_THREAD:-single} in
	icount)
		accel=tcg,thread=single
		# One QEMU option whose value has commas of its own.
		icount=(-icount "shift=2,sleep=off")
		;;
	*) accel=tcg,thread=${LATSCOPE_VM_TCG_THREAD:-single} ;;
	esac
	;;
*) accel=tcg,thread=single ;;
esac
# A bound for a hung VM, not a guess at its speed: the GPIO stage runs
# the most parts.
limit=720
[ "$mode" = gpio ] && limit=1320
# survey: LATSCOPE_COMPARE_SECONDS of timer runs, then the cost suite.
[ "$mode" = survey ] && limit=1320
# snapshot-cost runs two modules' rounds, then the hook costs' (48 runs).
[ "$mode" = snapshot-cost ] && limit=1320
# bench: up to eight variants a round, each for LATSCOPE_COMPARE_SECONDS.
[ "$mode" = bench ] && limit=$((${LATSCOPE_WHY_ROUNDS:-4} * 8 * (${LATSCOPE_COMPARE_SECONDS:-60} + 15) + 300))
boot() {
	timeout $((limit + ${LATSCOPE_FUZZ_SECONDS:-60} + ${LATSCOPE_COMPARE_SECONDS:-60} + ${LATSCOPE_SOAK_SECONDS:-60})) \
		qemu-system-x86_64 -accel "$accel" "${icount[@]}" -cpu qemu64,+rdrand -smp 2 -m 1024 \
		-nographic -no-reboot -kernel "$vmlinuz" -initrd "$work/initrd.gz" "${netargs[@]}" \
		-append "console=ttyS0 panic=-1 quiet random.trust_cpu=on lsmode=$mode lssecs=${LATSCOPE_COMPARE_SECONDS:-60} lscost=${LATSCOPE_COMPARE_COST_SCALE:-10} lsrounds=${LATSCOPE_WHY_ROUNDS:-4} lssoak=${LATSCOPE_SOAK_SECONDS:-60} lsnoise=${LATSCOPE_NOISE_ROUNDS:-2}x${LATSCOPE_NOISE_SECONDS:-3} $fuzz$tests" \
		>"$log" 2>&1 || true
}
boot
# A kernel that dies before our init runs never saw latscope: TCG has been
# seen to miss an int3 of live code patching at boot on a loaded host. Say
# so, keep that log, and boot once more. Anything after init is not retried.
if ! grep -q LATSCOPE-VM-BEGIN "$log"; then
	mv "$log" "$log.boot-failure"
	echo "vm: $release died before init ran (log in $log.boot-failure); booting once more"
	grep -m 3 -E 'Oops|BUG:|panic' "$log.boot-failure" || true
	boot
fi
tr -d '\r' <"$log" | sed -n '/LATSCOPE-VM-BEGIN/,/LATSCOPE-VM-END/p' |
	sed 's/.*LATSCOPE-VM-BEGIN/LATSCOPE-VM-BEGIN/' | sed '/^LATSCOPE-FILE-BEGIN/,/^LATSCOPE-FILE-END/d'
grep -q 'LATSCOPE-VM-END rc=0' "$log" || {
	echo "vm: $release: the VM did not say rc=0; its console, image and tree are in $work"
	exit 1
}

# The files the CLI wrote in the VM come back between markers.
files=${LATSCOPE_VM_FILES:-$work/files}
mkdir -p "$files"
# A name in a folder (a survey's, survey-RELEASE/NAME) has it made first.
tr -d '\r' <"$log" | awk -v dir="$files" '
	/^LATSCOPE-FILE-BEGIN / {
		f = dir "/" $2
		if ($2 ~ /^[A-Za-z0-9._+-]+\/[A-Za-z0-9._+-]+$/) {
			sub(/\/.*/, "", $2)
			system("mkdir -p \"" dir "/" $2 "\"")
		}
		next
	}
	/^LATSCOPE-FILE-END/ { close(f); f = ""; next }
	f { print > f }'
# The survey's directory (tests/vm/survey_test.sh): its profile made here,
# where Python is, checked against its own files and rendered by chromium;
# whatever the mode, and when LATSCOPE_VM_TESTS names a part.
survey_status=0
for s in "$files"/survey-*/; do
	[ -f "$s/survey.txt" ] || continue
	"$top/userspace/latscope-report" "$s" >"$work/profile.log" 2>&1 || {
		cat "$work/profile.log"
		survey_status=1
	}
	if /usr/bin/python3 "$top/tests/survey/check_profile.py" profile "$s"; then
		echo "ok - survey: the profile's figures are its own files' ($s)"
	else
		survey_status=1
	fi
	/usr/bin/python3 "$top/tests/report/browser.py" "$s/profile/profile.html" "$work/profile.png" ||
		survey_status=1
done
# What passed leaves its logs and files, not its image and tree.
rm -rf "$work/root" "$work/mod" "$work/old" "$work/initrd.gz"
# compare leaves its JSON to scripts/compare.sh (gpio-compare to
# scripts/compare-gpio.sh), demo its output to scripts/demo.sh; fuzz
# writes no file.
case $mode in
compare | gpio-compare | fuzz | demo | why-cost | snapshot-cost | bench | pkg | abi | survey)
	exit $survey_status
	;;
esac
# A subset (LATSCOPE_VM_TESTS) whose parts write no file (but a survey's
# directory) has none to check; nor has a subset of the test mode the
# whole set its host checks expect.
if [ -n "${LATSCOPE_VM_TESTS:-}" ] &&
	{ [ -z "$(find "$files" -maxdepth 1 -type f | head -n 1)" ] || [ "$mode" = test ]; }; then
	echo "# files: only the parts asked for ($LATSCOPE_VM_TESTS); not checked"
	exit $survey_status
fi
# JSON parsed back, plot files read by gnuplot as they are, and
# latscope-report's tables and images made from this run's JSON files.
status=0
if [ "$mode" != stress ]; then
	python3 "$top/tests/vm/check_files.py" "$files" || status=1
fi
# The exporter's scrapes (tests/vm/serve_test.sh): promtool, OpenMetrics;
# and what the host's Prometheus stored of its last run.
if ls "$files"/serve-*.prom >/dev/null 2>&1; then
	/usr/bin/python3 "$top/tests/vm/check_serve.py" "$files" || status=1
fi
if [ ${#netargs[@]} -gt 0 ]; then
	/usr/bin/python3 "$top/tests/vm/check_prom.py" "$files" "http://127.0.0.1:$promport" \
		"$top/fleet" || status=1
fi
# The recorder's runs under known noise (tests/vm/why_test.sh).
if ls "$files"/why-*.json >/dev/null 2>&1; then
	python3 "$top/tests/vm/check_why.py" "$files" || status=1
fi
# The noise source's runs (tests/vm/noise_test.sh), and beside rtla
# osnoise (tests/vm/noise_peer_test.sh).
if compgen -G "$files/noise-*.json" >/dev/null || compgen -G "$files/cmp-*.json" >/dev/null; then
	/usr/bin/python3 "$top/tests/vm/check_noise.py" "$files" || status=1
fi
rm -rf "$work/report-check"
mkdir -p "$work/report-check"
python3 "$top/tests/report/check_report.py" "$top/userspace/latscope-report" \
	"$work/report-check" "$files"/*.json || status=1
exit $((status | survey_status))
