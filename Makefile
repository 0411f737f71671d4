# latscope: one entry point for building, testing and installing.
# `make help` prints the targets below (the lines that start "#   make").
#
#   make                 latscope.ko for the running kernel (or KDIR=...) and
#                        the latscope CLI (userspace/latscope)
#   make cli             the CLI alone (no kernel headers needed)
#   make module          latscope.ko alone
#   make clean           remove what the two built
#   make check           every test (scripts/check.sh): checkpatch,
#                        shellcheck, the layering check, W=1 and sparse on
#                        5.10 to the newest, KUnit, VM ABI/CLI tests, the
#                        GPIO and latmon suites on a gpio-sim kernel, the
#                        Debian packages
#   make demo            boot a VM, load the module, measure 10 s
#                        (installs only what the demo uses)
#   make install         install latscope.ko, the CLI and what the latscope
#                        package carries on this board (DESTDIR, PREFIX);
#                        make uninstall removes exactly that
#   make install-dkms    the module's sources in /usr/src for DKMS
#   make deb             the Debian packages, lintian-checked (../*.deb;
#                        needs debhelper, dh-dkms and lintian)
#   make pkg-test        build, lintian, install (DKMS on four kernels, each
#                        booted in the VM), purge; make install/uninstall
#   make kunit | build-matrix | checkpatch | kernel-doc | shellcheck |
#        py-lint | layers | commits | unit | docs-test | vm-test | vm-gpio |
#        vm-fuzz | report-test | demo-test
#                        one stage of check (vm-fuzz: FUZZ_SECONDS, FUZZ_SEED)
#   make dtbo            the Raspberry Pi overlays (dts-overlays/*.dtbo)
#   make dt-check        the overlays applied to Debian's Pi DTBs, the binding
#   make pi-vm           an emulated Raspberry Pi 3 with the overlay
#   make vm-test-one SERIES=6.12 FLAVOUR=rt-amd64      one kernel of the matrix
#   make compare         mainline vs PREEMPT_RT under load in the VM, reported
#   make compare-gpio    the GPIO responders side by side in the GPIO VM
#   make vm-gpiod        the GPIO VM's libgpiod part alone (both kernels)
#   make setup-test      the setup verdict (--check-setup) on fake roots
#   make cost-test       the cost suite's A/A control on this machine
#   make survey-test     --survey: plan, bad values, a short survey, Ctrl-C
#   make evt-test        the EVT estimator's coverage and refusal tests
#   make serve-test      the exporter against a slow-header and a burst peer
#   make fleet-test      the Prometheus rules and the dashboard's queries
#   make prom-bench      the exporter's scrape cost by CPUs
#   make vm-why          the VM test of 6.12 and 6.12-rt, with the recorder
#                        under known noise and rtla beside it
#   make why-cost        the recorder's price, side by side in the VM
#                        (docs/measurements/why-cost.md)
#   make bench [REV=r]   -u against cyclictest, -k and -i against rtla, and
#                        build REV (default: the newest tag), in one boot
#                        per 6.12 kernel under icount, as ratios
#                        (docs/measurements/bench.md)
#   make compile_commands  compile_commands.json for clangd (the CLI, and
#                        the driver's objects once `make module` built them)
#   make help            this list

KRELEASE ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KRELEASE)/build
PREFIX ?= /usr/local
SERIES ?= 6.12
FLAVOUR ?= amd64
FUZZ_SECONDS ?= 60
FUZZ_SEED ?=

.PHONY: all module cli check demo demo-test install uninstall install-dkms deb pkg-test deps kunit build-matrix checkpatch shellcheck dtbo dt-check pi-vm report-test compare compare-gpio vm-gpiod vm-why why-cost bench setup-test cost-test survey-test serve-test evt-test fleet-test prom-bench \
	vm-test vm-test-one vm-gpio vm-fuzz clean help layers commits kernel-doc py-lint unit docs-test compile_commands

# The CLI first: a host without kernel headers still gets it.
all: cli module

cli:
	$(MAKE) -C userspace

module:
	@test -f $(KDIR)/Makefile || { \
		echo "No kernel build tree at $(KDIR): install linux-headers-$$(uname -r) or pass KDIR=/path/to/kernel/build (the CLI alone: make cli)"; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/driver CONFIG_LATSCOPE=m modules

check:
	scripts/check.sh

help:
	@awk '/^#   make /{on=1} on && /^$$/{exit} on{sub(/^#/, ""); print}' Makefile

# The layers of userspace/ and the driver's files: no upward link, no circle
# (docs/design/layers.md), and the check's own tests.
setup-test:
	bash tests/setup/run.sh

evt-test:
	bash tests/evt/run.sh

# The cost suite's A/A control (--cost --cost-aa): its intervals hold the noise.
cost-test:
	bash tests/cost/run.sh

# --survey with the fake device: the plan, bad values, a short survey, Ctrl-C in it.
survey-test:
	bash tests/survey/run.sh

# The exporter's door against hostile peers, over loopback (fake device).
serve-test:
	bash tests/serve/run.sh

fleet-test:
	bash tests/fleet/run.sh

# The exporter's scrape cost by CPUs (docs/measurements/exporter.md).
prom-bench:
	$(MAKE) -s -C userspace liblatscope-cli.a
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Iuserspace -Idriver/include/uapi \
		tests/bench/prom_bench.c userspace/liblatscope-cli.a -lm -o userspace/prom_bench
	userspace/prom_bench

layers:
	python3 scripts/layers.py
	bash tests/layers/run.sh

# The commit subjects since the last release tag (docs/testing.md).
commits:
	bash tests/commits/run.sh

# The driver's kernel-doc comments, -Wall (docs/testing.md).
kernel-doc:
	bash scripts/kernel-doc.sh

# pyflakes over every Python file (docs/testing.md).
py-lint:
	bash scripts/pyflakes.sh

# The CLI's unit tests and hostile command lines, no VM.
unit:
	bash tests/unit/run.sh
	bash tests/unit/hostile.sh

# The front door: README and --help budgets, links, examples, pins
# (tests/docs/run.sh; seconds).
docs-test:
	bash tests/docs/run.sh

compile_commands:
	python3 scripts/compile-commands.py

demo:
	scripts/demo.sh

demo-test: deps
	bash tests/demo/run.sh

deps:
	scripts/install-deps.sh

kunit: deps
	scripts/kunit.sh

build-matrix: deps
	scripts/build-matrix.sh

checkpatch: deps
	scripts/checkpatch.sh

shellcheck: deps
	scripts/shellcheck.sh

vm-test: deps
	bash -c '. scripts/lib.sh && for k in "$${LATSCOPE_MATRIX[@]}"; do \
		scripts/vm.sh $$k test || exit 1; done'

vm-test-one: deps
	scripts/vm.sh $(SERIES) $(FLAVOUR) test

vm-gpio: deps
	scripts/vm.sh gpio amd64 gpio
	scripts/vm.sh gpio rt-amd64 gpio

# The fuzz and race stage alone on the debug GPIO kernels:
#   make vm-fuzz FUZZ_SECONDS=600 FUZZ_SEED=1234
vm-fuzz: deps
	LATSCOPE_FUZZ_SECONDS=$(FUZZ_SECONDS) LATSCOPE_FUZZ_SEED=$(FUZZ_SEED) scripts/vm.sh gpio amd64 fuzz
	LATSCOPE_FUZZ_SECONDS=$(FUZZ_SECONDS) LATSCOPE_FUZZ_SEED=$(FUZZ_SEED) scripts/vm.sh gpio rt-amd64 fuzz

# The Raspberry Pi overlays: copy them to /boot/firmware/overlays
# (docs/guide/raspberry-pi.md):
# latscope-gpio for the board under test, latscope-monitor for a monitor.
dtbo: dts-overlays/latscope-gpio.dtbo dts-overlays/latscope-monitor.dtbo

dts-overlays/%.dtbo: dts-overlays/%-overlay.dts
	dtc -@ -I dts -O dtb -o $@ $<

dt-check: deps
	tests/dt/run.sh

report-test: deps
	tests/report/run.sh

# The mainline vs PREEMPT_RT comparison (emulated), into docs/measurements
# (docs/measurements/mainline-vs-rt.md).
compare: deps cli
	scripts/compare.sh

# The GPIO responder table (emulated), into docs/measurements/gpio
# (docs/measurements/gpio-responders.md).
compare-gpio: deps
	scripts/compare-gpio.sh

# The fast target for the application's responder: only tests/vm/gpiod_test.sh.
vm-gpiod: deps
	LATSCOPE_VM_TESTS=gpiod scripts/vm.sh gpio amd64
	LATSCOPE_VM_TESTS=gpiod scripts/vm.sh gpio rt-amd64

# The recorder's tests: the 6.12 VMs' ABI, CLI and noise tests.
vm-why: deps
	scripts/vm.sh 6.12 amd64 test
	scripts/vm.sh 6.12 rt-amd64 test

why-cost: deps cli
	scripts/why-cost.sh

REV ?=
bench: deps
	scripts/bench.sh $(REV)

pi-vm: deps
	scripts/pi-vm.sh sut
	scripts/pi-vm.sh monitor

# The module for KRELEASE, in /lib/modules/KRELEASE/updates; and what
# the latscope package carries (userspace/Makefile's INSTALLED: the CLI,
# latscope-report, latscope-evt, man pages, the uapi header, the udev
# rule example, bash completion, the exporter's unit). `make uninstall`
# with the same DESTDIR, PREFIX and KRELEASE removes exactly that.
install: module cli
	$(MAKE) -C userspace install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/driver CONFIG_LATSCOPE=m INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=updates DEPMOD=true modules_install
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KRELEASE); fi

uninstall:
	$(MAKE) -C userspace uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	rm -f $(DESTDIR)/lib/modules/$(KRELEASE)/updates/latscope.ko*
	rmdir -p --ignore-fail-on-non-empty $(DESTDIR)/lib/modules/$(KRELEASE)/updates 2>/dev/null || true
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KRELEASE); fi

# The Debian packages, in the folder above this one, lintian-checked.
deb:
	dpkg-buildpackage -us -uc -b
	lintian --fail-on error,warning ../latscope_$(shell cat VERSION)_$(shell dpkg --print-architecture).changes

# The packages' test (tests/pkg/run.sh): it installs and purges them here.
pkg-test: deps
	bash tests/pkg/run.sh

# The module's sources as DKMS takes them (the latscope-dkms package):
# /usr/src/latscope-VERSION, its dkms.conf beside them.
DKMS_SRC = /usr/src/latscope-$(shell cat VERSION)
install-dkms:
	install -d $(DESTDIR)$(DKMS_SRC)/include/uapi/linux
	install -m 0644 driver/Kbuild driver/dkms.conf $(wildcard driver/*.c driver/*.h) \
		$(DESTDIR)$(DKMS_SRC)/
	install -m 0644 driver/include/uapi/linux/latscope.h $(DESTDIR)$(DKMS_SRC)/include/uapi/linux/

clean:
	$(MAKE) -C userspace clean
	@if [ -f $(KDIR)/Makefile ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/driver clean; fi
