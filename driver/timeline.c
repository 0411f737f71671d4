// SPDX-License-Identifier: GPL-2.0
/*
 * latscope timeline: the ideal times t0 + n * period of a periodic source
 * (the timer, GPIO loopback), on a pinned, hard-mode hrtimer of the
 * session's CPU, and the accounting every such source shares: events,
 * periods the handler missed by being late, ideal times it never reached
 * before the stop. Hard mode keeps the handler in hard-irq context on
 * PREEMPT_RT too, so its stamp is the irq's own.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "latscope.h"

#define LATSCOPE_TIMELINE_MODE	HRTIMER_MODE_ABS_PINNED_HARD

/**
 * latscope_timeline_init() - place a session's timeline and clear its figures
 * @s: the session, not running
 * @now: the time (CLOCK_MONOTONIC, ns) the run starts from
 *
 * Puts event 0 one period after @now and rounds the warm-up up to whole
 * periods; with no period (remote GPIO: events come from outside) t0 is
 * @now. Then clears every figure (latscope_measure_reset()).
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

/**
 * latscope_timeline_use() - give a timeline the source's steps
 * @s: the session, its timeline placed at t0 and not armed
 * @tick: called at each ideal time
 * @half: called half a period after each, or NULL for no half steps
 */
void latscope_timeline_use(struct latscope_session *s, latscope_tick_fn tick,
			   latscope_half_fn half)
{
	struct latscope_timeline *tl = &s->timeline;

	tl->tick = tick;
	tl->half = half;
	tl->next = s->t0;
	tl->half_due = false;
}

/*
 * @n ideal times from @first on never reached the source's handler in
 * time (it ran late, or not at all before the stop): those past the
 * warm-up are events, and overruns. Ideal times and the warm-up's end are
 * whole periods from t0.
 */
static void latscope_timeline_skipped(struct latscope_session *s, u64 first,
				      u64 n)
{
	u64 period = s->setup.period_ns, before;

	if (first < s->warmup_end) {
		before = div64_u64(s->warmup_end - first + period - 1, period);
		if (n <= before)
			return;
		n -= before;
	}
	if (!n)
		return;
	s->events += n;
	atomic64_add(n, &s->overruns);
}

/**
 * latscope_timeline_step() - one expiry of the timeline
 * @s: the session
 * @due: when the expiry was due
 * @now: when its handler ran
 *
 * An ideal time is counted as an event, with the periods it missed by
 * being late, and given to the source's tick; a half step goes to the
 * source's half. The timeline moves on by whole periods, so it never
 * drifts with lateness.
 *
 * Context: hard irq (the timeline's hrtimer), or a KUnit test.
 * Return: when the next expiry is due.
 */
u64 latscope_timeline_step(struct latscope_session *s, u64 due, u64 now)
{
	struct latscope_timeline *tl = &s->timeline;
	u64 period = s->setup.period_ns;
	u64 missed;

	if (tl->half_due) {
		tl->half_due = false;
		tl->half(s, due);
		return tl->next;
	}
	missed = latscope_missed(due, now, period);
	if (due >= s->warmup_end)
		s->events++;
	latscope_timeline_skipped(s, due + period, missed);
	/*
	 * Move on by whole periods, so the timeline never drifts with
	 * lateness. Not hrtimer_forward(): it stretches the period to the
	 * timer resolution, which in low-resolution mode is a whole tick.
	 */
	tl->next = due + (missed + 1) * period;
	tl->half_due = tl->half;
	tl->tick(s, due, now);
	return tl->half_due ? due + period / 2 : tl->next;
}

static enum hrtimer_restart latscope_timeline_fire(struct hrtimer *timer)
{
	struct latscope_session *s = container_of(timer, struct latscope_session,
						  timeline.timer);
	u64 due = ktime_to_ns(hrtimer_get_expires(timer));
	u64 next = latscope_timeline_step(s, due, ktime_get_ns());

	hrtimer_set_expires(timer, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/**
 * latscope_timeline_fn() - the timelines' hrtimer callback
 *
 * For the worst-sample recorder, which does not count the measurement's
 * own timer among what made a sample late.
 *
 * Return: its address.
 */
u64 latscope_timeline_fn(void)
{
	return (u64)(unsigned long)latscope_timeline_fire;
}

/* Runs on the session's CPU: a pinned timer stays where it was armed. */
static void latscope_timeline_arm_here(void *data)
{
	struct latscope_session *s = data;

	hrtimer_start(&s->timeline.timer, ns_to_ktime(s->t0),
		      LATSCOPE_TIMELINE_MODE);
}

/**
 * latscope_timeline_arm() - start a timeline at t0 on the session's CPU
 * @s: the session, after latscope_timeline_use()
 *
 * The timer is pinned, in hard mode, to @s->setup.cpu. Undone by
 * latscope_timeline_stop(), which is safe after a failure too.
 *
 * Context: process, cpus_read_lock() held (&latscope_source.start).
 * Return: 0, or the error of the cross-CPU call that arms it.
 */
int latscope_timeline_arm(struct latscope_session *s)
{
	struct latscope_timeline *tl = &s->timeline;

	latscope_hrtimer_setup(&tl->timer, latscope_timeline_fire,
			       CLOCK_MONOTONIC, LATSCOPE_TIMELINE_MODE);
	tl->armed = true;
	return smp_call_function_single(s->setup.cpu,
					latscope_timeline_arm_here, s, 1);
}

/**
 * latscope_timeline_close() - count the ideal times the handler never reached
 * @s: the session, its timeline stopped
 * @next: the timeline's next ideal time
 * @now: when it stopped
 *
 * Ideal times a whole period or more behind @now (a stalled timer,
 * interrupts held off) are events and missed periods, as they would
 * have been had the handler run once more.
 */
void latscope_timeline_close(struct latscope_session *s, u64 next, u64 now)
{
	latscope_timeline_skipped(s, next, latscope_missed(next, now,
							   s->setup.period_ns));
}

/**
 * latscope_timeline_stop() - cancel a timeline and count what it never reached
 * @s: the session; its timeline may be unarmed
 *
 * No tick or half step runs once it returns.
 *
 * Context: process; may wait for a running handler.
 */
void latscope_timeline_stop(struct latscope_session *s)
{
	struct latscope_timeline *tl = &s->timeline;

	if (!tl->armed)
		return;
	hrtimer_cancel(&tl->timer);
	tl->armed = false;
	latscope_timeline_close(s, tl->next, ktime_get_ns());
}
