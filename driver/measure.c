// SPDX-License-Identifier: GPL-2.0
/*
 * latscope measurement path: what happens at each event, from the source's
 * hard-irq callback to the responder's sample, and the 1 Hz bulk records.
 * Nothing here allocates, sleeps or prints.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "latscope.h"
#include "why.h"

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

/**
 * latscope_measure_reset() - clear every figure of a session
 * @s: the session, not running, its setup and warm-up's end known
 *
 * Statistics, histograms and tails, events, overruns, the second being
 * summed, the bulk ring, the trace trigger and the untaken event.
 */
void latscope_measure_reset(struct latscope_session *s)
{
	u32 cells = s->setup.hist_cells, cell_ns = s->setup.hist_cell_ns;
	struct latscope_counters c = latscope_counters_at(s->cells, &s->setup, 2);

	latscope_acc_init(&s->lat, c.lat_cells, cells, cell_ns, c.lat_tail);
	latscope_acc_init(&s->irq, c.irq_cells, c.irq_cells ? cells : 0,
			  cell_ns, c.irq_tail);
	s->events = 0;
	atomic64_set(&s->overruns, 0);
	latscope_second_start(&s->sec, 0, s->warmup_end + NSEC_PER_SEC, 0);
	latscope_ring_reset(&s->ring, latscope_record_size(s));
	atomic_set(&s->trace_fired, 0);
	s->trace_sample = 0;
	if (s->worst)
		latscope_worst_reset(s->worst);
	atomic64_set(&s->pending, 0);
}

/* Queues the record of the second being summed, if it has anything. */
static void latscope_second_emit(struct latscope_session *s)
{
	struct latscope_second *sec = &s->sec;
	u64 overruns = atomic64_read(&s->overruns);
	struct latscope_noise_bulk rec = { };
	bool own = false;

	if (s->source->second)
		own = s->source->second(s, &rec);
	if (!sec->samples && overruns == sec->overruns_seen && !own)
		return;
	rec.bulk.second = sec->index;
	rec.bulk.samples = sec->samples;
	rec.bulk.overruns = overruns - sec->overruns_seen;
	rec.bulk.min_ns = sec->samples ? sec->min : 0;
	rec.bulk.max_ns = sec->samples ? sec->max : 0;
	rec.bulk.avg_ns = sec->samples ? div64_s64(sec->sum, sec->samples) : 0;
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

/**
 * latscope_record() - record one sample of the latency the context measures
 * @s: the session
 * @lat: the latency, in ns
 * @ideal: the ideal time of its event; none of the warm-up is recorded
 *
 * Adds it to the statistics and to the second being summed, queues that
 * second's bulk record once an ideal time past it comes, lets the
 * recorder explain it if it is among the worst, and stops the trace if
 * @lat crosses the threshold. Never sleeps, never allocates.
 *
 * Context: the session's one measuring context (hard irq, the kernel
 * responder, or PULSE under @s->lock).
 */
void latscope_record(struct latscope_session *s, s64 lat, u64 ideal)
{
	struct latscope_second *sec = &s->sec;
	bool crossing;

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
	crossing = s->setup.trace_threshold_ns &&
		   lat > (s64)s->setup.trace_threshold_ns;
	/* The sample that stops the trace keeps its account, whatever its rank. */
	latscope_recorder_sample(s, lat, ideal,
				 crossing && !atomic_read(&s->trace_fired));
	if (crossing)
		latscope_trace_fire(s, lat, ideal);
}

/**
 * latscope_measure_advance() - close the seconds a self-timed source left
 * @s: the session
 * @now: a time the source measured up to, past the warm-up
 *
 * A source whose seconds have something besides samples (a noise
 * source's runtime) closes each second it measured through, so that a
 * second without samples has its record too.
 *
 * Context: the session's one measuring context.
 */
void latscope_measure_advance(struct latscope_session *s, u64 now)
{
	if (now >= s->sec.deadline)
		latscope_second_advance(s, now);
}

/**
 * latscope_record_size() - bytes of each record read() hands out
 * @s: the session; read() asks without its lock, a SETUP may change it
 *
 * Return: the source's &latscope_source.record_size, or that of struct
 * latscope_bulk.
 */
size_t latscope_record_size(const struct latscope_session *s)
{
	const struct latscope_source *src = READ_ONCE(s->source);

	if (src && src->record_size)
		return src->record_size;
	return sizeof(struct latscope_bulk);
}

/**
 * latscope_measure_flush() - queue the last, partial second's record
 * @s: the session, stopped: nothing records any more
 */
void latscope_measure_flush(struct latscope_session *s)
{
	latscope_second_emit(s);
}

/**
 * latscope_handoff() - hand an event to the responder
 * @s: the session
 * @ideal: the event's ideal time
 * @irq_lat: the irq part of its latency, in ns, if @has_irq
 * @has_irq: whether @irq_lat is known (not for remote GPIO events)
 *
 * The irq part is recorded here, the responder's part when it runs. A
 * responder still owing an older event misses this one: an overrun.
 *
 * Context: hard irq, or the thread of a threaded GPIO chip.
 */
void latscope_handoff(struct latscope_session *s, u64 ideal, s64 irq_lat,
		      bool has_irq)
{
	bool counted = ideal >= s->warmup_end;

	if (counted && has_irq)
		latscope_acc_add(&s->irq, irq_lat, ideal);
	if (counted)
		latscope_recorder_event(s, ideal, ideal + (has_irq ? irq_lat : 0));
	/* A responder still owing an older event misses this one. */
	if (atomic64_cmpxchg(&s->pending, 0, ideal) && counted)
		atomic64_inc(&s->overruns);
	if (s->kthread)
		wake_up_process(s->kthread);
	else
		rcuwait_wake_up(&s->resp_wait);
}
