// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for latscope: statistics and histogram arithmetic, the
 * timeline and its overruns, bulk records, SETUP validation, and short real
 * runs of every context, two sessions at once and a CPU going offline.
 *
 * Run with: make kunit (tools/testing/kunit/kunit.py from linux-source).
 */
#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>

#include "latscope.h"
#include "latscope_kunit.h"

/* ---- statistics and histogram ---- */

/* A tail for a test's accumulator: too big for its stack. */
static u64 *latscope_test_tail(struct kunit *test)
{
	u64 *tail = kunit_kcalloc(test, LATSCOPE_TAIL_BUCKETS, sizeof(u64),
				  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tail);
	return tail;
}

static void latscope_hist_cell_bounds(struct kunit *test)
{
	u64 cells[4] = {};
	struct latscope_acc acc;

	latscope_acc_init(&acc, cells, 4, 1000, latscope_test_tail(test));
	latscope_acc_add(&acc, 0, 1);
	latscope_acc_add(&acc, 999, 2);
	latscope_acc_add(&acc, 1000, 3);
	latscope_acc_add(&acc, 3999, 4);
	latscope_acc_add(&acc, 4000, 5);	/* first value past the last cell */
	latscope_acc_add(&acc, -1, 6);

	KUNIT_EXPECT_EQ(test, cells[0], 2ULL);
	KUNIT_EXPECT_EQ(test, cells[1], 1ULL);
	KUNIT_EXPECT_EQ(test, cells[2], 0ULL);
	KUNIT_EXPECT_EQ(test, cells[3], 1ULL);
	KUNIT_EXPECT_EQ(test, acc.overflow, 1ULL);
	KUNIT_EXPECT_EQ(test, acc.tail[latscope_tail_index(4000)], 1ULL);
	KUNIT_EXPECT_EQ(test, acc.underflow, 1ULL);
	KUNIT_EXPECT_EQ(test, acc.samples, 6ULL);
	KUNIT_EXPECT_EQ(test, acc.min, -1LL);
	KUNIT_EXPECT_EQ(test, acc.max, 4000LL);
	KUNIT_EXPECT_EQ(test, acc.sum, 0LL + 999 + 1000 + 3999 + 4000 - 1);
	KUNIT_EXPECT_EQ(test, acc.peak, 5ULL);
}

static void latscope_negative_only(struct kunit *test)
{
	u64 cells[2] = {};
	struct latscope_acc acc;
	struct latscope_stats out;

	latscope_acc_init(&acc, cells, 2, 10, latscope_test_tail(test));
	latscope_acc_add(&acc, -30, 1);
	latscope_acc_add(&acc, -10, 2);
	latscope_acc_export(&acc, &out);

	KUNIT_EXPECT_EQ(test, out.min_ns, -30LL);
	KUNIT_EXPECT_EQ(test, out.max_ns, -10LL);
	KUNIT_EXPECT_EQ(test, out.sum_ns, -40LL);
	KUNIT_EXPECT_EQ(test, out.sum_sq_lo, 1000ULL);
	KUNIT_EXPECT_EQ(test, out.underflow, 2ULL);
	KUNIT_EXPECT_EQ(test, cells[0] + cells[1], 0ULL);
}

static void latscope_sums_past_32_bits(struct kunit *test)
{
	u64 cells[1] = {};
	struct latscope_acc acc;
	int i;

	latscope_acc_init(&acc, cells, 1, 1000, latscope_test_tail(test));
	for (i = 0; i < 5; i++)
		latscope_acc_add(&acc, 3000000000LL, i);
	KUNIT_EXPECT_EQ(test, acc.sum, 15000000000LL);
	/* 5 * (3e9)^2 = 4.5e19 = 2 * 2^64 + 8106511852580896768 */
	KUNIT_EXPECT_EQ(test, acc.sum_sq_hi, 2ULL);
	KUNIT_EXPECT_EQ(test, acc.sum_sq_lo, 8106511852580896768ULL);
	KUNIT_EXPECT_EQ(test, acc.overflow, 5ULL);
}

static void latscope_square_cross_terms(struct kunit *test)
{
	u64 cells[1] = {};
	struct latscope_acc acc;

	latscope_acc_init(&acc, cells, 1, 1, latscope_test_tail(test));
	/* (2^32 + 1)^2 = 2^64 + 2^33 + 1 */
	latscope_acc_add(&acc, (1LL << 32) + 1, 0);
	KUNIT_EXPECT_EQ(test, acc.sum_sq_hi, 1ULL);
	KUNIT_EXPECT_EQ(test, acc.sum_sq_lo, (1ULL << 33) + 1);

	latscope_acc_init(&acc, cells, 1, 1, latscope_test_tail(test));
	/* (-2^63)^2 = 2^126 */
	latscope_acc_add(&acc, S64_MIN, 0);
	KUNIT_EXPECT_EQ(test, acc.sum_sq_hi, 1ULL << 62);
	KUNIT_EXPECT_EQ(test, acc.sum_sq_lo, 0ULL);
	KUNIT_EXPECT_EQ(test, acc.underflow, 1ULL);
}

static void latscope_export_empty(struct kunit *test)
{
	u64 cells[1] = {};
	struct latscope_acc acc;
	struct latscope_stats out;

	latscope_acc_init(&acc, cells, 1, 1, latscope_test_tail(test));
	latscope_acc_export(&acc, &out);
	KUNIT_EXPECT_EQ(test, out.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, out.min_ns, 0LL);
	KUNIT_EXPECT_EQ(test, out.max_ns, 0LL);
}

/* The number of samples in a tail. */
static u64 latscope_tail_sum(const u64 *tail)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < LATSCOPE_TAIL_BUCKETS; i++)
		sum += tail[i];
	return sum;
}

/* Every bucket holds its own bounds and no more, 1/16 of them wide at most. */
static void latscope_tail_buckets(struct kunit *test)
{
	const u32 sub = 1U << LATSCOPE_TAIL_SUB_BITS;
	u64 lo, next;
	u32 i;

	KUNIT_EXPECT_EQ(test, latscope_tail_lo(0), 0ULL);
	for (i = 0; i < LATSCOPE_TAIL_BUCKETS; i++) {
		lo = latscope_tail_lo(i);
		next = latscope_tail_lo(i + 1);
		KUNIT_ASSERT_GT_MSG(test, next, lo, "bucket %u", i);
		KUNIT_EXPECT_EQ_MSG(test, latscope_tail_index(lo), i, "lo of %u", i);
		KUNIT_EXPECT_EQ_MSG(test, latscope_tail_index(next - 1), i,
				    "last of %u", i);
		if (i >= sub)
			KUNIT_EXPECT_LE_MSG(test, (next - lo) * sub, lo,
					    "width of %u", i);
	}
	/* The last bucket ends at 2^63: every s64 latency has one. */
	KUNIT_EXPECT_EQ(test, latscope_tail_lo(LATSCOPE_TAIL_BUCKETS), 1ULL << 63);
	KUNIT_EXPECT_EQ(test, latscope_tail_index(S64_MAX), LATSCOPE_TAIL_BUCKETS - 1);
	KUNIT_EXPECT_EQ(test, latscope_tail_index(U64_MAX), LATSCOPE_TAIL_BUCKETS - 1);
}

/* Each power of two starts a bucket; the value before it ends one. */
static void latscope_tail_power_edges(struct kunit *test)
{
	const u32 sub = 1U << LATSCOPE_TAIL_SUB_BITS;
	u64 v;
	u32 k, i;

	for (k = 0; k < 63; k++) {
		v = 1ULL << k;
		i = latscope_tail_index(v);
		KUNIT_EXPECT_EQ_MSG(test, latscope_tail_lo(i), v, "2^%u", k);
		if (k >= LATSCOPE_TAIL_SUB_BITS)
			KUNIT_EXPECT_EQ_MSG(test, i,
					    (k - LATSCOPE_TAIL_SUB_BITS + 1) * sub,
					    "2^%u", k);
		if (v > 1)
			KUNIT_EXPECT_EQ_MSG(test, latscope_tail_index(v - 1), i - 1,
					    "2^%u - 1", k);
		KUNIT_EXPECT_EQ_MSG(test, latscope_tail_index(v + 1),
				    k <= LATSCOPE_TAIL_SUB_BITS ? i + 1 : i,
				    "2^%u + 1", k);
	}
}

/*
 * Only samples past the last cell reach the tail: not a negative one, not
 * one in a cell; the first past it, a huge one and the largest do.
 */
static void latscope_tail_takes_overflow(struct kunit *test)
{
	u64 cells[2] = {}, *tail = latscope_test_tail(test);
	struct latscope_acc acc;

	latscope_acc_init(&acc, cells, 2, 1000, tail);
	latscope_acc_add(&acc, -5, 1);
	latscope_acc_add(&acc, S64_MIN, 2);
	latscope_acc_add(&acc, 1999, 3);
	KUNIT_EXPECT_EQ(test, latscope_tail_sum(tail), 0ULL);
	latscope_acc_add(&acc, 2000, 4);
	latscope_acc_add(&acc, 10 * NSEC_PER_SEC, 5);
	latscope_acc_add(&acc, S64_MAX, 6);
	KUNIT_EXPECT_EQ(test, tail[latscope_tail_index(2000)], 1ULL);
	KUNIT_EXPECT_EQ(test, tail[latscope_tail_index(10 * NSEC_PER_SEC)], 1ULL);
	KUNIT_EXPECT_EQ(test, tail[LATSCOPE_TAIL_BUCKETS - 1], 1ULL);
	KUNIT_EXPECT_EQ(test, latscope_tail_sum(tail), acc.overflow);
	KUNIT_EXPECT_EQ(test, acc.underflow, 2ULL);
	/* A new run starts with empty cells and tail. */
	latscope_acc_init(&acc, cells, 2, 1000, tail);
	KUNIT_EXPECT_EQ(test, latscope_tail_sum(tail) + cells[0] + cells[1], 0ULL);
}

/*
 * Percentile @ppm (per million) of @acc off its cells and tail, as the CLI
 * reads it: the upper bound of the cell or bucket that holds rank
 * ceil(samples * ppm / 10^6), at most the maximum.
 */
static u64 latscope_test_percentile(const struct latscope_acc *acc, u64 ppm)
{
	u64 rank = div64_u64(acc->samples * ppm + 999999, 1000000);
	u64 seen = acc->underflow;
	u32 i;

	for (i = 0; i < acc->nr_cells; i++) {
		seen += acc->cells[i];
		if (seen >= rank)
			return (u64)(i + 1) * acc->cell_ns;
	}
	for (i = 0; i < LATSCOPE_TAIL_BUCKETS; i++) {
		seen += acc->tail[i];
		if (seen >= rank)
			return min_t(u64, latscope_tail_lo(i + 1), acc->max);
	}
	return acc->max;
}

/* Sample i of n in latscope_tail_percentiles(): 100 us to 100 s. */
static u64 latscope_test_pareto(u64 i, u64 n)
{
	return div64_u64(100000 * n, n - i);
}

/*
 * A million samples from 100 us to 100 s, half in a 200 us histogram, a
 * Pareto tail past it (p99 at 10 ms, each further 9 ten times higher):
 * each percentile's bound is at or above the exact value, the sample of
 * its rank, and at most 1/16 of it more.
 */
static void latscope_tail_percentiles(struct kunit *test)
{
	static const u64 ppm[] = { 500000, 990000, 999000, 999900, 999990, 999999 };
	const u64 n = 1000000;
	u64 *cells = kunit_kcalloc(test, 200, sizeof(u64), GFP_KERNEL);
	u64 *tail = latscope_test_tail(test);
	struct latscope_acc acc;
	u64 i, rank, exact, bound;
	u32 p;

	KUNIT_ASSERT_NOT_NULL(test, cells);
	latscope_acc_init(&acc, cells, 200, 1000, tail);
	for (i = 0; i < n; i++)
		latscope_acc_add(&acc, latscope_test_pareto(i, n), i);
	KUNIT_EXPECT_EQ(test, acc.overflow, n / 2);
	KUNIT_EXPECT_EQ(test, latscope_tail_sum(tail), acc.overflow);
	for (p = 0; p < ARRAY_SIZE(ppm); p++) {
		rank = div64_u64(n * ppm[p] + 999999, 1000000);
		exact = latscope_test_pareto(rank - 1, n);
		bound = latscope_test_percentile(&acc, ppm[p]);
		kunit_info(test, "%llu ppm: exact %llu ns, bound %llu ns (+%llu ppm)\n",
			   ppm[p], exact, bound,
			   div64_u64((bound - exact) * 1000000, exact));
		KUNIT_EXPECT_GE(test, bound, exact);
		KUNIT_EXPECT_LE(test, (bound - exact) << LATSCOPE_TAIL_SUB_BITS, exact);
	}
}

/* Takes the oldest record, as a read() of one record would. */
static bool latscope_ring_pop(struct latscope_ring *ring,
			      struct latscope_bulk *rec)
{
	struct latscope_ring_pos pos;

	return latscope_ring_peek(ring, rec, 1, &pos) &&
	       latscope_ring_consume(ring, &pos, 1);
}

static void latscope_ring_full_counts_drops(struct kunit *test)
{
	struct latscope_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	struct latscope_bulk rec = {};
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ring);
	latscope_ring_init(ring);
	KUNIT_EXPECT_TRUE(test, latscope_ring_empty(ring));
	for (i = 0; i < LATSCOPE_BULK_SLOTS; i++) {
		rec.second = i;
		KUNIT_EXPECT_TRUE(test, latscope_ring_push(ring, &rec));
	}
	rec.second = 1000;
	KUNIT_EXPECT_FALSE(test, latscope_ring_push(ring, &rec));
	KUNIT_EXPECT_EQ(test, ring->dropped, 1ULL);

	for (i = 0; i < LATSCOPE_BULK_SLOTS; i++) {
		KUNIT_ASSERT_TRUE(test, latscope_ring_pop(ring, &rec));
		KUNIT_EXPECT_EQ(test, rec.second, (u64)i);
	}
	KUNIT_EXPECT_FALSE(test, latscope_ring_pop(ring, &rec));
	KUNIT_EXPECT_TRUE(test, latscope_ring_empty(ring));
}

/*
 * Readers copy records out unlocked and take them afterwards: a reader
 * that lost the race to another one, or to a reset, takes nothing.
 */
static void latscope_ring_consumers_race(struct kunit *test)
{
	struct latscope_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	struct latscope_bulk recs[4] = {}, rec = {};
	struct latscope_ring_pos a, b;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ring);
	latscope_ring_init(ring);
	for (i = 0; i < 3; i++) {
		rec.second = i;
		KUNIT_ASSERT_TRUE(test, latscope_ring_push(ring, &rec));
	}
	/* Two readers see the same records; the first to take them wins. */
	KUNIT_EXPECT_EQ(test, latscope_ring_peek(ring, recs, 4, &a), 3U);
	KUNIT_EXPECT_EQ(test, latscope_ring_peek(ring, recs, 2, &b), 2U);
	KUNIT_EXPECT_TRUE(test, latscope_ring_consume(ring, &b, 2));
	KUNIT_EXPECT_FALSE(test, latscope_ring_consume(ring, &a, 3));
	/* The loser peeks again and gets what is left, nothing twice. */
	KUNIT_EXPECT_EQ(test, latscope_ring_peek(ring, recs, 4, &a), 1U);
	KUNIT_EXPECT_EQ(test, recs[0].second, 2ULL);
	/* A reset (SETUP, START) between a peek and its take wins too. */
	latscope_ring_reset(ring);
	KUNIT_EXPECT_FALSE(test, latscope_ring_consume(ring, &a, 1));
	KUNIT_EXPECT_TRUE(test, latscope_ring_empty(ring));
	/* Even when the new run's ring is back at the same index. */
	rec.second = 7;
	KUNIT_ASSERT_TRUE(test, latscope_ring_push(ring, &rec));
	KUNIT_EXPECT_EQ(test, latscope_ring_peek(ring, recs, 4, &a), 1U);
	latscope_ring_reset(ring);
	KUNIT_ASSERT_TRUE(test, latscope_ring_push(ring, &rec));
	KUNIT_EXPECT_FALSE(test, latscope_ring_consume(ring, &a, 1));
	KUNIT_EXPECT_TRUE(test, latscope_ring_pop(ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.second, 7ULL);
}

#define SNAP_CELLS	256

struct latscope_snap_writer {
	struct latscope_acc acc;
	u64 cells[SNAP_CELLS];
	u64 tail[LATSCOPE_TAIL_BUCKETS];
	bool stop;
};

/* Adds samples as fast as it can, some in no cell, until told to stop. */
static int latscope_snap_write(void *data)
{
	struct latscope_snap_writer *w = data;
	s64 lat = 0;

	while (!READ_ONCE(w->stop)) {
		latscope_acc_add(&w->acc, lat % (SNAP_CELLS * 1100) - 100, 0);
		lat += 7919;
		if (!(lat & 0xffff))
			cond_resched();
	}
	return 0;
}

/*
 * Snapshots taken while another CPU adds samples: each one's histogram,
 * underflow and overflow add up to its sample count, its tail to its
 * overflow.
 */
static void latscope_snapshot_consistent(struct kunit *test)
{
	struct latscope_snap_writer *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	u64 *cells = kunit_kcalloc(test, SNAP_CELLS, sizeof(u64), GFP_KERNEL);
	u64 *tail = latscope_test_tail(test), tail_total;
	int taken = 0, busy = 0, bad = 0, i, c;
	struct latscope_stats st;
	struct task_struct *t;
	u64 total, last = 0;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, cells);
	latscope_acc_init(&w->acc, w->cells, SNAP_CELLS, 1000, w->tail);
	t = kthread_run(latscope_snap_write, w, "latscope-snap");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* Snapshots start once the writer does, however late it is scheduled. */
	for (i = 0; i < 10000 && !READ_ONCE(w->acc.samples); i++)
		usleep_range(1000, 2000);
	for (i = 0; i < 2000; i++) {
		if (latscope_acc_snapshot(&w->acc, &st, cells, tail)) {
			busy++;
			continue;
		}
		taken++;
		for (c = 0, total = st.underflow + st.overflow; c < SNAP_CELLS; c++)
			total += cells[c];
		for (c = 0, tail_total = 0; c < LATSCOPE_TAIL_BUCKETS; c++)
			tail_total += tail[c];
		bad += total != st.samples || tail_total != st.overflow ||
		       st.samples < last;
		last = st.samples;
		if (!(i % 100))
			cond_resched();
	}
	WRITE_ONCE(w->stop, true);
	kthread_stop(t);
	kunit_info(test, "%d snapshots, %d overtaken, samples written %llu\n",
		   taken, busy, w->acc.samples);
	KUNIT_EXPECT_GT(test, taken, 0);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_GT(test, last, 0ULL);
}

static struct kunit_case latscope_stats_cases[] = {
	KUNIT_CASE(latscope_hist_cell_bounds),
	KUNIT_CASE(latscope_tail_buckets),
	KUNIT_CASE(latscope_tail_power_edges),
	KUNIT_CASE(latscope_tail_takes_overflow),
	KUNIT_CASE(latscope_tail_percentiles),
	KUNIT_CASE(latscope_negative_only),
	KUNIT_CASE(latscope_sums_past_32_bits),
	KUNIT_CASE(latscope_square_cross_terms),
	KUNIT_CASE(latscope_export_empty),
	KUNIT_CASE(latscope_ring_full_counts_drops),
	KUNIT_CASE(latscope_ring_consumers_race),
	KUNIT_CASE_SLOW(latscope_snapshot_consistent),
	{}
};

static struct kunit_suite latscope_stats_suite = {
	.name = "latscope_stats",
	.test_cases = latscope_stats_cases,
};

/* ---- sessions, shared by the suites below ---- */

void latscope_kunit_destroy(void *s)
{
	latscope_session_destroy(s);
}

struct latscope_setup latscope_base_setup(u32 context, u64 period_ns)
{
	struct latscope_setup setup = {
		.size = sizeof(setup),
		.context = context,
		.period_ns = period_ns,
		.cpu = cpumask_first(cpu_online_mask),
		.flags = LATSCOPE_SETUP_NO_WARMUP,
	};

	return setup;
}

/* A session set up with @setup, destroyed when the test ends. */
struct latscope_session *
latscope_kunit_session(struct kunit *test, const struct latscope_setup *setup)
{
	struct latscope_session *s = latscope_session_create();

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, setup), 0);
	return s;
}

struct latscope_result latscope_kunit_result(struct kunit *test,
					     struct latscope_session *s)
{
	struct latscope_result res = {};

	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), 0);
	return res;
}

/* ---- timeline, overruns, warm-up, bulk records (synthetic events) ---- */

/* A session whose timeline starts at T0_NOW, fed by hand, never started. */
static struct latscope_session *latscope_synthetic(struct kunit *test,
						   u32 context, u64 period)
{
	struct latscope_setup setup = latscope_base_setup(context, period);
	struct latscope_session *s = latscope_kunit_session(test, &setup);

	latscope_timeline_init(s, T0_NOW);
	return s;
}

static void latscope_warmup_rounds_up(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_IRQ, 1000 * NS_PER_US);
	struct latscope_session *s;

	setup.flags = 0;
	setup.warmup_ns = 2500 * NS_PER_US;
	s = latscope_kunit_session(test, &setup);
	latscope_timeline_init(s, T0_NOW);
	KUNIT_EXPECT_EQ(test, s->t0, T0_NOW + 1000 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, s->warmup_end, s->t0 + 3000 * NS_PER_US);

	setup.warmup_ns = 0;
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup), 0);
	latscope_timeline_init(s, T0_NOW);
	KUNIT_EXPECT_EQ(test, s->warmup_end, s->t0 + NSEC_PER_SEC);

	setup.flags = LATSCOPE_SETUP_NO_WARMUP;
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup), 0);
	latscope_timeline_init(s, T0_NOW);
	KUNIT_EXPECT_EQ(test, s->warmup_end, s->t0);
}

static void latscope_missed_periods_are_overruns(struct kunit *test)
{
	u64 period = 100 * NS_PER_US;
	struct latscope_session *s = latscope_synthetic(test, LATSCOPE_CTX_IRQ, period);
	struct latscope_result res;
	u64 ideal;

	ideal = s->t0;
	latscope_event(s, ideal, ideal + 10 * NS_PER_US, 0);
	ideal += period;
	/* 350 us late: three later periods passed before the irq saw it. */
	latscope_event(s, ideal, ideal + 350 * NS_PER_US, 3);
	ideal += 4 * period;
	latscope_event(s, ideal, ideal + 20 * NS_PER_US, 0);
	latscope_measure_flush(s);
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.events, 6ULL);
	KUNIT_EXPECT_EQ(test, res.overruns, 3ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 3ULL);
	/* The late event keeps its full lateness. */
	KUNIT_EXPECT_EQ(test, res.latency.max_ns, (s64)(350 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, res.latency.peak_ns, s->t0 + period);
	KUNIT_EXPECT_EQ(test, res.latency.samples + res.overruns, res.events);
}

static void latscope_missed_whole_periods(struct kunit *test)
{
	u64 p = 1000, ideal = T0_NOW;

	KUNIT_EXPECT_EQ(test, latscope_missed(ideal, ideal - 5, p), 0ULL);
	KUNIT_EXPECT_EQ(test, latscope_missed(ideal, ideal, p), 0ULL);
	KUNIT_EXPECT_EQ(test, latscope_missed(ideal, ideal + p - 1, p), 0ULL);
	KUNIT_EXPECT_EQ(test, latscope_missed(ideal, ideal + p, p), 1ULL);
	KUNIT_EXPECT_EQ(test, latscope_missed(ideal, ideal + 3700, p), 3ULL);
	/* 4 ms late (a low-res tick) at 1 ms: four later ideals passed. */
	KUNIT_EXPECT_EQ(test, latscope_missed(ideal, ideal + 4 * NS_PER_MS, NS_PER_MS), 4ULL);
}

static void latscope_stalled_timer_counted_at_stop(struct kunit *test)
{
	u64 period = 100 * NS_PER_US;
	struct latscope_session *s = latscope_synthetic(test, LATSCOPE_CTX_IRQ, period);
	u64 next;

	next = s->t0 + 10 * period;
	/* Stopped 0.9 periods after the next ideal: that event is in flight. */
	latscope_timeline_close(s, next, next + 90 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, s->events, 0ULL);
	/* 2.5 periods: two ideals are a whole period late, never handled. */
	latscope_timeline_close(s, next, next + 250 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, s->events, 2ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->overruns), 2LL);
}

static void latscope_warmup_excluded(struct kunit *test)
{
	u64 period = 100 * NS_PER_US;
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_USER, period);
	struct latscope_session *s;
	struct latscope_result res;
	u64 ideal;
	int i;

	setup.flags = 0;
	setup.warmup_ns = 3 * period;
	s = latscope_kunit_session(test, &setup);
	latscope_timeline_init(s, T0_NOW);
	for (i = 0, ideal = s->t0; i < 5; i++, ideal += period) {
		latscope_event(s, ideal, ideal + 1000, 0);
		latscope_record(s, i < 3 ? 999999 : 2000, ideal);
		atomic64_set(&s->pending, 0);	/* the responder took it */
	}
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.events, 2ULL);
	KUNIT_EXPECT_EQ(test, res.irq.samples, 2ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 2ULL);
	KUNIT_EXPECT_EQ(test, res.latency.max_ns, 2000LL);
	KUNIT_EXPECT_EQ(test, res.irq.max_ns, 1000LL);
}

static void latscope_busy_responder_overruns(struct kunit *test)
{
	u64 period = 100 * NS_PER_US;
	struct latscope_session *s = latscope_synthetic(test, LATSCOPE_CTX_USER, period);
	struct latscope_result res;
	u64 ideal;

	ideal = s->t0;
	latscope_event(s, ideal, ideal + 1000, 0);
	/* The responder has not taken the first event: this one is missed. */
	latscope_event(s, ideal + period, ideal + period + 1000, 0);
	KUNIT_EXPECT_EQ(test, (u64)atomic64_read(&s->pending), ideal);
	/* It answers the oldest event, with its full lateness. */
	latscope_record(s, 2 * period, atomic64_xchg(&s->pending, 0));
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.events, 2ULL);
	KUNIT_EXPECT_EQ(test, res.overruns, 1ULL);
	KUNIT_EXPECT_EQ(test, res.irq.samples, 2ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 1ULL);
	KUNIT_EXPECT_EQ(test, res.latency.min_ns, (s64)(2 * period));
	KUNIT_EXPECT_EQ(test, res.hist_count, 2U);
}

static void latscope_bulk_one_record_per_second(struct kunit *test)
{
	u64 period = 100 * NS_PER_MS;
	struct latscope_session *s = latscope_synthetic(test, LATSCOPE_CTX_IRQ, period);
	struct latscope_bulk rec;
	u64 ideal;
	int i;

	/* 2.5 s of events, latency 1..10 us within each second. */
	for (i = 0, ideal = s->t0; i < 25; i++, ideal += period)
		latscope_event(s, ideal, ideal + (i % 10 + 1) * NS_PER_US,
			       i == 12 ? 2 : 0);
	latscope_measure_flush(s);

	KUNIT_ASSERT_TRUE(test, latscope_ring_pop(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.second, 0ULL);
	KUNIT_EXPECT_EQ(test, rec.samples, 10ULL);
	KUNIT_EXPECT_EQ(test, rec.min_ns, (s64)NS_PER_US);
	KUNIT_EXPECT_EQ(test, rec.max_ns, (s64)(10 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, rec.avg_ns, 5500LL);
	KUNIT_EXPECT_EQ(test, rec.overruns, 0ULL);

	KUNIT_ASSERT_TRUE(test, latscope_ring_pop(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.second, 1ULL);
	KUNIT_EXPECT_EQ(test, rec.samples, 10ULL);
	KUNIT_EXPECT_EQ(test, rec.overruns, 2ULL);

	KUNIT_ASSERT_TRUE(test, latscope_ring_pop(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.second, 2ULL);
	KUNIT_EXPECT_EQ(test, rec.samples, 5ULL);
	KUNIT_EXPECT_EQ(test, rec.max_ns, (s64)(5 * NS_PER_US));
	KUNIT_EXPECT_TRUE(test, latscope_ring_empty(&s->ring));
}

static void latscope_bulk_drops_counted(struct kunit *test)
{
	u64 period = 500 * NS_PER_MS;
	struct latscope_session *s = latscope_synthetic(test, LATSCOPE_CTX_IRQ, period);
	struct latscope_result res;
	u64 ideal;
	int i;

	/* 100 seconds with nobody reading: the ring keeps the first 64. */
	for (i = 0, ideal = s->t0; i < 200; i++, ideal += period)
		latscope_event(s, ideal, ideal + NS_PER_US, 0);
	latscope_measure_flush(s);
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.bulk_dropped, 100ULL - LATSCOPE_BULK_SLOTS);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 200ULL);
}

static void latscope_trace_threshold_fires_once(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_IRQ, NS_PER_MS);
	struct latscope_session *s;
	struct latscope_result res;

	setup.trace_threshold_ns = 500;
	s = latscope_kunit_session(test, &setup);
	latscope_timeline_init(s, T0_NOW);
	latscope_record(s, 500, s->t0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->trace_fired), 0);
	latscope_record(s, 700, s->t0 + NS_PER_MS);
	latscope_record(s, 900, s->t0 + 2 * NS_PER_MS);
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_TRUE(test, res.flags & LATSCOPE_RESULT_TRACE_FIRED);
	KUNIT_EXPECT_EQ(test, res.trace_sample_ns, 700LL);
}

/*
 * What one irq-context sample costs the measurement path (statistics,
 * histogram, per-second record): 200000 events at 100 kHz, timed with
 * interrupts off. The figure is printed, not asserted: under an emulator
 * it is not the hardware's.
 */
/*
 * Time of @n events of latency base + (i % 1000) * step through the irq
 * context's whole path (timeline, statistics, bulk second), in ns.
 */
static u64 latscope_time_samples(struct kunit *test, u64 n, s64 base, s64 step)
{
	u64 period = 10 * NS_PER_US, i, ideal, t;
	struct latscope_session *s = latscope_synthetic(test, LATSCOPE_CTX_IRQ, period);
	struct latscope_result res;
	unsigned long flags;

	local_irq_save(flags);
	t = ktime_get_ns();
	for (i = 0, ideal = s->t0; i < n; i++, ideal += period)
		latscope_event(s, ideal, ideal + base + (i % 1000) * step, 0);
	t = ktime_get_ns() - t;
	local_irq_restore(flags);
	latscope_measure_flush(s);
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.latency.samples, n - div64_u64(s->warmup_end - s->t0, period));
	return t;
}

/*
 * The fastest of five timings of each kind, interleaved: TCG and a loaded
 * host stretch single timings by a factor of four at times.
 */
static void latscope_sample_cost(struct kunit *test)
{
	u64 n = 200000, in = U64_MAX, past = U64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		/* 0 .. 9.99 us: in the 200 us linear histogram. */
		in = min(in, latscope_time_samples(test, n, 0, 10));
		/* 200 us .. 1.2 s: all past it. */
		past = min(past, latscope_time_samples(test, n, 200 * NS_PER_US,
						       1200 * NS_PER_US));
	}
	kunit_info(test, "per-sample cost: %llu ns in the histogram, %llu ns past it (fastest of 5 x %llu events)\n",
		   div64_u64(in, n), div64_u64(past, n), n);
}

static struct kunit_case latscope_timeline_cases[] = {
	KUNIT_CASE(latscope_warmup_rounds_up),
	KUNIT_CASE(latscope_missed_periods_are_overruns),
	KUNIT_CASE(latscope_missed_whole_periods),
	KUNIT_CASE(latscope_stalled_timer_counted_at_stop),
	KUNIT_CASE(latscope_warmup_excluded),
	KUNIT_CASE(latscope_busy_responder_overruns),
	KUNIT_CASE(latscope_bulk_one_record_per_second),
	KUNIT_CASE(latscope_bulk_drops_counted),
	KUNIT_CASE(latscope_trace_threshold_fires_once),
	KUNIT_CASE(latscope_sample_cost),
	{}
};

static struct kunit_suite latscope_timeline_suite = {
	.name = "latscope_timeline",
	.test_cases = latscope_timeline_cases,
};

/* ---- SETUP validation ---- */

struct latscope_setup_case {
	const char *desc;
	void (*mutate)(struct latscope_setup *setup);
	int ret;
};

/* One mutation of a valid setup, named for the table below. */
#define SETUP_MUTATION(name, body)					\
	static void setup_##name(struct latscope_setup *setup) { body; }

SETUP_MUTATION(valid, (void)setup)
SETUP_MUTATION(period_min, setup->period_ns = LATSCOPE_MIN_PERIOD_NS)
SETUP_MUTATION(period_max, setup->period_ns = LATSCOPE_MAX_PERIOD_NS)
SETUP_MUTATION(cells_max, setup->hist_cells = LATSCOPE_MAX_HIST_CELLS)
SETUP_MUTATION(cells_1ms_100ns, setup->hist_cells = 10000; setup->hist_cell_ns = 100)
SETUP_MUTATION(priority_99, setup->priority = 99)
SETUP_MUTATION(warmup_max, setup->flags = 0; setup->warmup_ns = LATSCOPE_MAX_WARMUP_NS)
SETUP_MUTATION(threshold_max, setup->trace_threshold_ns = S64_MAX)
SETUP_MUTATION(context_bad, setup->context = LATSCOPE_CTX_USER + 1)
SETUP_MUTATION(period_short, setup->period_ns = LATSCOPE_MIN_PERIOD_NS - 1)
SETUP_MUTATION(period_long, setup->period_ns = LATSCOPE_MAX_PERIOD_NS + 1)
SETUP_MUTATION(period_zero, setup->period_ns = 0)
SETUP_MUTATION(cpu_past_ids, setup->cpu = nr_cpu_ids)
SETUP_MUTATION(cpu_huge, setup->cpu = U32_MAX)
SETUP_MUTATION(priority_100, setup->priority = 100)
SETUP_MUTATION(cells_too_many, setup->hist_cells = LATSCOPE_MAX_HIST_CELLS + 1)
SETUP_MUTATION(cell_too_wide, setup->hist_cell_ns = LATSCOPE_MAX_CELL_NS + 1)
SETUP_MUTATION(flags_unknown, setup->flags |= 1U << 31)
SETUP_MUTATION(no_warmup_with_warmup, setup->warmup_ns = 1)
SETUP_MUTATION(warmup_too_long, setup->flags = 0; setup->warmup_ns = LATSCOPE_MAX_WARMUP_NS + 1)
SETUP_MUTATION(threshold_negative, setup->trace_threshold_ns = (u64)S64_MAX + 1)
SETUP_MUTATION(source_unknown, setup->source = LATSCOPE_SRC_GPIO + 1)
SETUP_MUTATION(reserved_last_set, setup->__reserved[3] = 1)

#define SETUP_ENTRY(name, ret) { #name, setup_##name, ret }

static const struct latscope_setup_case latscope_setup_cases[] = {
	SETUP_ENTRY(valid, 0),
	SETUP_ENTRY(period_min, 0),
	SETUP_ENTRY(period_max, 0),
	SETUP_ENTRY(cells_max, 0),
	SETUP_ENTRY(cells_1ms_100ns, 0),
	SETUP_ENTRY(priority_99, 0),
	SETUP_ENTRY(warmup_max, 0),
	SETUP_ENTRY(threshold_max, 0),
	SETUP_ENTRY(context_bad, -EINVAL),
	SETUP_ENTRY(period_short, -EINVAL),
	SETUP_ENTRY(period_long, -EINVAL),
	SETUP_ENTRY(period_zero, -EINVAL),
	SETUP_ENTRY(cpu_past_ids, -EINVAL),
	SETUP_ENTRY(cpu_huge, -EINVAL),
	SETUP_ENTRY(priority_100, -EINVAL),
	SETUP_ENTRY(cells_too_many, -EINVAL),
	SETUP_ENTRY(cell_too_wide, -EINVAL),
	SETUP_ENTRY(flags_unknown, -EINVAL),
	SETUP_ENTRY(no_warmup_with_warmup, -EINVAL),
	SETUP_ENTRY(warmup_too_long, -EINVAL),
	SETUP_ENTRY(threshold_negative, -EINVAL),
	SETUP_ENTRY(source_unknown, -EINVAL),
	SETUP_ENTRY(reserved_last_set, -EINVAL),
};

static void latscope_setup_case_desc(const struct latscope_setup_case *c,
				     char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(latscope_setup, latscope_setup_cases, latscope_setup_case_desc);

static void latscope_setup_validation(struct kunit *test)
{
	const struct latscope_setup_case *c = test->param_value;
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);
	struct latscope_setup before;
	struct latscope_session *s = latscope_session_create();

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	c->mutate(&setup);
	before = setup;
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), c->ret);
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &before), c->ret);
	/* A refused SETUP leaves the session as it was: not set up. */
	KUNIT_EXPECT_EQ(test, s->state, c->ret ? LATSCOPE_IDLE : LATSCOPE_READY);
	KUNIT_EXPECT_EQ(test, !s->cells, c->ret != 0);
}

static void latscope_setup_defaults(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);

	setup.flags = 0;
	KUNIT_ASSERT_EQ(test, latscope_setup_check(&setup), 0);
	KUNIT_EXPECT_EQ(test, setup.priority, (u32)LATSCOPE_DEFAULT_PRIORITY);
	KUNIT_EXPECT_EQ(test, setup.hist_cells, (u32)LATSCOPE_DEFAULT_HIST_CELLS);
	KUNIT_EXPECT_EQ(test, setup.hist_cell_ns, (u32)LATSCOPE_DEFAULT_CELL_NS);
	KUNIT_EXPECT_EQ(test, setup.warmup_ns, LATSCOPE_DEFAULT_WARMUP_NS);

	setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);
	KUNIT_ASSERT_EQ(test, latscope_setup_check(&setup), 0);
	KUNIT_EXPECT_EQ(test, setup.warmup_ns, 0ULL);
}

static void latscope_state_machine(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_IRQ, NS_PER_MS);
	struct latscope_session *s = latscope_session_create();
	struct latscope_pulse pulse = {};
	struct latscope_result res;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_snapshot(s, &res, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_pulse(s, &pulse), -EINVAL);

	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup), 0);
	/* Set up, not started: a snapshot is an empty result. */
	KUNIT_EXPECT_EQ(test, latscope_session_snapshot(s, &res, NULL), 0);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, latscope_session_pulse(s, &pulse), -EINVAL);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup), -EBUSY);
	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), 0);
	/* A stopped session can be set up and run again. */
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), 0);
}

static struct kunit_case latscope_setup_test_cases[] = {
	KUNIT_CASE_PARAM(latscope_setup_validation, latscope_setup_gen_params),
	KUNIT_CASE(latscope_setup_defaults),
	KUNIT_CASE(latscope_state_machine),
	{}
};

static struct kunit_suite latscope_setup_suite = {
	.name = "latscope_setup",
	.test_cases = latscope_setup_test_cases,
};

/* ---- real runs on the hrtimer ---- */

#define RUN_PERIOD	NS_PER_MS
#define RUN_MS		300

/*
 * Histogram cells plus underflow and overflow must add up to the samples,
 * the tail (if not NULL) to the overflow.
 */
static void latscope_check_stats(struct kunit *test, const struct latscope_stats *st,
				 const u64 *cells, u32 nr_cells, const u64 *tail)
{
	u64 total = st->underflow + st->overflow;
	s64 avg;
	u32 i;

	KUNIT_ASSERT_GT(test, st->samples, 0ULL);
	avg = div64_s64(st->sum_ns, st->samples);
	KUNIT_EXPECT_LE(test, st->min_ns, avg);
	KUNIT_EXPECT_LE(test, avg, st->max_ns);
	for (i = 0; i < nr_cells; i++)
		total += cells[i];
	KUNIT_EXPECT_EQ(test, total, st->samples);
	if (tail)
		KUNIT_EXPECT_EQ(test, latscope_tail_sum(tail), st->overflow);
}

/* Both statistics blocks of @res, with the histograms and tails @cells. */
static void latscope_check_result(struct kunit *test,
				  const struct latscope_result *res,
				  const u64 *cells)
{
	const u64 *tail = cells + (size_t)res->hist_count * res->hist_cells;

	KUNIT_EXPECT_EQ(test, res->tail_buckets, LATSCOPE_TAIL_BUCKETS);
	latscope_check_stats(test, &res->latency, cells, res->hist_cells, tail);
	if (res->hist_count == 2)
		latscope_check_stats(test, &res->irq, cells + res->hist_cells,
				     res->hist_cells, tail + LATSCOPE_TAIL_BUCKETS);
}

/* The histogram copies the session hands out are the caller's to free. */
static void latscope_kvfree_action(void *cells)
{
	kvfree(cells);
}

/* A snapshot of the running session: allowed, flagged, consistent. */
static void latscope_check_snapshot(struct kunit *test, struct latscope_session *s)
{
	struct latscope_result res = {};
	u64 *cells = NULL;

	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), -EBUSY);
	KUNIT_ASSERT_EQ(test, latscope_session_snapshot(s, &res, &cells), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kvfree_action, cells), 0);
	KUNIT_EXPECT_TRUE(test, res.flags & LATSCOPE_RESULT_SNAPSHOT);
	latscope_check_result(test, &res, cells);
}

/* Runs @s for RUN_MS and checks the event count against the timeline. */
static struct latscope_result latscope_run(struct kunit *test,
					   struct latscope_session *s)
{
	struct latscope_result res = {};
	u64 stop_before, stop_after;
	u64 *cells = NULL;

	KUNIT_EXPECT_EQ(test, latscope_session_start(s), 0);
	msleep(RUN_MS);
	latscope_check_snapshot(test, s);
	stop_before = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	stop_after = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, latscope_session_result(s, &res, &cells), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kvfree_action, cells), 0);

	/*
	 * Every ideal time a period or more before the stop is an event,
	 * handled or not; none after the stop is. Measured with ktime, not
	 * RUN_MS: early in boot under TCG, msleep() and ktime can disagree.
	 */
	KUNIT_EXPECT_GE(test, res.events, div64_u64(stop_before - res.start_ns, RUN_PERIOD));
	KUNIT_EXPECT_LE(test, res.events, div64_u64(stop_after - res.start_ns, RUN_PERIOD) + 1);
	latscope_check_result(test, &res, cells);
	KUNIT_EXPECT_EQ(test, res.flags, 0U);
	return res;
}

static void latscope_run_irq(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_IRQ, RUN_PERIOD);
	struct latscope_session *s = latscope_kunit_session(test, &setup);
	struct latscope_result res = latscope_run(test, s);
	struct latscope_bulk rec;

	KUNIT_EXPECT_EQ(test, res.latency.samples + res.overruns, res.events);
	KUNIT_EXPECT_EQ(test, res.irq.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, res.hist_count, 1U);
	/* Under a second: the stop sends the one, partial, record. */
	KUNIT_ASSERT_TRUE(test, latscope_ring_pop(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.second, 0ULL);
	KUNIT_EXPECT_EQ(test, rec.samples, res.latency.samples);
	KUNIT_EXPECT_EQ(test, rec.max_ns, res.latency.max_ns);
}

static void latscope_run_kernel(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, RUN_PERIOD);
	struct latscope_session *s = latscope_kunit_session(test, &setup);
	struct latscope_result res = latscope_run(test, s);

	/* At most the last event can be in flight at the stop. */
	KUNIT_EXPECT_LE(test, res.latency.samples + res.overruns, res.events);
	KUNIT_EXPECT_GE(test, res.latency.samples + res.overruns + 1, res.events);
	KUNIT_EXPECT_LE(test, res.irq.samples, res.events);
	/* The responder wakes after the irq: it cannot be earlier at best. */
	KUNIT_EXPECT_GE(test, res.latency.min_ns, res.irq.min_ns);
	KUNIT_EXPECT_NULL(test, s->kthread);
}

struct latscope_fake_user {
	struct latscope_session *s;
	int answered;
	int ret;
	struct completion done;
};

/* Plays the CLI's responder thread: PULSE until the session stops. */
static int latscope_fake_user_fn(void *data)
{
	struct latscope_fake_user *u = data;
	struct latscope_pulse pulse = {};

	for (;;) {
		u->ret = latscope_session_pulse(u->s, &pulse);
		if (u->ret)
			break;
		pulse.stamp_ns = ktime_get_ns();
		u->answered++;
	}
	complete(&u->done);
	return 0;
}

static void latscope_run_user(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_USER, RUN_PERIOD);
	struct latscope_session *s = latscope_kunit_session(test, &setup);
	struct latscope_fake_user u = { .s = s };
	struct latscope_pulse pulse = {};
	struct latscope_result res;
	struct task_struct *t;

	init_completion(&u.done);
	t = kthread_run(latscope_fake_user_fn, &u, "latscope-kunit-user");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	res = latscope_run(test, s);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&u.done, HZ), 0UL);

	KUNIT_EXPECT_EQ(test, u.ret, -ECANCELED);
	/* Every answered event but the last is a sample. */
	KUNIT_EXPECT_GE(test, res.latency.samples + 1, (u64)u.answered);
	KUNIT_EXPECT_LE(test, res.latency.samples, (u64)u.answered);
	KUNIT_EXPECT_LE(test, res.latency.samples + res.overruns, res.events);
	KUNIT_EXPECT_GT(test, res.irq.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, latscope_session_pulse(s, &pulse), -ECANCELED);
}

static void latscope_two_sessions(struct kunit *test)
{
	struct latscope_setup a = latscope_base_setup(LATSCOPE_CTX_KERNEL, RUN_PERIOD);
	struct latscope_setup b = latscope_base_setup(LATSCOPE_CTX_IRQ, 2 * RUN_PERIOD);
	struct latscope_session *sa, *sb;
	struct latscope_result ra, rb;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	b.cpu = cpumask_next(a.cpu, cpu_online_mask);
	sa = latscope_kunit_session(test, &a);
	sb = latscope_kunit_session(test, &b);
	KUNIT_ASSERT_EQ(test, latscope_session_start(sa), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_start(sb), 0);
	msleep(RUN_MS);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(sa), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(sb), 0);
	ra = latscope_kunit_result(test, sa);
	rb = latscope_kunit_result(test, sb);
	KUNIT_EXPECT_EQ(test, rb.cpu, b.cpu);
	KUNIT_EXPECT_GT(test, ra.latency.samples, 0ULL);
	KUNIT_EXPECT_GT(test, rb.latency.samples, 0ULL);
	/* Twice the period, about half the events. */
	KUNIT_EXPECT_LT(test, rb.events, ra.events);
}

static void latscope_cpu_offline_ends_session(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, RUN_PERIOD);
	struct latscope_session *s;
	struct latscope_result res;
	unsigned int cpu;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	cpu = cpumask_last(cpu_online_mask);
	setup.cpu = cpu;
	s = latscope_kunit_session(test, &setup);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	msleep(50);
	ret = remove_cpu(cpu);
	if (ret)
		kunit_skip(test, "CPU%u cannot go offline: %d", cpu, ret);
	KUNIT_EXPECT_EQ(test, s->state, LATSCOPE_STOPPED);
	KUNIT_EXPECT_NULL(test, s->kthread);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), -ENODEV);
	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_TRUE(test, res.flags & LATSCOPE_RESULT_CPU_OFFLINE);
	KUNIT_EXPECT_GT(test, res.events, 0ULL);
	/* Not online: a new start is refused, nothing left running. */
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup), -EINVAL);
	KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup), 0);
}

static void latscope_destroy_while_running(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, RUN_PERIOD);
	struct latscope_session *s = latscope_session_create();

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	msleep(20);
	/* What close() does, whatever the state: must not leave a timer. */
	latscope_session_destroy(s);
	msleep(20);
}

static struct kunit_case latscope_run_cases[] = {
	KUNIT_CASE_SLOW(latscope_run_irq),
	KUNIT_CASE_SLOW(latscope_run_kernel),
	KUNIT_CASE_SLOW(latscope_run_user),
	KUNIT_CASE_SLOW(latscope_two_sessions),
	KUNIT_CASE_SLOW(latscope_cpu_offline_ends_session),
	KUNIT_CASE(latscope_destroy_while_running),
	{}
};

static struct kunit_suite latscope_run_suite = {
	.name = "latscope_run",
	.test_cases = latscope_run_cases,
};

kunit_test_suites(&latscope_stats_suite, &latscope_timeline_suite,
		  &latscope_setup_suite, &latscope_run_suite);
