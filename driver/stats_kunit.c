// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for stats.c: statistics, the linear histogram and its
 * logarithmic tail, snapshots taken while a writer runs, and the ring of
 * bulk records.
 *
 * Run with: make kunit (tools/testing/kunit/kunit.py from linux-source).
 */
#include <kunit/test.h>
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

static void latscope_ring_full_counts_drops(struct kunit *test)
{
	struct latscope_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	struct latscope_noise_bulk rec = {};
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ring);
	latscope_ring_init(ring);
	KUNIT_EXPECT_TRUE(test, latscope_ring_empty(ring));
	for (i = 0; i < LATSCOPE_BULK_SLOTS; i++) {
		rec.bulk.second = i;
		rec.runtime_ns = 10 * i;
		KUNIT_EXPECT_TRUE(test, latscope_ring_push(ring, &rec));
	}
	rec.bulk.second = 1000;
	KUNIT_EXPECT_FALSE(test, latscope_ring_push(ring, &rec));
	KUNIT_EXPECT_EQ(test, ring->dropped, 1ULL);

	/* Whole records, a noise session's part too. */
	for (i = 0; i < LATSCOPE_BULK_SLOTS; i++) {
		KUNIT_ASSERT_TRUE(test, latscope_ring_pop_whole(ring, &rec));
		KUNIT_EXPECT_EQ(test, rec.bulk.second, (u64)i);
		KUNIT_EXPECT_EQ(test, rec.runtime_ns, (u64)(10 * i));
	}
	KUNIT_EXPECT_FALSE(test, latscope_ring_pop_whole(ring, &rec));
	KUNIT_EXPECT_TRUE(test, latscope_ring_empty(ring));
}

/*
 * Readers copy records out unlocked and take them afterwards: a reader
 * that lost the race to another one, or to a reset, takes nothing.
 */
static void latscope_ring_consumers_race(struct kunit *test)
{
	struct latscope_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	struct latscope_noise_bulk recs[4] = {}, rec = {};
	struct latscope_ring_pos a, b;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, ring);
	latscope_ring_init(ring);
	for (i = 0; i < 3; i++) {
		rec.bulk.second = i;
		KUNIT_ASSERT_TRUE(test, latscope_ring_push(ring, &rec));
	}
	/* Two readers see the same records; the first to take them wins. */
	KUNIT_EXPECT_EQ(test, latscope_ring_peek(ring, recs, 4, &a), 3U);
	KUNIT_EXPECT_EQ(test, latscope_ring_peek(ring, recs, 2, &b), 2U);
	KUNIT_EXPECT_TRUE(test, latscope_ring_consume(ring, &b, 2));
	KUNIT_EXPECT_FALSE(test, latscope_ring_consume(ring, &a, 3));
	/* The loser peeks again and gets what is left, nothing twice. */
	KUNIT_EXPECT_EQ(test, latscope_ring_peek(ring, recs, 4, &a), 1U);
	KUNIT_EXPECT_EQ(test, recs[0].bulk.second, 2ULL);
	/* A reset (SETUP, START) between a peek and its take wins too. */
	latscope_ring_reset(ring, sizeof(struct latscope_bulk));
	KUNIT_EXPECT_FALSE(test, latscope_ring_consume(ring, &a, 1));
	KUNIT_EXPECT_TRUE(test, latscope_ring_empty(ring));
	/* Even when the new run's ring is back at the same index. */
	rec.bulk.second = 7;
	KUNIT_ASSERT_TRUE(test, latscope_ring_push(ring, &rec));
	KUNIT_EXPECT_EQ(test, latscope_ring_peek(ring, recs, 4, &a), 1U);
	latscope_ring_reset(ring, sizeof(struct latscope_bulk));
	KUNIT_ASSERT_TRUE(test, latscope_ring_push(ring, &rec));
	KUNIT_EXPECT_FALSE(test, latscope_ring_consume(ring, &a, 1));
	KUNIT_EXPECT_TRUE(test, latscope_ring_pop_whole(ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.bulk.second, 7ULL);
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

kunit_test_suites(&latscope_stats_suite);
