// SPDX-License-Identifier: GPL-2.0
/*
 * latscope worst-sample recorder, a session's side: what SETUP sets
 * aside, what a run arms and disarms, the EVENT each handed-over event
 * leaves in its CPU's flight record, and the record a sample gets when it
 * enters the run's K worst (why.h). Without a recorder (why_records 0) a
 * session pays one test per event.
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "latscope.h"
#include "why.h"

static atomic_t latscope_recorder_ids = ATOMIC_INIT(0);

/* A pending slot's claim, taken whole under the set's lock by the builder. */
struct latscope_why_job {
	u64 ideal;
	s64 lat;
	s32 responder;
	u32 slot;
	u32 gen;
	u32 flags;			/* LATSCOPE_WHY_* the sample brings */
	u64 remote_arrival;
	u64 remote_wake;
};

/*
 * Takes a pending slot's job, if any: one per slot, as a later claim of
 * a slot makes the earlier one's record useless. The flight record keeps
 * holding the oldest window of the job taken and those still pending;
 * with no job left, nothing.
 */
static bool latscope_recorder_job(struct latscope_worst_set *set,
				  struct latscope_why_job *job)
{
	struct latscope_worst *w;
	unsigned long flags;
	bool any = false;
	u64 hold = 0;
	u32 i;

	raw_spin_lock_irqsave(&set->lock, flags);
	for (i = 0; i < set->nr; i++) {
		w = &set->slot[i];
		if (!w->pending)
			continue;
		if (!hold || w->why.ideal_ns < hold)
			hold = w->why.ideal_ns;
		if (any)
			continue;
		w->pending = false;
		job->ideal = w->why.ideal_ns;
		job->lat = w->why.latency_ns;
		job->responder = w->responder;
		job->slot = i;
		job->gen = w->gen;
		job->flags = w->job_flags;
		job->remote_arrival = w->remote_arrival;
		job->remote_wake = w->remote_wake;
		any = true;
	}
	latscope_flight_hold(set->flight, &set->holder, hold);
	raw_spin_unlock_irqrestore(&set->lock, flags);
	return any;
}

/*
 * The EVENT of a sample whose event was handled on another CPU, into the
 * measured CPU's copy (latscope_recorder_event()): it says nothing of what
 * that CPU's irq interrupted, only the split's times.
 */
static u32 latscope_recorder_remote(struct latscope_worst_set *set,
				    const struct latscope_why_job *job,
				    struct latscope_flight_entry *ev, u32 n)
{
	struct latscope_flight_entry e = {
		.ts = job->remote_wake,
		.arg = job->ideal,
		.arg2 = job->remote_arrival,
		.kind = LATSCOPE_FL_EVENT,
		.id = set->id,
	};

	return latscope_why_merge_event(ev, n, &e);
}

/*
 * The builder: each claimed sample's record, from the measured CPU's
 * flight record, read from here without disturbing that CPU. A window
 * the record no longer holds is flagged cut.
 */
static void latscope_recorder_build(struct kthread_work *work)
{
	struct latscope_worst_set *set = container_of(work, struct latscope_worst_set,
						      work);
	struct latscope_builder *b = set->builder;
	struct latscope_worst *rec = &b->build;
	struct latscope_why_window w;
	struct latscope_why_job job;
	unsigned long flags;
	u32 n;

	while (latscope_recorder_job(set, &job)) {
		w.ideal = job.ideal;
		w.end = job.lat > 0 ? job.ideal + job.lat : job.ideal;
		w.session = set->id;
		w.responder = job.responder;
		w.self_fn = set->self_fn;
		n = latscope_flight_copy(set->flight, job.ideal, w.end, b->scratch, &w.cut);
		if (job.remote_wake)
			n = latscope_recorder_remote(set, &job, b->scratch, n);
		latscope_why_build(b->scratch, n, &w, b->tally, rec);
		rec->why.latency_ns = job.lat;
		rec->why.realtime_ns = ktime_to_ns(ktime_mono_to_real(ns_to_ktime(job.ideal)));
		rec->why.flags |= job.flags;
		rec->gen = job.gen;
		raw_spin_lock_irqsave(&set->lock, flags);
		latscope_worst_fill(set, job.slot, rec);
		raw_spin_unlock_irqrestore(&set->lock, flags);
	}
}

/**
 * latscope_recorder_alloc() - a recorder for a setup, and the probes on
 * @setup: the checked setup; why_records 0 is none
 * @self_fn: the measurement's own hrtimer callback, not counted
 * @seen: set to LATSCOPE_WHY_SEEN_* of what it will see
 *
 * The K records, allocated here; the setup's CPU gets its flight record
 * and its builder (what they need is set aside there, once), so that
 * building a record never allocates; the tracepoints are hooked.
 *
 * Context: process, may sleep; not under cpus_read_lock().
 * Return: the recorder, NULL for none, or an ERR_PTR (-ENOMEM, or the
 * builder's thread's error).
 */
struct latscope_worst_set *latscope_recorder_alloc(const struct latscope_setup *setup,
						   u64 self_fn, u32 *seen)
{
	struct latscope_worst_set *set;
	int ret;

	*seen = 0;
	if (!setup->why_records)
		return NULL;
	set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (!set)
		return ERR_PTR(-ENOMEM);
	set->k = setup->why_records;
	set->slot = kvcalloc(set->k, sizeof(*set->slot), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!set->slot)
		goto fail;
	set->builder = latscope_builder_get(setup->cpu);
	if (IS_ERR(set->builder)) {
		ret = PTR_ERR(set->builder);
		goto fail;
	}
	ret = latscope_flight_get(setup->cpu, seen);
	if (ret) {
		latscope_builder_put(set->builder);
		goto fail;
	}
	set->id = atomic_inc_return(&latscope_recorder_ids);
	set->flight = latscope_flight_of(setup->cpu);
	set->self_fn = self_fn;
	raw_spin_lock_init(&set->lock);
	latscope_flight_holder_add(set->flight, &set->holder);
	kthread_init_work(&set->work, latscope_recorder_build);
	latscope_worst_reset(set);
	return set;

fail:
	kvfree(set->slot);
	kfree(set);
	return ERR_PTR(ret);
}

/**
 * latscope_recorder_free() - give a recorder back, and the probes
 * @set: the recorder, or NULL; its session does not run
 *
 * Context: process, may sleep (the last one waits for running probes).
 */
void latscope_recorder_free(struct latscope_worst_set *set)
{
	if (!set)
		return;
	kthread_cancel_work_sync(&set->work);
	latscope_flight_holder_del(set->flight, &set->holder);
	latscope_builder_put(set->builder);
	latscope_flight_put();
	kvfree(set->slot);
	kfree(set);
}

/**
 * latscope_recorder_arm() - the session's CPU is recorded from now on
 * @s: the session, starting
 */
void latscope_recorder_arm(struct latscope_session *s)
{
	if (s->worst)
		latscope_flight_arm(s->worst->flight);
}

/**
 * latscope_recorder_disarm() - undo latscope_recorder_arm()
 * @s: the session, its source and responder stopped
 */
void latscope_recorder_disarm(struct latscope_session *s)
{
	if (s->worst)
		latscope_flight_disarm(s->worst->flight);
}

/**
 * latscope_recorder_event() - an event handed to its answer
 * @s: the session
 * @ideal: the event's ideal time
 * @arrival: its irq stamp
 *
 * Context: the source's event handler (hard irq, or an irq thread).
 */
void latscope_recorder_event(struct latscope_session *s, u64 ideal, u64 arrival)
{
	struct latscope_worst_set *set = s->worst;
	unsigned long flags;

	if (!set)
		return;
	/*
	 * On the measured CPU, its flight record holds it. Elsewhere (a GPIO
	 * line's interrupt may be routed to any CPU) the builder, which reads
	 * only the measured CPU's record, would not find it: the set keeps
	 * it for the sample. An irq thread that moves after this test only
	 * loses the split, as before.
	 */
	if (raw_smp_processor_id() == set->builder->cpu) {
		latscope_flight_event(set->id, ideal, arrival);
		return;
	}
	raw_spin_lock_irqsave(&set->lock, flags);
	set->remote_ideal = ideal;
	set->remote_arrival = arrival;
	set->remote_wake = ktime_get_mono_fast_ns();
	raw_spin_unlock_irqrestore(&set->lock, flags);
}

/* The responder whose wake-up and running the split needs, or 0. */
static s32 latscope_recorder_responder(struct latscope_session *s)
{
	if (s->kthread)
		return s->kthread->pid;
	if (s->setup.context == LATSCOPE_CTX_USER)
		return READ_ONCE(s->resp_pid);
	return 0;
}

/**
 * latscope_recorder_sample() - a sample, kept with its account if among the worst
 * @s: the session
 * @lat: the sample, in ns
 * @ideal: its event's ideal time
 * @crossing: it crossed the trace threshold first: kept whatever its rank
 *
 * Claims its slot, holds its window in the flight record and queues the
 * record's building: the measuring context only compares, copies a few
 * words and queues a kthread work.
 * Until built, the record holds the latency and time alone, flagged cut
 * with nothing covered.
 *
 * Context: the session's measuring context, after the sample was taken.
 */
void latscope_recorder_sample(struct latscope_session *s, s64 lat, u64 ideal,
			      bool crossing)
{
	struct latscope_worst_set *set = s->worst;
	struct latscope_worst *slot;
	unsigned long flags;
	u32 why = 0;

	if (!set)
		return;
	/*
	 * Most samples are not among the worst: told without the lock, as
	 * only this context changes what is kept (the builder fills in).
	 */
	if (set->nr == set->k && lat <= set->floor && !crossing)
		return;
	if (crossing)
		why |= LATSCOPE_WHY_THRESHOLD;
	if (s->setup.context == LATSCOPE_CTX_USER &&
	    READ_ONCE(s->resp_cpu) != s->setup.cpu)
		why |= LATSCOPE_WHY_ELSEWHERE;
	raw_spin_lock_irqsave(&set->lock, flags);
	slot = latscope_worst_claim(set, lat, crossing);
	if (!slot) {
		raw_spin_unlock_irqrestore(&set->lock, flags);
		return;
	}
	memset(slot, 0, sizeof(*slot));
	slot->why.latency_ns = lat;
	slot->why.ideal_ns = ideal;
	slot->why.idle_state = -1;
	slot->why.flags = why | LATSCOPE_WHY_NO_WHERE | LATSCOPE_WHY_CUT;
	slot->gen = ++set->gen;
	slot->responder = latscope_recorder_responder(s);
	slot->job_flags = why;
	if (set->remote_wake && set->remote_ideal == ideal) {
		slot->remote_arrival = set->remote_arrival;
		slot->remote_wake = set->remote_wake;
	}
	slot->pending = true;
	latscope_worst_done(set);
	/* Its window stays in the flight record until the builder copied it. */
	if (!set->holder.from || ideal < set->holder.from)
		latscope_flight_hold(set->flight, &set->holder, ideal);
	raw_spin_unlock_irqrestore(&set->lock, flags);
	kthread_queue_work(set->builder->worker, &set->work);
}

/**
 * latscope_recorder_export() - the records, the worst first, built
 * @s: the session; @s->worst_lock held (it keeps @s->worst), and not
 *	@s->lock, which the user responder takes
 * @tmp: room for @s->worst->k struct latscope_worst; holds the records as
 *	struct latscope_why, back to back, on success
 *
 * Waits for the records queued so far to be built: as long as the
 * builder, a SCHED_FIFO 1 thread, is kept from running.
 *
 * Context: process, may sleep.
 * Return: the records, -EAGAIN or -ENOMEM (latscope_worst_export()).
 */
int latscope_recorder_export(struct latscope_session *s, struct latscope_worst *tmp)
{
	kthread_flush_work(&s->worst->work);
	return latscope_worst_export(s->worst, tmp);
}
