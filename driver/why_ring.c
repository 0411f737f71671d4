// SPDX-License-Identifier: GPL-2.0
/*
 * latscope flight record: one CPU's bounded ring of what ran there, the
 * worst-sample recorder's memory (why.h). Entries are written on their
 * CPU from any context, an NMI included, without a lock: a writer
 * reserves its slot with a CPU-local increment, fills it, then publishes
 * its sequence number. A reader on any CPU copies the slots and keeps
 * those whose number did not change under it.
 */
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/rt.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "why.h"

/**
 * latscope_flight_alloc() - an empty flight record
 * @node: the NUMA node of the CPU it is for
 *
 * Context: process, may sleep.
 * Return: the record, or NULL if memory ran out. Freed with kvfree().
 */
struct latscope_flight *latscope_flight_alloc(int node)
{
	struct latscope_flight *fl = kvzalloc_node(sizeof(*fl), GFP_KERNEL, node);

	if (!fl)
		return NULL;
	local_set(&fl->head, 0);
	atomic_set(&fl->armed, 0);
	local_set(&fl->gap, 0);
	raw_spin_lock_init(&fl->hold_lock);
	INIT_LIST_HEAD(&fl->holders);
	return fl;
}

/*
 * Whether writing entry @n would lose a held window: the oldest entry
 * left then must still be older than the hold, so that the window keeps
 * what ran just before it.
 */
static bool latscope_flight_held(const struct latscope_flight *fl, long n)
{
	long keep = n - LATSCOPE_FLIGHT_SLOTS + 1;
	u64 hold = READ_ONCE(fl->hold);

	if (!hold || keep < 1)
		return false;
	return READ_ONCE(fl->slot[(keep - 1) & (LATSCOPE_FLIGHT_SLOTS - 1)].ts) >= hold;
}

/* The next slot, unless a hold keeps it: reads as being written. */
static struct latscope_flight_entry *latscope_flight_take(struct latscope_flight *fl,
							  long *n)
{
	struct latscope_flight_entry *e;
	long h;

	/* A writer that interrupts this one takes its own number first. */
	do {
		h = local_read(&fl->head);
		if (latscope_flight_held(fl, h + 1))
			return NULL;
	} while (local_cmpxchg(&fl->head, h, h + 1) != h);
	*n = h + 1;
	e = &fl->slot[h & (LATSCOPE_FLIGHT_SLOTS - 1)];
	WRITE_ONCE(e->seq, 0);
	/*
	 * Orders the 0 before the new contents: pairs with the first
	 * smp_rmb() of a reader, which then sees no old number on them.
	 */
	smp_wmb();
	e->ptr = 0;
	e->arg = 0;
	e->arg2 = 0;
	e->flags = 0;
	e->id = 0;
	return e;
}

/**
 * latscope_flight_reserve() - take the next slot of a CPU's record
 * @fl: the record of the CPU this runs on, preemption off
 * @n: set to the slot's number, for latscope_flight_commit()
 * @ts: the entry's time, stamped on it
 *
 * The slot reads as being written until latscope_flight_commit(). If a
 * held window leaves no room, the entry is dropped and counted; the next
 * writer with room writes a GAP entry before its own.
 *
 * Context: any, on @fl's CPU.
 * Return: the slot to fill, or NULL if dropped.
 */
struct latscope_flight_entry *latscope_flight_reserve(struct latscope_flight *fl,
						      long *n, u64 ts)
{
	struct latscope_flight_entry *e = latscope_flight_take(fl, n);
	long dropped;
	u64 first;

	if (e && local_read(&fl->gap)) {
		first = READ_ONCE(fl->gap_ts);
		/* One writer says it: an interrupting one may find 0 here. */
		dropped = local_xchg(&fl->gap, 0);
		if (dropped) {
			e->ts = first;
			e->kind = LATSCOPE_FL_GAP;
			e->arg = dropped;
			e->arg2 = ts;
			latscope_flight_commit(e, *n);
			e = latscope_flight_take(fl, n);
		}
	}
	if (!e) {
		if (local_inc_return(&fl->gap) == 1)
			WRITE_ONCE(fl->gap_ts, ts);
		return NULL;
	}
	e->ts = ts;
	return e;
}

/**
 * latscope_flight_commit() - publish a filled slot
 * @e: the slot latscope_flight_reserve() gave, filled in
 * @n: its number
 */
void latscope_flight_commit(struct latscope_flight_entry *e, long n)
{
	/* The contents before the number: pairs with a reader's second smp_rmb(). */
	smp_wmb();
	WRITE_ONCE(e->seq, n);
}

/* Slot @n of @fl, if it still holds entry @n: its time and kind. */
static bool latscope_flight_peek(const struct latscope_flight *fl, long n,
				 u64 *ts, u16 *kind)
{
	const struct latscope_flight_entry *e =
		&fl->slot[(n - 1) & (LATSCOPE_FLIGHT_SLOTS - 1)];

	if (READ_ONCE(e->seq) != n)
		return false;
	/* The number, then the contents, then the number again: see commit. */
	smp_rmb();
	*ts = READ_ONCE(e->ts);
	*kind = READ_ONCE(e->kind);
	smp_rmb();	/* pairs with reserve's: a rewrite shows in @seq */
	return READ_ONCE(e->seq) == n;
}

/*
 * Entries latscope_flight_kinds() reads past the first one older than its
 * window: an NMI, a hard irq and a softirq can each interrupt a writer
 * between its stamp and its slot.
 */
#define LATSCOPE_FLIGHT_REORDER	4

/**
 * latscope_flight_kinds() - what a CPU's record saw in a recent window
 * @fl: the record
 * @from: the window's start
 * @to: its end
 * @cut: set if the record does not cover the window whole (it was armed
 *	after @from, wrapped past it, dropped entries in it, or an entry
 *	was rewritten during the walk), else cleared
 *
 * Reads times and kinds only, newest first, down to the first entry
 * before @from: cheap for a window that just ended, which is what a
 * noise source asks about after each gap.
 *
 * Context: any; @fl's CPU may be writing meanwhile.
 * Return: BIT(kind) for each enum latscope_flight_kind an entry in
 * [@from, @to] has.
 */
u32 latscope_flight_kinds(struct latscope_flight *fl, u64 from, u64 to,
			  bool *cut)
{
	long head = local_read(&fl->head);
	long n, oldest = max(head - LATSCOPE_FLIGHT_SLOTS + 1, 1L);
	u64 ts, since = READ_ONCE(fl->since);
	int older = 0;
	u32 kinds = 0;
	u16 kind;

	*cut = true;
	for (n = head; n >= oldest; n--) {
		if (!latscope_flight_peek(fl, n, &ts, &kind))
			return kinds;
		/*
		 * Entries dropped from @ts on, until the GAP was written
		 * (@arg2): if that reached into the window, not all is known.
		 */
		if (kind == LATSCOPE_FL_GAP && ts <= to &&
		    READ_ONCE(fl->slot[(n - 1) & (LATSCOPE_FLIGHT_SLOTS - 1)].arg2) >= from)
			return kinds;
		/*
		 * Past the window's start, a few more: an entry is stamped
		 * before it takes its slot, so one an irq interrupted may sit
		 * below that irq's, which began later.
		 */
		if (ts < from) {
			*cut = since > from;
			if (++older > LATSCOPE_FLIGHT_REORDER)
				return kinds;
			continue;
		}
		if (ts <= to && kind < 32)
			kinds |= BIT(kind);
	}
	/* Nothing older left: whole only if it never wrapped since the arming. */
	if (!older)
		*cut = n >= 1 || !since || since > from;
	return kinds;
}

/**
 * latscope_flight_arm() - a running session records @fl's CPU from now on
 * @fl: the record
 *
 * What it held from before is another run's: stale.
 */
void latscope_flight_arm(struct latscope_flight *fl)
{
	if (atomic_inc_return(&fl->armed) == 1)
		WRITE_ONCE(fl->since, ktime_get_mono_fast_ns());
}

/**
 * latscope_flight_disarm() - undo latscope_flight_arm()
 * @fl: the record
 */
void latscope_flight_disarm(struct latscope_flight *fl)
{
	atomic_dec(&fl->armed);
}

/**
 * latscope_flight_copy() - what a CPU's record holds from a time on
 * @fl: the record
 * @from: the earliest time wanted: the copy goes back to the last
 *	SWITCH before it too, which says what was running then
 * @to: the window wanted ends then: a GAP after it does not cut it
 * @out: room for LATSCOPE_FLIGHT_SLOTS entries; filled oldest first,
 *	without GAP entries
 * @cut: set if the record did not reach back to @from whole (it wrapped,
 *	began after it, dropped entries after it, or an entry was
 *	rewritten during the copy), else cleared
 *
 * Finds where to begin by reading times and kinds only, newest first,
 * then copies from there on. Nothing before a GAP that began by @to is
 * copied: what ran across it is not known.
 *
 * Context: any; @fl's CPU may be writing meanwhile.
 * Return: the entries copied.
 */
u32 latscope_flight_copy(struct latscope_flight *fl, u64 from, u64 to,
			 struct latscope_flight_entry *out, bool *cut)
{
	long head = local_read(&fl->head);
	long n, first = head + 1, oldest = max(head - LATSCOPE_FLIGHT_SLOTS + 1, 1L);
	u64 ts, since = READ_ONCE(fl->since);
	bool reached = false, whole = false;
	u32 count = 0;
	u16 kind;

	for (n = head; n >= oldest; n--) {
		if (!latscope_flight_peek(fl, n, &ts, &kind))
			break;
		/* Entries dropped by @to: what ran before is not known. */
		if (kind == LATSCOPE_FL_GAP && ts <= to)
			break;
		/* Older than the arming: all since is here. */
		if (ts < since) {
			whole = true;
			break;
		}
		first = n;
		if (ts < from) {
			reached = true;
			if (kind == LATSCOPE_FL_SWITCH)
				break;
		}
	}
	/*
	 * Wrapped (or began) after the window's start: what ran at its start
	 * is not known. An older entry reached without its SWITCH is no cut:
	 * the task comes from the EVENT, or is told unknown.
	 */
	/* Never wrapped: all since the start is here too. */
	if (n < 1)
		whole = true;
	/* Armed before @from, and nothing lost since: what ran is known. */
	if (whole && since && since <= from)
		reached = true;
	*cut = !reached;
	for (n = first; n <= head; n++) {
		const struct latscope_flight_entry *e =
			&fl->slot[(n - 1) & (LATSCOPE_FLIGHT_SLOTS - 1)];

		if (READ_ONCE(e->seq) == n) {
			smp_rmb();	/* pairs with commit's: whole contents */
			memcpy(&out[count], e, sizeof(*out));
			smp_rmb();	/* pairs with reserve's: a rewrite shows */
			if (READ_ONCE(e->seq) == n) {
				/* A GAP after the window: nothing to say. */
				if (out[count].kind == LATSCOPE_FL_GAP && out[count].ts > to)
					continue;
				if (out[count].kind != LATSCOPE_FL_GAP) {
					count++;
					continue;
				}
			}
		}
		/* Rewritten since, or a GAP: only what is newer holds together. */
		count = 0;
		*cut = true;
	}
	return count;
}

/* The oldest window of @fl's holders, as the writers' bound. */
static void latscope_flight_hold_update(struct latscope_flight *fl)
{
	struct latscope_flight_holder *h;
	u64 hold = 0;

	lockdep_assert_held(&fl->hold_lock);
	list_for_each_entry(h, &fl->holders, node)
		if (h->from && (!hold || h->from < hold))
			hold = h->from;
	WRITE_ONCE(fl->hold, hold);
}

/**
 * latscope_flight_holder_add() - a recorder of a session on @fl's CPU
 * @fl: the record
 * @h: its holder, holding nothing yet
 *
 * Context: process.
 */
void latscope_flight_holder_add(struct latscope_flight *fl,
				struct latscope_flight_holder *h)
{
	unsigned long flags;

	h->from = 0;
	raw_spin_lock_irqsave(&fl->hold_lock, flags);
	list_add(&h->node, &fl->holders);
	raw_spin_unlock_irqrestore(&fl->hold_lock, flags);
}

/**
 * latscope_flight_holder_del() - undo latscope_flight_holder_add()
 * @fl: the record
 * @h: the holder; what it held is let go
 *
 * Context: process.
 */
void latscope_flight_holder_del(struct latscope_flight *fl,
				struct latscope_flight_holder *h)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&fl->hold_lock, flags);
	list_del(&h->node);
	latscope_flight_hold_update(fl);
	raw_spin_unlock_irqrestore(&fl->hold_lock, flags);
}

/**
 * latscope_flight_hold() - what a holder needs kept from now on
 * @fl: the record
 * @h: one of its holders
 * @from: the oldest window it has yet to copy begins then; 0: none
 *
 * Context: any but NMI.
 */
void latscope_flight_hold(struct latscope_flight *fl,
			  struct latscope_flight_holder *h, u64 from)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&fl->hold_lock, flags);
	h->from = from;
	latscope_flight_hold_update(fl);
	raw_spin_unlock_irqrestore(&fl->hold_lock, flags);
}

/**
 * latscope_flight_task() - what a flight entry keeps of a task
 * @t: filled in
 * @task: the task, alive for the call
 */
void latscope_flight_task(struct latscope_flight_task *t,
			  struct task_struct *task)
{
	memcpy(t->comm, task->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
	t->pid = task->pid;
	t->policy = task->policy;
	t->prio = task->policy == SCHED_FIFO || task->policy == SCHED_RR ?
		  task->rt_priority : task_nice(task);
}
