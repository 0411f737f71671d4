/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope compat: the few kernel API differences between the kernels
 * latscope builds against, each behind one small helper.
 */
#ifndef LATSCOPE_COMPAT_H
#define LATSCOPE_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/string.h>

/*
 * hrtimer_setup() replaced hrtimer_init() + .function in 6.13 (and 6.15
 * dropped hrtimer_init()). Kbuild defines LATSCOPE_HAVE_HRTIMER_SETUP when
 * the kernel's hrtimer.h has it.
 */
static inline void latscope_hrtimer_setup(struct hrtimer *timer,
					  enum hrtimer_restart (*fn)(struct hrtimer *),
					  clockid_t clock, enum hrtimer_mode mode)
{
#ifdef LATSCOPE_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * Writes @msg into the ftrace buffer and stops tracing, so the trace ends
 * at the sample that crossed the threshold. Without CONFIG_TRACING there
 * is no trace to stop.
 */
static inline void latscope_trace_stop(const char *msg)
{
#ifdef CONFIG_TRACING
	__trace_puts(_THIS_IP_, msg, strlen(msg));
	tracing_off();
#endif
}

/*
 * platform_driver.remove returns void from 6.11; before, the void one was
 * .remove_new. Kbuild defines LATSCOPE_HAVE_VOID_REMOVE for the former.
 */
#ifdef LATSCOPE_HAVE_VOID_REMOVE
#define LATSCOPE_PLATFORM_REMOVE	remove
#else
#define LATSCOPE_PLATFORM_REMOVE	remove_new
#endif

#endif /* LATSCOPE_COMPAT_H */
