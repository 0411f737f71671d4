// SPDX-License-Identifier: GPL-2.0
/*
 * latscope GPIO pulse train, loopback and monitor: at each ideal time of
 * the session's timeline pulse-out (wired to pulse-in, or to another
 * board) starts a pulse, and half a period later it ends, once its edge
 * (or that board's answer) came back. One pulse at most is in flight,
 * so each arrival belongs to exactly one ideal time; a send step that
 * finds the previous pulse still out is a missed period. With both edges
 * every send step toggles and no pulse ends (loopback only: a monitor's
 * edge choice is the answer's).
 *
 * The steps run in hard irq. A chip that may sleep is driven by a
 * SCHED_FIFO thread they wake instead.
 */
#include <linux/gpio/consumer.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>

#include "gpio-internal.h"
#include "latscope.h"

/* The pulse-out thread of sleeping GPIO chips runs above any responder. */
#define LATSCOPE_GPIO_PULSE_PRIO	99

/*
 * Which raw level a pulse drives, and whether send steps toggle: from the
 * event edge in loopback mode, from LATSCOPE_GPIO_PULSE_LOW in monitor
 * mode (its edge is the answer's). Set at SETUP, once the edge is known.
 */
void latscope_gpio_out_polarity(struct latscope_gpio *g, u32 flags)
{
	g->pulse_level = !latscope_gpio_out_idle(g->mode, g->edge, flags);
	g->toggle_out = g->mode != LATSCOPE_GPIO_MONITOR && g->edge == LATSCOPE_EDGE_BOTH;
}

/* Clears the train of a run; nothing is running. */
void latscope_gpio_pulse_reset(struct latscope_gpio *g)
{
	atomic64_set(&g->in_flight, 0);
	atomic_set(&g->out_req, -1);
	g->level = !g->pulse_level;
	g->driven = g->level;
	g->lost = 0;
}

/*
 * One step of the pulse train at @ideal: a send step (@send) starts a
 * pulse, an end step returns pulse-out to idle once the pulse arrived.
 * Returns the raw level to drive, or -1 for none. The timeline counted the
 * event of a send step; a pulse it cannot send is an overrun.
 */
int latscope_gpio_step(struct latscope_session *s, u64 ideal, bool send)
{
	struct latscope_gpio *g = s->priv;
	u64 lost_ns = max_t(u64, NSEC_PER_SEC, 2 * s->setup.period_ns);
	u64 flying = atomic64_read(&g->in_flight);
	bool both = g->toggle_out;

	/* A pulse whose edge never came back is given up after lost_ns. */
	if (flying && ideal - flying >= lost_ns &&
	    atomic64_cmpxchg(&g->in_flight, flying, 0) == flying) {
		if (flying >= s->warmup_end) {
			g->lost++;
			atomic64_inc(&s->overruns);
		}
		flying = 0;
	}
	if (!send) {
		if (both || flying || g->level != g->pulse_level)
			return -1;
		g->level = !g->pulse_level;
		return g->level;
	}
	if (flying || (!both && g->level == g->pulse_level)) {
		if (ideal >= s->warmup_end)
			atomic64_inc(&s->overruns);
		return -1;
	}
	/* In flight before the edge exists, so the arrival finds it. */
	atomic64_set(&g->in_flight, ideal);
	g->level = both ? !g->level : g->pulse_level;
	return g->level;
}

/*
 * The clock of the send stamps: the timeline's, CLOCK_MONOTONIC. A KUnit
 * test that feeds the timeline synthetic times sets @g->clock, so that the
 * stamps are on that timeline too; other builds never look at it.
 */
static u64 latscope_gpio_now(const struct latscope_gpio *g)
{
	if (IS_ENABLED(CONFIG_LATSCOPE_KUNIT_TEST) && g->clock)
		return g->clock();
	return ktime_get_ns();
}

/*
 * The stamp a monitor's sample starts from, taken just before the edge of
 * a pulse (@level) exists: whichever CPU the answer's interrupt runs on
 * reads it after taking the pulse in flight. Only a monitor reads it.
 */
static void latscope_gpio_stamp_sent(struct latscope_gpio *g, int level)
{
	if (g->mode != LATSCOPE_GPIO_MONITOR || level != g->pulse_level)
		return;
	WRITE_ONCE(g->sent_ns, latscope_gpio_now(g));
	smp_wmb();	/* pairs with the arrival's atomic64_xchg() */
}

static void latscope_gpio_drive(struct latscope_gpio *g, int level)
{
	if (level < 0)
		return;
	if (!g->out_cansleep) {
		latscope_gpio_stamp_sent(g, level);
		gpiod_set_raw_value(g->lines.out, level);
		return;
	}
	atomic_set(&g->out_req, level);
	wake_up_process(g->pulse_task);
}

/* The timeline's tick: a send step. */
static void latscope_gpio_send(struct latscope_session *s, u64 ideal,
			       u64 arrival)
{
	latscope_gpio_drive(s->priv, latscope_gpio_step(s, ideal, true));
}

/* The timeline's half step: the pulse ends. */
static void latscope_gpio_end(struct latscope_session *s, u64 when)
{
	latscope_gpio_drive(s->priv, latscope_gpio_step(s, when, false));
}

/* The pulse train's steps on the session's timeline, which is not armed. */
void latscope_gpio_pulse_use(struct latscope_session *s)
{
	struct latscope_gpio *g = s->priv;

	latscope_timeline_use(s, latscope_gpio_send,
			      g->toggle_out ? NULL : latscope_gpio_end);
}

/*
 * Drives pulse-out for chips that may sleep. Two requests can merge while
 * it waits (an end and the next send): a request for the level it
 * already drove means both, so it drives the other level first.
 */
static int latscope_gpio_pulse_fn(void *data)
{
	struct latscope_session *s = data;
	struct latscope_gpio *g = s->priv;
	int level;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		level = atomic_xchg(&g->out_req, -1);
		if (level < 0) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		if (level == g->driven)
			gpiod_set_raw_value_cansleep(g->lines.out, !level);
		latscope_gpio_stamp_sent(g, level);
		gpiod_set_raw_value_cansleep(g->lines.out, level);
		g->driven = level;
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * Puts pulse-out at its idle level, the one latscope_gpio_pulse_reset()
 * assumes, whatever a previous run or a stop in the middle of a pulse left
 * there, so the first pulse makes its edge. Nothing drives it
 * concurrently: the timeline and the pulse thread are not running.
 */
void latscope_gpio_out_to_idle(struct latscope_gpio *g)
{
	if (g->lines.out)
		gpiod_set_raw_value_cansleep(g->lines.out, !g->pulse_level);
}

/* The pulse thread, for a pulse-out that may sleep. */
int latscope_gpio_pulse_start(struct latscope_session *s)
{
	struct latscope_gpio *g = s->priv;

	if (!g->out_cansleep)
		return 0;
	return latscope_kthread_start(s, &g->pulse_task, latscope_gpio_pulse_fn,
				      LATSCOPE_GPIO_PULSE_PRIO, "latscope-pulse");
}

/* After the timeline stopped: nothing wakes the thread any more. */
void latscope_gpio_pulse_stop(struct latscope_gpio *g)
{
	latscope_kthread_stop(&g->pulse_task);
}
