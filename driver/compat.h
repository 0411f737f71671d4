/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope compat: the few kernel API differences between the kernels
 * latscope builds against, each behind one small helper.
 */
#ifndef LATSCOPE_COMPAT_H
#define LATSCOPE_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <linux/string.h>

/*
 * A module sets a task's scheduling with sched_setattr_nocheck() where the
 * kernel exports it (6.1 does; 5.10 does not: Kbuild looks in
 * Module.symvers, LATSCOPE_HAVE_SCHED_SETATTR). Without it only
 * sched_set_fifo()'s SCHED_FIFO 50 and sched_set_normal()'s nice 0 can be
 * had: any other is -EOPNOTSUPP
 * (a kthread at -P 50 only; an IRQ thread left as it is).
 */
static inline int latscope_sched_setattr(struct task_struct *p, const struct sched_attr *attr)
{
#ifdef LATSCOPE_HAVE_SCHED_SETATTR
	return sched_setattr_nocheck(p, attr);
#else
	if (attr->sched_policy == SCHED_NORMAL && !attr->sched_nice) {
		sched_set_normal(p, 0);
		return 0;
	}
	if (attr->sched_policy != SCHED_FIFO || attr->sched_priority != MAX_RT_PRIO / 2)
		return -EOPNOTSUPP;
	sched_set_fifo(p);
	return 0;
#endif
}

/* A task's state: 5.14 renamed @state (a long) to @__state (Kbuild: LATSCOPE_HAVE_TASK___STATE). */
#ifdef LATSCOPE_HAVE_TASK___STATE
#define latscope_task_state(p)	READ_ONCE((p)->__state)
#else
#define latscope_task_state(p)	((unsigned int)READ_ONCE((p)->state))
#endif

/* in_hardirq() is 5.11's name for in_irq(). */
#ifndef in_hardirq
#define in_hardirq()	in_irq()
#endif

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
	/* 7.0 dropped __trace_puts()'s size (Kbuild: LATSCOPE_HAVE_TRACE_PUTS_NO_SIZE). */
#ifdef LATSCOPE_HAVE_TRACE_PUTS_NO_SIZE
	__trace_puts(_THIS_IP_, msg);
#else
	__trace_puts(_THIS_IP_, msg, strlen(msg));
#endif
	tracing_off();
#endif
}

/*
 * platform_driver's remove hook returns void from 6.11 (.remove); from 6.3
 * to 6.10 the void one was .remove_new; before 6.3 .remove returned int
 * (Kbuild: LATSCOPE_HAVE_VOID_REMOVE, LATSCOPE_HAVE_REMOVE_NEW). A driver
 * names its hook .LATSCOPE_PLATFORM_REMOVE, and where
 * LATSCOPE_PLATFORM_INT_REMOVE is defined it gives an int one that
 * returns 0.
 */
#if defined(LATSCOPE_HAVE_VOID_REMOVE)
#define LATSCOPE_PLATFORM_REMOVE	remove
#elif defined(LATSCOPE_HAVE_REMOVE_NEW)
#define LATSCOPE_PLATFORM_REMOVE	remove_new
#else
#define LATSCOPE_PLATFORM_REMOVE	remove
#define LATSCOPE_PLATFORM_INT_REMOVE
#endif

#endif /* LATSCOPE_COMPAT_H */
