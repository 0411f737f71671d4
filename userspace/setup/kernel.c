// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the setup verdict's factors of the kernel as a whole: its
 * build (preemption model, debug options, tracers), its command line and
 * sysctls (console, watchdogs, huge pages, timer migration, RT
 * throttling), its clocksource and its graphics driver. The checklists
 * they come from: EVL's benchmarking hints and the usual PREEMPT_RT
 * tuning guides (docs/design/setup.md).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "setup/setup.h"

static bool config_yes(const struct ls_setup_ctx *c, const char *opt)
{
	const char *v = ls_setup_config(c, opt);

	return v && v[0] == 'y';
}

static const char no_config[] =
	"no kernel config: modprobe configs, or install the kernel's /boot/config-RELEASE";

/*
 * The word a sysfs list marks as current, between @open and @close:
 * "none voluntary (full) lazy", "always [madvise] never". Without the
 * mark, "" (or all of @list with @whole).
 */
static void marked_word(const char *list, char open, char close, bool whole, char *buf,
			size_t len)
{
	const char *at = strchr(list, open);

	if (!at)
		snprintf(buf, len, "%s", whole ? list : "");
	else
		snprintf(buf, len, "%.*s", (int)strcspn(at + 1, (char[]){ close, '\0' }), at + 1);
}

void ls_setup_preemption(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char version[512], mode[32] = "", rt[8];

	ls_setup_read(c, version, sizeof(version), "/proc/sys/kernel/version");
	ls_setup_read(c, rt, sizeof(rt), "/sys/kernel/realtime");
	if (config_yes(c, "CONFIG_PREEMPT_RT") || rt[0] == '1' || strstr(version, "PREEMPT_RT")) {
		snprintf(f->value, sizeof(f->value), "PREEMPT_RT");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	if (config_yes(c, "CONFIG_PREEMPT_DYNAMIC") || strstr(version, "PREEMPT_DYNAMIC")) {
		char list[128];

		/* The running mode (debugfs) may differ from the boot's (preempt=). */
		if (!ls_setup_read(c, list, sizeof(list), "/sys/kernel/debug/sched/preempt"))
			marked_word(list, '(', ')', false, mode, sizeof(mode));
		if (!mode[0])
			ls_setup_cmdline(c, "preempt", mode, sizeof(mode));
		snprintf(f->value, sizeof(f->value), "PREEMPT_DYNAMIC, %s", mode[0] ? mode :
			 config_yes(c, "CONFIG_PREEMPT") ? "full by default" :
			 config_yes(c, "CONFIG_PREEMPT_VOLUNTARY") ? "voluntary by default" :
			 config_yes(c, "CONFIG_PREEMPT_NONE") ? "none by default" :
			 "mode not known (mount debugfs to read it)");
	} else if (config_yes(c, "CONFIG_PREEMPT") || strstr(version, "PREEMPT")) {
		snprintf(f->value, sizeof(f->value), "PREEMPT (full, not PREEMPT_RT)");
	} else if (c->config || version[0]) {
		snprintf(f->value, sizeof(f->value), "%s",
			 config_yes(c, "CONFIG_PREEMPT_VOLUNTARY") ? "voluntary" : "none (server)");
	} else {
		snprintf(f->value, sizeof(f->value), "not known");
		ls_setup_verdict(f, LS_VERDICT_UNKNOWN, no_config);
		return;
	}
	ls_setup_verdict(f, LS_VERDICT_COSTS,
			 "a PREEMPT_RT kernel (Debian: apt install linux-image-rt-amd64 or -rt-arm64); at least preempt=full on the kernel command line");
}

/* What a debug build adds on paths a responder takes (locks, allocations, irqs). */
static const char *const debug_options[] = {
	"PROVE_LOCKING", "DEBUG_LOCK_ALLOC", "LOCK_STAT", "DEBUG_RT_MUTEXES",
	"DEBUG_SPINLOCK", "DEBUG_MUTEXES", "DEBUG_ATOMIC_SLEEP", "DEBUG_PREEMPT",
	"DEBUG_OBJECTS", "DEBUG_KMEMLEAK", "KASAN", "KCSAN", "KMSAN", "UBSAN",
	"DEBUG_PAGEALLOC", "SLUB_DEBUG_ON", "DEBUG_VM", "PROVE_RCU", "KCOV",
	"GCOV_KERNEL", "DEBUG_IRQFLAGS",
};

void ls_setup_debug(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char opt[64];
	size_t i;

	if (!c->config) {
		snprintf(f->value, sizeof(f->value), "the kernel's config was not found");
		ls_setup_verdict(f, LS_VERDICT_UNKNOWN, no_config);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(debug_options); i++) {
		snprintf(opt, sizeof(opt), "CONFIG_%s", debug_options[i]);
		if (config_yes(c, opt))
			ls_setup_append(f->value, "%s%s", f->value[0] ? " " : "", debug_options[i]);
	}
	if (!f->value[0]) {
		snprintf(f->value, sizeof(f->value), "none (%s)", c->config_from);
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	ls_setup_verdict(f, LS_VERDICT_COSTS,
			 "a kernel built without them (the distribution's, not a debug build)");
}

void ls_setup_tracing(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char tracer[64] = "", events[128] = "";
	size_t i;

	/* Built in, these two hook every irq and preemption switch even idle. */
	if (config_yes(c, "CONFIG_IRQSOFF_TRACER"))
		ls_setup_append(f->value, "IRQSOFF_TRACER built in; ");
	if (config_yes(c, "CONFIG_PREEMPT_TRACER"))
		ls_setup_append(f->value, "PREEMPT_TRACER built in; ");
	for (i = 0; i < ARRAY_SIZE(roots) && !tracer[0]; i++)
		if (!ls_setup_read(c, tracer, sizeof(tracer), "%s/current_tracer", roots[i]))
			ls_setup_read(c, events, sizeof(events), "%s/set_event", roots[i]);
	if (tracer[0] && strcmp(tracer, "nop"))
		ls_setup_append(f->value, "tracer %s on; ", tracer);
	if (events[0])
		ls_setup_append(f->value, "events on (%s...); ", events);
	if (f->value[0]) {
		f->value[strlen(f->value) - 2] = '\0';
		ls_setup_verdict(f, LS_VERDICT_COSTS,
				 "echo nop > /sys/kernel/tracing/current_tracer; echo > /sys/kernel/tracing/set_event; a kernel without IRQSOFF_TRACER/PREEMPT_TRACER");
		return;
	}
	snprintf(f->value, sizeof(f->value), "%s", tracer[0] ? "none on" :
		 "tracefs not mounted, no latency tracer built in");
	ls_setup_verdict(f, LS_VERDICT_OK, "");
}

/* Consoles that write out at a serial line's speed, with interrupts off. */
static bool serial_console(const char *name)
{
	static const char *const serial[] = {
		"ttyS", "ttyAMA", "serial", "ttymxc", "ttySAC", "ttyPS", "ttyO", "ttyMSM",
		"ttyLP", "ttyMV", "ttySC",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(serial); i++)
		if (!strncmp(name, serial[i], strlen(serial[i])))
			return true;
	return false;
}

void ls_setup_console(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char line[4096], printk[64], name[64] = "";
	const char *s;
	int level = -1;

	ls_setup_read(c, line, sizeof(line), "/proc/cmdline");
	for (s = line; (s = strstr(s, "console=")); s += 8)
		if ((s == line || s[-1] == ' ') && serial_console(s + 8))
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(s + 8, " ,"), s + 8);
	if (!ls_setup_read(c, printk, sizeof(printk), "/proc/sys/kernel/printk"))
		level = atoi(printk);
	if (!name[0]) {
		snprintf(f->value, sizeof(f->value), "no serial console");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	snprintf(f->value, sizeof(f->value), "serial console %s, console loglevel %d%s", name,
		 level, level > 4 ? ": notices and warnings go out on it" : "");
	ls_setup_verdict(f, level < 0 ? LS_VERDICT_UNKNOWN :
			 level > 4 ? LS_VERDICT_COSTS : LS_VERDICT_OK,
			 "quiet (or loglevel=3) on the kernel command line, or dmesg -n 1 now");
}

/* Clocksources a process reads in the vDSO, without a system call. */
static const char *const vdso_clocks[] = {
	"tsc", "arch_sys_counter", "kvm-clock", "hyperv_clocksource_tsc_page",
	"riscv_clocksource",
};

void ls_setup_clock(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char cs[64];
	size_t i;

	if (ls_setup_read(c, cs, sizeof(cs),
			  "/sys/devices/system/clocksource/clocksource0/current_clocksource")) {
		snprintf(f->value, sizeof(f->value), "not known");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(vdso_clocks); i++)
		if (!strcmp(cs, vdso_clocks[i])) {
			snprintf(f->value, sizeof(f->value),
				 "%s: the user context reads it in the vDSO", cs);
			ls_setup_verdict(f, LS_VERDICT_OK, "");
			return;
		}
	snprintf(f->value, sizeof(f->value),
		 "%s: no vDSO, each clock read of the user context is a system call", cs);
	ls_setup_verdict(f, LS_VERDICT_COSTS,
			 "clocksource=tsc on the kernel command line if the CPU's TSC is stable (see available_clocksource)");
}

/* Graphics drivers known to hold a CPU (EVL's hint: care with the GPU driver). */
static const char *const gpu_drivers[] = {
	"vc4", "v3d", "i915", "xe", "amdgpu", "radeon", "nouveau", "panfrost", "lima",
	"etnaviv", "msm", "mali_kbase", "imx_dcss", "rockchipdrm", "sun4i_drm",
};

static bool gpu_driver(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpu_drivers); i++)
		if (!strcmp(name, gpu_drivers[i]))
			return true;
	return false;
}

void ls_setup_gpu(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char path[512], link[512], mod[64];
	FILE *m;
	ssize_t n;
	int card;

	ls_setup_path(c, path, sizeof(path), "/proc/modules");
	m = fopen(path, "r");
	while (m && fscanf(m, "%63s %*[^\n]", mod) == 1)
		if (gpu_driver(mod) && !strstr(f->value, mod))
			ls_setup_append(f->value, "%s%s", f->value[0] ? ", " : "", mod);
	if (m)
		fclose(m);
	/* Built in: the driver of a DRM card. */
	for (card = 0; card < 4; card++) {
		const char *base;

		ls_setup_path(c, path, sizeof(path), "/sys/class/drm/card%d/device/driver", card);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (gpu_driver(base) && !strstr(f->value, base))
			ls_setup_append(f->value, "%s%s", f->value[0] ? ", " : "", base);
	}
	if (!f->value[0]) {
		snprintf(f->value, sizeof(f->value), "none of the drivers known to cost");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	ls_setup_append(f->value, " loaded: a graphics driver may hold the CPU");
	ls_setup_verdict(f, LS_VERDICT_UNKNOWN,
			 "measure with and without it: a headless board can leave it out (blacklist the module, or no vc4-kms overlay on a Pi)");
}

/* A sysctl that is 0 or 1: its value, -1 if absent. */
static int sysctl_flag(const struct ls_setup_ctx *c, const char *name)
{
	char v[32];

	if (ls_setup_read(c, v, sizeof(v), "/proc/sys/kernel/%s", name))
		return -1;
	return atoi(v);
}

void ls_setup_watchdog(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	int soft = sysctl_flag(c, "soft_watchdog"), nmi = sysctl_flag(c, "nmi_watchdog");
	int any = sysctl_flag(c, "watchdog");

	/* watchdog=1 only allows the two; neither on, no timer runs. */
	if (any <= 0 || (soft <= 0 && nmi <= 0)) {
		snprintf(f->value, sizeof(f->value), "%s", any < 0 ? "not built in" : "off");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	snprintf(f->value, sizeof(f->value), "on (soft lockup: %s, hard lockup/NMI: %s): a timer on every CPU",
		 soft > 0 ? "on" : "off", nmi > 0 ? "on" : "off");
	ls_setup_verdict(f, LS_VERDICT_COSTS,
			 "nowatchdog on the kernel command line, or sysctl kernel.watchdog=0");
}

void ls_setup_thp(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char v[128];

	if (ls_setup_read(c, v, sizeof(v), "/sys/kernel/mm/transparent_hugepage/enabled")) {
		snprintf(f->value, sizeof(f->value), "not built in");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	marked_word(v, '[', ']', true, f->value, sizeof(f->value));
	if (strcmp(f->value, "always")) {
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	ls_setup_append(f->value, ": khugepaged compacts memory, faults may take longer");
	ls_setup_verdict(f, LS_VERDICT_COSTS,
			 "transparent_hugepage=madvise (or never) on the kernel command line, or echo madvise > /sys/kernel/mm/transparent_hugepage/enabled");
}

void ls_setup_timer_migration(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	int on = sysctl_flag(c, "timer_migration");

	snprintf(f->value, sizeof(f->value), "%s", on < 0 ? "not built in" : on ? "on" : "off");
	ls_setup_verdict(f, on > 0 ? LS_VERDICT_COSTS : LS_VERDICT_OK, "sysctl kernel.timer_migration=0");
}

void ls_setup_rt_runtime(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char runtime[32], period[32];

	if (ls_setup_read(c, runtime, sizeof(runtime), "/proc/sys/kernel/sched_rt_runtime_us")) {
		snprintf(f->value, sizeof(f->value), "not known");
		return;
	}
	if (!strcmp(runtime, "-1")) {
		snprintf(f->value, sizeof(f->value), "off (sched_rt_runtime_us -1)");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	ls_setup_read(c, period, sizeof(period), "/proc/sys/kernel/sched_rt_period_us");
	snprintf(f->value, sizeof(f->value), "RT tasks stopped after %s us of each %s us",
		 runtime, period[0] ? period : "?");
	f->apply = LS_APPLY_RT_RUNTIME;
	ls_setup_verdict(f, LS_VERDICT_COSTS,
			 "sysctl kernel.sched_rt_runtime_us=-1 (--apply-setup does it for the run)");
}
