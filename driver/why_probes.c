// SPDX-License-Identifier: GPL-2.0
/*
 * latscope flight record, fed: the kernel tracepoints whose probes write
 * what ran on a measured CPU into its record (why_ring.c). The probes are
 * registered only while a session with a recorder is set up, by name
 * with for_each_kernel_tracepoint(): no kernel rebuild, and the user's
 * ftrace setup is never touched. A probe on a CPU that nothing measures
 * returns at once. A tracepoint this kernel lacks (nmi_handler is x86's)
 * is left out, and the result says what was seen.
 */
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>
#include <linux/tracepoint.h>

#include <asm/irq_regs.h>

#include "compat.h"
#include "why.h"

/* PWR_EVENT_EXIT of trace/events/power.h: cpu_idle's "left idle". */
#define LATSCOPE_IDLE_EXIT	((unsigned int)-1)

/* Each CPU's record, allocated when first measured, freed at unload. */
static DEFINE_PER_CPU(struct latscope_flight *, latscope_flight_ptr);
static DEFINE_MUTEX(latscope_flight_lock);
static unsigned int latscope_flight_users;	/* under the lock */
static u32 latscope_flight_seen;		/* under the lock */

/* The record of this CPU, if a running session measures it. */
static struct latscope_flight *latscope_flight_here(void)
{
	struct latscope_flight *fl = this_cpu_read(latscope_flight_ptr);

	if (!fl || !atomic_read(&fl->armed))
		return NULL;
	return fl;
}

/*
 * A new entry of @kind on this CPU's record, stamped now, if a run
 * records it and a held window leaves room: the caller fills the rest
 * and commits it with @n.
 */
static struct latscope_flight_entry *latscope_flight_begin(u16 kind, long *n)
{
	struct latscope_flight *fl = latscope_flight_here();
	struct latscope_flight_entry *e;

	if (!fl)
		return NULL;
	e = latscope_flight_reserve(fl, n, ktime_get_mono_fast_ns());
	if (e)
		e->kind = kind;
	return e;
}

/* A plain entry: @kind, @id and @ptr. */
static void latscope_flight_note(u16 kind, s32 id, u64 ptr)
{
	struct latscope_flight_entry *e;
	long n;

	e = latscope_flight_begin(kind, &n);
	if (!e)
		return;
	e->id = id;
	e->ptr = ptr;
	latscope_flight_commit(e, n);
}

/**
 * latscope_flight_event() - latscope's own entry: an event handed over
 * @session: the session's recorder id
 * @ideal: the event's ideal time
 * @arrival: its irq stamp
 *
 * Stamped now, as the responder is woken (or, in the irq context, as the
 * sample is taken). In hard irq it keeps the task and the code the irq
 * interrupted.
 *
 * Context: the source's event, on the CPU it ran on.
 */
void latscope_flight_event(u32 session, u64 ideal, u64 arrival)
{
	struct latscope_flight_entry *e;
	struct pt_regs *regs;
	long n;

	/* An irq thread may be preempted: the slot is this CPU's to fill. */
	preempt_disable();
	e = latscope_flight_begin(LATSCOPE_FL_EVENT, &n);
	if (!e) {
		preempt_enable();
		return;
	}
	e->id = session;
	e->arg = ideal;
	e->arg2 = arrival;
	regs = in_hardirq() ? get_irq_regs() : NULL;
	if (regs) {
		e->flags = LATSCOPE_FL_EV_HARDIRQ;
		if (user_mode(regs))
			e->flags |= LATSCOPE_FL_EV_USER;
		else
			e->ptr = instruction_pointer(regs);
		latscope_flight_task(&e->task[0], current);
	}
	latscope_flight_commit(e, n);
	preempt_enable();
}

#ifdef CONFIG_TRACEPOINTS
static void latscope_probe_irq_entry(void *data, int irq,
				     struct irqaction *action)
{
	struct latscope_flight_entry *e;
	long n;

	e = latscope_flight_begin(LATSCOPE_FL_IRQ_ENTRY, &n);
	if (!e)
		return;
	e->id = irq;
	strscpy(e->name, action->name ? action->name : "", sizeof(e->name));
	latscope_flight_commit(e, n);
}

static void latscope_probe_irq_exit(void *data, int irq,
				    struct irqaction *action, int ret)
{
	latscope_flight_note(LATSCOPE_FL_IRQ_EXIT, irq, 0);
}

static void latscope_probe_softirq_entry(void *data, unsigned int vec)
{
	latscope_flight_note(LATSCOPE_FL_SOFTIRQ_ENTRY, vec, 0);
}

static void latscope_probe_softirq_exit(void *data, unsigned int vec)
{
	latscope_flight_note(LATSCOPE_FL_SOFTIRQ_EXIT, vec, 0);
}

/*
 * sched_switch gives the state the previous task left in from 5.18 on
 * (Kbuild: LATSCOPE_HAVE_SWITCH_PREV_STATE); before, the probe reads it
 * from the task, as the tracepoint itself did (5.10's @state field).
 */
#ifdef LATSCOPE_HAVE_SWITCH_PREV_STATE
static void latscope_probe_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next,
				  unsigned int prev_state)
{
#else
static void latscope_probe_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next)
{
	unsigned int prev_state = latscope_task_state(prev);
#endif
	struct latscope_flight_entry *e;
	long n;

	e = latscope_flight_begin(LATSCOPE_FL_SWITCH, &n);
	if (!e)
		return;
	e->id = next->pid;
	e->arg = prev_state;
	latscope_flight_task(&e->task[0], prev);
	latscope_flight_task(&e->task[1], next);
	latscope_flight_commit(e, n);
}

static void latscope_probe_idle(void *data, unsigned int state,
				unsigned int cpu)
{
	if (state == LATSCOPE_IDLE_EXIT)
		latscope_flight_note(LATSCOPE_FL_IDLE_EXIT, -1, 0);
	else
		latscope_flight_note(LATSCOPE_FL_IDLE_ENTER, state, 0);
}

/* In NMI: the record's writers allow it, and the clock is NMI-safe. */
static void latscope_probe_nmi(void *data, void *handler, s64 delta_ns,
			       int handled)
{
	struct latscope_flight_entry *e;
	long n;

	e = latscope_flight_begin(LATSCOPE_FL_NMI, &n);
	if (!e)
		return;
	e->ptr = (u64)(unsigned long)handler;
	e->arg = delta_ns > 0 ? delta_ns : 0;
	latscope_flight_commit(e, n);
}

static void latscope_probe_hrtimer_entry(void *data, struct hrtimer *timer,
					 ktime_t *now)
{
	latscope_flight_note(LATSCOPE_FL_HRTIMER_ENTRY, 0,
			     (u64)(unsigned long)timer->function);
}

static void latscope_probe_hrtimer_exit(void *data, struct hrtimer *timer)
{
	latscope_flight_note(LATSCOPE_FL_HRTIMER_EXIT, 0,
			     (u64)(unsigned long)timer->function);
}

/* The tracepoints hooked, by name; a group counts if all of it was found. */
static struct latscope_flight_hook {
	const char *name;
	void *probe;
	u32 seen;
	struct tracepoint *tp;
	bool registered;
} latscope_flight_hooks[] = {
	{ "irq_handler_entry", latscope_probe_irq_entry, LATSCOPE_WHY_SEEN_IRQ },
	{ "irq_handler_exit", latscope_probe_irq_exit, LATSCOPE_WHY_SEEN_IRQ },
	{ "softirq_entry", latscope_probe_softirq_entry, LATSCOPE_WHY_SEEN_SOFTIRQ },
	{ "softirq_exit", latscope_probe_softirq_exit, LATSCOPE_WHY_SEEN_SOFTIRQ },
	{ "sched_switch", latscope_probe_switch, LATSCOPE_WHY_SEEN_SWITCH },
	{ "cpu_idle", latscope_probe_idle, LATSCOPE_WHY_SEEN_IDLE },
	{ "nmi_handler", latscope_probe_nmi, LATSCOPE_WHY_SEEN_NMI },
	{ "hrtimer_expire_entry", latscope_probe_hrtimer_entry, LATSCOPE_WHY_SEEN_HRTIMER },
	{ "hrtimer_expire_exit", latscope_probe_hrtimer_exit, LATSCOPE_WHY_SEEN_HRTIMER },
};

static void latscope_flight_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(latscope_flight_hooks); i++)
		if (!strcmp(tp->name, latscope_flight_hooks[i].name))
			latscope_flight_hooks[i].tp = tp;
}

static void latscope_flight_unhook(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(latscope_flight_hooks); i++) {
		struct latscope_flight_hook *h = &latscope_flight_hooks[i];

		if (h->registered)
			tracepoint_probe_unregister(h->tp, h->probe, NULL);
		h->registered = false;
	}
	/* No probe runs any more once this returns. */
	tracepoint_synchronize_unregister();
}

/* Hooks what this kernel has; returns the LATSCOPE_WHY_SEEN_* it got. */
static u32 latscope_flight_hook(void)
{
	u32 seen = 0, missing = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(latscope_flight_hooks); i++)
		latscope_flight_hooks[i].tp = NULL;
	for_each_kernel_tracepoint(latscope_flight_find, NULL);
	for (i = 0; i < ARRAY_SIZE(latscope_flight_hooks); i++) {
		struct latscope_flight_hook *h = &latscope_flight_hooks[i];

		if (h->tp && !tracepoint_probe_register(h->tp, h->probe, NULL)) {
			h->registered = true;
			seen |= h->seen;
		} else {
			missing |= h->seen;
		}
	}
	return seen & ~missing;
}
#else
static u32 latscope_flight_hook(void)
{
	return 0;
}

static void latscope_flight_unhook(void)
{
}
#endif /* CONFIG_TRACEPOINTS */

/**
 * latscope_flight_get() - a flight record for @cpu, and the probes on
 * @cpu: the CPU a session with a recorder measures
 * @seen: set to the LATSCOPE_WHY_SEEN_* bits of what the probes see
 *
 * The first user hooks the tracepoints; the CPU's record stays until
 * the module unloads. Pairs with latscope_flight_put().
 *
 * Context: process, may sleep; not under cpus_read_lock() (hooking a
 * tracepoint takes it).
 * Return: 0, or -ENOMEM.
 */
int latscope_flight_get(unsigned int cpu, u32 *seen)
{
	struct latscope_flight *fl;

	mutex_lock(&latscope_flight_lock);
	if (!per_cpu(latscope_flight_ptr, cpu)) {
		fl = latscope_flight_alloc(cpu_to_node(cpu));
		if (!fl) {
			mutex_unlock(&latscope_flight_lock);
			return -ENOMEM;
		}
		/* Its probe reads it on that CPU: filled before seen. */
		smp_store_release(per_cpu_ptr(&latscope_flight_ptr, cpu), fl);
	}
	if (!latscope_flight_users++)
		latscope_flight_seen = latscope_flight_hook();
	*seen = latscope_flight_seen;
	mutex_unlock(&latscope_flight_lock);
	return 0;
}

/**
 * latscope_flight_put() - undo a latscope_flight_get()
 *
 * The last user unhooks the tracepoints and waits until no probe runs.
 *
 * Context: process, may sleep.
 */
void latscope_flight_put(void)
{
	mutex_lock(&latscope_flight_lock);
	if (!--latscope_flight_users)
		latscope_flight_unhook();
	mutex_unlock(&latscope_flight_lock);
}

/**
 * latscope_flight_of() - @cpu's record
 * @cpu: a CPU latscope_flight_get() was called for
 *
 * Return: the record; it lives until the module unloads.
 */
struct latscope_flight *latscope_flight_of(unsigned int cpu)
{
	/* Pairs with the release in latscope_flight_get(): filled in. */
	return smp_load_acquire(per_cpu_ptr(&latscope_flight_ptr, cpu));
}

/**
 * latscope_flights_exit() - free every CPU's record
 *
 * Context: module exit: no session, so no probe, is left.
 */
void latscope_flights_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(latscope_flight_ptr, cpu));
		per_cpu(latscope_flight_ptr, cpu) = NULL;
	}
}
