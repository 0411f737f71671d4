// SPDX-License-Identifier: GPL-2.0
/*
 * latscope worst-sample recorder, the walk: one sample's record, from
 * what its CPU's flight record (why_ring.c) says ran between the sample's
 * ideal time and its answer. A record is built when its sample enters the
 * K worst (why_worst.c), with no allocation: the session set aside a copy
 * of the flight record and the tally at SETUP. Pointers are symbolised
 * only when the records are handed out.
 */
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "why.h"

/* The names /proc/softirqs gives the vectors. */
static const char *const latscope_softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

/* Nesting on a CPU: a task, then softirqs, irqs and hrtimer callbacks. */
#define LATSCOPE_WHY_DEPTH	8

/*
 * Not a tally index: what runs is latscope's own (the responder, the
 * timeline's callback), its time the split's, neither an item nor lost.
 * Any other negative index is time not known or with no room to count.
 */
#define LATSCOPE_WHY_OWN	(-2)

struct latscope_why_level {
	u16 kind;		/* LATSCOPE_FL_*_ENTRY */
	s32 id;
	u64 ptr;
	int item;		/* tally index, or < 0: not counted */
};

/* Where latscope_why_build() is in its walk through the window. */
struct latscope_why_walk {
	const struct latscope_why_window *w;
	struct latscope_why_tally *tally;
	struct latscope_why_level level[LATSCOPE_WHY_DEPTH];
	u32 depth;
	int base;		/* the running task's (or idle's) item, or < 0 */
	s32 base_pid;		/* -1 unknown */
	s32 idle_state;		/* -1 unknown */
	u64 last;		/* time accounted up to */
	u64 wake;		/* the responder's wake-up, 0 before */
	u64 orphan_ns;		/* time of a task not known yet, and its */
	u64 orphan_blocking_ns;	/* blocking part, until the EVENT says */
	bool adopted_idle;	/* and it said: idle since before the window */
	bool blocking;		/* the answer waits for what runs */
};

/* The item of (@kind, @id, @ptr) in the tally, new if need be, or -1. */
static int latscope_why_item(struct latscope_why_tally *t, u32 kind, s32 id,
			     u64 ptr)
{
	struct latscope_why_count *c;
	u32 i;

	for (i = 0; i < t->nr; i++)
		if (t->c[i].item.kind == kind && t->c[i].item.id == id &&
		    t->c[i].fn == ptr)
			return i;
	if (t->nr == LATSCOPE_WHY_TALLY)
		return -1;
	c = &t->c[t->nr];
	memset(c, 0, sizeof(*c));
	c->item.kind = kind;
	c->item.id = id;
	c->fn = ptr;
	return t->nr++;
}

static int latscope_why_task_item(struct latscope_why_walk *wk,
				  const struct latscope_flight_task *task,
				  s32 idle_state)
{
	struct latscope_why_item *it;
	int i;

	/* Before the responder's: the irq context's responder is 0. */
	if (!task->pid)
		return latscope_why_item(wk->tally, LATSCOPE_WHY_IDLE,
					 idle_state, 0);
	if (task->pid == wk->w->responder)
		return LATSCOPE_WHY_OWN;	/* its time is the split's */
	i = latscope_why_item(wk->tally, LATSCOPE_WHY_TASK, task->pid, 0);
	if (i < 0)
		return i;
	it = &wk->tally->c[i].item;
	it->policy = task->policy;
	it->prio = task->prio;
	memcpy(it->name, task->comm, sizeof(task->comm));
	return i;
}

/* The item time now goes to: the innermost level, else the task. */
static int latscope_why_top(const struct latscope_why_walk *wk)
{
	return wk->depth ? wk->level[wk->depth - 1].item : wk->base;
}

/* Accounts the time from the last entry to @t, clipped to the window. */
static void latscope_why_advance(struct latscope_why_walk *wk, u64 t)
{
	u64 to = clamp(t, wk->w->ideal, wk->w->end), d;
	int top = latscope_why_top(wk);

	if (to <= wk->last)
		return;
	d = to - wk->last;
	wk->last = to;
	if (top == LATSCOPE_WHY_OWN)
		return;
	/* No task switch seen yet: the EVENT may tell which task it was. */
	if (top < 0 && !wk->depth && wk->base_pid == -1) {
		wk->orphan_ns += d;
		if (wk->blocking)
			wk->orphan_blocking_ns += d;
		return;
	}
	if (top < 0) {
		wk->tally->lost_ns += d;
		return;
	}
	wk->tally->c[top].item.duration_ns += d;
	if (wk->blocking)
		wk->tally->c[top].item.blocking_ns += d;
}

/* Marks what runs now as having begun before the window, or gone past it. */
static void latscope_why_mark(struct latscope_why_walk *wk, u32 flag)
{
	u32 i;

	if (wk->base >= 0)
		wk->tally->c[wk->base].item.flags |= flag;
	for (i = 0; i < wk->depth; i++)
		if (wk->level[i].item >= 0)
			wk->tally->c[wk->level[i].item].item.flags |= flag;
}

static void latscope_why_push(struct latscope_why_walk *wk,
			      const struct latscope_flight_entry *e, int item,
			      bool inside)
{
	struct latscope_why_level *l;

	if (wk->depth == LATSCOPE_WHY_DEPTH)
		return;
	l = &wk->level[wk->depth++];
	l->kind = e->kind;
	l->id = e->id;
	l->ptr = e->ptr;
	l->item = item;
	if (item >= 0 && inside)
		wk->tally->c[item].item.count++;
}

/* Ends the innermost level that @e closes; a stray exit is ignored. */
static void latscope_why_pop(struct latscope_why_walk *wk,
			     const struct latscope_flight_entry *e, u16 entry)
{
	u32 i = wk->depth;

	while (i--) {
		const struct latscope_why_level *l = &wk->level[i];

		if (l->kind == entry && l->id == e->id && l->ptr == e->ptr) {
			wk->depth = i;
			return;
		}
	}
}

static void latscope_why_irq(struct latscope_why_walk *wk,
			     const struct latscope_flight_entry *e, bool inside)
{
	int i = latscope_why_item(wk->tally, LATSCOPE_WHY_IRQ, e->id, 0);

	if (i >= 0)
		strscpy(wk->tally->c[i].item.name, e->name,
			sizeof(wk->tally->c[i].item.name));
	latscope_why_push(wk, e, i, inside);
}

static void latscope_why_softirq(struct latscope_why_walk *wk,
				 const struct latscope_flight_entry *e,
				 bool inside)
{
	int i = latscope_why_item(wk->tally, LATSCOPE_WHY_SOFTIRQ, e->id, 0);

	if (i >= 0) {
		if ((u32)e->id < ARRAY_SIZE(latscope_softirq_names))
			strscpy(wk->tally->c[i].item.name,
				latscope_softirq_names[e->id],
				sizeof(wk->tally->c[i].item.name));
	}
	latscope_why_push(wk, e, i, inside);
}

static void latscope_why_hrtimer(struct latscope_why_walk *wk,
				 const struct latscope_flight_entry *e,
				 bool inside)
{
	int i = LATSCOPE_WHY_OWN;

	/* The measurement's own timer is not what made it late. */
	if (e->ptr != wk->w->self_fn)
		i = latscope_why_item(wk->tally, LATSCOPE_WHY_HRTIMER, 0, e->ptr);
	latscope_why_push(wk, e, i, inside);
}

static void latscope_why_nmi(struct latscope_why_walk *wk,
			     const struct latscope_flight_entry *e)
{
	int top = latscope_why_top(wk);
	u64 d = e->arg, b;
	int i;

	/* Stamped at its end: its time was accounted to what it interrupted. */
	if (e->ts < wk->w->ideal || e->ts > wk->w->end)
		return;
	i = latscope_why_item(wk->tally, LATSCOPE_WHY_NMI, 0, e->ptr);
	if (i < 0)
		return;
	wk->tally->c[i].item.count++;
	b = wk->blocking ? d : 0;
	if (top >= 0) {
		struct latscope_why_item *it = &wk->tally->c[top].item;

		d = min(d, it->duration_ns);
		it->duration_ns -= d;
		/* What the answer waited for in it, it waited for in the NMI. */
		b = min3(b, d, it->blocking_ns);
		it->blocking_ns -= b;
	}
	wk->tally->c[i].item.duration_ns += d;
	wk->tally->c[i].item.blocking_ns += b;
}

static void latscope_why_switch(struct latscope_why_walk *wk,
				const struct latscope_flight_entry *e,
				bool inside, struct latscope_worst *out)
{
	const struct latscope_flight_task *next = &e->task[1];

	/* A task switch leaves no irq or softirq level open. */
	wk->depth = 0;
	wk->base_pid = next->pid;
	wk->base = latscope_why_task_item(wk, next, wk->idle_state);
	if (wk->base >= 0 && inside)
		wk->tally->c[wk->base].item.count++;
	/* The responder runs: the answer waits for nothing else now. */
	if (wk->wake && next->pid == wk->w->responder &&
	    !(out->why.flags & LATSCOPE_WHY_HAS_RUN)) {
		out->why.flags |= LATSCOPE_WHY_HAS_RUN;
		out->why.sched_ns = e->ts > wk->wake ? e->ts - wk->wake : 0;
		out->why.run_ns = wk->w->end > e->ts ? wk->w->end - e->ts : 0;
		wk->blocking = false;
	}
}

/*
 * With no task switch in the record since before the ideal time, the task
 * the event's irq interrupted is the one that ran from then on: the time
 * set aside for it is its.
 */
static void latscope_why_adopt(struct latscope_why_walk *wk,
			       const struct latscope_flight_task *task)
{
	struct latscope_why_item *it;

	wk->base_pid = task->pid;
	wk->base = latscope_why_task_item(wk, task, wk->idle_state);
	wk->adopted_idle = !task->pid;
	if (wk->base < 0) {
		if (wk->base != LATSCOPE_WHY_OWN)
			wk->tally->lost_ns += wk->orphan_ns;
	} else {
		it = &wk->tally->c[wk->base].item;
		it->duration_ns += wk->orphan_ns;
		it->blocking_ns += wk->orphan_blocking_ns;
		it->flags |= LATSCOPE_WHY_ITEM_BEFORE;
	}
	wk->orphan_ns = 0;
	wk->orphan_blocking_ns = 0;
}

/* latscope's EVENT of this sample: the split's first parts, the victim. */
static void latscope_why_event(struct latscope_why_walk *wk,
			       const struct latscope_flight_entry *e,
			       struct latscope_worst *out)
{
	struct latscope_why *why = &out->why;
	const struct latscope_why_window *w = wk->w;

	if (e->id != w->session || e->arg != w->ideal ||
	    (why->flags & LATSCOPE_WHY_HAS_IRQ))
		return;
	why->flags |= LATSCOPE_WHY_HAS_IRQ;
	why->irq_ns = e->arg2 - w->ideal;
	if (e->flags & LATSCOPE_FL_EV_HARDIRQ) {
		why->flags &= ~LATSCOPE_WHY_NO_WHERE;
		why->pid = e->task[0].pid;
		why->policy = e->task[0].policy;
		why->prio = e->task[0].prio;
		memcpy(why->comm, e->task[0].comm, sizeof(e->task[0].comm));
		if (e->flags & LATSCOPE_FL_EV_USER)
			why->flags |= LATSCOPE_WHY_USER_MODE;
		out->where = e->ptr;
	}
	/* Up to the irq stamp the answer waited; then latscope's own. */
	latscope_why_advance(wk, e->arg2);
	if ((e->flags & LATSCOPE_FL_EV_HARDIRQ) && wk->base_pid == -1)
		latscope_why_adopt(wk, &e->task[0]);
	wk->blocking = false;
	if (!w->responder)
		return;
	latscope_why_advance(wk, e->ts);
	why->flags |= LATSCOPE_WHY_HAS_WAKE;
	why->wake_ns = e->ts - e->arg2;
	wk->wake = e->ts;
	wk->blocking = true;
	/* Woken while it ran: it was busy, not sleeping. */
	if (wk->base_pid == w->responder) {
		why->flags |= LATSCOPE_WHY_HAS_RUN | LATSCOPE_WHY_BUSY;
		why->sched_ns = 0;
		why->run_ns = w->end - e->ts;
		wk->blocking = false;
	}
}

/* The ideal time: what runs began before it; an idle CPU is said. */
static void latscope_why_start(struct latscope_why_walk *wk, struct latscope_why *why)
{
	latscope_why_mark(wk, LATSCOPE_WHY_ITEM_BEFORE);
	if (wk->base_pid == 0) {
		why->flags |= LATSCOPE_WHY_IDLE;
		why->idle_state = wk->idle_state;
	}
}

static int latscope_why_cmp(const void *a, const void *b)
{
	const struct latscope_why_count *x = a, *y = b;

	if (x->item.duration_ns != y->item.duration_ns)
		return x->item.duration_ns < y->item.duration_ns ? 1 : -1;
	return 0;
}

/* Longest first into @out; the rest summed up. */
static void latscope_why_items(struct latscope_why_tally *t,
			       struct latscope_worst *out)
{
	u32 i;

	sort(t->c, t->nr, sizeof(t->c[0]), latscope_why_cmp, NULL);
	for (i = 0; i < t->nr; i++) {
		const struct latscope_why_count *c = &t->c[i];
		u32 n = out->why.nr_items;

		if (!c->item.duration_ns)
			continue;
		if (n == LATSCOPE_WHY_ITEMS) {
			out->why.more_items++;
			out->why.more_ns += c->item.duration_ns;
			continue;
		}
		out->why.item[n] = c->item;
		out->fn[n] = c->fn;
		out->why.nr_items++;
	}
	out->why.unknown_ns = t->lost_ns;
}

/**
 * latscope_why_merge_event() - an EVENT from another CPU, in its place
 * @ev: a flight record's entries, oldest first, with room for one more
 * @n: how many
 * @e: the EVENT; its @ts the responder's wake-up
 *
 * Goes after every entry stamped no later than it, as the measured CPU's
 * own EVENT would have been written.
 *
 * Context: any; no allocation.
 * Return: @n + 1.
 */
u32 latscope_why_merge_event(struct latscope_flight_entry *ev, u32 n,
			     const struct latscope_flight_entry *e)
{
	u32 i = n;

	while (i && ev[i - 1].ts > e->ts)
		i--;
	memmove(&ev[i + 1], &ev[i], (n - i) * sizeof(*ev));
	ev[i] = *e;
	return n + 1;
}

/**
 * latscope_why_build() - explain one sample from its CPU's flight record
 * @ev: the record's entries, oldest first (latscope_flight_copy())
 * @n: how many
 * @w: the sample's window
 * @t: a tally to work in
 * @out: the record, filled in whole
 *
 * Walks the entries, accounting each stretch of time inside the window
 * to what ran then, the innermost of task, softirq, irq and hrtimer
 * callback, NMIs told apart by their own duration. The parts of the
 * latency come from latscope's EVENT entry of the sample and the
 * responder's switch-in. What the record cannot say is flagged.
 *
 * Context: any but NMI; no allocation.
 */
void latscope_why_build(const struct latscope_flight_entry *ev, u32 n,
			const struct latscope_why_window *w,
			struct latscope_why_tally *t,
			struct latscope_worst *out)
{
	struct latscope_why_walk wk = {
		.w = w, .tally = t, .base = -1, .base_pid = -1,
		.idle_state = -1, .last = w->ideal, .blocking = true,
	};
	struct latscope_why *why = &out->why;
	bool started = false;
	u32 i;

	memset(out, 0, sizeof(*out));
	memset(t, 0, sizeof(*t));
	why->latency_ns = w->end - w->ideal;
	why->ideal_ns = w->ideal;
	why->idle_state = -1;
	why->flags = LATSCOPE_WHY_NO_WHERE;
	if (w->cut)
		why->flags |= LATSCOPE_WHY_CUT;

	for (i = 0; i < n; i++) {
		const struct latscope_flight_entry *e = &ev[i];
		bool inside = e->ts >= w->ideal;

		if (e->ts > w->end && e->kind != LATSCOPE_FL_EVENT)
			break;
		if (inside && !started) {
			/* What runs at the ideal time began before it. */
			started = true;
			latscope_why_start(&wk, why);
		}
		if (e->kind != LATSCOPE_FL_EVENT)
			latscope_why_advance(&wk, e->ts);
		switch (e->kind) {
		case LATSCOPE_FL_IRQ_ENTRY:
			latscope_why_irq(&wk, e, inside);
			break;
		case LATSCOPE_FL_SOFTIRQ_ENTRY:
			latscope_why_softirq(&wk, e, inside);
			break;
		case LATSCOPE_FL_HRTIMER_ENTRY:
			latscope_why_hrtimer(&wk, e, inside);
			break;
		case LATSCOPE_FL_IRQ_EXIT:
			latscope_why_pop(&wk, e, LATSCOPE_FL_IRQ_ENTRY);
			break;
		case LATSCOPE_FL_SOFTIRQ_EXIT:
			latscope_why_pop(&wk, e, LATSCOPE_FL_SOFTIRQ_ENTRY);
			break;
		case LATSCOPE_FL_HRTIMER_EXIT:
			latscope_why_pop(&wk, e, LATSCOPE_FL_HRTIMER_ENTRY);
			break;
		case LATSCOPE_FL_NMI:
			latscope_why_nmi(&wk, e);
			break;
		case LATSCOPE_FL_SWITCH:
			latscope_why_switch(&wk, e, inside, out);
			break;
		case LATSCOPE_FL_IDLE_ENTER:
			wk.idle_state = e->id;
			if (wk.base_pid == 0)
				wk.base = latscope_why_item(t, LATSCOPE_WHY_IDLE,
							    e->id, 0);
			break;
		case LATSCOPE_FL_IDLE_EXIT:
			wk.idle_state = -1;
			break;
		case LATSCOPE_FL_EVENT:
			latscope_why_event(&wk, e, out);
			break;
		}
	}
	if (!started)
		latscope_why_start(&wk, why);
	latscope_why_advance(&wk, w->end);
	latscope_why_mark(&wk, LATSCOPE_WHY_ITEM_AFTER);
	t->lost_ns += wk.orphan_ns;
	if (wk.adopted_idle)
		why->flags |= LATSCOPE_WHY_IDLE;
	/* A cut window is covered from its oldest entry on, if any. */
	why->window_ns = why->latency_ns;
	if (w->cut && !n)
		why->window_ns = 0;
	else if (w->cut && ev[0].ts > w->ideal)
		why->window_ns = ev[0].ts < w->end ? w->end - ev[0].ts : 0;
	if (!w->responder && (why->flags & LATSCOPE_WHY_HAS_IRQ))
		why->irq_ns = why->latency_ns;
	/*
	 * Without the sample's EVENT (its irq ran on another CPU, or the
	 * record lost it) when the answer waited is not known: no time is
	 * told as waited for.
	 */
	if (!(why->flags & LATSCOPE_WHY_HAS_IRQ))
		for (i = 0; i < t->nr; i++)
			t->c[i].item.blocking_ns = 0;
	latscope_why_items(t, out);
}
