// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the worst-sample recorder: the per-CPU flight record
 * (why_ring.c) written and copied by hand, the K worst set and its export
 * (why_worst.c), latscope_why_build() on flight entries made up with chosen
 * times, and a short real run whose records are checked against its
 * statistics.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/numa.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "latscope.h"
#include "latscope_kunit.h"
#include "why.h"

/* ---- the flight record ---- */

/* An empty record of no CPU's, freed when the test ends. */
static struct latscope_flight *flight_new(struct kunit *test)
{
	struct latscope_flight *fl = latscope_flight_alloc(NUMA_NO_NODE);

	KUNIT_ASSERT_NOT_NULL(test, fl);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_kvfree, fl), 0);
	return fl;
}

/* Room for a whole copy, as the recorder's scratch has. */
static struct latscope_flight_entry *flight_room(struct kunit *test)
{
	struct latscope_flight_entry *out;

	out = kunit_kcalloc(test, LATSCOPE_FLIGHT_SLOTS, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	return out;
}

/*
 * Reserves the next slot as a probe does, preemption off, and stamps it;
 * left unpublished (being written) until latscope_flight_commit().
 */
static struct latscope_flight_entry *flight_reserve(struct latscope_flight *fl,
						    u16 kind, u64 ts, long *n)
{
	struct latscope_flight_entry *e;

	preempt_disable();
	e = latscope_flight_reserve(fl, n, ts);
	if (e)
		e->kind = kind;
	preempt_enable();
	return e;
}

/* One entry, written whole as a probe writes it: false if dropped. */
static bool flight_write(struct latscope_flight *fl, u16 kind, u64 ts)
{
	struct latscope_flight_entry *e;
	long n;

	preempt_disable();
	e = latscope_flight_reserve(fl, &n, ts);
	if (e) {
		e->kind = kind;
		latscope_flight_commit(e, n);
	}
	preempt_enable();
	return e;
}

/* @n entries of @out are @first, @first + 1, ... in order, stamped 100 ns apart. */
static void flight_expect_run(struct kunit *test,
			      const struct latscope_flight_entry *out, u32 n,
			      u64 first)
{
	u32 i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, out[i].seq, first + i, "entry %u", i);
		KUNIT_EXPECT_EQ_MSG(test, out[i].ts, (first + i) * 100, "entry %u", i);
	}
}

static void latscope_flight_oldest_first(struct kunit *test)
{
	struct latscope_flight *fl = flight_new(test);
	struct latscope_flight_entry *out = flight_room(test);
	bool cut = false;
	u64 i;

	/* Nothing written: nothing reaches back anywhere. */
	KUNIT_EXPECT_EQ(test, latscope_flight_copy(fl, 0, U64_MAX, out, &cut), 0U);
	KUNIT_EXPECT_TRUE(test, cut);

	for (i = 1; i <= 5; i++)
		flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, i * 100);
	/* No SWITCH: back to the oldest, which is older than @from. */
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, 250, U64_MAX, out, &cut), 5U);
	KUNIT_EXPECT_FALSE(test, cut);
	flight_expect_run(test, out, 5, 1);
	KUNIT_EXPECT_EQ(test, out[4].kind, (u16)LATSCOPE_FL_IRQ_ENTRY);

	/* The oldest entry is not older than @from: the record began after it. */
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, 100, U64_MAX, out, &cut), 5U);
	KUNIT_EXPECT_TRUE(test, cut);
	flight_expect_run(test, out, 5, 1);
}

static void latscope_flight_wraps(struct kunit *test)
{
	const u64 total = LATSCOPE_FLIGHT_SLOTS + 10;
	/* The oldest entry kept once @total were written. */
	const u64 oldest = total - LATSCOPE_FLIGHT_SLOTS + 1;
	struct latscope_flight *fl = flight_new(test);
	struct latscope_flight_entry *out = flight_room(test);
	bool cut = false;
	u64 i;

	for (i = 1; i <= total; i++)
		flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, i * 100);

	/* From a time the ring no longer holds: all it has, and cut. */
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, 5 * 100, U64_MAX, out, &cut),
			(u32)LATSCOPE_FLIGHT_SLOTS);
	KUNIT_EXPECT_TRUE(test, cut);
	flight_expect_run(test, out, LATSCOPE_FLIGHT_SLOTS, oldest);

	/* From the oldest kept entry's own time: still not older. */
	latscope_flight_copy(fl, oldest * 100, U64_MAX, out, &cut);
	KUNIT_EXPECT_TRUE(test, cut);

	/* Just after it: the ring reaches back, whole. */
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, oldest * 100 + 1, U64_MAX, out, &cut),
			(u32)LATSCOPE_FLIGHT_SLOTS);
	KUNIT_EXPECT_FALSE(test, cut);
	flight_expect_run(test, out, LATSCOPE_FLIGHT_SLOTS, oldest);
}

static void latscope_flight_back_to_switch(struct kunit *test)
{
	struct latscope_flight *fl = flight_new(test);
	struct latscope_flight_entry *out = flight_room(test);
	bool cut = true;

	flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, 100);
	flight_write(fl, LATSCOPE_FL_SWITCH, 200);
	flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, 300);
	flight_write(fl, LATSCOPE_FL_SWITCH, 400);
	flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, 500);
	flight_write(fl, LATSCOPE_FL_IRQ_EXIT, 600);

	/* Back to the last SWITCH before @from, included, and no further. */
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, 550, U64_MAX, out, &cut), 3U);
	KUNIT_EXPECT_FALSE(test, cut);
	flight_expect_run(test, out, 3, 4);
	KUNIT_EXPECT_EQ(test, out[0].kind, (u16)LATSCOPE_FL_SWITCH);

	/* A SWITCH at @from itself is not before it: the one before is. */
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, 400, U64_MAX, out, &cut), 5U);
	KUNIT_EXPECT_FALSE(test, cut);
	flight_expect_run(test, out, 5, 2);
	KUNIT_EXPECT_EQ(test, out[0].kind, (u16)LATSCOPE_FL_SWITCH);
}

static void latscope_flight_stops_at_writer(struct kunit *test)
{
	struct latscope_flight *fl = flight_new(test);
	struct latscope_flight_entry *out = flight_room(test);
	struct latscope_flight_entry *e;
	bool cut = false;
	long n;

	flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, 100);
	flight_write(fl, LATSCOPE_FL_IRQ_EXIT, 200);
	flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, 300);
	/* Being written: its seq reads 0 until it is published. */
	e = flight_reserve(fl, LATSCOPE_FL_IRQ_EXIT, 400, &n);
	KUNIT_EXPECT_EQ(test, n, 4L);
	KUNIT_EXPECT_EQ(test, latscope_flight_copy(fl, 250, U64_MAX, out, &cut), 0U);
	KUNIT_EXPECT_TRUE(test, cut);

	/* Two more from a writer that interrupted it, as an NMI would. */
	flight_write(fl, LATSCOPE_FL_NMI, 500);
	flight_write(fl, LATSCOPE_FL_NMI, 600);
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, 250, U64_MAX, out, &cut), 2U);
	KUNIT_EXPECT_TRUE(test, cut);
	flight_expect_run(test, out, 2, 5);

	/* Published: the copy goes through it. */
	latscope_flight_commit(e, n);
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, 250, U64_MAX, out, &cut), 6U);
	KUNIT_EXPECT_FALSE(test, cut);
	flight_expect_run(test, out, 6, 1);
}

/* The entry numbered @n, whatever it holds now. */
static const struct latscope_flight_entry *flight_slot(const struct latscope_flight *fl, long n)
{
	return &fl->slot[(n - 1) & (LATSCOPE_FLIGHT_SLOTS - 1)];
}

static void latscope_flight_hold_keeps_window(struct kunit *test)
{
	const u64 total = 10 + LATSCOPE_FLIGHT_SLOTS;
	/* The last entry kept: entry 4, the one before the window, stays. */
	const u64 last = LATSCOPE_FLIGHT_SLOTS + 3;
	struct latscope_flight *fl = flight_new(test);
	struct latscope_flight_entry *out = flight_room(test);
	struct latscope_flight_holder h;
	const struct latscope_flight_entry *gap;
	bool cut = true;
	u32 i, n, written = 0;

	latscope_flight_holder_add(fl, &h);
	for (i = 1; i <= 10; i++)
		flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, i * 100);
	/* A window from 500 to 1000, not copied yet. */
	latscope_flight_hold(fl, &h, 500);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 500ULL);
	for (i = 11; i <= total; i++)
		written += flight_write(fl, LATSCOPE_FL_IRQ_EXIT, i * 100);
	KUNIT_EXPECT_EQ(test, written, (u32)(last - 10));
	KUNIT_EXPECT_EQ(test, local_read(&fl->gap), (long)(total - last));
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->gap_ts), (last + 1) * 100);

	/* The window is whole, from the entry before it on. */
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, 500, 1000, out, &cut),
			(u32)LATSCOPE_FLIGHT_SLOTS);
	KUNIT_EXPECT_FALSE(test, cut);
	flight_expect_run(test, out, LATSCOPE_FLIGHT_SLOTS, 4);

	/* Let go: the next writer says what was dropped, then writes its own. */
	latscope_flight_hold(fl, &h, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 0ULL);
	KUNIT_EXPECT_TRUE(test, flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, 90000000));
	gap = flight_slot(fl, last + 1);
	KUNIT_EXPECT_EQ(test, gap->seq, last + 1);
	KUNIT_EXPECT_EQ(test, gap->kind, (u16)LATSCOPE_FL_GAP);
	KUNIT_EXPECT_EQ(test, gap->ts, (last + 1) * 100);
	KUNIT_EXPECT_EQ(test, gap->arg, total - last);
	KUNIT_EXPECT_EQ(test, gap->arg2, 90000000ULL);
	KUNIT_EXPECT_EQ(test, flight_slot(fl, last + 2)->ts, 90000000ULL);
	KUNIT_EXPECT_EQ(test, local_read(&fl->gap), 0L);

	/* A window that ended before the GAP: whole, and no GAP in the copy. */
	n = latscope_flight_copy(fl, (last - 1) * 100, last * 100, out, &cut);
	KUNIT_EXPECT_FALSE(test, cut);
	KUNIT_ASSERT_EQ(test, n, (u32)LATSCOPE_FLIGHT_SLOTS - 1);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_NE_MSG(test, out[i].kind, (u16)LATSCOPE_FL_GAP, "entry %u", i);
	KUNIT_EXPECT_EQ(test, out[n - 1].ts, 90000000ULL);

	/* A window the GAP began in: only what came after it, and cut. */
	KUNIT_ASSERT_EQ(test, latscope_flight_copy(fl, last * 100 + 50, 90000000, out, &cut), 1U);
	KUNIT_EXPECT_TRUE(test, cut);
	KUNIT_EXPECT_EQ(test, out[0].ts, 90000000ULL);
	/* One after it: the entries after the GAP reach back. */
	KUNIT_EXPECT_EQ(test, latscope_flight_copy(fl, 90000001, 90000002, out, &cut), 1U);
	KUNIT_EXPECT_FALSE(test, cut);
	latscope_flight_holder_del(fl, &h);
}

static void latscope_flight_oldest_hold_counts(struct kunit *test)
{
	struct latscope_flight *fl = flight_new(test);
	struct latscope_flight_holder a, b;

	latscope_flight_holder_add(fl, &a);
	latscope_flight_holder_add(fl, &b);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 0ULL);
	latscope_flight_hold(fl, &a, 700);
	latscope_flight_hold(fl, &b, 300);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 300ULL);
	/* One let go: the other's window still holds. */
	latscope_flight_hold(fl, &b, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 700ULL);
	latscope_flight_hold(fl, &b, 900);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 700ULL);
	/* A holder that leaves lets its window go. */
	latscope_flight_holder_del(fl, &a);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 900ULL);
	latscope_flight_holder_del(fl, &b);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 0ULL);
}

/* ---- the K worst set ---- */

static struct latscope_worst_set *worst_set(struct kunit *test, u32 k)
{
	struct latscope_worst_set *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->slot = kunit_kcalloc(test, k, sizeof(*set->slot), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set->slot);
	set->k = k;
	latscope_worst_reset(set);
	return set;
}

/*
 * Offers a sample as latscope_recorder_sample() does: its slot, filled
 * with the latency and ideal time, or NULL if it is not among the worst.
 */
static struct latscope_worst *worst_offer(struct latscope_worst_set *set,
					  s64 lat, u64 ideal, bool force)
{
	struct latscope_worst *w = latscope_worst_claim(set, lat, force);

	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->why.latency_ns = lat;
	w->why.ideal_ns = ideal;
	latscope_worst_done(set);
	return w;
}

static void latscope_worst_keeps_k_largest(struct kunit *test)
{
	struct latscope_worst_set *set = worst_set(test, 3);
	struct latscope_worst *w10, *w30, *w20;

	w10 = worst_offer(set, 10, 1, false);
	w30 = worst_offer(set, 30, 2, false);
	w20 = worst_offer(set, 20, 3, false);
	KUNIT_ASSERT_NOT_NULL(test, w10);
	KUNIT_ASSERT_NOT_NULL(test, w30);
	KUNIT_ASSERT_NOT_NULL(test, w20);
	KUNIT_EXPECT_TRUE(test, w10 != w30 && w30 != w20 && w10 != w20);
	KUNIT_EXPECT_EQ(test, set->nr, 3U);

	/* Full: smaller than the smallest kept, or equal to it, is not kept. */
	KUNIT_EXPECT_NULL(test, worst_offer(set, 5, 4, false));
	KUNIT_EXPECT_NULL(test, worst_offer(set, 10, 5, false));
	KUNIT_EXPECT_EQ(test, w10->why.latency_ns, 10LL);

	/* Larger: it takes the smallest's slot, and 20 becomes the smallest. */
	KUNIT_EXPECT_PTR_EQ(test, worst_offer(set, 25, 6, false), w10);
	KUNIT_EXPECT_EQ(test, w10->why.latency_ns, 25LL);
	KUNIT_EXPECT_NULL(test, worst_offer(set, 20, 7, false));
	KUNIT_EXPECT_EQ(test, set->nr, 3U);

	/* Forced: the smallest's slot, however small the sample. */
	KUNIT_EXPECT_PTR_EQ(test, worst_offer(set, 1, 8, true), w20);
	KUNIT_EXPECT_EQ(test, w20->why.latency_ns, 1LL);
	KUNIT_EXPECT_EQ(test, set->nr, 3U);
	KUNIT_EXPECT_EQ(test, w30->why.latency_ns, 30LL);

	/* Forgotten: free slots again. */
	latscope_worst_reset(set);
	KUNIT_EXPECT_EQ(test, set->nr, 0U);
	KUNIT_EXPECT_NOT_NULL(test, worst_offer(set, 2, 9, false));
}

static void latscope_worst_export_worst_first(struct kunit *test)
{
	struct latscope_worst_set *set = worst_set(test, 4);
	struct latscope_worst *tmp, *w;
	const struct latscope_why *why;

	tmp = kunit_kcalloc(test, set->k, sizeof(*tmp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	KUNIT_ASSERT_NOT_NULL(test, worst_offer(set, 10, 400, false));
	w = worst_offer(set, 20, 300, false);
	KUNIT_ASSERT_NOT_NULL(test, w);
	/* An hrtimer callback, symbolised; an irq, named by the record. */
	w->why.nr_items = 2;
	w->why.item[0].kind = LATSCOPE_WHY_HRTIMER;
	w->fn[0] = (u64)(unsigned long)latscope_worst_export;
	w->why.item[1].kind = LATSCOPE_WHY_IRQ;
	strscpy(w->why.item[1].name, "eth0", sizeof(w->why.item[1].name));
	w = worst_offer(set, 30, 200, false);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->where = (u64)(unsigned long)latscope_why_build;
	/* As large as the 20 at 300, due earlier: it comes first. */
	KUNIT_ASSERT_NOT_NULL(test, worst_offer(set, 20, 100, false));

	KUNIT_ASSERT_EQ(test, latscope_worst_export(set, tmp), 4);
	/* Packed: struct latscope_why after struct latscope_why. */
	why = (const struct latscope_why *)tmp;
	KUNIT_EXPECT_EQ(test, why[0].latency_ns, 30LL);
	KUNIT_EXPECT_EQ(test, why[1].latency_ns, 20LL);
	KUNIT_EXPECT_EQ(test, why[1].ideal_ns, 100ULL);
	KUNIT_EXPECT_EQ(test, why[2].latency_ns, 20LL);
	KUNIT_EXPECT_EQ(test, why[2].ideal_ns, 300ULL);
	KUNIT_EXPECT_EQ(test, why[3].latency_ns, 10LL);

	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why[0].where, "latscope_why_build"),
				  "where: \"%s\"", why[0].where);
	KUNIT_EXPECT_STREQ(test, why[1].where, "");
	KUNIT_EXPECT_EQ(test, why[2].nr_items, 2U);
	/* "%ps": the name, and the module's if there is one. */
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(why[2].item[0].name, "latscope_worst_export"),
			      "name: \"%s\"", why[2].item[0].name);
	KUNIT_EXPECT_STREQ(test, why[2].item[1].name, "eth0");
}

/*
 * Code no symbol names (an unloaded module's, a freed BPF program's): "?",
 * never the address, which %pS and sprint_symbol() would print.
 */
static void latscope_worst_export_no_address(struct kunit *test)
{
	struct latscope_worst_set *set = worst_set(test, 2);
	struct latscope_worst *tmp, *w;
	const struct latscope_why *why;
	/* Heap memory: no symbol's. */
	u64 nowhere;

	tmp = kunit_kcalloc(test, set->k, sizeof(*tmp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	nowhere = (u64)(unsigned long)tmp;
	w = worst_offer(set, 20, 100, false);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->where = nowhere;
	w->why.nr_items = 2;
	w->why.item[0].kind = LATSCOPE_WHY_HRTIMER;
	w->fn[0] = nowhere;
	w->why.item[1].kind = LATSCOPE_WHY_NMI;
	w->fn[1] = (u64)(unsigned long)latscope_worst_export;
	w = worst_offer(set, 10, 200, false);
	KUNIT_ASSERT_NOT_NULL(test, w);
	/* Added at run time: a relocation into a function upsets objtool (IBT). */
	w->where = (u64)(unsigned long)latscope_why_build;
	OPTIMIZER_HIDE_VAR(w->where);
	w->where += 4;

	KUNIT_ASSERT_EQ(test, latscope_worst_export(set, tmp), 2);
	why = (const struct latscope_why *)tmp;
	KUNIT_EXPECT_STREQ(test, why[0].where, "?");
	KUNIT_EXPECT_STREQ(test, why[0].item[0].name, "?");
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(why[0].item[1].name, "latscope_worst_export"),
			      "name: \"%s\"", why[0].item[1].name);
	/* Resolved: the symbol and its offset, still no address. */
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(why[1].where, "latscope_why_build+0x4/"),
			      "where: \"%s\"", why[1].where);
}

/* ---- latscope_why_build() on made-up flight entries ---- */

#define WHY_ENTRIES	96
#define WHY_SESSION	7
#define WHY_RESPONDER	200	/* the kernel responder's pid */
#define WHY_TASK_A	100	/* a SCHED_OTHER task, nice 5 */
#define WHY_TASK_B	101	/* a SCHED_FIFO task, priority 10 */

/* The time @ns (may be negative) from the window's ideal time. */
#define AT(ns)		((u64)(T0_NOW + (s64)(ns)))

/* Every part of a kernel or user context's split. */
#define WHY_SPLIT	(LATSCOPE_WHY_HAS_IRQ | LATSCOPE_WHY_HAS_WAKE | LATSCOPE_WHY_HAS_RUN)

struct why_case {
	struct kunit *test;
	struct latscope_why_window w;
	struct latscope_why_tally tally;
	struct latscope_worst out;
	u32 n;
	struct latscope_flight_entry ev[WHY_ENTRIES];
};

/*
 * A window of @latency ns from AT(0), answered by @responder (0: the irq
 * context), with latscope's timeline callback as the measurement's own.
 */
static struct why_case *why_case(struct kunit *test, s32 responder, u64 latency)
{
	struct why_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->w.ideal = AT(0);
	c->w.end = AT(latency);
	c->w.session = WHY_SESSION;
	c->w.responder = responder;
	c->w.self_fn = latscope_timeline_fn();
	return c;
}

static struct latscope_flight_entry *why_add(struct why_case *c, s64 at,
					     u16 kind, s32 id)
{
	struct latscope_flight_entry *e;

	KUNIT_ASSERT_LT(c->test, c->n, (u32)WHY_ENTRIES);
	e = &c->ev[c->n++];
	e->seq = c->n;
	e->ts = AT(at);
	e->kind = kind;
	e->id = id;
	return e;
}

static void why_task(struct latscope_flight_task *t, s32 pid)
{
	t->pid = pid;
	if (!pid) {
		strscpy(t->comm, "swapper/0", sizeof(t->comm));
	} else if (pid == WHY_TASK_A) {
		strscpy(t->comm, "taskA", sizeof(t->comm));
		t->policy = SCHED_NORMAL;
		t->prio = 5;
	} else {
		snprintf(t->comm, sizeof(t->comm), "task%d", pid);
		t->policy = SCHED_FIFO;
		t->prio = pid == WHY_RESPONDER ? 90 : 10;
	}
}

static void why_switch(struct why_case *c, s64 at, s32 pid)
{
	struct latscope_flight_entry *e = why_add(c, at, LATSCOPE_FL_SWITCH, pid);

	why_task(&e->task[1], pid);
}

static void why_irq(struct why_case *c, s64 from, s64 to, s32 irq,
		    const char *name)
{
	struct latscope_flight_entry *e = why_add(c, from, LATSCOPE_FL_IRQ_ENTRY, irq);

	strscpy(e->name, name, sizeof(e->name));
	why_add(c, to, LATSCOPE_FL_IRQ_EXIT, irq);
}

static void why_hrtimer(struct why_case *c, s64 at, u16 kind, u64 fn)
{
	why_add(c, at, kind, 0)->ptr = fn;
}

/* An NMI, written at its end, that took @d ns. */
static void why_nmi(struct why_case *c, s64 end, u64 d, u64 fn)
{
	struct latscope_flight_entry *e = why_add(c, end, LATSCOPE_FL_NMI, 0);

	e->ptr = fn;
	e->arg = d;
}

/* latscope's EVENT of the window's sample: irq stamp @irq, wake-up @wake. */
static struct latscope_flight_entry *why_event(struct why_case *c, s64 irq,
					       s64 wake)
{
	struct latscope_flight_entry *e = why_add(c, wake, LATSCOPE_FL_EVENT,
						  WHY_SESSION);

	e->arg = AT(0);
	e->arg2 = AT(irq);
	return e;
}

static const struct latscope_why *why_build(struct why_case *c)
{
	latscope_why_build(c->ev, c->n, &c->w, &c->tally, &c->out);
	return &c->out.why;
}

/* The index of the item of (@kind, @id), or -1. */
static int why_find(const struct why_case *c, u32 kind, s32 id)
{
	u32 i;

	for (i = 0; i < c->out.why.nr_items; i++)
		if (c->out.why.item[i].kind == kind && c->out.why.item[i].id == id)
			return i;
	return -1;
}

/* The item of (@kind, @id), which must be there. */
static const struct latscope_why_item *why_item(struct why_case *c, u32 kind,
						s32 id)
{
	int i = why_find(c, kind, id);

	KUNIT_ASSERT_GE_MSG(c->test, i, 0, "no item of kind %u, id %d", kind, id);
	return &c->out.why.item[i];
}

static void why_expect_item(struct why_case *c, u32 kind, s32 id, u64 duration,
			    u64 blocking, u32 count, u32 flags)
{
	const struct latscope_why_item *it = why_item(c, kind, id);

	KUNIT_EXPECT_EQ_MSG(c->test, it->duration_ns, duration, "kind %u id %d", kind, id);
	KUNIT_EXPECT_EQ_MSG(c->test, it->blocking_ns, blocking, "kind %u id %d", kind, id);
	KUNIT_EXPECT_EQ_MSG(c->test, it->count, count, "kind %u id %d", kind, id);
	KUNIT_EXPECT_EQ_MSG(c->test, it->flags, flags, "kind %u id %d", kind, id);
}

/*
 * What holds for every record: items longest first, none empty, none
 * blocking longer than it ran; and the parts add up to the sample.
 */
static void why_expect_sane(struct why_case *c)
{
	const struct latscope_why *why = &c->out.why;
	u32 i;

	KUNIT_EXPECT_LE(c->test, why->nr_items, (u32)LATSCOPE_WHY_ITEMS);
	for (i = 0; i < why->nr_items; i++) {
		KUNIT_EXPECT_GT_MSG(c->test, why->item[i].duration_ns, 0ULL, "item %u", i);
		KUNIT_EXPECT_LE_MSG(c->test, why->item[i].blocking_ns,
				    why->item[i].duration_ns, "item %u", i);
		if (i)
			KUNIT_EXPECT_GE_MSG(c->test, why->item[i - 1].duration_ns,
					    why->item[i].duration_ns, "item %u", i);
	}
	if ((why->flags & WHY_SPLIT) == WHY_SPLIT)
		KUNIT_EXPECT_EQ(c->test, why->irq_ns + why->wake_ns + why->sched_ns +
				why->run_ns, why->latency_ns);
}

/* The split's four parts, in ns. */
static void why_expect_split(struct why_case *c, s64 irq, s64 wake, s64 sched, s64 run)
{
	const struct latscope_why *why = &c->out.why;

	KUNIT_EXPECT_EQ(c->test, why->irq_ns, irq);
	KUNIT_EXPECT_EQ(c->test, why->wake_ns, wake);
	KUNIT_EXPECT_EQ(c->test, why->sched_ns, sched);
	KUNIT_EXPECT_EQ(c->test, why->run_ns, run);
}

/* The time the items, the rest and what is not known account for. */
static u64 why_accounted(const struct latscope_why *why)
{
	u64 sum = why->more_ns + why->unknown_ns;
	u32 i;

	for (i = 0; i < why->nr_items; i++)
		sum += why->item[i].duration_ns;
	return sum;
}

static void latscope_why_splits_latency(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 12000);
	const struct latscope_why *why;
	struct latscope_flight_entry *e;

	why_switch(c, -1000, WHY_TASK_A);
	why_irq(c, 2000, 5000, 11, "eth0");
	/* Another session's event, and an older sample's: not this one's. */
	why_add(c, 5500, LATSCOPE_FL_EVENT, WHY_SESSION + 1)->arg = AT(0);
	why_add(c, 5600, LATSCOPE_FL_EVENT, WHY_SESSION)->arg = AT(-100000);
	e = why_event(c, 6000, 7000);
	/* Stamped in hard irq: it knows what it interrupted. */
	e->flags = LATSCOPE_FL_EV_HARDIRQ;
	why_task(&e->task[0], WHY_TASK_A);
	e->ptr = (u64)(unsigned long)latscope_why_build;
	why_switch(c, 10000, WHY_RESPONDER);
	why = why_build(c);

	KUNIT_EXPECT_EQ(test, why->latency_ns, 12000LL);
	KUNIT_EXPECT_EQ(test, why->ideal_ns, AT(0));
	KUNIT_EXPECT_EQ(test, why->window_ns, 12000ULL);
	KUNIT_EXPECT_EQ(test, why->flags, (u32)WHY_SPLIT);
	/* The ideal time to the irq stamp, to the wake-up, to the switch-in, on. */
	why_expect_split(c, 6000, 1000, 3000, 2000);
	KUNIT_EXPECT_EQ(test, why->idle_state, -1);
	KUNIT_EXPECT_EQ(test, why->pid, WHY_TASK_A);
	KUNIT_EXPECT_STREQ(test, why->comm, "taskA");
	KUNIT_EXPECT_EQ(test, why->policy, SCHED_NORMAL);
	KUNIT_EXPECT_EQ(test, why->prio, 5);
	KUNIT_EXPECT_EQ(test, c->out.where, e->ptr);

	/*
	 * Task A ran 0-2000, 5000-10000 (the answer waiting, but from the
	 * irq stamp at 6000 to the wake-up at 7000: latscope's own); the
	 * irq 2000-5000; then the responder's run_ns, no item.
	 */
	KUNIT_ASSERT_EQ(test, why->nr_items, 2U);
	KUNIT_EXPECT_EQ(test, why->item[0].kind, (u32)LATSCOPE_WHY_TASK);
	KUNIT_EXPECT_EQ(test, why->item[0].id, WHY_TASK_A);
	KUNIT_EXPECT_STREQ(test, why->item[0].name, "taskA");
	KUNIT_EXPECT_EQ(test, why->item[0].policy, SCHED_NORMAL);
	KUNIT_EXPECT_EQ(test, why->item[0].prio, 5);
	why_expect_item(c, LATSCOPE_WHY_TASK, WHY_TASK_A, 7000, 6000, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	KUNIT_EXPECT_EQ(test, why->item[1].kind, (u32)LATSCOPE_WHY_IRQ);
	KUNIT_EXPECT_STREQ(test, why->item[1].name, "eth0");
	why_expect_item(c, LATSCOPE_WHY_IRQ, 11, 3000, 3000, 1, 0);
	/* The responder's own running is the split's: no more, nothing unknown. */
	KUNIT_EXPECT_EQ(test, why->more_items, 0U);
	KUNIT_EXPECT_EQ(test, why->more_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why_accounted(why) + why->run_ns, 12000ULL);
	why_expect_sane(c);
}

static void latscope_why_irq_context(struct kunit *test)
{
	struct why_case *c = why_case(test, 0, 5000);
	const struct latscope_why *why;

	why_switch(c, -3000, WHY_TASK_A);
	/* Began before the ideal time, inside task A. */
	why_irq(c, -500, 1200, 20, "ahci");
	why_switch(c, 2000, WHY_TASK_B);
	/* Still running at the answer. */
	why_add(c, 3000, LATSCOPE_FL_SOFTIRQ_ENTRY, NET_RX_SOFTIRQ);
	/* The irq context's sample is its irq stamp; the EVENT comes after. */
	why_event(c, 5000, 5100);
	why = why_build(c);

	KUNIT_EXPECT_EQ(test, why->flags,
			(u32)(LATSCOPE_WHY_HAS_IRQ | LATSCOPE_WHY_NO_WHERE));
	KUNIT_EXPECT_EQ(test, why->irq_ns, why->latency_ns);
	KUNIT_EXPECT_EQ(test, why->wake_ns, 0LL);
	KUNIT_EXPECT_EQ(test, why->sched_ns, 0LL);
	KUNIT_EXPECT_EQ(test, why->run_ns, 0LL);
	KUNIT_EXPECT_EQ(test, why->window_ns, 5000ULL);
	/* The answer waited for all of it. */
	KUNIT_ASSERT_EQ(test, why->nr_items, 4U);
	KUNIT_EXPECT_EQ(test, why->item[0].kind, (u32)LATSCOPE_WHY_SOFTIRQ);
	why_expect_item(c, LATSCOPE_WHY_SOFTIRQ, NET_RX_SOFTIRQ, 2000, 2000, 1,
			LATSCOPE_WHY_ITEM_AFTER);
	why_expect_item(c, LATSCOPE_WHY_IRQ, 20, 1200, 1200, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	why_expect_item(c, LATSCOPE_WHY_TASK, WHY_TASK_B, 1000, 1000, 1,
			LATSCOPE_WHY_ITEM_AFTER);
	why_expect_item(c, LATSCOPE_WHY_TASK, WHY_TASK_A, 800, 800, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	KUNIT_EXPECT_EQ(test, why->more_items, 0U);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why_accounted(why), 5000ULL);
	why_expect_sane(c);
}

static void latscope_why_idle_at_ideal(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 6000);
	const struct latscope_why *why;

	why_switch(c, -5000, 0);
	why_add(c, -4000, LATSCOPE_FL_IDLE_ENTER, 2);
	why_event(c, 3000, 4000);
	why_add(c, 4500, LATSCOPE_FL_IDLE_EXIT, -1);
	why_switch(c, 5000, WHY_RESPONDER);
	why = why_build(c);

	KUNIT_EXPECT_EQ(test, why->flags,
			(u32)(WHY_SPLIT | LATSCOPE_WHY_IDLE | LATSCOPE_WHY_NO_WHERE));
	KUNIT_EXPECT_EQ(test, why->idle_state, 2);
	KUNIT_EXPECT_EQ(test, why->irq_ns, 3000LL);
	KUNIT_EXPECT_EQ(test, why->wake_ns, 1000LL);
	KUNIT_EXPECT_EQ(test, why->sched_ns, 1000LL);
	KUNIT_EXPECT_EQ(test, why->run_ns, 1000LL);
	/* Idle in state 2 until the responder ran, but 3000-4000. */
	KUNIT_ASSERT_EQ(test, why->nr_items, 1U);
	why_expect_item(c, LATSCOPE_WHY_IDLE, 2, 5000, 4000, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	KUNIT_EXPECT_EQ(test, why->more_items, 0U);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	why_expect_sane(c);
}

/* The irq context has no responder: pid 0 is idle there, not the responder. */
static void latscope_why_idle_in_irq_context(struct kunit *test)
{
	struct why_case *c = why_case(test, 0, 3000);
	const struct latscope_why *why;

	why_switch(c, -2000, WHY_TASK_A);
	why_switch(c, 1000, 0);
	why_add(c, 1500, LATSCOPE_FL_IDLE_ENTER, 1);
	why_event(c, 3000, 3100);
	why = why_build(c);

	/* Task A ran at the ideal time: not idle then. */
	KUNIT_EXPECT_FALSE(test, why->flags & LATSCOPE_WHY_IDLE);
	KUNIT_EXPECT_EQ(test, why->idle_state, -1);
	KUNIT_ASSERT_EQ(test, why->nr_items, 3U);
	why_expect_item(c, LATSCOPE_WHY_IDLE, 1, 1500, 1500, 0,
			LATSCOPE_WHY_ITEM_AFTER);
	why_expect_item(c, LATSCOPE_WHY_TASK, WHY_TASK_A, 1000, 1000, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	/* Switched to, its state not known yet. */
	why_expect_item(c, LATSCOPE_WHY_IDLE, -1, 500, 500, 1, 0);
	KUNIT_EXPECT_EQ(test, why->more_items, 0U);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why_accounted(why), 3000ULL);
	why_expect_sane(c);
}

static void latscope_why_cut(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 12000);
	const struct latscope_why *why;

	/* The record begins inside the window: what ran before is unknown. */
	c->w.cut = true;
	why_irq(c, 4000, 5000, 11, "eth0");
	why_event(c, 6000, 7000);
	why_switch(c, 10000, WHY_RESPONDER);
	why = why_build(c);

	KUNIT_EXPECT_TRUE(test, why->flags & LATSCOPE_WHY_CUT);
	KUNIT_EXPECT_EQ(test, why->flags & WHY_SPLIT, (u32)WHY_SPLIT);
	KUNIT_EXPECT_EQ(test, why->latency_ns, 12000LL);
	KUNIT_EXPECT_EQ(test, why->window_ns, 8000ULL);
	why_expect_item(c, LATSCOPE_WHY_IRQ, 11, 1000, 1000, 1, 0);
	/* No task known, nor told by the EVENT: its time is unknown, not dropped. */
	KUNIT_EXPECT_EQ(test, why->nr_items, 1U);
	KUNIT_EXPECT_EQ(test, why->more_items, 0U);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 9000ULL);
	why_expect_sane(c);

	/* Nothing copied: nothing of the window is covered. */
	c->n = 0;
	why = why_build(c);
	KUNIT_EXPECT_TRUE(test, why->flags & LATSCOPE_WHY_CUT);
	KUNIT_EXPECT_EQ(test, why->window_ns, 0ULL);
	KUNIT_EXPECT_FALSE(test, why->flags & LATSCOPE_WHY_HAS_IRQ);
}

static void latscope_why_more_items(struct kunit *test)
{
	struct why_case *c;
	const struct latscope_why *why;
	s64 t = 100;
	u32 i;

	/* Ten irqs of 1 to 10 us, 100 ns of task A before, between and after. */
	for (i = 0; i < 10; i++)
		t += (i + 1) * 1000 + 100;
	c = why_case(test, 0, t);
	why_switch(c, -1000, WHY_TASK_A);
	for (t = 100, i = 0; i < 10; i++) {
		why_irq(c, t, t + (i + 1) * 1000, 30 + i, "dev");
		t += (i + 1) * 1000 + 100;
	}
	why_event(c, t, t + 100);
	why = why_build(c);

	/* The eight longest, longest first: irqs 39 down to 32. */
	KUNIT_ASSERT_EQ(test, why->nr_items, (u32)LATSCOPE_WHY_ITEMS);
	for (i = 0; i < LATSCOPE_WHY_ITEMS; i++) {
		KUNIT_EXPECT_EQ_MSG(test, why->item[i].kind, (u32)LATSCOPE_WHY_IRQ, "item %u", i);
		KUNIT_EXPECT_EQ_MSG(test, why->item[i].id, 39 - (s32)i, "item %u", i);
		KUNIT_EXPECT_EQ_MSG(test, why->item[i].duration_ns, (10 - i) * 1000ULL,
				    "item %u", i);
	}
	/* The rest: irq 31 (2 us), task A (1.1 us), irq 30 (1 us). */
	KUNIT_EXPECT_EQ(test, why->more_items, 3U);
	KUNIT_EXPECT_EQ(test, why->more_ns, 4100ULL);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why_accounted(why), (u64)why->latency_ns);
	why_expect_sane(c);
}

static void latscope_why_tally_full(struct kunit *test)
{
	const u32 irqs = LATSCOPE_WHY_TALLY + 8;
	/* Task A and the first irqs fill the tally; 9 irqs of 150 ns do not fit. */
	const u32 unfit = irqs + 1 - LATSCOPE_WHY_TALLY;
	struct why_case *c = why_case(test, 0, irqs * 200 + 100);
	const struct latscope_why *why;
	u32 i;

	/* More things than the tally has room for: their time is not lost. */
	why_switch(c, -1000, WHY_TASK_A);
	for (i = 0; i < irqs; i++)
		why_irq(c, i * 200 + 100, i * 200 + 250, 100 + i, "dev");
	why_event(c, irqs * 200 + 100, irqs * 200 + 200);
	why = why_build(c);

	KUNIT_EXPECT_EQ(test, why->nr_items, (u32)LATSCOPE_WHY_ITEMS);
	KUNIT_EXPECT_EQ(test, why->more_items, (u32)(LATSCOPE_WHY_TALLY - LATSCOPE_WHY_ITEMS));
	KUNIT_EXPECT_EQ(test, why->unknown_ns, unfit * 150ULL);
	KUNIT_EXPECT_EQ(test, why_accounted(why), (u64)why->latency_ns);
	why_expect_sane(c);
}

static void latscope_why_nmi_taken_out(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 12000);
	const u64 handler = (u64)(unsigned long)latscope_flight_copy;
	const struct latscope_why *why;
	int i;

	why_switch(c, -1000, WHY_TASK_A);
	/* Ended before the window: none of it is the window's. */
	why_nmi(c, -100, 50, handler);
	/* 2000-3000 inside task A, 4200-4500 inside the irq. */
	why_nmi(c, 3000, 1000, handler);
	why_add(c, 4000, LATSCOPE_FL_IRQ_ENTRY, 11);
	why_nmi(c, 4500, 300, handler);
	why_add(c, 5000, LATSCOPE_FL_IRQ_EXIT, 11);
	why_event(c, 6000, 7000);
	why_switch(c, 10000, WHY_RESPONDER);
	why = why_build(c);

	/*
	 * Task A: 0-4000 and 5000-10000 but the NMI's 1000, all waited
	 * for but 6000-7000; the irq: 1000 but the NMI's 300.
	 */
	KUNIT_ASSERT_EQ(test, why->nr_items, 3U);
	why_expect_item(c, LATSCOPE_WHY_TASK, WHY_TASK_A, 8000, 7000, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	why_expect_item(c, LATSCOPE_WHY_NMI, 0, 1300, 1300, 2, 0);
	why_expect_item(c, LATSCOPE_WHY_IRQ, 11, 700, 700, 1, 0);
	i = why_find(c, LATSCOPE_WHY_NMI, 0);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ(test, c->out.fn[i], handler);
	KUNIT_EXPECT_EQ(test, why->more_items, 0U);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why_accounted(why) + why->run_ns, 12000ULL);
	why_expect_sane(c);
}

static void latscope_why_own_timer_not_counted(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 10000);
	const u64 other = (u64)(unsigned long)latscope_worst_claim;
	const struct latscope_why *why;
	int at;
	u32 i;

	why_switch(c, -1000, WHY_TASK_A);
	why_hrtimer(c, 1000, LATSCOPE_FL_HRTIMER_ENTRY, other);
	why_hrtimer(c, 2000, LATSCOPE_FL_HRTIMER_EXIT, other);
	/* The timeline's own callback: it stamps the irq and wakes the responder. */
	why_hrtimer(c, 5000, LATSCOPE_FL_HRTIMER_ENTRY, c->w.self_fn);
	why_event(c, 5500, 5800);
	why_hrtimer(c, 6500, LATSCOPE_FL_HRTIMER_EXIT, c->w.self_fn);
	why_switch(c, 9000, WHY_RESPONDER);
	why = why_build(c);

	KUNIT_EXPECT_EQ(test, why->flags & WHY_SPLIT, (u32)WHY_SPLIT);
	KUNIT_EXPECT_EQ(test, why->sched_ns, 3200LL);
	/* Task A: 0-1000, 2000-5000, 6500-9000; the other callback 1000-2000. */
	KUNIT_ASSERT_EQ(test, why->nr_items, 2U);
	why_expect_item(c, LATSCOPE_WHY_TASK, WHY_TASK_A, 6500, 6500, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	why_expect_item(c, LATSCOPE_WHY_HRTIMER, 0, 1000, 1000, 1, 0);
	for (i = 0; i < why->nr_items; i++)
		KUNIT_EXPECT_NE_MSG(test, c->out.fn[i], c->w.self_fn, "item %u", i);
	at = why_find(c, LATSCOPE_WHY_HRTIMER, 0);
	KUNIT_ASSERT_GE(test, at, 0);
	KUNIT_EXPECT_EQ(test, c->out.fn[at], other);
	/* Nor is its time one more thing, or unknown. */
	KUNIT_EXPECT_EQ(test, why->more_items, 0U);
	KUNIT_EXPECT_EQ(test, why->more_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	why_expect_sane(c);
}

static void latscope_why_softirq_names(struct kunit *test)
{
	/* As /proc/softirqs calls them. */
	static const char *const names[NR_SOFTIRQS] = {
		[HI_SOFTIRQ] = "HI", [TIMER_SOFTIRQ] = "TIMER",
		[NET_TX_SOFTIRQ] = "NET_TX", [NET_RX_SOFTIRQ] = "NET_RX",
		[BLOCK_SOFTIRQ] = "BLOCK", [IRQ_POLL_SOFTIRQ] = "IRQ_POLL",
		[TASKLET_SOFTIRQ] = "TASKLET", [SCHED_SOFTIRQ] = "SCHED",
		[HRTIMER_SOFTIRQ] = "HRTIMER", [RCU_SOFTIRQ] = "RCU",
	};
	struct why_case *c = why_case(test, 0, (NR_SOFTIRQS + 1) * 200 + 100);
	const struct latscope_why *why;
	s32 vec;

	/*
	 * Every vector, and one past them; no task known, so that only
	 * they are items.
	 */
	for (vec = 0; vec <= NR_SOFTIRQS; vec++) {
		why_add(c, vec * 200 + 100, LATSCOPE_FL_SOFTIRQ_ENTRY, vec);
		why_add(c, vec * 200 + 200 + vec, LATSCOPE_FL_SOFTIRQ_EXIT, vec);
	}
	why_event(c, (NR_SOFTIRQS + 1) * 200 + 100, (NR_SOFTIRQS + 1) * 200 + 200);
	why = why_build(c);

	/* The eight longest are the last vectors. */
	KUNIT_ASSERT_EQ(test, why->nr_items, (u32)LATSCOPE_WHY_ITEMS);
	for (vec = NR_SOFTIRQS + 1 - LATSCOPE_WHY_ITEMS; vec < NR_SOFTIRQS; vec++)
		KUNIT_EXPECT_STREQ(test, why_item(c, LATSCOPE_WHY_SOFTIRQ, vec)->name,
				   names[vec]);
	KUNIT_EXPECT_STREQ(test, why_item(c, LATSCOPE_WHY_SOFTIRQ, NR_SOFTIRQS)->name, "");

	/* The first vectors, longest now. */
	c->n = 0;
	c->w.end = AT(NR_SOFTIRQS * 1000 + 100);
	for (vec = 0; vec < NR_SOFTIRQS; vec++) {
		why_add(c, vec * 1000 + 100, LATSCOPE_FL_SOFTIRQ_ENTRY, vec);
		why_add(c, vec * 1000 + 1000 - vec * 10, LATSCOPE_FL_SOFTIRQ_EXIT, vec);
	}
	why_event(c, NR_SOFTIRQS * 1000 + 100, NR_SOFTIRQS * 1000 + 200);
	why = why_build(c);
	KUNIT_ASSERT_EQ(test, why->nr_items, (u32)LATSCOPE_WHY_ITEMS);
	for (vec = 0; vec < LATSCOPE_WHY_ITEMS; vec++)
		KUNIT_EXPECT_STREQ(test, why_item(c, LATSCOPE_WHY_SOFTIRQ, vec)->name,
				   names[vec]);
}

static void latscope_why_busy_responder(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 5000);
	const struct latscope_why *why;

	/* Still at the previous event when this one came. */
	why_switch(c, -1000, WHY_RESPONDER);
	why_event(c, 2000, 3000);
	why = why_build(c);

	KUNIT_EXPECT_EQ(test, why->flags,
			(u32)(WHY_SPLIT | LATSCOPE_WHY_BUSY | LATSCOPE_WHY_NO_WHERE));
	why_expect_split(c, 2000, 1000, 0, 2000);
	/* Its own time: no item, nothing more, nothing unknown. */
	KUNIT_EXPECT_EQ(test, why->nr_items, 0U);
	KUNIT_EXPECT_EQ(test, why->more_items, 0U);
	KUNIT_EXPECT_EQ(test, why->more_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	why_expect_sane(c);
}

/*
 * No EVENT of the sample (its irq ran on another CPU): what ran is told,
 * not that the answer waited for it.
 */
static void latscope_why_no_event_no_blocking(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 6000);
	const struct latscope_why *why;

	why_switch(c, -1000, WHY_TASK_A);
	why_irq(c, 1000, 2000, 30, "eth0");
	why_switch(c, 5000, WHY_RESPONDER);
	why = why_build(c);

	KUNIT_EXPECT_FALSE(test, why->flags & LATSCOPE_WHY_HAS_IRQ);
	why_expect_item(c, LATSCOPE_WHY_TASK, WHY_TASK_A, 4000, 0, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	why_expect_item(c, LATSCOPE_WHY_IRQ, 30, 1000, 0, 1, 0);
}

/* No task switch in the record: the EVENT, stamped in hard irq, tells the task. */
static void latscope_why_task_from_event(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 9000);
	const struct latscope_why *why;
	struct latscope_flight_entry *e;

	why_irq(c, 2000, 3000, 11, "eth0");
	e = why_event(c, 4000, 5000);
	e->flags = LATSCOPE_FL_EV_HARDIRQ;
	why_task(&e->task[0], WHY_TASK_A);
	why_switch(c, 8000, WHY_RESPONDER);
	why = why_build(c);

	/* Task A from before the window: 0-2000, 3000-8000, but 4000-5000 waited. */
	KUNIT_EXPECT_EQ(test, why->flags, (u32)WHY_SPLIT);
	KUNIT_EXPECT_EQ(test, why->pid, WHY_TASK_A);
	KUNIT_ASSERT_EQ(test, why->nr_items, 2U);
	why_expect_item(c, LATSCOPE_WHY_TASK, WHY_TASK_A, 7000, 6000, 0,
			LATSCOPE_WHY_ITEM_BEFORE);
	why_expect_item(c, LATSCOPE_WHY_IRQ, 11, 1000, 1000, 1, 0);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	why_expect_sane(c);

	/* It interrupted the responder itself: busy, all its own time. */
	c->n = 0;
	c->w.end = AT(5000);
	e = why_event(c, 2000, 3000);
	e->flags = LATSCOPE_FL_EV_HARDIRQ;
	why_task(&e->task[0], WHY_RESPONDER);
	why = why_build(c);
	KUNIT_EXPECT_EQ(test, why->flags, (u32)(WHY_SPLIT | LATSCOPE_WHY_BUSY));
	KUNIT_EXPECT_EQ(test, why->run_ns, 2000LL);
	KUNIT_EXPECT_EQ(test, why->nr_items, 0U);
	KUNIT_EXPECT_EQ(test, why->more_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, why->unknown_ns, 0ULL);
	why_expect_sane(c);
}

/* ---- SETUP, and a real run ---- */

/* A work that keeps its worker busy until let go: a builder made late. */
struct why_blocker {
	struct kthread_work work;
	struct completion running;
	struct completion go;
};

static void why_blocker_fn(struct kthread_work *work)
{
	struct why_blocker *b = container_of(work, struct why_blocker, work);

	complete(&b->running);
	wait_for_completion(&b->go);
}

static void why_blocker_release(void *data)
{
	struct why_blocker *b = data;

	complete_all(&b->go);
}

/* Holds @s's builder busy until why_blocker_release(), or the test's end. */
static struct why_blocker *why_blocker_hold(struct kunit *test,
					    struct latscope_session *s)
{
	struct why_blocker *blk = kunit_kzalloc(test, sizeof(*blk), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blk);
	init_completion(&blk->running);
	init_completion(&blk->go);
	kthread_init_work(&blk->work, why_blocker_fn);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, why_blocker_release, blk), 0);
	kthread_queue_work(s->worst->builder->worker, &blk->work);
	wait_for_completion(&blk->running);
	return blk;
}

static void latscope_why_late_builder(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_IRQ, NS_PER_MS);
	const u32 more = 2 * LATSCOPE_FLIGHT_SLOTS;
	const struct latscope_flight_entry *gap;
	const struct latscope_why *why;
	struct latscope_session *s;
	struct latscope_flight *fl;
	struct latscope_worst *tmp;
	struct why_blocker *blk;
	u32 i, dropped = 0;
	u64 base;
	long head;

	setup.why_records = 2;
	s = latscope_kunit_session(test, &setup);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->worst);
	fl = s->worst->flight;
	tmp = kunit_kcalloc(test, setup.why_records, sizeof(*tmp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	blk = why_blocker_hold(test, s);

	/*
	 * Written by hand on the CPU's record (the session is not armed, so
	 * no probe writes there), newer than whatever it holds.
	 */
	base = ktime_get_mono_fast_ns();
	flight_write(fl, LATSCOPE_FL_SWITCH, base + 100);
	flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, base + 170);
	flight_write(fl, LATSCOPE_FL_IRQ_EXIT, base + 320);
	latscope_recorder_sample(s, 200, base + 150, false);
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), base + 150);

	/* The CPU goes on for twice its record while the builder waits. */
	for (i = 0; i < more; i++)
		dropped += !flight_write(fl, i & 1 ? LATSCOPE_FL_IRQ_EXIT : LATSCOPE_FL_IRQ_ENTRY,
					 base + 1000 + i);
	/* Room for all but the window's three entries, the SWITCH first. */
	KUNIT_EXPECT_EQ(test, dropped, more - (LATSCOPE_FLIGHT_SLOTS - 3));

	why_blocker_release(blk);
	KUNIT_ASSERT_EQ(test, latscope_recorder_export(s, tmp), 1);
	why = (const struct latscope_why *)tmp;
	KUNIT_EXPECT_EQ_MSG(test, why->flags & LATSCOPE_WHY_CUT, 0U, "flags %#x", why->flags);
	KUNIT_EXPECT_EQ(test, why->latency_ns, 200LL);
	KUNIT_EXPECT_EQ(test, why->window_ns, 200ULL);
	KUNIT_ASSERT_GE(test, why->nr_items, 1U);
	KUNIT_EXPECT_EQ(test, why->item[0].kind, (u32)LATSCOPE_WHY_IRQ);
	KUNIT_EXPECT_EQ(test, why->item[0].duration_ns, 150ULL);

	/* Built: nothing held, and the next entry comes after a GAP. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(fl->hold), 0ULL);
	KUNIT_EXPECT_TRUE(test, flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, base + 1000 + more));
	head = local_read(&fl->head);
	gap = flight_slot(fl, head - 1);
	KUNIT_EXPECT_EQ(test, gap->kind, (u16)LATSCOPE_FL_GAP);
	KUNIT_EXPECT_EQ(test, gap->arg, (u64)dropped);

	/* Later tests arm this record: let the clock pass what was made up. */
	while (ktime_get_mono_fast_ns() <= base + 1000 + more)
		cpu_relax();
}

/*
 * An EVENT written on another CPU, merged into the measured CPU's copy:
 * in its place by time, and the split known from it; not what that
 * CPU's irq interrupted.
 */
static void latscope_why_merged_event(struct kunit *test)
{
	struct why_case *c = why_case(test, WHY_RESPONDER, 12000);
	struct latscope_flight_entry e = {
		.ts = AT(7000), .arg = AT(0), .arg2 = AT(6000),
		.kind = LATSCOPE_FL_EVENT, .id = WHY_SESSION,
	};
	const struct latscope_why *why;

	why_switch(c, -1000, WHY_TASK_A);
	why_irq(c, 2000, 5000, 11, "eth0");
	why_switch(c, 10000, WHY_RESPONDER);
	why = why_build(c);
	KUNIT_EXPECT_EQ(test, why->flags & WHY_SPLIT, 0U);

	KUNIT_ASSERT_LT(test, c->n, (u32)WHY_ENTRIES);
	c->n = latscope_why_merge_event(c->ev, c->n, &e);
	KUNIT_ASSERT_EQ(test, c->n, 5U);
	KUNIT_EXPECT_EQ(test, c->ev[2].kind, (u16)LATSCOPE_FL_IRQ_EXIT);
	KUNIT_EXPECT_EQ(test, c->ev[3].kind, (u16)LATSCOPE_FL_EVENT);
	KUNIT_EXPECT_EQ(test, c->ev[4].kind, (u16)LATSCOPE_FL_SWITCH);
	why = why_build(c);
	KUNIT_EXPECT_EQ(test, why->flags, (u32)(WHY_SPLIT | LATSCOPE_WHY_NO_WHERE));
	why_expect_split(c, 6000, 1000, 3000, 2000);
	KUNIT_EXPECT_EQ(test, why->pid, 0);
	KUNIT_EXPECT_EQ(test, c->out.where, 0ULL);
	why_expect_sane(c);

	/* Stamped before every entry: first; after every one: last. */
	e.ts = AT(-2000);
	c->n = latscope_why_merge_event(c->ev, 1, &e);
	KUNIT_EXPECT_EQ(test, c->ev[0].kind, (u16)LATSCOPE_FL_EVENT);
	KUNIT_EXPECT_EQ(test, c->ev[1].kind, (u16)LATSCOPE_FL_SWITCH);
	e.ts = AT(20000);
	KUNIT_EXPECT_EQ(test, latscope_why_merge_event(c->ev, 2, &e), 3U);
	KUNIT_EXPECT_EQ(test, c->ev[2].ts, AT(20000));
}

struct why_remote {
	struct latscope_session *s;
	u64 ideal;
	u64 arrival;
};

static void why_remote_fn(void *data)
{
	struct why_remote *r = data;

	latscope_recorder_event(r->s, r->ideal, r->arrival);
}

/*
 * A GPIO line's interrupt handled on another CPU than the measured one
 * (here an IPI's handler stands for it): its EVENT is not in the measured
 * CPU's flight record, yet its sample's record has the irq part (its
 * wake-up is the handler's clock: not checked); a sample of another
 * event has none.
 */
static void latscope_why_remote_event(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_USER, NS_PER_MS);
	const struct latscope_why *why;
	struct latscope_session *s;
	struct latscope_worst *tmp;
	struct why_remote r = {};
	unsigned int other;
	u64 base;

	setup.why_records = 2;
	s = latscope_kunit_session(test, &setup);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->worst);
	other = cpumask_any_but(cpu_online_mask, s->worst->builder->cpu);
	if (other >= nr_cpu_ids)
		kunit_skip(test, "one CPU online: none other to take the irq");
	tmp = kunit_kcalloc(test, setup.why_records, sizeof(*tmp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmp);

	base = ktime_get_mono_fast_ns();
	flight_write(s->worst->flight, LATSCOPE_FL_SWITCH, base + 100);
	/* A user responder on the measured CPU, so the split has an irq part. */
	WRITE_ONCE(s->resp_pid, current->pid);
	WRITE_ONCE(s->resp_cpu, s->setup.cpu);
	r.s = s;
	r.ideal = base + 150;
	r.arrival = base + 400;
	KUNIT_ASSERT_EQ(test, smp_call_function_single(other, why_remote_fn, &r, 1), 0);
	latscope_recorder_sample(s, 500, r.ideal, false);
	latscope_recorder_sample(s, 300, base + 160, false);

	KUNIT_ASSERT_EQ(test, latscope_recorder_export(s, tmp), 2);
	why = (const struct latscope_why *)tmp;
	KUNIT_EXPECT_EQ(test, why[0].latency_ns, 500LL);
	KUNIT_EXPECT_TRUE_MSG(test, why[0].flags & LATSCOPE_WHY_HAS_IRQ, "flags %#x",
			      why[0].flags);
	KUNIT_EXPECT_EQ(test, why[0].irq_ns, 250LL);
	KUNIT_EXPECT_TRUE(test, why[0].flags & LATSCOPE_WHY_NO_WHERE);
	KUNIT_EXPECT_EQ(test, why[1].latency_ns, 300LL);
	KUNIT_EXPECT_FALSE(test, why[1].flags & LATSCOPE_WHY_HAS_IRQ);

	/* Later tests arm this record: let the clock pass what was made up. */
	while (ktime_get_mono_fast_ns() <= base + 1000)
		cpu_relax();
}

/* A result taken in a thread of its own, as the exporter's would be. */
struct why_snapshot {
	struct latscope_session *s;
	struct latscope_result res;
	u64 *cells;
	int ret;
	struct completion done;
};

static int why_snapshot_fn(void *data)
{
	struct why_snapshot *snap = data;

	snap->ret = latscope_session_snapshot(snap->s, &snap->res, &snap->cells);
	/* All: the test both polls and waits for it. */
	complete_all(&snap->done);
	return 0;
}

/* A user responder's PULSE in a thread of its own. */
struct why_pulse {
	struct latscope_session *s;
	int ret;
	struct completion done;
};

static int why_pulse_fn(void *data)
{
	struct why_pulse *p = data;
	struct latscope_pulse pulse = {};

	p->ret = latscope_session_pulse(p->s, &pulse);
	/* All: a timed wait that succeeds must not use up the later one's. */
	complete_all(&p->done);
	return 0;
}

/* The builder's worker has a work queued behind the set's: a flush's. */
static bool why_flush_waits(struct latscope_worst_set *set)
{
	struct kthread_worker *worker = set->builder->worker;
	unsigned long flags;
	bool waits;

	raw_spin_lock_irqsave(&worker->lock, flags);
	waits = !list_empty(&set->work.node) &&
		!list_is_last(&set->work.node, &worker->work_list);
	raw_spin_unlock_irqrestore(&worker->lock, flags);
	return waits;
}

/*
 * A snapshot waits for a record the builder has yet to build (the builder
 * starved: here, held by a work ahead of it); meanwhile the user
 * responder's PULSE, which takes the session's lock, goes through. With
 * the lock held across the wait, the PULSE would wait as long.
 */
static void latscope_why_snapshot_spares_pulse(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_USER, NS_PER_MS);
	const struct latscope_why *why;
	struct latscope_session *s;
	struct why_snapshot *snap;
	struct why_blocker *blk;
	struct why_pulse *p;
	struct task_struct *t;
	int tries;

	setup.why_records = 2;
	s = latscope_kunit_session(test, &setup);
	/* Started and stopped: PULSE then takes the lock and returns at once. */
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_stop(s), 0);
	snap = kunit_kzalloc(test, sizeof(*snap), GFP_KERNEL);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_ASSERT_NOT_NULL(test, p);
	blk = why_blocker_hold(test, s);
	/* A sample among the worst: its record is queued behind the blocker. */
	latscope_recorder_sample(s, 300, s->t0 + NS_PER_MS, false);

	snap->s = s;
	init_completion(&snap->done);
	t = kthread_run(why_snapshot_fn, snap, "latscope-kunit-snap");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* A condition, 10 s at most: the snapshot waits for the builder. */
	for (tries = 0; tries < 500 && !why_flush_waits(s->worst); tries++)
		msleep(20);
	KUNIT_EXPECT_TRUE_MSG(test, why_flush_waits(s->worst),
			      "the snapshot never waited for the builder");

	p->s = s;
	init_completion(&p->done);
	t = kthread_run(why_pulse_fn, p, "latscope-kunit-pulse");
	if (IS_ERR(t)) {
		why_blocker_release(blk);
		wait_for_completion(&snap->done);
		KUNIT_FAIL(test, "no PULSE thread: %ld", PTR_ERR(t));
		return;
	}
	/* A bound for the failure only: it returns at once when it can. */
	KUNIT_EXPECT_NE_MSG(test, wait_for_completion_timeout(&p->done, 10 * HZ), 0UL,
			    "PULSE waited for the snapshot's builder");
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&snap->done),
			       "the snapshot did not wait for its record");

	why_blocker_release(blk);
	wait_for_completion(&p->done);
	wait_for_completion(&snap->done);
	KUNIT_EXPECT_EQ(test, p->ret, -ECANCELED);
	KUNIT_ASSERT_EQ(test, snap->ret, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_kvfree,
							snap->cells), 0);
	/* The record was built before the snapshot returned: the builder dates it. */
	KUNIT_ASSERT_EQ(test, snap->res.why_count, 1U);
	why = (const struct latscope_why *)(snap->cells + latscope_result_counters(&s->setup));
	KUNIT_EXPECT_EQ(test, why->latency_ns, 300LL);
	KUNIT_EXPECT_NE(test, why->realtime_ns, 0ULL);
}

static void latscope_why_setup_refused(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);

	setup.why_records = LATSCOPE_WHY_MAX_RECORDS;
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), 0);

	setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);
	setup.why_records = LATSCOPE_WHY_MAX_RECORDS + 1;
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), -EINVAL);

	setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);
	setup.why_records = 1;
	setup.why_flags = 1;
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), -EINVAL);

	setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);
	setup.why_flags = 1U << 31;
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), -EINVAL);
}

#define WHY_RUN_PERIOD		(100 * NS_PER_US)
#define WHY_RUN_RECORDS		4
#define WHY_RUN_SAMPLES		200ULL
/* The parts come from two clocks (ktime_get_ns, the fast one of the probes). */
#define WHY_RUN_SLACK_NS	1000

/* The tracepoints a recorder on this kernel must have found. */
static u32 latscope_why_expected_seen(void)
{
	u32 seen = LATSCOPE_WHY_SEEN_IRQ | LATSCOPE_WHY_SEEN_SOFTIRQ |
		   LATSCOPE_WHY_SEEN_SWITCH | LATSCOPE_WHY_SEEN_IDLE |
		   LATSCOPE_WHY_SEEN_HRTIMER;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		return 0;
	if (IS_ENABLED(CONFIG_X86))
		seen |= LATSCOPE_WHY_SEEN_NMI;
	return seen;
}

static void latscope_why_real_run(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL,
							  WHY_RUN_PERIOD);
	struct latscope_result res = {};
	const struct latscope_why *why;
	struct latscope_session *s;
	u32 i, cut = 0;
	u64 *cells = NULL;
	int tries;

	setup.why_records = WHY_RUN_RECORDS;
	s = latscope_kunit_session(test, &setup);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	/* A condition, 30 s at most: not a guess at how fast the host runs it. */
	for (tries = 0; tries < 1500; tries++) {
		if (!latscope_session_snapshot(s, &res, NULL) &&
		    res.latency.samples >= WHY_RUN_SAMPLES)
			break;
		msleep(20);
	}
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_result(s, &res, &cells), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_kvfree, cells), 0);
	KUNIT_ASSERT_GE_MSG(test, res.latency.samples, WHY_RUN_SAMPLES,
			    "only %llu samples in 30 s at a %llu ns period",
			    res.latency.samples, WHY_RUN_PERIOD);

	KUNIT_EXPECT_EQ(test, res.why_records, (u32)WHY_RUN_RECORDS);
	KUNIT_EXPECT_EQ(test, res.why_record_size, (u32)sizeof(struct latscope_why));
	KUNIT_EXPECT_EQ(test, res.why_seen, latscope_why_expected_seen());
	KUNIT_ASSERT_EQ(test, res.why_count,
			(u32)min_t(u64, WHY_RUN_RECORDS, res.latency.samples));

	why = (const struct latscope_why *)(cells + latscope_result_counters(&s->setup));
	KUNIT_EXPECT_EQ(test, why[0].latency_ns, res.latency.max_ns);
	for (i = 0; i < res.why_count; i++) {
		const struct latscope_why *w = &why[i];
		s64 parts = w->irq_ns + w->wake_ns + w->sched_ns + w->run_ns;

		if (i)
			KUNIT_EXPECT_GE_MSG(test, why[i - 1].latency_ns, w->latency_ns,
					    "record %u", i);
		KUNIT_EXPECT_GE_MSG(test, w->ideal_ns, res.start_ns, "record %u", i);
		KUNIT_EXPECT_LE_MSG(test, w->latency_ns, res.latency.max_ns, "record %u", i);
		KUNIT_EXPECT_LE_MSG(test, w->nr_items, (u32)LATSCOPE_WHY_ITEMS, "record %u", i);
		kunit_info(test, "record %u: %lld ns, %llu ns into the run, flags %#x, parts %lld %lld %lld %lld, window %llu ns, %u items and %u more\n",
			   i, w->latency_ns, w->ideal_ns - res.start_ns, w->flags,
			   w->irq_ns, w->wake_ns, w->sched_ns, w->run_ns, w->window_ns,
			   w->nr_items, w->more_items);
		/*
		 * Cut (a window longer than the ring, or the run's first
		 * samples, older than anything in it): it covers less, and
		 * may have lost the EVENT or what the responder was doing.
		 */
		if (w->flags & LATSCOPE_WHY_CUT) {
			KUNIT_EXPECT_LT_MSG(test, w->window_ns, (u64)w->latency_ns,
					    "record %u", i);
			cut++;
		} else {
			KUNIT_EXPECT_EQ_MSG(test, w->window_ns, (u64)w->latency_ns,
					    "record %u", i);
		}
		if (!(res.why_seen & LATSCOPE_WHY_SEEN_SWITCH))
			continue;
		if (!(w->flags & LATSCOPE_WHY_CUT))
			KUNIT_EXPECT_EQ_MSG(test, w->flags & WHY_SPLIT, (u32)WHY_SPLIT,
					    "record %u: flags %#x", i, w->flags);
		else if (w->flags & LATSCOPE_WHY_HAS_IRQ)
			KUNIT_EXPECT_TRUE_MSG(test, w->flags & LATSCOPE_WHY_HAS_WAKE,
					      "record %u: flags %#x", i, w->flags);
		if ((w->flags & WHY_SPLIT) == WHY_SPLIT)
			KUNIT_EXPECT_LE_MSG(test, abs(parts - w->latency_ns),
					    (s64)WHY_RUN_SLACK_NS,
					    "record %u: %lld + %lld + %lld + %lld for %lld", i,
					    w->irq_ns, w->wake_ns, w->sched_ns, w->run_ns,
					    w->latency_ns);
	}
	kunit_info(test, "%llu samples, max %lld ns, %u records, %u cut, seen %#x\n",
		   res.latency.samples, res.latency.max_ns, res.why_count, cut,
		   res.why_seen);
}

static struct kunit_case latscope_why_cases[] = {
	KUNIT_CASE(latscope_flight_oldest_first),
	KUNIT_CASE(latscope_flight_wraps),
	KUNIT_CASE(latscope_flight_back_to_switch),
	KUNIT_CASE(latscope_flight_stops_at_writer),
	KUNIT_CASE(latscope_flight_hold_keeps_window),
	KUNIT_CASE(latscope_flight_oldest_hold_counts),
	KUNIT_CASE(latscope_worst_keeps_k_largest),
	KUNIT_CASE(latscope_worst_export_worst_first),
	KUNIT_CASE(latscope_worst_export_no_address),
	KUNIT_CASE(latscope_why_splits_latency),
	KUNIT_CASE(latscope_why_irq_context),
	KUNIT_CASE(latscope_why_idle_at_ideal),
	KUNIT_CASE(latscope_why_idle_in_irq_context),
	KUNIT_CASE(latscope_why_cut),
	KUNIT_CASE(latscope_why_more_items),
	KUNIT_CASE(latscope_why_tally_full),
	KUNIT_CASE(latscope_why_nmi_taken_out),
	KUNIT_CASE(latscope_why_own_timer_not_counted),
	KUNIT_CASE(latscope_why_softirq_names),
	KUNIT_CASE(latscope_why_busy_responder),
	KUNIT_CASE(latscope_why_task_from_event),
	KUNIT_CASE(latscope_why_no_event_no_blocking),
	KUNIT_CASE(latscope_why_late_builder),
	KUNIT_CASE(latscope_why_merged_event),
	KUNIT_CASE(latscope_why_remote_event),
	KUNIT_CASE(latscope_why_snapshot_spares_pulse),
	KUNIT_CASE(latscope_why_setup_refused),
	KUNIT_CASE_SLOW(latscope_why_real_run),
	{}
};

static struct kunit_suite latscope_why_suite = {
	.name = "latscope_why",
	.test_cases = latscope_why_cases,
};

kunit_test_suites(&latscope_why_suite);
