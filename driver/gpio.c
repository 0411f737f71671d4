// SPDX-License-Identifier: GPL-2.0
/*
 * latscope GPIO source: an edge on the pulse-in line is the event, and the
 * responder answers it on the ack-out line.
 *
 * Loopback: the session's timeline drives pulse-out, wired to pulse-in
 * (gpio_pulse.c). Remote: another device drives pulse-in, and the arrival
 * stamp is the ideal time. Monitor: the timeline drives pulse-out toward
 * another board, whose answer comes back on pulse-in (its ack-in) and ends
 * the sample, a round trip recorded in hard irq: no responder. This file
 * holds the source's hooks; the lines come from gpio_lines.c or
 * gpio_dt.c, arrivals and answers are gpio_irq.c's.
 */
#include <linux/err.h>
#include <linux/gpio/consumer.h>
#include <linux/limits.h>
#include <linux/string.h>

#include "gpio-internal.h"
#include "latscope.h"

static bool latscope_gpio_line_used(const struct latscope_gpio_line *line)
{
	return line->chip[0] || line->offset;
}

/* Not given at all: no chip, offset 0, reserved 0. */
static bool latscope_gpio_line_empty(const struct latscope_gpio_line *line)
{
	return !latscope_gpio_line_used(line) && !line->__reserved;
}

static bool latscope_gpio_line_same(const struct latscope_gpio_line *a,
				    const struct latscope_gpio_line *b)
{
	return a->offset == b->offset && !strcmp(a->chip, b->chip);
}

static int latscope_gpio_line_check(const struct latscope_gpio_line *line)
{
	size_t len = strnlen(line->chip, sizeof(line->chip));

	if (!len || len == sizeof(line->chip) || line->__reserved)
		return -EINVAL;
	/* gpiolib's lookup tables hold a u16 offset. */
	if (line->offset >= U16_MAX)
		return -EINVAL;
	return 0;
}

/*
 * The lines @gs names: distinct; pulse-out in loopback and monitor modes,
 * ack-out in loopback and remote modes.
 */
static int latscope_gpio_lines_check(const struct latscope_gpio_setup *gs)
{
	bool out = gs->mode != LATSCOPE_GPIO_REMOTE;
	bool ack = gs->mode != LATSCOPE_GPIO_MONITOR;
	int ret;

	if (gs->flags & LATSCOPE_GPIO_FROM_DT)
		return latscope_gpio_line_empty(&gs->pulse_in) &&
		       latscope_gpio_line_empty(&gs->ack_out) &&
		       latscope_gpio_line_empty(&gs->pulse_out) ? 0 : -EINVAL;
	ret = latscope_gpio_line_check(&gs->pulse_in);
	if (!ret && ack)
		ret = latscope_gpio_line_check(&gs->ack_out);
	if (!ret && out)
		ret = latscope_gpio_line_check(&gs->pulse_out);
	if (ret)
		return ret;
	if ((!out && !latscope_gpio_line_empty(&gs->pulse_out)) ||
	    (!ack && !latscope_gpio_line_empty(&gs->ack_out)))
		return -EINVAL;
	if ((ack && latscope_gpio_line_same(&gs->pulse_in, &gs->ack_out)) ||
	    (out && latscope_gpio_line_same(&gs->pulse_in, &gs->pulse_out)) ||
	    (ack && out && latscope_gpio_line_same(&gs->ack_out, &gs->pulse_out)))
		return -EINVAL;
	return 0;
}

static int latscope_gpio_check(const struct latscope_setup *setup)
{
	const struct latscope_gpio_setup *gs = &setup->gpio;
	bool remote = gs->mode == LATSCOPE_GPIO_REMOTE;
	bool monitor = gs->mode == LATSCOPE_GPIO_MONITOR;
	bool irq = setup->context == LATSCOPE_CTX_IRQ;

	/* A monitor records in hard irq; a responder answers the others. */
	if (monitor != irq)
		return -EINVAL;
	if (monitor && (gs->flags & LATSCOPE_GPIO_ACK_PULSE))
		return -EINVAL;
	if (!monitor && (gs->flags & LATSCOPE_GPIO_PULSE_LOW))
		return -EINVAL;
	if (gs->mode > LATSCOPE_GPIO_MONITOR ||
	    (gs->flags & ~LATSCOPE_GPIO_FLAGS_MASK) ||
	    gs->irq_thread_priority > LATSCOPE_MAX_PRIORITY ||
	    gs->__reserved[0] || gs->__reserved[1])
		return -EINVAL;
	if (gs->edge > LATSCOPE_EDGE_BOTH ||
	    (!gs->edge && !(gs->flags & LATSCOPE_GPIO_FROM_DT)))
		return -EINVAL;
	if (remote ? setup->period_ns != 0 : !latscope_period_valid(setup->period_ns))
		return -EINVAL;
	if (memchr_inv(&setup->noise, 0, sizeof(setup->noise)))
		return -EINVAL;
	return latscope_gpio_lines_check(gs);
}

static void latscope_gpio_put(struct latscope_session *s)
{
	struct latscope_gpio *g = s->priv;

	if (g->dt)
		latscope_dt_return(g->dt);
	else
		latscope_gpio_lines_put(&g->lines);
	g->dt = NULL;
	memset(&g->lines, 0, sizeof(g->lines));
}

/*
 * Requests the lines the setup names, or borrows the device tree's.
 * Errors: ENODEV no chip with that label (or no device), EINVAL offset out
 * of range, EBUSY line in use, ENXIO pulse-in cannot interrupt.
 */
static int latscope_gpio_get(struct latscope_session *s)
{
	const struct latscope_gpio_setup *gs = &s->setup.gpio;
	struct latscope_gpio *g = s->priv;
	int ret;

	if (gs->flags & LATSCOPE_GPIO_FROM_DT) {
		/* Edge 0 (device tree only): the device's. */
		g->dt = latscope_dt_borrow(&g->lines, &g->edge, gs->mode);
		ret = PTR_ERR_OR_ZERO(g->dt);
		if (ret)
			g->dt = NULL;
	} else {
		ret = latscope_gpio_lines_get(&g->lines, gs, s->dev);
	}
	if (ret)
		return ret;
	g->in_irq = gpiod_to_irq(g->lines.in);
	if (g->in_irq < 0) {
		latscope_gpio_put(s);
		return -ENXIO;
	}
	g->mode = gs->mode;
	if (gs->edge)
		g->edge = gs->edge;
	g->thread_prio = gs->irq_thread_priority;
	g->ack_pulse = gs->flags & LATSCOPE_GPIO_ACK_PULSE;
	latscope_gpio_out_polarity(g, gs->flags);
	/* A borrowed line keeps the level its last user left. */
	latscope_gpio_ack_idle(g);
	g->out_cansleep = g->lines.out && gpiod_cansleep(g->lines.out);
	return 0;
}

/* Undoes what start did, in reverse; safe after a failed start. */
static void latscope_gpio_stop(struct latscope_session *s)
{
	struct latscope_gpio *g = s->priv;

	latscope_timeline_stop(s);
	latscope_gpio_pulse_stop(g);
	latscope_gpio_irq_stop(s);
	latscope_gpio_out_to_idle(g);
}

static int latscope_gpio_start(struct latscope_session *s)
{
	struct latscope_gpio *g = s->priv;
	int ret;

	latscope_gpio_pulse_reset(g);
	latscope_gpio_irq_reset(g);
	latscope_gpio_ack_idle(g);
	/* Before the irq: an edge this makes is nobody's arrival. */
	latscope_gpio_out_to_idle(g);
	ret = latscope_gpio_irq_start(s);
	if (ret || g->mode == LATSCOPE_GPIO_REMOTE)
		return ret;
	ret = latscope_gpio_pulse_start(s);
	if (ret)
		return ret;
	latscope_gpio_pulse_use(s);
	return latscope_timeline_arm(s);
}

static void latscope_gpio_export(struct latscope_session *s,
				 struct latscope_result *res)
{
	const struct latscope_gpio *g = s->priv;
	struct latscope_gpio_result *out = &res->gpio;

	out->acks = g->acks;
	out->lost = g->lost;
	out->spurious = g->spurious;
	out->paths = atomic_read(&g->paths);
	out->irq = g->in_irq;
	out->irq_thread_pid = g->thread_pid;
	memcpy(out->irq_thread_comm, g->thread_comm, sizeof(out->irq_thread_comm));
	out->irq_thread_policy = g->thread_policy;
	out->irq_thread_rtprio = g->thread_rtprio;
	out->edge = g->edge;
}

const struct latscope_source latscope_gpio_source = {
	.name = "gpio",
	.priv_size = sizeof(struct latscope_gpio),
	/* At SETUP: the lines. */
	.check = latscope_gpio_check,
	.get = latscope_gpio_get,
	.put = latscope_gpio_put,
	/* A run: the interrupt, the pulse train, the ack. */
	.start = latscope_gpio_start,
	.stop = latscope_gpio_stop,
	.respond = latscope_gpio_respond,
	.export = latscope_gpio_export,
	/* The module: the device tree's driver. */
	.init = latscope_dt_init,
	.exit = latscope_dt_exit,
};
