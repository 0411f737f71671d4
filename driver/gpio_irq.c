// SPDX-License-Identifier: GPL-2.0
/*
 * latscope GPIO arrivals and answers: the edge on pulse-in is stamped by a
 * handler requested with IRQF_NO_THREAD, so it runs in hard irq on
 * PREEMPT_RT too unless the GPIO chip itself delivers its interrupts from
 * a thread (nested irq chips such as I2C expanders): the result says which
 * it was, and that thread can be raised for the run. The responder answers
 * on ack-out: one toggle, or latmus's low pulse (LATSCOPE_GPIO_ACK_PULSE).
 */
#include <linux/gpio/consumer.h>
#include <linux/interrupt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched/types.h>

#include "compat.h"
#include "gpio-internal.h"
#include "latscope.h"

static void latscope_gpio_raise(struct work_struct *work);

/**
 * latscope_gpio_irq_reset() - clear the arrival and answer figures of a run
 * @g: the GPIO state, its lines held; nothing is running
 */
void latscope_gpio_irq_reset(struct latscope_gpio *g)
{
	atomic_set(&g->paths, g->out_cansleep ? LATSCOPE_GPIO_OUT_CANSLEEP : 0);
	if (g->lines.ack && gpiod_cansleep(g->lines.ack))
		atomic_or(LATSCOPE_GPIO_ACK_CANSLEEP, &g->paths);
	g->acks = 0;
	g->spurious = 0;
	g->thread_pid = 0;
	memset(g->thread_comm, 0, sizeof(g->thread_comm));
	g->thread_policy = 0;
	g->thread_rtprio = 0;
	INIT_WORK(&g->raise_work, latscope_gpio_raise);
}

/* Remembers, once, the task that stamps arrivals when it is not hard irq. */
static void latscope_gpio_note_context(struct latscope_gpio *g)
{
	if (in_hardirq()) {
		if (!(atomic_read(&g->paths) & LATSCOPE_GPIO_IN_HARDIRQ))
			atomic_or(LATSCOPE_GPIO_IN_HARDIRQ, &g->paths);
		return;
	}
	if (atomic_fetch_or(LATSCOPE_GPIO_IN_THREAD, &g->paths) &
	    LATSCOPE_GPIO_IN_THREAD)
		return;
	g->thread_pid = task_pid_nr(current);
	strscpy_pad(g->thread_comm, current->comm, sizeof(g->thread_comm));
	if (g->thread_prio) {
		g->thread = get_task_struct(current);
		schedule_work(&g->raise_work);
	}
}

/* Runs the thread that stamps arrivals at the asked priority. */
static void latscope_gpio_raise(struct work_struct *work)
{
	struct latscope_gpio *g = container_of(work, struct latscope_gpio,
					       raise_work);
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = g->thread_prio,
	};

	g->thread_policy = g->thread->policy;
	g->thread_rtprio = g->thread->rt_priority;
	g->thread_nice = task_nice(g->thread);
	if (!latscope_sched_setattr(g->thread, &attr))
		atomic_or(LATSCOPE_GPIO_THREAD_RAISED, &g->paths);
}

/* Gives the thread its scheduling back; no arrival can come any more. */
static void latscope_gpio_restore(struct latscope_gpio *g)
{
	struct sched_attr attr = { .size = sizeof(attr) };

	cancel_work_sync(&g->raise_work);
	if (!g->thread)
		return;
	if (atomic_read(&g->paths) & LATSCOPE_GPIO_THREAD_RAISED) {
		attr.sched_policy = g->thread_policy;
		attr.sched_priority = g->thread_rtprio;
		attr.sched_nice = g->thread_nice;
		latscope_sched_setattr(g->thread, &attr);
	}
	put_task_struct(g->thread);
	g->thread = NULL;
}

/**
 * latscope_gpio_arrival() - an edge on pulse-in, the event's side
 * @s: the session
 * @arrival: when the edge's handler ran
 *
 * Remote mode: the edge is the event, its stamp the ideal time, handed to
 * the responder. Loopback mode: it ends the pulse in flight, whose ideal
 * time it hands to the responder with the irq part. Monitor mode: it is
 * the answer to the pulse in flight, and its round trip from the send
 * stamp the sample, counted as an ack. An edge with no pulse in flight
 * is a stray one.
 *
 * Context: hard irq, or the irq thread of a GPIO chip that nests its
 * interrupts; the first such thread is noted (and raised if asked).
 */
void latscope_gpio_arrival(struct latscope_session *s, u64 arrival)
{
	struct latscope_gpio *g = s->priv;
	u64 ideal;

	latscope_gpio_note_context(g);
	if (g->mode == LATSCOPE_GPIO_REMOTE) {
		if (arrival >= s->warmup_end)
			s->events++;
		latscope_handoff(s, arrival, 0, false);
		return;
	}
	ideal = atomic64_xchg(&g->in_flight, 0);
	if (!ideal) {
		if (arrival >= s->warmup_end)
			g->spurious++;
		return;
	}
	/*
	 * A monitor's sample ends here: the round trip from the pulse out.
	 * The answer is its ack, counted as the sample is, past the warm-up,
	 * so a monitor's acks are its samples.
	 */
	if (g->mode == LATSCOPE_GPIO_MONITOR) {
		if (ideal >= s->warmup_end)
			g->acks++;
		latscope_record(s, (s64)(arrival - READ_ONCE(g->sent_ns)), ideal);
		return;
	}
	latscope_handoff(s, ideal, (s64)(arrival - ideal), true);
}

static irqreturn_t latscope_gpio_irq(int irq, void *data)
{
	struct latscope_session *s = data;

	latscope_gpio_arrival(s, ktime_get_ns());
	return IRQ_HANDLED;
}

static unsigned long latscope_gpio_trigger(u32 edge)
{
	switch (edge) {
	case LATSCOPE_EDGE_RISING:
		return IRQF_TRIGGER_RISING;
	case LATSCOPE_EDGE_FALLING:
		return IRQF_TRIGGER_FALLING;
	default:
		return IRQF_TRIGGER_RISING | IRQF_TRIGGER_FALLING;
	}
}

/**
 * latscope_gpio_irq_start() - start taking arrivals
 * @s: the session, its lines held
 *
 * pulse-in's interrupt, on the session's edge, with IRQF_NO_THREAD so
 * the stamp is taken in hard irq on PREEMPT_RT too.
 *
 * Context: process, may sleep.
 * Return: 0, or the error of request_any_context_irq().
 */
int latscope_gpio_irq_start(struct latscope_session *s)
{
	struct latscope_gpio *g = s->priv;
	int ret;

	ret = request_any_context_irq(g->in_irq, latscope_gpio_irq,
				      IRQF_NO_THREAD | latscope_gpio_trigger(g->edge),
				      "latscope", s);
	if (ret < 0)
		return ret;
	g->irq_requested = true;
	return 0;
}

/**
 * latscope_gpio_irq_stop() - stop taking arrivals
 * @s: the session; safe if the interrupt was never requested
 *
 * No arrival comes once it returns, and the thread that stamped arrivals
 * has its own scheduling back.
 *
 * Context: process, may sleep.
 */
void latscope_gpio_irq_stop(struct latscope_session *s)
{
	struct latscope_gpio *g = s->priv;

	if (g->irq_requested) {
		free_irq(g->in_irq, s);
		g->irq_requested = false;
	}
	latscope_gpio_restore(g);
}

/**
 * latscope_gpio_ack_idle() - put ack-out where answers start from
 * @g: the GPIO state
 *
 * Low for toggles, high for latmus's pulses; nothing without ack-out
 * (monitor mode). Not while a responder can answer: at SETUP, or at
 * START before the interrupt.
 *
 * Context: process, may sleep.
 */
void latscope_gpio_ack_idle(struct latscope_gpio *g)
{
	if (!g->lines.ack)
		return;
	g->ack_level = g->ack_pulse;
	gpiod_set_raw_value_cansleep(g->lines.ack, g->ack_level);
}

/**
 * latscope_gpio_respond() - the responder answers an event on ack-out
 * @s: the session
 * @ideal: the answered event's ideal time; past the warm-up it is an ack
 *
 * ack-out toggles, or goes low and back high (LATSCOPE_GPIO_ACK_PULSE),
 * the edge a latmon monitor times being the first. The GPIO source's
 * &latscope_source.respond.
 *
 * Context: the responder (the kernel kthread, or PULSE); may sleep.
 */
void latscope_gpio_respond(struct latscope_session *s, u64 ideal)
{
	struct latscope_gpio *g = s->priv;

	if (g->ack_pulse) {
		gpiod_set_raw_value_cansleep(g->lines.ack, 0);
		gpiod_set_raw_value_cansleep(g->lines.ack, 1);
	} else {
		g->ack_level = !g->ack_level;
		gpiod_set_raw_value_cansleep(g->lines.ack, g->ack_level);
	}
	if (ideal >= s->warmup_end)
		g->acks++;
}
