// SPDX-License-Identifier: GPL-2.0
/*
 * latscope measurement path: what happens at each event, from the source's
 * hard-irq callback to the responder's sample, and the 1 Hz bulk records.
 * Nothing here allocates, sleeps (outside the kthread's wait) or prints.
 */
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "latscope.h"

static void latscope_second_start(struct latscope_second *sec, u64 index,
				  u64 deadline, u64 overruns)
{
	sec->index = index;
	sec->deadline = deadline;
	sec->samples = 0;
	sec->min = S64_MAX;
	sec->max = S64_MIN;
	sec->sum = 0;
	sec->overruns_seen = overruns;
}

/* Clears every figure; the session is not running. */
void latscope_measure_reset(struct latscope_session *s)
{
	u32 cells = s->setup.hist_cells, cell_ns = s->setup.hist_cell_ns;
	u32 count = latscope_hist_count(&s->setup);
	u64 *tails = s->cells + (size_t)count * cells;

	/* See latscope_session_setup() for the layout. */
	latscope_acc_init(&s->lat, s->cells, cells, cell_ns, tails);
	latscope_acc_init(&s->irq, count > 1 ? s->cells + cells : NULL,
			  count > 1 ? cells : 0, cell_ns,
			  tails + LATSCOPE_TAIL_BUCKETS);
	s->events = 0;
	atomic64_set(&s->overruns, 0);
	latscope_second_start(&s->sec, 0, s->warmup_end + NSEC_PER_SEC, 0);
	latscope_ring_reset(&s->ring);
	atomic_set(&s->trace_fired, 0);
	s->trace_sample = 0;
	atomic64_set(&s->pending, 0);
}

/* Queues the record of the second being summed, if it has anything. */
static void latscope_second_emit(struct latscope_session *s)
{
	struct latscope_second *sec = &s->sec;
	u64 overruns = atomic64_read(&s->overruns);
	struct latscope_bulk rec;

	if (!sec->samples && overruns == sec->overruns_seen)
		return;
	rec.second = sec->index;
	rec.samples = sec->samples;
	rec.overruns = overruns - sec->overruns_seen;
	rec.min_ns = sec->samples ? sec->min : 0;
	rec.max_ns = sec->samples ? sec->max : 0;
	rec.avg_ns = sec->samples ? div64_s64(sec->sum, sec->samples) : 0;
	sec->overruns_seen = overruns;
	latscope_ring_push(&s->ring, &rec);
	/* wake_up() may sleep on PREEMPT_RT: let irq_work do it. */
	irq_work_queue(&s->bulk_work);
}

static void latscope_second_advance(struct latscope_session *s, u64 ideal)
{
	struct latscope_second *sec = &s->sec;
	u64 index = sec->index, deadline = sec->deadline;

	latscope_second_emit(s);
	/* Seconds without any sample (a stalled responder) are skipped. */
	while (deadline <= ideal) {
		deadline += NSEC_PER_SEC;
		index++;
	}
	latscope_second_start(sec, index, deadline, sec->overruns_seen);
}

static void latscope_trace_fire(struct latscope_session *s, s64 lat,
				u64 ideal)
{
	char msg[128];

	if (atomic_xchg(&s->trace_fired, 1))
		return;
	s->trace_sample = lat;
	snprintf(msg, sizeof(msg),
		 "latscope: CPU%u latency %lld ns above threshold %llu ns, ideal %llu ns\n",
		 s->setup.cpu, lat, s->setup.trace_threshold_ns, ideal);
	latscope_trace_stop(msg);
}

/* One sample of the latency the context measures. */
void latscope_record(struct latscope_session *s, s64 lat, u64 ideal)
{
	struct latscope_second *sec = &s->sec;

	if (ideal < s->warmup_end)
		return;
	if (ideal >= sec->deadline)
		latscope_second_advance(s, ideal);
	latscope_acc_add(&s->lat, lat, ideal);
	sec->samples++;
	sec->sum += lat;
	if (lat < sec->min)
		sec->min = lat;
	if (lat > sec->max)
		sec->max = lat;
	if (s->setup.trace_threshold_ns && lat > (s64)s->setup.trace_threshold_ns)
		latscope_trace_fire(s, lat, ideal);
}

/*
 * Puts event 0 one period after @now, rounds the warm-up up to whole
 * periods, and clears every figure. The session is not running.
 */
void latscope_timeline_init(struct latscope_session *s, u64 now)
{
	u64 period = s->setup.period_ns;
	u64 warmup_periods;

	if (!period) {
		/* Events come from outside (remote GPIO): no timeline. */
		s->t0 = now;
		s->warmup_end = now + s->setup.warmup_ns;
	} else {
		warmup_periods = div64_u64(s->setup.warmup_ns + period - 1, period);
		s->t0 = now + period;
		s->warmup_end = s->t0 + warmup_periods * period;
	}
	latscope_measure_reset(s);
}

/*
 * At the stop, the source's next ideal time is @next. Ideal times that are
 * a whole period or more behind @now never reached the handler (a stalled
 * timer or interrupts held off): they are events, and missed periods, as
 * they would have been had the handler run once more.
 */
void latscope_timeline_close(struct latscope_session *s, u64 next, u64 now)
{
	u64 period = s->setup.period_ns, missed;

	next = max(next, s->warmup_end);
	if (now < next + period)
		return;
	missed = div64_u64(now - next, period);
	s->events += missed;
	atomic64_add(missed, &s->overruns);
}

/* Sends the last, partial second once the session stopped. */
void latscope_measure_flush(struct latscope_session *s)
{
	latscope_second_emit(s);
}

/*
 * Hands the event of @ideal to the responder, from hard-irq context: the
 * irq part of its latency (@irq_lat, if @has_irq) is recorded here, the
 * responder's part when it runs.
 */
void latscope_handoff(struct latscope_session *s, u64 ideal, s64 irq_lat,
		      bool has_irq)
{
	bool counted = ideal >= s->warmup_end;

	if (counted && has_irq)
		latscope_acc_add(&s->irq, irq_lat, ideal);
	/* A responder still owing an older event misses this one. */
	if (atomic64_cmpxchg(&s->pending, 0, ideal) && counted)
		atomic64_inc(&s->overruns);
	if (s->kthread)
		wake_up_process(s->kthread);
	else
		swake_up_one(&s->resp_wq);
}

/*
 * Called by the timer source in hard-irq context: @ideal is the event's
 * place on the timeline, @arrival when the irq saw it, @missed how many
 * later periods passed before it did.
 */
void latscope_event(struct latscope_session *s, u64 ideal, u64 arrival,
		    u64 missed)
{
	s64 lat = (s64)(arrival - ideal);

	if (ideal >= s->warmup_end) {
		s->events += 1 + missed;
		if (missed)
			atomic64_add(missed, &s->overruns);
	}
	if (s->setup.context == LATSCOPE_CTX_IRQ)
		latscope_record(s, lat, ideal);
	else
		latscope_handoff(s, ideal, lat, true);
}

/* The kernel-context responder, bound to the session's CPU. */
int latscope_kthread_fn(void *data)
{
	struct latscope_session *s = data;
	u64 ideal;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		ideal = atomic64_xchg(&s->pending, 0);
		if (!ideal) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		latscope_record(s, (s64)(ktime_get_ns() - ideal), ideal);
		if (s->source->respond)
			s->source->respond(s, ideal);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}
