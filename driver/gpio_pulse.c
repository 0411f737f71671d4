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

/**
 * latscope_gpio_out_polarity() - set the pulse level, and whether sends toggle
 * @g: the GPIO state, its mode and edge known
 * @flags: the setup's LATSCOPE_GPIO_* flags
 *
 * From the event edge in loopback mode (with both edges every send step
 * toggles), from LATSCOPE_GPIO_PULSE_LOW in monitor mode, whose edge is
 * the answer's. Set at SETUP.
 */
void latscope_gpio_out_polarity(struct latscope_gpio *g, u32 flags)
{
	g->pulse_level = !latscope_gpio_out_idle(g->mode, g->edge, flags);
	g->toggle_out = g->mode != LATSCOPE_GPIO_MONITOR && g->edge == LATSCOPE_EDGE_BOTH;
}

/**
 * latscope_gpio_pulse_reset() - clear the pulse train of a run
 * @g: the GPIO state; nothing is running
 *
 * No pulse in flight, none lost, pulse-out taken to be at its idle level
 * (latscope_gpio_out_to_idle() puts it there).
 */
void latscope_gpio_pulse_reset(struct latscope_gpio *g)
{
	atomic64_set(&g->in_flight, 0);
	atomic_set(&g->out_req, -1);
	g->level = !g->pulse_level;
	g->driven = g->level;
	g->lost = 0;
}

/**
 * latscope_gpio_step() - one step of the pulse train
 * @s: the session
 * @ideal: the step's time: an ideal time for a send step, half a period
 *	later for an end step
 * @send: a send step, which starts a pulse; else an end step, which
 *	returns pulse-out to idle once the pulse arrived
 *
 * A pulse whose edge has not come back a second (or two periods, if
 * longer) after it left is given up: lost, and an overrun. The timeline
 * counted the event of a send step; a pulse it cannot send, because the
 * previous one is still out, is an overrun.
 *
 * Context: hard irq (the timeline's steps).
 * Return: the raw level to drive pulse-out to, or -1 to leave it.
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

/**
 * latscope_gpio_pulse_use() - put the pulse train's steps on the timeline
 * @s: the session; its timeline is placed and not armed
 *
 * A send step at each ideal time and, unless sends toggle, an end step
 * half a period later.
 */
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

/**
 * latscope_gpio_out_to_idle() - put pulse-out at its idle level
 * @g: the GPIO state; nothing drives pulse-out concurrently (the
 *	timeline and the pulse thread are not running)
 *
 * The level latscope_gpio_pulse_reset() assumes, whatever a previous run
 * or a stop in the middle of a pulse left there, so the first pulse
 * makes its edge. Nothing without pulse-out.
 *
 * Context: process, may sleep.
 */
void latscope_gpio_out_to_idle(struct latscope_gpio *g)
{
	if (g->lines.out)
		gpiod_set_raw_value_cansleep(g->lines.out, !g->pulse_level);
}

/**
 * latscope_gpio_pulse_start() - start the pulse thread, if pulse-out needs it
 * @s: the session
 *
 * A pulse-out chip that may sleep is driven from a SCHED_FIFO kthread on
 * the session's CPU, which the steps wake; others from the steps.
 *
 * Context: process, may sleep.
 * Return: 0, or the error of latscope_kthread_start().
 */
int latscope_gpio_pulse_start(struct latscope_session *s)
{
	struct latscope_gpio *g = s->priv;

	if (!g->out_cansleep)
		return 0;
	return latscope_kthread_start(s, &g->pulse_task, latscope_gpio_pulse_fn,
				      LATSCOPE_GPIO_PULSE_PRIO, "latscope-pulse");
}

/**
 * latscope_gpio_pulse_stop() - stop the pulse thread, if there is one
 * @g: the GPIO state; the timeline has stopped, nothing wakes it any more
 *
 * Context: process, may sleep.
 */
void latscope_gpio_pulse_stop(struct latscope_gpio *g)
{
	latscope_kthread_stop(&g->pulse_task);
}
