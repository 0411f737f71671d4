// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for session.c and responder.c: SETUP validation and the
 * state machine, a test-only source that plugs in through the source
 * table, and short real runs of every context, two sessions at once, a
 * CPU going offline and the device released for rmmod.
 */
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>

#include "latscope.h"
#include "latscope_kunit.h"

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
SETUP_MUTATION(source_unknown, setup->source = LATSCOPE_SRC_NOISE + 1)
SETUP_MUTATION(source_past_table, setup->source = LATSCOPE_SOURCE_SLOTS)
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
	SETUP_ENTRY(source_past_table, -EINVAL),
	SETUP_ENTRY(reserved_last_set, -EINVAL),
};

KUNIT_ARRAY_PARAM_DESC(latscope_setup, latscope_setup_cases, desc);

static void latscope_setup_validation(struct kunit *test)
{
	const struct latscope_setup_case *c = test->param_value;
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);
	struct latscope_setup before;
	struct latscope_session *s = latscope_session_create(NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	c->mutate(&setup);
	before = setup;
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), c->ret);
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &before, true), c->ret);
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
	struct latscope_session *s = latscope_session_create(NULL);
	struct latscope_pulse pulse = {};
	struct latscope_result res;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_snapshot(s, &res, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_pulse(s, &pulse), -EINVAL);

	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	/* Set up, not started: a snapshot is an empty result. */
	KUNIT_EXPECT_EQ(test, latscope_session_snapshot(s, &res, NULL), 0);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, latscope_session_pulse(s, &pulse), -EINVAL);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), -EINVAL);
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), -EBUSY);
	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_result(s, &res, NULL), 0);
	/* A stopped session can be set up and run again. */
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), 0);
}

/* ---- Who may ask what (core.c's capability checks, made up here) ---- */

/* What the made-up caller holds, and how often it was asked. */
struct latscope_held {
	bool sys_admin;
	bool perfmon;
	unsigned int asked;
};

static struct latscope_held *latscope_held_now(void)
{
	return kunit_get_current_test()->priv;
}

static bool latscope_held_admin(void)
{
	struct latscope_held *h = latscope_held_now();

	h->asked++;
	return h->sys_admin;
}

/* As perfmon_capable(): CAP_PERFMON, or CAP_SYS_ADMIN. */
static bool latscope_held_perfmon(void)
{
	struct latscope_held *h = latscope_held_now();

	h->asked++;
	return h->perfmon || h->sys_admin;
}

static const struct latscope_caps latscope_held_caps = {
	.admin = latscope_held_admin,
	.perfmon = latscope_held_perfmon,
};

/* Bits of latscope_access_case.asks and .holds */
#define ASK_WHY		BIT(0)
#define ASK_TRACE	BIT(1)
#define ASK_GPIO	BIT(2)
#define HOLD_ADMIN	BIT(0)
#define HOLD_PERFMON	BIT(1)
#define HOLD_TRUSTED	BIT(2)

struct latscope_access_case {
	const char *desc;
	u32 asks;
	u32 holds;
	int ret;
};

static const struct latscope_access_case latscope_access_cases[] = {
	{ "timer, nothing held", 0, 0, 0 },
	{ "recorder, nothing held", ASK_WHY, 0, -EPERM },
	{ "recorder, CAP_PERFMON", ASK_WHY, HOLD_PERFMON, 0 },
	{ "recorder, CAP_SYS_ADMIN", ASK_WHY, HOLD_ADMIN, 0 },
	{ "recorder, trusted_group", ASK_WHY, HOLD_TRUSTED, 0 },
	{ "trace threshold, CAP_PERFMON", ASK_TRACE, HOLD_PERFMON, -EPERM },
	{ "trace threshold, CAP_SYS_ADMIN", ASK_TRACE, HOLD_ADMIN, 0 },
	{ "trace and recorder, CAP_PERFMON", ASK_TRACE | ASK_WHY, HOLD_PERFMON, -EPERM },
	{ "trace and recorder, CAP_SYS_ADMIN", ASK_TRACE | ASK_WHY, HOLD_ADMIN, 0 },
	{ "GPIO, nothing held", ASK_GPIO, 0, -EPERM },
	{ "GPIO and recorder, CAP_PERFMON", ASK_GPIO | ASK_WHY, HOLD_PERFMON, -EPERM },
	{ "GPIO and recorder, trusted_group", ASK_GPIO | ASK_WHY, HOLD_TRUSTED, 0 },
};

KUNIT_ARRAY_PARAM_DESC(latscope_access, latscope_access_cases, desc);

/*
 * The recorder tells what other tasks and the kernel ran: CAP_PERFMON
 * (or CAP_SYS_ADMIN, or trusted_group) arms it; GPIO and the trace
 * threshold need CAP_SYS_ADMIN. A timer run asks for nothing, and the
 * capabilities are asked only when needed (capable() audits).
 */
static void latscope_setup_access(struct kunit *test)
{
	const struct latscope_access_case *c = test->param_value;
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);
	struct latscope_held held = {
		.sys_admin = c->holds & HOLD_ADMIN,
		.perfmon = c->holds & HOLD_PERFMON,
	};

	test->priv = &held;
	if (c->asks & ASK_WHY)
		setup.why_records = 4;
	if (c->asks & ASK_TRACE)
		setup.trace_threshold_ns = NS_PER_MS;
	if (c->asks & ASK_GPIO)
		setup.source = LATSCOPE_SRC_GPIO;
	KUNIT_EXPECT_EQ(test, latscope_setup_permitted(&setup, c->holds & HOLD_TRUSTED,
						       &latscope_held_caps), c->ret);
	if (!c->asks || (c->holds & HOLD_TRUSTED))
		KUNIT_EXPECT_EQ(test, held.asked, 0U);
}

static struct kunit_case latscope_setup_test_cases[] = {
	KUNIT_CASE_PARAM(latscope_setup_validation, latscope_setup_gen_params),
	KUNIT_CASE(latscope_setup_defaults),
	KUNIT_CASE(latscope_state_machine),
	KUNIT_CASE_PARAM(latscope_setup_access, latscope_access_gen_params),
	{}
};

static struct kunit_suite latscope_setup_suite = {
	.name = "latscope_setup",
	.test_cases = latscope_setup_test_cases,
};

/* ---- a test-only source, plugged in through the source table ---- */

/* The spare slot the test source takes. */
#define TEST_SRC_ID	(LATSCOPE_SOURCE_SLOTS - 1)
/* A period the test source refuses, and one whose get() fails. */
#define TEST_BAD_PERIOD	1
#define TEST_GET_FAILS	2

/* Which hooks ran, in order, as letters; the tests run one at a time. */
static struct {
	char calls[32];
	unsigned int n;
	atomic_t responds;
} latscope_test_log;

static void latscope_test_called(char hook)
{
	if (latscope_test_log.n < sizeof(latscope_test_log.calls) - 1)
		latscope_test_log.calls[latscope_test_log.n++] = hook;
}

struct latscope_test_priv {
	u64 events;
};

static int latscope_test_check(const struct latscope_setup *setup)
{
	latscope_test_called('c');
	return setup->period_ns == TEST_BAD_PERIOD ? -EINVAL : 0;
}

static int latscope_test_get(struct latscope_session *s)
{
	latscope_test_called('g');
	return s->setup.period_ns == TEST_GET_FAILS ? -EBUSY : 0;
}

static void latscope_test_put(struct latscope_session *s)
{
	latscope_test_called('p');
}

/* One event at once, from process context: the kthread answers it. */
static int latscope_test_start(struct latscope_session *s)
{
	struct latscope_test_priv *priv = s->priv;

	latscope_test_called('s');
	priv->events++;
	s->events++;
	latscope_handoff(s, ktime_get_ns(), 0, false);
	return 0;
}

static void latscope_test_stop(struct latscope_session *s)
{
	latscope_test_called('x');
}

static void latscope_test_respond(struct latscope_session *s, u64 ideal)
{
	atomic_inc(&latscope_test_log.responds);
}

static void latscope_test_export(struct latscope_session *s,
				 struct latscope_result *res)
{
	const struct latscope_test_priv *priv = s->priv;

	res->gpio.acks = priv->events;
}

static const struct latscope_source latscope_test_source = {
	.name = "kunit",
	.priv_size = sizeof(struct latscope_test_priv),
	/* Each hook logs its call; no module-wide part. */
	.check = latscope_test_check,
	.get = latscope_test_get,
	.put = latscope_test_put,
	/* One event at the start, answered by the kernel responder. */
	.start = latscope_test_start,
	.stop = latscope_test_stop,
	.respond = latscope_test_respond,
	.export = latscope_test_export,
};

static void latscope_test_source_out(void *old)
{
	latscope_source_swap(TEST_SRC_ID, old);
}

/* A session of the test source; the slot is given back when the test ends. */
static struct latscope_session *latscope_test_session(struct kunit *test,
						      struct latscope_setup *setup)
{
	struct latscope_session *s = latscope_session_create(NULL);
	const struct latscope_source *old;

	memset(&latscope_test_log, 0, sizeof(latscope_test_log));
	old = latscope_source_swap(TEST_SRC_ID, &latscope_test_source);
	KUNIT_ASSERT_NULL(test, old);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_test_source_out,
							(void *)old), 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	*setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, 0);
	setup->source = TEST_SRC_ID;
	return s;
}

static void latscope_test_source_runs(struct kunit *test)
{
	struct latscope_setup setup;
	struct latscope_session *s = latscope_test_session(test, &setup);
	struct latscope_result res;
	int i;

	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	KUNIT_EXPECT_STREQ(test, latscope_test_log.calls, "cg");
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	for (i = 0; i < 500 && !atomic_read(&latscope_test_log.responds); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	/* The resources go back once the responder is gone, once only. */
	KUNIT_EXPECT_STREQ(test, latscope_test_log.calls, "cgsxp");
	KUNIT_EXPECT_EQ(test, atomic_read(&latscope_test_log.responds), 1);

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.events, 1ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 1ULL);
	KUNIT_EXPECT_EQ(test, res.irq.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, res.gpio.acks, 1ULL);

	/* A new SETUP: no second put, a fresh state. */
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	KUNIT_EXPECT_STREQ(test, latscope_test_log.calls, "cgsxpcg");
	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.gpio.acks, 0ULL);
}

static void latscope_test_source_refuses(struct kunit *test)
{
	struct latscope_setup setup;
	struct latscope_session *s = latscope_test_session(test, &setup);

	setup.period_ns = TEST_BAD_PERIOD;
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), -EINVAL);
	KUNIT_EXPECT_STREQ(test, latscope_test_log.calls, "c");

	/* Set up, then a SETUP whose get() fails: the old one is put. */
	setup.period_ns = 0;
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	setup.period_ns = TEST_GET_FAILS;
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), -EBUSY);
	KUNIT_EXPECT_STREQ(test, latscope_test_log.calls, "ccgcpg");
	KUNIT_EXPECT_EQ(test, s->state, LATSCOPE_IDLE);
	KUNIT_EXPECT_NULL(test, s->priv);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), -EINVAL);
}

static struct kunit_case latscope_source_test_cases[] = {
	KUNIT_CASE(latscope_test_source_runs),
	KUNIT_CASE(latscope_test_source_refuses),
	{}
};

static struct kunit_suite latscope_source_suite = {
	.name = "latscope_source",
	.test_cases = latscope_source_test_cases,
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

/*
 * Waits until the running session @s has a sample of each kind it keeps,
 * 10 s at most: a condition, not a guess at how soon a loaded host runs
 * the VM's hrtimer and responder.
 */
static void latscope_wait_sample(struct kunit *test, struct latscope_session *s)
{
	struct latscope_result res = {};
	int i;

	for (i = 0; i < 500; i++) {
		if (!latscope_session_snapshot(s, &res, NULL) && res.latency.samples &&
		    (res.hist_count == 1 || res.irq.samples))
			return;
		msleep(20);
	}
	KUNIT_FAIL(test, "no sample in 10 s");
}

/*
 * Every ideal time of @res's timeline a period or more before the stop is
 * an event, handled or not; none after the stop is. @before and @after:
 * ktime just before and after the STOP. Measured with ktime, not with the
 * time slept: early in boot under TCG, msleep() and ktime can disagree.
 */
static void latscope_check_events(struct kunit *test, const struct latscope_result *res,
				  u64 before, u64 after)
{
	KUNIT_EXPECT_GE(test, res->events, div64_u64(before - res->start_ns, res->period_ns));
	KUNIT_EXPECT_LE(test, res->events, div64_u64(after - res->start_ns, res->period_ns) + 1);
}

/*
 * Runs @s for RUN_MS, and on until it has samples, and checks the event
 * count against the timeline.
 */
static struct latscope_result latscope_run(struct kunit *test,
					   struct latscope_session *s)
{
	struct latscope_result res = {};
	u64 stop_before, stop_after;
	u64 *cells = NULL;

	KUNIT_EXPECT_EQ(test, latscope_session_start(s), 0);
	msleep(RUN_MS);
	latscope_wait_sample(test, s);
	latscope_check_snapshot(test, s);
	stop_before = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	stop_after = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, latscope_session_result(s, &res, &cells), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kvfree_action, cells), 0);

	latscope_check_events(test, &res, stop_before, stop_after);
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
	u64 samples;
	s64 max;

	KUNIT_EXPECT_EQ(test, res.latency.samples + res.overruns, res.events);
	KUNIT_EXPECT_EQ(test, res.irq.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, res.hist_count, 1U);
	/*
	 * The records, from second 0 to the partial one the stop sends, hold
	 * every sample: one record if the run took under a second, more on
	 * a host that ran it slower.
	 */
	KUNIT_ASSERT_TRUE(test, latscope_ring_pop(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.second, 0ULL);
	samples = rec.samples;
	max = rec.max_ns;
	while (latscope_ring_pop(&s->ring, &rec)) {
		samples += rec.samples;
		max = max(max, rec.max_ns);
	}
	KUNIT_EXPECT_EQ(test, samples, res.latency.samples);
	KUNIT_EXPECT_EQ(test, max, res.latency.max_ns);
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
	/* A bound for a thread the stop did not wake, not a guess at speed. */
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&u.done, 10 * HZ), 0UL);

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
	u64 a_before, a_after, b_before, b_after;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	b.cpu = cpumask_next(a.cpu, cpu_online_mask);
	sa = latscope_kunit_session(test, &a);
	sb = latscope_kunit_session(test, &b);
	KUNIT_ASSERT_EQ(test, latscope_session_start(sa), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_start(sb), 0);
	msleep(RUN_MS);
	latscope_wait_sample(test, sa);
	latscope_wait_sample(test, sb);
	a_before = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, latscope_session_stop(sa), 0);
	a_after = ktime_get_ns();
	b_before = a_after;
	KUNIT_EXPECT_EQ(test, latscope_session_stop(sb), 0);
	b_after = ktime_get_ns();
	ra = latscope_kunit_result(test, sa);
	rb = latscope_kunit_result(test, sb);
	KUNIT_EXPECT_EQ(test, rb.cpu, b.cpu);
	KUNIT_EXPECT_GT(test, ra.latency.samples, 0ULL);
	KUNIT_EXPECT_GT(test, rb.latency.samples, 0ULL);
	/*
	 * Each counts the events of its own timeline, at its own period,
	 * over its own run: not the other's, whatever the host's speed.
	 */
	KUNIT_EXPECT_EQ(test, rb.period_ns, 2 * RUN_PERIOD);
	latscope_check_events(test, &ra, a_before, a_after);
	latscope_check_events(test, &rb, b_before, b_after);
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
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), 0);
}

static void latscope_destroy_while_running(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, RUN_PERIOD);
	struct latscope_session *s = latscope_session_create(NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	msleep(20);
	/* What close() does, whatever the state: must not leave a timer. */
	latscope_session_destroy(s);
	msleep(20);
}

/* A test that released the device lets it go again, pass or fail. */
static void latscope_admit_action(void *unused)
{
	latscope_sessions_admit();
}

static void latscope_release_ends_runs(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, RUN_PERIOD);
	struct latscope_session *s = latscope_kunit_session(test, &setup);
	struct latscope_result res;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_admit_action, NULL), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	latscope_wait_sample(test, s);
	/* @s is still open: its run ends, and the release says it is there. */
	KUNIT_EXPECT_EQ(test, latscope_sessions_release(0), -EBUSY);
	KUNIT_EXPECT_TRUE(test, latscope_sessions_released());
	KUNIT_EXPECT_EQ(test, s->state, LATSCOPE_STOPPED);
	KUNIT_EXPECT_NULL(test, s->kthread);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), -ESHUTDOWN);
	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_TRUE(test, res.flags & LATSCOPE_RESULT_RELEASED);
	KUNIT_EXPECT_GT(test, res.latency.samples, 0ULL);
	/* Released: no new run, and the old setup's figures stay. */
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), -EINVAL);
	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_TRUE(test, res.flags & LATSCOPE_RESULT_RELEASED);
	/* Admitted again: it runs. */
	latscope_sessions_admit();
	KUNIT_EXPECT_FALSE(test, latscope_sessions_released());
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.flags, 0U);
}

static int latscope_close_fn(void *s)
{
	latscope_session_destroy(s);
	return 0;
}

/* The release waits for the last file to close, however the two race. */
static void latscope_release_waits_for_close(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, RUN_PERIOD);
	struct latscope_session *s = latscope_session_create(NULL);
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_admit_action, NULL), 0);
	if (latscope_session_setup(s, &setup, true) || latscope_session_start(s)) {
		latscope_session_destroy(s);
		KUNIT_FAIL(test, "cannot start a run");
		return;
	}
	t = kthread_run(latscope_close_fn, s, "latscope-kunit-close");
	if (IS_ERR(t)) {
		latscope_session_destroy(s);
		KUNIT_FAIL(test, "cannot start the closing thread");
		return;
	}
	/* A bound for a thread that never ran, not a guess at speed. */
	KUNIT_EXPECT_EQ(test, latscope_sessions_release(30 * HZ), 0);
	KUNIT_EXPECT_TRUE(test, latscope_sessions_released());
}

static struct kunit_case latscope_run_cases[] = {
	KUNIT_CASE_SLOW(latscope_run_irq),
	KUNIT_CASE_SLOW(latscope_run_kernel),
	KUNIT_CASE_SLOW(latscope_run_user),
	KUNIT_CASE_SLOW(latscope_two_sessions),
	KUNIT_CASE_SLOW(latscope_cpu_offline_ends_session),
	KUNIT_CASE(latscope_destroy_while_running),
	KUNIT_CASE_SLOW(latscope_release_ends_runs),
	KUNIT_CASE(latscope_release_waits_for_close),
	{}
};

static struct kunit_suite latscope_run_suite = {
	.name = "latscope_run",
	.test_cases = latscope_run_cases,
};

kunit_test_suites(&latscope_setup_suite, &latscope_source_suite,
		  &latscope_run_suite);
