// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the noise source (noise.c): its setup rules, the flight
 * record's account of a window, the user context's reports second by
 * second, and the kernel busy task's runs, interrupts on and off.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/numa.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "latscope.h"
#include "latscope_kunit.h"
#include "why.h"

static struct latscope_setup noise_setup(u32 context, u64 period, u64 runtime)
{
	struct latscope_setup setup = latscope_base_setup(context, period);

	setup.source = LATSCOPE_SRC_NOISE;
	setup.noise.runtime_ns = runtime;
	return setup;
}

struct noise_setup_case {
	const char *desc;
	u32 context;
	u64 period;
	u64 runtime;
	u64 threshold;
	u32 flags;
	bool gpio;
	int ret;
};

static const struct noise_setup_case noise_setup_cases[] = {
	{ "user, 1 s, the whole period", LATSCOPE_CTX_USER, NSEC_PER_SEC, 0, 0, 0, false,
	  0 },
	{ "kernel, 10 ms, 2 ms", LATSCOPE_CTX_KERNEL, 10 * NS_PER_MS, 2 * NS_PER_MS, 1000, 0,
	  false, 0 },
	{ "irq context", LATSCOPE_CTX_IRQ, NSEC_PER_SEC, 0, 0, 0, false, -EINVAL },
	{ "period below 1 ms", LATSCOPE_CTX_USER, NS_PER_MS - 1, 0, 0, 0, false,
	  -EINVAL },
	{ "period above 1 s", LATSCOPE_CTX_USER, NSEC_PER_SEC + 1, 0, 0, 0, false,
	  -EINVAL },
	{ "runtime above the period", LATSCOPE_CTX_USER, 10 * NS_PER_MS, 10 * NS_PER_MS + 1,
	  0, 0, false, -EINVAL },
	{ "runtime below 100 us", LATSCOPE_CTX_USER, 10 * NS_PER_MS, 99 * NS_PER_US, 0, 0,
	  false, -EINVAL },
	{ "threshold above 1 s", LATSCOPE_CTX_USER, NSEC_PER_SEC, 0, NSEC_PER_SEC + 1, 0,
	  false, -EINVAL },
	{ "threshold below 1 us", LATSCOPE_CTX_USER, NSEC_PER_SEC, 0, 999, 0, false, -EINVAL },
	{ "irqs off, past half the period", LATSCOPE_CTX_KERNEL, 10 * NS_PER_MS,
	  5 * NS_PER_MS + 1, 0, LATSCOPE_NOISE_IRQS_OFF, false, -EINVAL },
	{ "irqs off, kernel, half the period", LATSCOPE_CTX_KERNEL, 10 * NS_PER_MS,
	  5 * NS_PER_MS, 0, LATSCOPE_NOISE_IRQS_OFF, false, 0 },
	{ "irqs off, user", LATSCOPE_CTX_USER, 10 * NS_PER_MS, 5 * NS_PER_MS, 0,
	  LATSCOPE_NOISE_IRQS_OFF, false, -EINVAL },
	{ "irqs off, the whole period", LATSCOPE_CTX_KERNEL, 10 * NS_PER_MS, 0, 0,
	  LATSCOPE_NOISE_IRQS_OFF, false, -EINVAL },
	{ "irqs off, 600 ms", LATSCOPE_CTX_KERNEL, NSEC_PER_SEC, 600 * NS_PER_MS, 0,
	  LATSCOPE_NOISE_IRQS_OFF, false, -EINVAL },
	{ "unknown flag", LATSCOPE_CTX_KERNEL, NSEC_PER_SEC, 0, 0, 2, false, -EINVAL },
	{ "a GPIO block", LATSCOPE_CTX_KERNEL, NSEC_PER_SEC, 0, 0, 0, true, -EINVAL },
};

static void noise_setup_desc(const struct noise_setup_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(noise_setup, noise_setup_cases, noise_setup_desc);

static void latscope_noise_setup_rules(struct kunit *test)
{
	const struct noise_setup_case *c = test->param_value;
	struct latscope_setup setup = noise_setup(c->context, c->period, c->runtime);

	setup.noise.threshold_ns = c->threshold;
	setup.noise.flags = c->flags;
	if (c->gpio)
		setup.gpio.edge = LATSCOPE_EDGE_RISING;
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), c->ret);
	/* No default priority: 0 is SCHED_OTHER for the busy task. */
	if (!c->ret)
		KUNIT_EXPECT_EQ(test, setup.priority, 0U);
}

/* Other sources refuse a noise block; a timer setup keeps its default priority. */
static void latscope_noise_block_elsewhere(struct kunit *test)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);

	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), 0);
	KUNIT_EXPECT_EQ(test, setup.priority, (u32)LATSCOPE_DEFAULT_PRIORITY);
	setup.noise.threshold_ns = 1000;
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), -EINVAL);
}

static bool noise_no(void)
{
	return false;
}

static bool noise_yes(void)
{
	return true;
}

/*
 * The kernel context's thread (never sleeping through its runtime, bound
 * to a CPU outside the caller's cpuset and cgroup) needs CAP_SYS_ADMIN,
 * whatever its priority; the user context's, the caller's own, the device
 * alone. Telling the gaps apart needs CAP_PERFMON, as the recorder.
 */
static void latscope_noise_access(struct kunit *test)
{
	const struct latscope_caps none = { .admin = noise_no, .perfmon = noise_no };
	const struct latscope_caps admin = { .admin = noise_yes, .perfmon = noise_no };
	const struct latscope_caps perfmon = { .admin = noise_no, .perfmon = noise_yes };
	struct latscope_setup setup = noise_setup(LATSCOPE_CTX_KERNEL, 10 * NS_PER_MS,
						  5 * NS_PER_MS);
	struct latscope_setup timer = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);

	KUNIT_EXPECT_EQ(test, latscope_setup_permitted(&setup, false, &none), -EPERM);
	KUNIT_EXPECT_EQ(test, latscope_setup_permitted(&setup, false, &admin), 0);
	KUNIT_EXPECT_EQ(test, latscope_setup_permitted(&setup, true, &none), 0);
	setup.noise.flags = LATSCOPE_NOISE_IRQS_OFF;
	KUNIT_EXPECT_EQ(test, latscope_setup_permitted(&setup, false, &none), -EPERM);
	KUNIT_EXPECT_EQ(test, latscope_setup_permitted(&setup, false, &admin), 0);
	setup.noise.flags = 0;
	setup.context = LATSCOPE_CTX_USER;
	setup.priority = 50;
	KUNIT_EXPECT_EQ(test, latscope_setup_permitted(&setup, false, &none), 0);
	/* What ran on the CPU: CAP_PERFMON or the trusted group; a timer run never. */
	KUNIT_EXPECT_FALSE(test, latscope_setup_sees(&setup, false, &none));
	KUNIT_EXPECT_FALSE(test, latscope_setup_sees(&setup, false, &admin));
	KUNIT_EXPECT_TRUE(test, latscope_setup_sees(&setup, false, &perfmon));
	KUNIT_EXPECT_TRUE(test, latscope_setup_sees(&setup, true, &none));
	KUNIT_EXPECT_FALSE(test, latscope_setup_sees(&timer, true, &perfmon));
}

/* ---- the flight record's account of a window ---- */

static void noise_flight_free(void *fl)
{
	kvfree(fl);
}

/* An entry of @kind stamped @ts; a GAP's @arg2: when it was written. */
static void noise_flight_put(struct latscope_flight *fl, u16 kind, u64 ts, u64 arg2)
{
	struct latscope_flight_entry *e;
	long n;

	preempt_disable();
	e = latscope_flight_reserve(fl, &n, ts);
	if (e) {
		e->kind = kind;
		e->arg2 = arg2;
		latscope_flight_commit(e, n);
	}
	preempt_enable();
}

static void noise_flight_write(struct latscope_flight *fl, u16 kind, u64 ts)
{
	noise_flight_put(fl, kind, ts, 0);
}

static void latscope_noise_flight_kinds(struct kunit *test)
{
	struct latscope_flight *fl = latscope_flight_alloc(NUMA_NO_NODE);
	bool cut;
	u32 k;

	KUNIT_ASSERT_NOT_NULL(test, fl);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, noise_flight_free, fl), 0);
	fl->since = 1000;
	noise_flight_write(fl, LATSCOPE_FL_HRTIMER_ENTRY, 2000);
	noise_flight_write(fl, LATSCOPE_FL_HRTIMER_EXIT, 2100);
	noise_flight_write(fl, LATSCOPE_FL_SWITCH, 5000);
	noise_flight_write(fl, LATSCOPE_FL_SOFTIRQ_ENTRY, 5100);
	noise_flight_write(fl, LATSCOPE_FL_SOFTIRQ_EXIT, 5200);
	noise_flight_write(fl, LATSCOPE_FL_SWITCH, 5300);

	/* The tick alone. */
	k = latscope_flight_kinds(fl, 1900, 2200, &cut);
	KUNIT_EXPECT_EQ(test, k, (u32)(BIT(LATSCOPE_FL_HRTIMER_ENTRY) |
				       BIT(LATSCOPE_FL_HRTIMER_EXIT)));
	KUNIT_EXPECT_FALSE(test, cut);
	/* Nothing: covered, and empty. */
	k = latscope_flight_kinds(fl, 3000, 4000, &cut);
	KUNIT_EXPECT_EQ(test, k, 0U);
	KUNIT_EXPECT_FALSE(test, cut);
	/* A thread and its softirq. */
	k = latscope_flight_kinds(fl, 4900, 5400, &cut);
	KUNIT_EXPECT_EQ(test, k, (u32)(BIT(LATSCOPE_FL_SWITCH) |
				       BIT(LATSCOPE_FL_SOFTIRQ_ENTRY) |
				       BIT(LATSCOPE_FL_SOFTIRQ_EXIT)));
	KUNIT_EXPECT_FALSE(test, cut);
	/* Before the arming: not covered. */
	k = latscope_flight_kinds(fl, 500, 1500, &cut);
	KUNIT_EXPECT_EQ(test, k, 0U);
	KUNIT_EXPECT_TRUE(test, cut);

	/*
	 * Entries dropped from 5950 until the GAP was written at 6300: a
	 * window over them is not covered, even one that starts after the
	 * first drop; one after the GAP was written is.
	 */
	noise_flight_put(fl, LATSCOPE_FL_GAP, 5950, 6300);
	noise_flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, 6500);
	k = latscope_flight_kinds(fl, 5900, 6600, &cut);
	KUNIT_EXPECT_EQ(test, k, (u32)BIT(LATSCOPE_FL_IRQ_ENTRY));
	KUNIT_EXPECT_TRUE(test, cut);
	k = latscope_flight_kinds(fl, 6000, 6600, &cut);
	KUNIT_EXPECT_TRUE(test, cut);
	k = latscope_flight_kinds(fl, 6400, 6600, &cut);
	KUNIT_EXPECT_EQ(test, k, (u32)BIT(LATSCOPE_FL_IRQ_ENTRY));
	KUNIT_EXPECT_FALSE(test, cut);
	/*
	 * Stamped at 6900, its slot taken after an irq that began at 7000
	 * took one: the irq is still found in a window from 6950.
	 */
	noise_flight_write(fl, LATSCOPE_FL_IRQ_ENTRY, 7000);
	noise_flight_write(fl, LATSCOPE_FL_SWITCH, 6900);
	k = latscope_flight_kinds(fl, 6950, 7100, &cut);
	KUNIT_EXPECT_EQ(test, k, (u32)BIT(LATSCOPE_FL_IRQ_ENTRY));
	KUNIT_EXPECT_FALSE(test, cut);
}

/* ---- the user context's reports ---- */

static void noise_unpin(void *unused)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/*
 * A running user-context noise session whose timeline is moved back to
 * @base, a time the clock passed @back ago (waited for if need be), so
 * that reports can name any time since. The test's thread is pinned to
 * the session's CPU, as the CLI's busy thread is.
 */
static struct latscope_session *noise_user_session(struct kunit *test, u64 *base, u64 back)
{
	struct latscope_setup setup = noise_setup(LATSCOPE_CTX_USER, NSEC_PER_SEC, 0);
	struct latscope_session *s;

	while (ktime_get_ns() < back + 500 * NS_PER_MS)
		msleep(100);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(setup.cpu)), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, noise_unpin, NULL), 0);
	s = latscope_kunit_session(test, &setup);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	*base = ktime_get_ns() - back;
	mutex_lock(&s->lock);
	/* One period before @base: t0 and the warm-up's end are @base. */
	latscope_timeline_init(s, *base - NSEC_PER_SEC);
	mutex_unlock(&s->lock);
	return s;
}

static int noise_report(struct latscope_session *s, u64 from, u64 to,
			const struct latscope_noise_gap *gaps, u32 count)
{
	struct latscope_noise_report rep = {
		.count = count,
		.from_ns = from,
		.to_ns = to,
	};

	return latscope_session_report(s, &rep, gaps);
}

static u64 noise_kinds_sum(const u64 *gaps)
{
	u64 sum = 0;
	int k;

	for (k = 0; k < LATSCOPE_NOISE_KINDS; k++)
		sum += gaps[k];
	return sum;
}

static void latscope_noise_user_reports(struct kunit *test)
{
	struct latscope_noise_bulk rec;
	struct latscope_pulse pulse = {};
	struct latscope_result res;
	struct latscope_session *s;
	u64 b, ms = NS_PER_MS, us = NS_PER_US;
	struct latscope_noise_gap g[2];

	s = noise_user_session(test, &b, 3500 * ms);
	KUNIT_EXPECT_EQ(test, latscope_session_pulse(s, &pulse), -EINVAL);

	/* Second 0: 100..500 ms, two gaps of 20 and 7 us. */
	g[0] = (struct latscope_noise_gap){ b + 200 * ms, b + 200 * ms + 20 * us };
	g[1] = (struct latscope_noise_gap){ b + 300 * ms, b + 300 * ms + 7 * us };
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 100 * ms, b + 500 * ms, g, 2), 0);

	/* Refused whole: nothing of them counts. */
	g[1].end_ns = g[1].start_ns + 4 * us;	/* below the 5 us threshold */
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 500 * ms, b + 600 * ms, g, 2), -EINVAL);
	g[1] = (struct latscope_noise_gap){ b + 150 * ms, b + 150 * ms + 9 * us };
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 100 * ms, b + 600 * ms, g, 2), -EINVAL);
	/* Before the previous report's end: counted twice otherwise. */
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 400 * ms, b + 600 * ms, NULL, 0), -EINVAL);
	/* In the future. */
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 500 * ms, ktime_get_ns() + NSEC_PER_SEC,
					   NULL, 0), -EINVAL);
	/* A gap outside its span. */
	g[0] = (struct latscope_noise_gap){ b + 450 * ms, b + 450 * ms + 9 * us };
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 500 * ms, b + 600 * ms, g, 1), -EINVAL);

	/* 500 ms..1.5 s: a gap in each second. */
	g[0] = (struct latscope_noise_gap){ b + 900 * ms, b + 900 * ms + 30 * us };
	g[1] = (struct latscope_noise_gap){ b + 1200 * ms, b + 1200 * ms + 40 * us };
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 500 * ms, b + 1500 * ms, g, 2), 0);
	/* Second 2 has runtime and no gap. */
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 2500 * ms, b + 2600 * ms, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	KUNIT_EXPECT_EQ(test, noise_report(s, b + 2600 * ms, b + 2700 * ms, NULL, 0), -EINVAL);

	KUNIT_ASSERT_TRUE(test, latscope_ring_pop_whole(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.bulk.second, 0ULL);
	KUNIT_EXPECT_EQ(test, rec.runtime_ns, 900 * ms);
	KUNIT_EXPECT_EQ(test, rec.bulk.samples, 3ULL);
	KUNIT_EXPECT_EQ(test, rec.noise_ns, 57 * us);
	KUNIT_EXPECT_EQ(test, rec.bulk.max_ns, (s64)(30 * us));
	KUNIT_EXPECT_EQ(test, rec.bulk.min_ns, (s64)(7 * us));
	KUNIT_EXPECT_GE(test, noise_kinds_sum(rec.gaps), 3ULL);
	KUNIT_ASSERT_TRUE(test, latscope_ring_pop_whole(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.bulk.second, 1ULL);
	KUNIT_EXPECT_EQ(test, rec.runtime_ns, 500 * ms);
	KUNIT_EXPECT_EQ(test, rec.bulk.samples, 1ULL);
	KUNIT_EXPECT_EQ(test, rec.noise_ns, 40 * us);
	KUNIT_ASSERT_TRUE(test, latscope_ring_pop_whole(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.bulk.second, 2ULL);
	KUNIT_EXPECT_EQ(test, rec.runtime_ns, 100 * ms);
	KUNIT_EXPECT_EQ(test, rec.bulk.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, noise_kinds_sum(rec.gaps), 0ULL);
	KUNIT_EXPECT_TRUE(test, latscope_ring_empty(&s->ring));

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.hist_count, 1U);
	KUNIT_EXPECT_EQ(test, res.events, 4ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 4ULL);
	KUNIT_EXPECT_EQ(test, res.latency.max_ns, (s64)(40 * us));
	KUNIT_EXPECT_EQ(test, res.latency.peak_ns, b + 1200 * ms);
	KUNIT_EXPECT_EQ(test, res.noise.runtime_ns, 1500 * ms);
	KUNIT_EXPECT_EQ(test, res.noise.noise_ns, 97 * us);
	KUNIT_EXPECT_EQ(test, res.noise.threshold_ns, LATSCOPE_NOISE_DEFAULT_THRESHOLD_NS);
	KUNIT_EXPECT_EQ(test, res.noise.runtime_per_period_ns, NSEC_PER_SEC);
	KUNIT_EXPECT_GE(test, noise_kinds_sum(res.noise.gaps), 4ULL);
	KUNIT_EXPECT_NE(test, res.noise.seen & LATSCOPE_WHY_SEEN_IRQ, 0U);
}

/*
 * A report reaches back 10 s at most, and spans 10 s at most: a NOISE
 * call's work is bounded, and it cannot be asked about the CPU's past.
 */
static void latscope_noise_user_bounds(struct kunit *test)
{
	u64 b, now, s10 = LATSCOPE_NOISE_MAX_REPORT_NS;
	struct latscope_session *s = noise_user_session(test, &b, s10 + 2 * NSEC_PER_SEC);

	now = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, noise_report(s, now - s10 - NSEC_PER_SEC,
					   now - s10 - NSEC_PER_SEC / 2, NULL, 0), -ESTALE);
	now = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, noise_report(s, now - s10 - NSEC_PER_SEC / 2, now, NULL, 0),
			-ESTALE);
	now = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, noise_report(s, now - NSEC_PER_SEC, now, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	KUNIT_EXPECT_EQ(test, latscope_kunit_result(test, s).noise.runtime_ns, NSEC_PER_SEC);
}

/* A report from another CPU than the session's is refused. */
static void latscope_noise_user_elsewhere(struct kunit *test)
{
	struct latscope_setup setup = noise_setup(LATSCOPE_CTX_USER, NSEC_PER_SEC, 0);
	struct latscope_session *s;
	unsigned int other;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	other = cpumask_next(setup.cpu, cpu_online_mask);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(other)), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, noise_unpin, NULL), 0);
	s = latscope_kunit_session(test, &setup);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	KUNIT_EXPECT_EQ(test, noise_report(s, 0, 0, NULL, 0), -EXDEV);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
}

/* ---- the kernel busy task ---- */

/* Waits until the run has had @runtime of reading, 30 s at most. */
static void noise_wait_runtime(struct kunit *test, struct latscope_session *s,
			       u64 runtime)
{
	unsigned long end = jiffies + 30 * HZ;
	struct latscope_result res = {};

	for (;;) {
		KUNIT_ASSERT_EQ(test, latscope_session_snapshot(s, &res, NULL), 0);
		if (res.noise.runtime_ns >= runtime)
			return;
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, end),
				      "runtime %llu ns after 30 s", res.noise.runtime_ns);
		msleep(20);
	}
}

static void noise_kernel_run(struct kunit *test, u32 flags)
{
	u64 period = 10 * NS_PER_MS, runtime = 2 * NS_PER_MS;
	struct latscope_setup setup = noise_setup(LATSCOPE_CTX_KERNEL, period, runtime);
	struct latscope_noise_bulk rec;
	struct latscope_session *s;
	struct latscope_result res;
	u64 runtime_sum = 0, samples = 0;

	setup.noise.flags = flags;
	s = latscope_kunit_session(test, &setup);
	KUNIT_ASSERT_EQ(test, latscope_session_start(s), 0);
	KUNIT_ASSERT_NOT_NULL(test, s->kthread);
	noise_wait_runtime(test, s, 3 * runtime);
	KUNIT_EXPECT_EQ(test, latscope_session_stop(s), 0);
	KUNIT_EXPECT_NULL(test, s->kthread);

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.priority, 0U);
	KUNIT_EXPECT_EQ(test, res.noise.flags, flags);
	KUNIT_EXPECT_GE(test, res.noise.runtime_ns, 3 * runtime);
	KUNIT_EXPECT_EQ(test, res.events, res.latency.samples);
	KUNIT_EXPECT_EQ(test, (s64)res.noise.noise_ns, res.latency.sum_ns);
	KUNIT_EXPECT_GE(test, noise_kinds_sum(res.noise.gaps), res.latency.samples);
	KUNIT_EXPECT_LE(test, res.noise.noise_ns, res.noise.runtime_ns);
	if (res.latency.samples)
		KUNIT_EXPECT_GE(test, res.latency.min_ns,
				(s64)LATSCOPE_NOISE_DEFAULT_THRESHOLD_NS);
	/* The records hold the whole runtime and every gap. */
	while (latscope_ring_pop_whole(&s->ring, &rec)) {
		runtime_sum += rec.runtime_ns;
		samples += rec.bulk.samples;
		KUNIT_EXPECT_EQ(test, rec.bulk.overruns, 0ULL);
	}
	KUNIT_EXPECT_EQ(test, runtime_sum, res.noise.runtime_ns);
	KUNIT_EXPECT_EQ(test, samples, res.latency.samples);
}

static void latscope_noise_kernel(struct kunit *test)
{
	noise_kernel_run(test, 0);
}

static void latscope_noise_kernel_irqs_off(struct kunit *test)
{
	noise_kernel_run(test, LATSCOPE_NOISE_IRQS_OFF);
}

/* A SCHED_FIFO kernel thread reading the whole period leaves 1/20 of it. */
static void latscope_noise_fifo_slack(struct kunit *test)
{
	struct latscope_setup setup = noise_setup(LATSCOPE_CTX_KERNEL, 10 * NS_PER_MS, 0);
	struct latscope_session *s;

	setup.priority = 50;
	s = latscope_kunit_session(test, &setup);
	KUNIT_EXPECT_EQ(test, latscope_kunit_result(test, s).noise.runtime_per_period_ns,
			9500 * NS_PER_US);
	setup.priority = 0;
	KUNIT_ASSERT_EQ(test, latscope_session_setup(s, &setup, true), 0);
	KUNIT_EXPECT_EQ(test, latscope_kunit_result(test, s).noise.runtime_per_period_ns,
			10 * NS_PER_MS);
}

static struct kunit_case latscope_noise_test_cases[] = {
	KUNIT_CASE_PARAM(latscope_noise_setup_rules, noise_setup_gen_params),
	KUNIT_CASE(latscope_noise_block_elsewhere),
	KUNIT_CASE(latscope_noise_access),
	KUNIT_CASE(latscope_noise_flight_kinds),
	KUNIT_CASE(latscope_noise_user_reports),
	KUNIT_CASE(latscope_noise_user_bounds),
	KUNIT_CASE(latscope_noise_user_elsewhere),
	KUNIT_CASE(latscope_noise_kernel),
	KUNIT_CASE(latscope_noise_kernel_irqs_off),
	KUNIT_CASE(latscope_noise_fifo_slack),
	{}
};

static struct kunit_suite latscope_noise_suite = {
	.name = "latscope_noise",
	.test_cases = latscope_noise_test_cases,
};

kunit_test_suites(&latscope_noise_suite);
