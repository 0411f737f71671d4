// SPDX-License-Identifier: GPL-2.0
/*
 * latscope timer source: the timeline's own expiry is the event, stamped
 * by its hard-irq handler.
 */
#include <linux/string.h>

#include "latscope.h"

/**
 * latscope_timer_tick() - the timer source's event
 * @s: the session
 * @ideal: the event's ideal time
 * @arrival: when the timeline's handler ran
 *
 * The timeline's own expiry is the event: in the irq context its
 * lateness is the sample, in the others the irq part, handed off to the
 * responder with the event.
 *
 * Context: hard irq.
 */
void latscope_timer_tick(struct latscope_session *s, u64 ideal, u64 arrival)
{
	s64 lat = (s64)(arrival - ideal);

	if (s->setup.context == LATSCOPE_CTX_IRQ) {
		if (ideal >= s->warmup_end)
			latscope_recorder_event(s, ideal, arrival);
		latscope_record(s, lat, ideal);
	} else {
		latscope_handoff(s, ideal, lat, true);
	}
}

static int latscope_timer_check(const struct latscope_setup *setup)
{
	if (!latscope_period_valid(setup->period_ns))
		return -EINVAL;
	if (memchr_inv(&setup->gpio, 0, sizeof(setup->gpio)) ||
	    memchr_inv(&setup->noise, 0, sizeof(setup->noise)))
		return -EINVAL;
	return 0;
}

static int latscope_timer_start(struct latscope_session *s)
{
	latscope_timeline_use(s, latscope_timer_tick, NULL);
	return latscope_timeline_arm(s);
}

const struct latscope_source latscope_timer_source = {
	.name = "timer",
	.check = latscope_timer_check,
	.start = latscope_timer_start,
	.stop = latscope_timeline_stop,
};
