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

/* The source's steps, for a timeline that starts at t0; nothing is armed. */
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

/*
 * The timeline's expiry that was due at @due, handled at @now, from hard
 * irq: an ideal time (counted as an event with the periods it missed, and
 * given to the source's tick) or a half step. Returns when the next one is
 * due.
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

/* Runs on the session's CPU: a pinned timer stays where it was armed. */
static void latscope_timeline_arm_here(void *data)
{
	struct latscope_session *s = data;

	hrtimer_start(&s->timeline.timer, ns_to_ktime(s->t0),
		      LATSCOPE_TIMELINE_MODE);
}

/* Starts the timeline at t0, after latscope_timeline_use(); see start(). */
int latscope_timeline_arm(struct latscope_session *s)
{
	struct latscope_timeline *tl = &s->timeline;

	latscope_hrtimer_setup(&tl->timer, latscope_timeline_fire,
			       CLOCK_MONOTONIC, LATSCOPE_TIMELINE_MODE);
	tl->armed = true;
	return smp_call_function_single(s->setup.cpu,
					latscope_timeline_arm_here, s, 1);
}

/*
 * At the stop, the source's next ideal time is @next. Ideal times that are
 * a whole period or more behind @now never reached the handler (a stalled
 * timer or interrupts held off): they are events, and missed periods, as
 * they would have been had the handler run once more.
 */
void latscope_timeline_close(struct latscope_session *s, u64 next, u64 now)
{
	latscope_timeline_skipped(s, next, latscope_missed(next, now,
							   s->setup.period_ns));
}

/* Cancels the timer and counts what it never reached; safe if not armed. */
void latscope_timeline_stop(struct latscope_session *s)
{
	struct latscope_timeline *tl = &s->timeline;

	if (!tl->armed)
		return;
	hrtimer_cancel(&tl->timer);
	tl->armed = false;
	latscope_timeline_close(s, tl->next, ktime_get_ns());
}
