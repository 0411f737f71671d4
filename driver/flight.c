// SPDX-License-Identifier: GPL-2.0
/*
 * latscope flight record: one CPU's bounded ring of what ran there, the
 * worst-sample recorder's memory (why.h). Entries are written on their
 * CPU from any context, an NMI included, without a lock: a writer
 * reserves its slot with a CPU-local increment, fills it, then publishes
 * its sequence number. A reader on any CPU copies the slots and keeps
 * those whose number did not change under it.
 */
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/sched/rt.h>
#include <linux/slab.h>
#include <linux/string.h>
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
	return fl;
}

/**
 * latscope_flight_reserve() - take the next slot of a CPU's record
 * @fl: the record of the CPU this runs on, preemption off
 * @n: set to the slot's number, for latscope_flight_commit()
 *
 * The slot reads as being written until latscope_flight_commit().
 * Context: any, on @fl's CPU.
 * Return: the slot to fill.
 */
struct latscope_flight_entry *latscope_flight_reserve(struct latscope_flight *fl,
						      long *n)
{
	struct latscope_flight_entry *e;

	*n = local_inc_return(&fl->head);
	e = &fl->slot[(*n - 1) & (LATSCOPE_FLIGHT_SLOTS - 1)];
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

/**
 * latscope_flight_copy() - what a CPU's record holds from a time on
 * @fl: the record
 * @from: the earliest time wanted: the copy goes back to the last
 *	SWITCH before it too, which says what was running then
 * @out: room for LATSCOPE_FLIGHT_SLOTS entries; filled oldest first
 * @cut: set if the record did not reach back to @from (it wrapped, began
 *	after it, or an entry was rewritten during the copy), else cleared
 *
 * Finds where to begin by reading times and kinds only, newest first,
 * then copies from there on.
 *
 * Context: any; @fl's CPU may be writing meanwhile.
 * Return: the entries copied.
 */
u32 latscope_flight_copy(struct latscope_flight *fl, u64 from,
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
				count++;
				continue;
			}
		}
		/* Rewritten since: only what is newer holds together. */
		count = 0;
		*cut = true;
	}
	return count;
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
