// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the event sources, one row each: what marks the events
 * (the driver's hrtimer, an edge on a GPIO line), how a run of each is
 * named, whether its events come at the period, what it needs of the
 * driver, and its own steps. Its result block is its row in
 * output/parts.c. Adding a source on the user side is a row in each plus
 * the source's own option and output code.
 */
#include "core/core.h"

/* The contexts by their own names, as the timer's runs print them. */
static const char *const context_names[LS_NR_CTX] = {
	[LATSCOPE_CTX_IRQ] = "irq",
	[LATSCOPE_CTX_KERNEL] = "kernel",
	[LATSCOPE_CTX_USER] = "user",
	[LS_CTX_GPIOD] = "gpiod",
};

/*
 * A GPIO event is answered by a kernel or a user thread of the driver,
 * or by an application's thread on the GPIO character device (latmus's
 * name for that test); a monitor times another board's answer in hard
 * irq.
 */
static const char *const gpio_context_names[LS_NR_CTX] = {
	[LATSCOPE_CTX_IRQ] = "gpio-monitor",
	[LATSCOPE_CTX_KERNEL] = "gpio-kernel",
	[LATSCOPE_CTX_USER] = "gpio-user",
	[LS_CTX_GPIOD] = "inband-gpio",
};

/* The noise source's busy task, a kernel or a user thread. */
static const char *const noise_context_names[LS_NR_CTX] = {
	[LATSCOPE_CTX_KERNEL] = "noise-kernel",
	[LATSCOPE_CTX_USER] = "noise-user",
};

/* One row per source; its hooks grouped: options, the run (its output: output/parts.c). */
static const struct ls_source sources[] = {
	[LATSCOPE_SRC_TIMER] = {
		.id = LATSCOPE_SRC_TIMER, .name = "timer", .contexts = context_names,
	},
	[LATSCOPE_SRC_GPIO] = {
		.id = LATSCOPE_SRC_GPIO, .name = "GPIO", .contexts = gpio_context_names,
		.setup_size = sizeof(struct latscope_setup), .paced = ls_gpio_paced,
		.check = ls_gpio_check, .prepare = ls_gpio_prepare,
		.setup = ls_gpio_setup, .setup_error = ls_gpio_setup_error,
	},
	[LATSCOPE_SRC_NOISE] = {
		.id = LATSCOPE_SRC_NOISE, .name = "noise", .contexts = noise_context_names,
		.setup_size = LATSCOPE_SETUP_SIZE_VER2, .check = ls_noise_check,
		.setup = ls_noise_setup, .setup_error = ls_noise_setup_error,
		.record_size = sizeof(struct latscope_noise_bulk), .spin = ls_noise_spin_fd,
	},
};

/* The row of source @id (LATSCOPE_SRC_*), NULL if there is none. */
const struct ls_source *ls_source(unsigned int id)
{
	return id < ARRAY_SIZE(sources) ? &sources[id] : NULL;
}

const struct ls_source *ls_source_of(const struct ls_params *p)
{
	return ls_source(p->source);
}

const char *ls_context_name(unsigned int context)
{
	return context < LS_NR_CTX ? context_names[context] : "?";
}

/* The context as RTT, the plot file and the JSON name it: "gpio-kernel". */
const char *ls_run_context(const struct ls_params *p)
{
	const char *const *names = ls_source_of(p)->contexts;

	return p->context < LS_NR_CTX && names[p->context] ? names[p->context] : "?";
}

/* The period the events come at, in us; 0: at a remote device's pace. */
unsigned int ls_period_us(const struct ls_params *p)
{
	const struct ls_source *src = ls_source_of(p);

	return !src->paced || src->paced(p) ? p->period_us : 0;
}

/*
 * Whole seconds from START to the first measured event, to the nearest:
 * the first event comes one period after START and the driver's warm-up
 * is rounded up to whole periods (driver/timeline.c). -T counts from
 * there: 1 for the 1 ms timer, 2 for --noise's 1 s period.
 */
unsigned int ls_lead_s(const struct ls_params *p)
{
	__u64 period = (__u64)ls_period_us(p) * 1000, warm = LATSCOPE_DEFAULT_WARMUP_NS;
	__u64 lead = period ? period + (warm + period - 1) / period * period : warm;

	return (unsigned int)((lead + 500000000ULL) / 1000000000ULL);
}

/*
 * The responder thread's SCHED_FIFO priority; 0: no thread (irq
 * context), or, with --noise, a SCHED_OTHER busy task.
 */
int ls_responder_priority(const struct ls_params *p)
{
	return p->context == LATSCOPE_CTX_IRQ ? 0 : p->priority;
}
