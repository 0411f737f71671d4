// SPDX-License-Identifier: GPL-2.0
/*
 * latscope timer source: a pinned, hard-mode hrtimer on the session's CPU
 * marks each ideal time t0 + n * period. Hard mode keeps the handler in
 * hard-irq context on PREEMPT_RT too, so its stamp is the irq's own.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/smp.h>

#include "compat.h"
#include "latscope.h"

#define LATSCOPE_TIMER_MODE	HRTIMER_MODE_ABS_PINNED_HARD

static enum hrtimer_restart latscope_timer_fire(struct hrtimer *timer)
{
	struct latscope_session *s = container_of(timer, struct latscope_session,
						  timer);
	u64 period = s->setup.period_ns;
	u64 arrival = ktime_get_ns();
	u64 ideal = ktime_to_ns(hrtimer_get_expires(timer));
	u64 missed = latscope_missed(ideal, arrival, period);

	/*
	 * Move on by whole periods, so the timeline never drifts with
	 * lateness. Not hrtimer_forward(): it stretches the period to the
	 * timer resolution, which in low-resolution mode is a whole tick.
	 */
	hrtimer_add_expires_ns(timer, (missed + 1) * period);
	latscope_event(s, ideal, arrival, missed);
	return HRTIMER_RESTART;
}

/* Runs on the session's CPU: a pinned timer stays where it was armed. */
static void latscope_timer_arm(void *data)
{
	struct latscope_session *s = data;

	hrtimer_start(&s->timer, ns_to_ktime(s->t0), LATSCOPE_TIMER_MODE);
}

static int latscope_timer_start(struct latscope_session *s)
{
	latscope_hrtimer_setup(&s->timer, latscope_timer_fire, CLOCK_MONOTONIC,
			       LATSCOPE_TIMER_MODE);
	return smp_call_function_single(s->setup.cpu, latscope_timer_arm, s, 1);
}

static void latscope_timer_stop(struct latscope_session *s)
{
	hrtimer_cancel(&s->timer);
	latscope_timeline_close(s, ktime_to_ns(hrtimer_get_expires(&s->timer)),
				ktime_get_ns());
}

const struct latscope_source latscope_timer_source = {
	.name = "timer",
	.start = latscope_timer_start,
	.stop = latscope_timer_stop,
};
