// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for timeline.c and measure.c, fed by hand: the warm-up, the
 * periods a late handler missed and those it never reached, a busy
 * responder, the 1 Hz bulk records, the trace threshold, and what one
 * sample costs.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "latscope.h"
#include "latscope_kunit.h"

/* ---- timeline, overruns, warm-up, bulk records (synthetic events) ---- */

/* A session whose timeline starts at T0_NOW, fed by hand, never started. */
static struct latscope_session *latscope_synthetic(struct kunit *test,
						   u32 context, u64 period)
{
	struct latscope_setup setup = latscope_base_setup(context, period);
	struct latscope_session *s = latscope_kunit_session(test, &setup);

	latscope_timeline_init(s, T0_NOW);
	latscope_timeline_use(s, latscope_timer_tick, NULL);
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
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	latscope_timeline_init(s, T0_NOW);
	KUNIT_EXPECT_EQ(test, s->warmup_end, s->t0 + NSEC_PER_SEC);

	setup.flags = LATSCOPE_SETUP_NO_WARMUP;
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
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
	latscope_timeline_step(s, ideal, ideal + 10 * NS_PER_US);
	ideal += period;
	/* 350 us late: three later periods passed before the irq saw it. */
	latscope_timeline_step(s, ideal, ideal + 350 * NS_PER_US);
	ideal += 4 * period;
	latscope_timeline_step(s, ideal, ideal + 20 * NS_PER_US);
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

/*
 * The last event of the warm-up, handled 3.5 periods late: it does not
 * count, the three ideal times it hid, from the warm-up's end on, are
 * events and overruns.
 */
static void latscope_late_across_warmup_end(struct kunit *test)
{
	u64 period = 100 * NS_PER_US;
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_IRQ, period);
	struct latscope_session *s;
	u64 ideal, next;

	setup.flags = 0;
	setup.warmup_ns = 3 * period;
	s = latscope_kunit_session(test, &setup);
	latscope_timeline_init(s, T0_NOW);
	latscope_timeline_use(s, latscope_timer_tick, NULL);
	ideal = s->warmup_end - period;
	next = latscope_timeline_step(s, ideal, ideal + 350 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, next, ideal + 4 * period);
	KUNIT_EXPECT_EQ(test, s->events, 3ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->overruns), 3LL);
	KUNIT_EXPECT_EQ(test, s->lat.samples, 0ULL);

	/* Late by less than the warm-up's rest: nothing counts. */
	latscope_timeline_init(s, T0_NOW);
	latscope_timeline_use(s, latscope_timer_tick, NULL);
	ideal = s->warmup_end - 2 * period;
	latscope_timeline_step(s, ideal, ideal + 150 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, s->events, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->overruns), 0LL);
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
	latscope_timeline_use(s, latscope_timer_tick, NULL);
	for (i = 0, ideal = s->t0; i < 5; i++, ideal += period) {
		latscope_timeline_step(s, ideal, ideal + 1000);
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
	latscope_timeline_step(s, ideal, ideal + 1000);
	/* The responder has not taken the first event: this one is missed. */
	latscope_timeline_step(s, ideal + period, ideal + period + 1000);
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
		latscope_timeline_step(s, ideal, ideal + (i % 10 + 1) * NS_PER_US +
				       (i == 12 ? 2 * period : 0));
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
		latscope_timeline_step(s, ideal, ideal + NS_PER_US);
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
 * context's whole path (timeline, statistics, bulk second), in ns; with
 * @why, through the worst-sample recorder too, armed on this CPU (its
 * EVENT entry each event, a claim for each new worst).
 */
static u64 latscope_time_samples(struct kunit *test, u64 n, s64 base, s64 step,
				 bool why)
{
	u64 period = 10 * NS_PER_US, i, ideal, t;
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_IRQ, period);
	struct latscope_session *s;
	struct latscope_result res;
	unsigned long flags;

	/* Where the test thread stays, so the armed record is its CPU's. */
	set_cpus_allowed_ptr(current, cpumask_of(setup.cpu));
	setup.why_records = why ? 8 : 0;
	s = latscope_kunit_session(test, &setup);
	latscope_timeline_init(s, T0_NOW);
	latscope_timeline_use(s, latscope_timer_tick, NULL);
	latscope_recorder_arm(s);
	local_irq_save(flags);
	t = ktime_get_ns();
	for (i = 0, ideal = s->t0; i < n; i++, ideal += period)
		latscope_timeline_step(s, ideal, ideal + base + (i % 1000) * step);
	t = ktime_get_ns() - t;
	local_irq_restore(flags);
	latscope_recorder_disarm(s);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
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
	u64 n = 200000, in[2] = { U64_MAX, U64_MAX }, past[2] = { U64_MAX, U64_MAX };
	int i, why;

	for (i = 0; i < 5; i++) {
		for (why = 0; why < 2; why++) {
			/* 0 .. 9.99 us: in the 200 us linear histogram. */
			in[why] = min(in[why], latscope_time_samples(test, n, 0, 10, why));
			/* 200 us .. 1.2 s: all past it. */
			past[why] = min(past[why],
					latscope_time_samples(test, n, 200 * NS_PER_US,
							      1200 * NS_PER_US, why));
		}
	}
	kunit_info(test, "per-sample cost: %llu ns in the histogram, %llu ns past it (fastest of 5 x %llu events)\n",
		   div64_u64(in[0], n), div64_u64(past[0], n), n);
	kunit_info(test, "per-sample cost with the recorder: %llu ns in the histogram, %llu ns past it (fastest of 5 x %llu events)\n",
		   div64_u64(in[1], n), div64_u64(past[1], n), n);
}

static struct kunit_case latscope_timeline_cases[] = {
	KUNIT_CASE(latscope_warmup_rounds_up),
	KUNIT_CASE(latscope_missed_periods_are_overruns),
	KUNIT_CASE(latscope_missed_whole_periods),
	KUNIT_CASE(latscope_late_across_warmup_end),
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

kunit_test_suites(&latscope_timeline_suite);
