// SPDX-License-Identifier: GPL-2.0
/*
 * latscope noise source (DOC: noise in the uapi header): the time taken
 * from a task that never sleeps. A busy task reads the clock for a
 * runtime of each period; each gap of at least the threshold between two
 * reads is a sample, told apart by what the CPU's flight record saw begin
 * in it. In the kernel context the busy task is this file's kthread; in
 * the user context it is the caller's thread, which reports its gaps
 * (LATSCOPE_IOC_NOISE). Both go through latscope_noise_step() and
 * latscope_noise_run(): the same accounting, second by second.
 */
#include <linux/bitops.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "latscope.h"
#include "why.h"

/**
 * struct latscope_noise - a noise session's state (@s->priv)
 * @runtime: runtime per period, the default filled in
 * @threshold: the shortest gap that is noise, the default filled in
 * @cursor: user context: the previous report's end (0: none yet; what
 *	came before the run's warm-up ended never counts)
 * @sec_runtime: runtime of the second being summed
 * @sec_gaps: its gaps of each kind
 * @runtime_total: runtime past the warm-up
 * @noise_total: the gaps' sum
 * @gaps_total: gaps of each kind
 *
 * Written by the measuring context only (the kthread, or NOISE under
 * @s->lock); the totals are read by a snapshot meanwhile.
 */
struct latscope_noise {
	u64 runtime;
	u64 threshold;
	u64 cursor;
	u64 sec_runtime;
	u64 sec_gaps[LATSCOPE_NOISE_KINDS];
	u64 runtime_total;
	u64 noise_total;
	u64 gaps_total[LATSCOPE_NOISE_KINDS];
};

static int latscope_noise_check(const struct latscope_setup *setup)
{
	const struct latscope_noise_setup *ns = &setup->noise;
	u64 runtime = ns->runtime_ns ? ns->runtime_ns : setup->period_ns;

	if (setup->context == LATSCOPE_CTX_IRQ)
		return -EINVAL;
	if (setup->period_ns < LATSCOPE_NOISE_MIN_PERIOD_NS ||
	    setup->period_ns > LATSCOPE_MAX_PERIOD_NS)
		return -EINVAL;
	if (runtime < LATSCOPE_NOISE_MIN_RUNTIME_NS || runtime > setup->period_ns)
		return -EINVAL;
	if (ns->threshold_ns > LATSCOPE_NOISE_MAX_THRESHOLD_NS ||
	    (ns->threshold_ns && ns->threshold_ns < LATSCOPE_NOISE_MIN_THRESHOLD_NS) ||
	    (ns->flags & ~LATSCOPE_NOISE_FLAGS_MASK) ||
	    memchr_inv(ns->__reserved, 0, sizeof(ns->__reserved)))
		return -EINVAL;
	/* Interrupts off: the kthread's, on for at least half of each period. */
	if ((ns->flags & LATSCOPE_NOISE_IRQS_OFF) &&
	    (setup->context != LATSCOPE_CTX_KERNEL ||
	     runtime > LATSCOPE_NOISE_MAX_IRQS_OFF_NS || runtime > setup->period_ns / 2))
		return -EINVAL;
	if (memchr_inv(&setup->gpio, 0, sizeof(setup->gpio)))
		return -EINVAL;
	return 0;
}

/* The kinds of a gap: what began in it, in the CPU's flight record. */
static u32 latscope_noise_kinds(struct latscope_session *s, u64 from, u64 to)
{
	u32 seen, kinds = 0;
	bool cut;

	if (!s->flight || !s->flight_seen)
		return BIT(LATSCOPE_NOISE_UNKNOWN);
	seen = latscope_flight_kinds(s->flight, from, to, &cut);
	if (seen & (BIT(LATSCOPE_FL_IRQ_ENTRY) | BIT(LATSCOPE_FL_HRTIMER_ENTRY)))
		kinds |= BIT(LATSCOPE_NOISE_IRQ);
	if (seen & BIT(LATSCOPE_FL_SOFTIRQ_ENTRY))
		kinds |= BIT(LATSCOPE_NOISE_SOFTIRQ);
	if (seen & BIT(LATSCOPE_FL_SWITCH))
		kinds |= BIT(LATSCOPE_NOISE_THREAD);
	if (seen & BIT(LATSCOPE_FL_NMI))
		kinds |= BIT(LATSCOPE_NOISE_NMI);
	if (!kinds)
		kinds = BIT(cut ? LATSCOPE_NOISE_UNKNOWN : LATSCOPE_NOISE_UNEXPLAINED);
	return kinds;
}

/* Runtime from @from to @to, past the warm-up, split at each second. */
static void latscope_noise_run(struct latscope_session *s,
			       struct latscope_noise *nz, u64 from, u64 to)
{
	u64 end;

	if (from < s->warmup_end)
		from = min(to, s->warmup_end);
	while (from < to) {
		/* Closes the seconds before @from (the task may have slept). */
		latscope_measure_advance(s, from);
		end = min(to, s->sec.deadline);
		nz->sec_runtime += end - from;
		WRITE_ONCE(nz->runtime_total, nz->runtime_total + end - from);
		from = end;
	}
	latscope_measure_advance(s, to);
}

/*
 * One step of the busy task, from a read at @prev to the next at @now: a
 * gap if it is long enough. Its runtime counts in the second of @prev,
 * which it closes first; the step after it closes this one's.
 */
static void latscope_noise_step(struct latscope_session *s,
				struct latscope_noise *nz, u64 prev, u64 now)
{
	u64 gap = now - prev;
	unsigned long kinds;
	unsigned int k;

	if (prev < s->warmup_end)
		return;
	latscope_measure_advance(s, prev);
	nz->sec_runtime += gap;
	WRITE_ONCE(nz->runtime_total, nz->runtime_total + gap);
	if (gap >= nz->threshold) {
		kinds = latscope_noise_kinds(s, prev, now);
		for_each_set_bit(k, &kinds, LATSCOPE_NOISE_KINDS) {
			nz->sec_gaps[k]++;
			WRITE_ONCE(nz->gaps_total[k], nz->gaps_total[k] + 1);
		}
		WRITE_ONCE(nz->noise_total, nz->noise_total + gap);
		WRITE_ONCE(s->events, s->events + 1);
		latscope_record(s, (s64)gap, prev);
	}
}

/*
 * The kernel busy task's runtime: reads until @until, or until it is
 * told to stop (with interrupts on). With interrupts off it cannot be
 * told, and never reschedules: the runtime is bounded by the setup.
 */
static void latscope_noise_spin(struct latscope_session *s,
				struct latscope_noise *nz, u64 until)
{
	bool irqs_off = s->setup.noise.flags & LATSCOPE_NOISE_IRQS_OFF;
	unsigned long flags = 0;
	u64 prev, now;

	if (irqs_off)
		local_irq_save(flags);
	prev = ktime_get_mono_fast_ns();
	while (prev < until) {
		now = ktime_get_mono_fast_ns();
		latscope_noise_step(s, nz, prev, now);
		prev = now;
		if (irqs_off)
			continue;
		if (kthread_should_stop())
			break;
		/* Lets others run on a kernel without preemption: thread noise. */
		cond_resched();
	}
	if (irqs_off)
		local_irq_restore(flags);
}

/* The kernel context's busy task, "latnoise/<cpu>". */
static int latscope_noise_fn(void *data)
{
	struct latscope_session *s = data;
	struct latscope_noise *nz = s->priv;
	u64 period = s->setup.period_ns, start = s->t0, now;
	ktime_t wake;

	for (;;) {
		/* Sleeps until the next period begins (the first: t0). */
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		wake = ns_to_ktime(start);
		if (ktime_get_mono_fast_ns() < start)
			schedule_hrtimeout_range(&wake, 0, HRTIMER_MODE_ABS);
		__set_current_state(TASK_RUNNING);
		if (kthread_should_stop())
			break;
		now = ktime_get_mono_fast_ns();
		if (now < start)
			continue;
		latscope_noise_spin(s, nz, start + nz->runtime);
		/*
		 * The next period; one the task ran late into keeps the rest
		 * of its runtime (the whole period's, reading without end),
		 * only periods wholly past are skipped.
		 */
		now = ktime_get_mono_fast_ns();
		start += period;
		if (now >= start + period)
			start += div64_u64(now - start, period) * period;
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * The setup's runtime and threshold, their defaults filled in. A
 * SCHED_FIFO kernel thread leaves the last 1/LATSCOPE_NOISE_FIFO_SLACK of
 * each period to the CPU's other tasks, as RT throttling's default would:
 * with RT throttling off, nothing else would run on the CPU again.
 */
static int latscope_noise_get(struct latscope_session *s)
{
	struct latscope_noise *nz = s->priv;
	const struct latscope_noise_setup *ns = &s->setup.noise;
	u64 period = s->setup.period_ns;

	nz->runtime = ns->runtime_ns ? ns->runtime_ns : period;
	if (s->setup.context == LATSCOPE_CTX_KERNEL && s->setup.priority)
		nz->runtime = min(nz->runtime, period - period / LATSCOPE_NOISE_FIFO_SLACK);
	nz->threshold = ns->threshold_ns ? ns->threshold_ns :
					   LATSCOPE_NOISE_DEFAULT_THRESHOLD_NS;
	return 0;
}

static int latscope_noise_start(struct latscope_session *s)
{
	struct latscope_noise *nz = s->priv;
	u64 runtime = nz->runtime, threshold = nz->threshold;

	memset(nz, 0, sizeof(*nz));
	nz->runtime = runtime;
	nz->threshold = threshold;
	if (s->setup.context != LATSCOPE_CTX_KERNEL)
		return 0;
	return latscope_kthread_start(s, &s->kthread, latscope_noise_fn,
				      s->setup.priority, "latnoise");
}

static void latscope_noise_stop(struct latscope_session *s)
{
	latscope_kthread_stop(&s->kthread);
}

static bool latscope_noise_second(struct latscope_session *s,
				  struct latscope_noise_bulk *rec)
{
	struct latscope_noise *nz = s->priv;
	bool had = nz->sec_runtime;

	rec->runtime_ns = nz->sec_runtime;
	rec->noise_ns = s->sec.samples ? s->sec.sum : 0;
	memcpy(rec->gaps, nz->sec_gaps, sizeof(rec->gaps));
	nz->sec_runtime = 0;
	memset(nz->sec_gaps, 0, sizeof(nz->sec_gaps));
	return had;
}

/*
 * NOISE: the whole report is checked before anything of it counts, then
 * its runtime and gaps go through the kthread's accounting.
 */
static int latscope_noise_report(struct latscope_session *s,
				 const struct latscope_noise_report *rep,
				 const struct latscope_noise_gap *gaps)
{
	struct latscope_noise *nz = s->priv;
	unsigned int cpu = raw_smp_processor_id();
	u64 prev = rep->from_ns, now = ktime_get_ns();
	u32 i;

	if (cpu != s->setup.cpu)
		return -EXDEV;
	if (rep->from_ns < nz->cursor || rep->to_ns < rep->from_ns || rep->to_ns > now)
		return -EINVAL;
	/* A spin that just ended: bounded work, no looking back. */
	if (now - rep->to_ns > LATSCOPE_NOISE_MAX_REPORT_NS ||
	    rep->to_ns - rep->from_ns > LATSCOPE_NOISE_MAX_REPORT_NS)
		return -ESTALE;
	for (i = 0; i < rep->count; i++) {
		if (gaps[i].start_ns < prev || gaps[i].end_ns > rep->to_ns ||
		    gaps[i].end_ns < gaps[i].start_ns ||
		    gaps[i].end_ns - gaps[i].start_ns < nz->threshold)
			return -EINVAL;
		prev = gaps[i].end_ns;
	}
	/* For the recorder: the busy task, and where it ran. */
	WRITE_ONCE(s->resp_pid, task_pid_nr(current));
	WRITE_ONCE(s->resp_cpu, cpu);
	prev = rep->from_ns;
	for (i = 0; i < rep->count; i++) {
		latscope_noise_run(s, nz, prev, gaps[i].start_ns);
		latscope_noise_step(s, nz, gaps[i].start_ns, gaps[i].end_ns);
		prev = gaps[i].end_ns;
	}
	latscope_noise_run(s, nz, prev, rep->to_ns);
	nz->cursor = rep->to_ns;
	return 0;
}

static void latscope_noise_export(struct latscope_session *s,
				  struct latscope_result *res)
{
	struct latscope_noise *nz = s->priv;
	struct latscope_noise_result *out = &res->noise;
	unsigned int k;

	out->runtime_ns = READ_ONCE(nz->runtime_total);
	out->noise_ns = READ_ONCE(nz->noise_total);
	for (k = 0; k < LATSCOPE_NOISE_KINDS; k++)
		out->gaps[k] = READ_ONCE(nz->gaps_total[k]);
	out->threshold_ns = nz->threshold;
	out->runtime_per_period_ns = nz->runtime;
	out->flags = s->setup.noise.flags;
	out->seen = s->flight_seen;
}

const struct latscope_source latscope_noise_source = {
	.name = "noise",
	.self_timed = true,
	.record_size = sizeof(struct latscope_noise_bulk),
	.uses_flight = true,
	.priv_size = sizeof(struct latscope_noise),
	.check = latscope_noise_check,
	.get = latscope_noise_get,
	.start = latscope_noise_start,
	.stop = latscope_noise_stop,
	.second = latscope_noise_second,
	.report = latscope_noise_report,
	.export = latscope_noise_export,
};
