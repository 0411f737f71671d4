// SPDX-License-Identifier: GPL-2.0
/*
 * latscope GPIO source: an edge on the pulse-in line is the event, and the
 * responder answers it by toggling the ack-out line.
 *
 * Loopback: the session's hrtimer drives pulse-out (wired to pulse-in) at
 * each ideal time t0 + n * period and returns it to idle half a period
 * later, once its edge came back. One pulse at most is in flight, so each
 * arrival belongs to exactly one ideal time; a send step that finds the
 * previous pulse still out is a missed period. Remote: another device
 * drives pulse-in, the arrival stamp is the ideal time.
 *
 * The arrival is stamped by a handler requested with IRQF_NO_THREAD, so
 * it runs in hard irq on PREEMPT_RT too unless the GPIO chip itself
 * delivers its interrupts from a thread (nested irq chips such as I2C
 * expanders): the result says which it was.
 */
#include <linux/device.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/machine.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched/types.h>

#include "compat.h"
#include "latscope.h"

#define LATSCOPE_GPIO_TIMER_MODE	HRTIMER_MODE_ABS_PINNED_HARD
/* The pulse-out thread of sleeping GPIO chips runs above any responder. */
#define LATSCOPE_GPIO_PULSE_PRIO	99

/* Serialises the lookup table that hands run-time lines to gpiod_get(). */
static DEFINE_MUTEX(latscope_gpio_lookup_lock);

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

/* The GPIO part of latscope_setup_check(). */
int latscope_gpio_setup_check(const struct latscope_setup *setup)
{
	const struct latscope_gpio_setup *gs = &setup->gpio;
	bool loopback = gs->mode == LATSCOPE_GPIO_LOOPBACK;
	int ret;

	if (setup->context == LATSCOPE_CTX_IRQ)
		return -EINVAL;
	if (gs->mode > LATSCOPE_GPIO_REMOTE ||
	    (gs->flags & ~LATSCOPE_GPIO_FLAGS_MASK) ||
	    gs->irq_thread_priority > LATSCOPE_MAX_PRIORITY ||
	    gs->__reserved[0] || gs->__reserved[1])
		return -EINVAL;
	if (gs->edge > LATSCOPE_EDGE_BOTH ||
	    (!gs->edge && !(gs->flags & LATSCOPE_GPIO_FROM_DT)))
		return -EINVAL;
	if (!loopback && setup->period_ns)
		return -EINVAL;
	if (loopback && (setup->period_ns < LATSCOPE_MIN_PERIOD_NS ||
			 setup->period_ns > LATSCOPE_MAX_PERIOD_NS))
		return -EINVAL;
	if (gs->flags & LATSCOPE_GPIO_FROM_DT)
		return latscope_gpio_line_empty(&gs->pulse_in) &&
		       latscope_gpio_line_empty(&gs->ack_out) &&
		       latscope_gpio_line_empty(&gs->pulse_out) ? 0 : -EINVAL;
	ret = latscope_gpio_line_check(&gs->pulse_in);
	if (!ret)
		ret = latscope_gpio_line_check(&gs->ack_out);
	if (!ret && loopback)
		ret = latscope_gpio_line_check(&gs->pulse_out);
	if (ret)
		return ret;
	if (!loopback && !latscope_gpio_line_empty(&gs->pulse_out))
		return -EINVAL;
	if (latscope_gpio_line_same(&gs->pulse_in, &gs->ack_out) ||
	    (loopback && (latscope_gpio_line_same(&gs->pulse_in, &gs->pulse_out) ||
			  latscope_gpio_line_same(&gs->ack_out, &gs->pulse_out))))
		return -EINVAL;
	return 0;
}

/* latscope,edge's values, in enum latscope_gpio_edge order from 1. */
static const char *const latscope_edge_names[] = { "rising", "falling", "both" };

/* The enum latscope_gpio_edge of a latscope,edge value, or -EINVAL. */
int latscope_gpio_edge_parse(const char *name)
{
	int i = match_string(latscope_edge_names, ARRAY_SIZE(latscope_edge_names), name);

	return i < 0 ? -EINVAL : i + LATSCOPE_EDGE_RISING;
}

/*
 * The raw level pulse-out idles at for @edge: the one its pulses start
 * from (high for falling). Rising and both pulse from low.
 */
int latscope_gpio_idle_level(u32 edge)
{
	return edge == LATSCOPE_EDGE_FALLING;
}

/* The latscope,edge value of a valid enum latscope_gpio_edge. */
const char *latscope_gpio_edge_name(u32 edge)
{
	return latscope_edge_names[edge - LATSCOPE_EDGE_RISING];
}

/* A run-time line for gpiod_get(): chip label and offset under @con_id. */
static void latscope_gpio_lookup_fill(struct gpiod_lookup *p,
				      const struct latscope_gpio_line *line,
				      const char *con_id)
{
	p->key = line->chip;
	p->chip_hwnum = line->offset;
	p->con_id = con_id;
}

static struct gpio_desc *latscope_gpio_request(struct device *dev,
					       const char *con_id,
					       const char *label,
					       enum gpiod_flags flags)
{
	struct gpio_desc *desc = gpiod_get(dev, con_id, flags);

	if (IS_ERR(desc))
		return desc;
	gpiod_set_consumer_name(desc, label);
	return desc;
}

static int latscope_gpio_request_all(struct latscope_gpio *g,
				     const struct latscope_gpio_setup *gs,
				     struct device *dev)
{
	bool loopback = gs->mode == LATSCOPE_GPIO_LOOPBACK;
	enum gpiod_flags idle = latscope_gpio_idle_level(gs->edge) ?
				GPIOD_OUT_HIGH : GPIOD_OUT_LOW;

	g->in = latscope_gpio_request(dev, "pulse-in", "latscope pulse-in",
				      GPIOD_IN);
	if (IS_ERR(g->in))
		return PTR_ERR(g->in);
	g->ack = latscope_gpio_request(dev, "ack-out", "latscope ack-out",
				       GPIOD_OUT_LOW);
	if (IS_ERR(g->ack))
		return PTR_ERR(g->ack);
	if (!loopback)
		return 0;
	g->out = latscope_gpio_request(dev, "pulse-out", "latscope pulse-out",
				       idle);
	return PTR_ERR_OR_ZERO(g->out);
}

/* Gives back every line of @g; safe on a partly set up @g. */
void latscope_gpio_release(struct latscope_gpio *g)
{
	if (!g)
		return;
	if (g->dt) {
		latscope_dt_return(g);
		return;
	}
	if (!IS_ERR_OR_NULL(g->out))
		gpiod_put(g->out);
	if (!IS_ERR_OR_NULL(g->ack))
		gpiod_put(g->ack);
	if (!IS_ERR_OR_NULL(g->in))
		gpiod_put(g->in);
	g->in = NULL;
	g->ack = NULL;
	g->out = NULL;
}

/* Requests the run-time lines @gs names, by chip label and offset. */
static int latscope_gpio_lookup(struct latscope_gpio *g,
				const struct latscope_gpio_setup *gs)
{
	struct device *dev = latscope_device();
	struct gpiod_lookup_table *table;
	int ret;

	table = kzalloc(struct_size(table, table, 4), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table->dev_id = dev_name(dev);
	latscope_gpio_lookup_fill(&table->table[0], &gs->pulse_in, "pulse-in");
	latscope_gpio_lookup_fill(&table->table[1], &gs->ack_out, "ack-out");
	if (gs->mode == LATSCOPE_GPIO_LOOPBACK)
		latscope_gpio_lookup_fill(&table->table[2], &gs->pulse_out,
					  "pulse-out");

	mutex_lock(&latscope_gpio_lookup_lock);
	gpiod_add_lookup_table(table);
	ret = latscope_gpio_request_all(g, gs, dev);
	gpiod_remove_lookup_table(table);
	mutex_unlock(&latscope_gpio_lookup_lock);
	kfree(table);
	/* A chip that is not there is "deferred" to drivers, absent to us. */
	return ret == -EPROBE_DEFER ? -ENODEV : ret;
}

/*
 * Requests the lines @setup names, or borrows the device tree's. Errors:
 * ENODEV no chip with that label (or no device), EINVAL offset out of
 * range, EBUSY line in use, ENXIO pulse-in cannot interrupt.
 */
struct latscope_gpio *latscope_gpio_get(const struct latscope_setup *setup)
{
	const struct latscope_gpio_setup *gs = &setup->gpio;
	bool loopback = gs->mode == LATSCOPE_GPIO_LOOPBACK;
	struct latscope_gpio *g;
	int ret;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return ERR_PTR(-ENOMEM);
	if (gs->flags & LATSCOPE_GPIO_FROM_DT)
		ret = latscope_dt_borrow(g, loopback);
	else
		ret = latscope_gpio_lookup(g, gs);
	if (!ret) {
		g->irq = gpiod_to_irq(g->in);
		if (g->irq < 0)
			ret = -ENXIO;
	}
	if (ret) {
		latscope_gpio_release(g);
		kfree(g);
		return ERR_PTR(ret);
	}
	g->mode = gs->mode;
	/* Edge 0 (device tree only): the one latscope_dt_borrow() set. */
	if (gs->edge)
		g->edge = gs->edge;
	g->thread_prio = gs->irq_thread_priority;
	g->pulse_level = !latscope_gpio_idle_level(g->edge);
	g->out_cansleep = g->out && gpiod_cansleep(g->out);
	return g;
}

static void latscope_gpio_raise(struct work_struct *work);

/* Clears the figures of a run; nothing is running. */
void latscope_gpio_reset(struct latscope_gpio *g)
{
	atomic64_set(&g->in_flight, 0);
	atomic_set(&g->paths, g->out_cansleep ? LATSCOPE_GPIO_OUT_CANSLEEP : 0);
	if (g->ack && gpiod_cansleep(g->ack))
		atomic_or(LATSCOPE_GPIO_ACK_CANSLEEP, &g->paths);
	atomic_set(&g->out_req, -1);
	g->level = !g->pulse_level;
	g->driven = g->level;
	g->ack_level = 0;
	g->acks = 0;
	g->lost = 0;
	g->spurious = 0;
	g->thread_pid = 0;
	memset(g->thread_comm, 0, sizeof(g->thread_comm));
	g->thread_policy = 0;
	g->thread_rtprio = 0;
	INIT_WORK(&g->raise_work, latscope_gpio_raise);
}

/*
 * One step of the loopback pulse train at ideal time @ideal: a send step
 * (@send) starts a pulse, a release step returns pulse-out to idle once
 * the pulse arrived. Returns the raw level to drive, or -1 for none.
 * Called from the session's timer only.
 */
int latscope_gpio_step(struct latscope_session *s, u64 ideal, bool send)
{
	struct latscope_gpio *g = s->gpio;
	u64 lost_ns = max_t(u64, NSEC_PER_SEC, 2 * s->setup.period_ns);
	u64 flying = atomic64_read(&g->in_flight);
	bool both = g->edge == LATSCOPE_EDGE_BOTH;
	bool counted = ideal >= s->warmup_end;

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
	if (counted)
		s->events++;
	if (flying || (!both && g->level == g->pulse_level)) {
		if (counted)
			atomic64_inc(&s->overruns);
		return -1;
	}
	/* In flight before the edge exists, so the arrival finds it. */
	atomic64_set(&g->in_flight, ideal);
	g->level = both ? !g->level : g->pulse_level;
	return g->level;
}

/* Send steps the timer missed by being late: events, and overruns. */
static void latscope_gpio_missed(struct latscope_session *s, u64 ideal,
				 u64 missed)
{
	if (!missed || ideal < s->warmup_end)
		return;
	s->events += missed;
	atomic64_add(missed, &s->overruns);
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
	if (!sched_setattr_nocheck(g->thread, &attr))
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
		sched_setattr_nocheck(g->thread, &attr);
	}
	put_task_struct(g->thread);
	g->thread = NULL;
}

/* The edge on pulse-in that is an event. */
void latscope_gpio_arrival(struct latscope_session *s, u64 arrival)
{
	struct latscope_gpio *g = s->gpio;
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
	latscope_handoff(s, ideal, (s64)(arrival - ideal), true);
}

static irqreturn_t latscope_gpio_irq(int irq, void *data)
{
	struct latscope_session *s = data;

	latscope_gpio_arrival(s, ktime_get_ns());
	return IRQ_HANDLED;
}

/* The responder answered the event of @ideal: one ack-out toggle. */
static void latscope_gpio_respond(struct latscope_session *s, u64 ideal)
{
	struct latscope_gpio *g = s->gpio;

	g->ack_level = !g->ack_level;
	gpiod_set_raw_value_cansleep(g->ack, g->ack_level);
	if (ideal >= s->warmup_end)
		g->acks++;
}

static void latscope_gpio_drive(struct latscope_gpio *g, int level)
{
	if (level < 0)
		return;
	if (!g->out_cansleep) {
		gpiod_set_raw_value(g->out, level);
		return;
	}
	atomic_set(&g->out_req, level);
	wake_up_process(g->pulse_task);
}

static enum hrtimer_restart latscope_gpio_timer_fire(struct hrtimer *timer)
{
	struct latscope_session *s = container_of(timer, struct latscope_session,
						  timer);
	struct latscope_gpio *g = s->gpio;
	u64 period = s->setup.period_ns;
	u64 ideal = ktime_to_ns(hrtimer_get_expires(timer));
	u64 missed, next;
	int level;

	if (g->release_step) {
		level = latscope_gpio_step(s, ideal, false);
		next = g->next_send;
		g->release_step = false;
	} else {
		missed = latscope_missed(ideal, ktime_get_ns(), period);
		latscope_gpio_missed(s, ideal, missed);
		level = latscope_gpio_step(s, ideal, true);
		g->next_send = ideal + (missed + 1) * period;
		g->release_step = g->edge != LATSCOPE_EDGE_BOTH;
		next = g->release_step ? ideal + period / 2 : g->next_send;
	}
	latscope_gpio_drive(g, level);
	hrtimer_set_expires(timer, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/*
 * Drives pulse-out for chips that may sleep. Two requests can merge while
 * it waits (a release and the next send): a request for the level it
 * already drove means both, so it drives the other level first.
 */
static int latscope_gpio_pulse_fn(void *data)
{
	struct latscope_session *s = data;
	struct latscope_gpio *g = s->gpio;
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
			gpiod_set_raw_value_cansleep(g->out, !level);
		gpiod_set_raw_value_cansleep(g->out, level);
		g->driven = level;
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * Puts pulse-out at its idle level, the one latscope_gpio_reset() assumes,
 * whatever a previous run or a stop in the middle of a pulse left there,
 * so the first pulse makes its edge. Nothing drives it concurrently: the
 * timer and the pulse thread are not running.
 */
static void latscope_gpio_idle(struct latscope_gpio *g)
{
	if (g->out)
		gpiod_set_raw_value_cansleep(g->out, !g->pulse_level);
}

static int latscope_gpio_pulse_start(struct latscope_session *s)
{
	struct task_struct *t;

	t = latscope_fifo_kthread(s, latscope_gpio_pulse_fn,
				  LATSCOPE_GPIO_PULSE_PRIO, "latscope-pulse");
	if (IS_ERR(t))
		return PTR_ERR(t);
	s->gpio->pulse_task = t;
	return 0;
}

static void latscope_gpio_timer_arm(void *data)
{
	struct latscope_session *s = data;

	hrtimer_start(&s->timer, ns_to_ktime(s->t0), LATSCOPE_GPIO_TIMER_MODE);
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

static int latscope_gpio_start(struct latscope_session *s)
{
	struct latscope_gpio *g = s->gpio;
	int ret;

	latscope_gpio_reset(g);
	/* Before the irq: an edge this makes is nobody's arrival. */
	if (g->mode == LATSCOPE_GPIO_LOOPBACK)
		latscope_gpio_idle(g);
	ret = request_any_context_irq(g->irq, latscope_gpio_irq,
				      IRQF_NO_THREAD | latscope_gpio_trigger(g->edge),
				      "latscope", s);
	if (ret < 0)
		return ret;
	g->irq_requested = true;
	if (g->mode == LATSCOPE_GPIO_REMOTE)
		return 0;
	if (g->out_cansleep) {
		ret = latscope_gpio_pulse_start(s);
		if (ret)
			return ret;
	}
	g->release_step = false;
	latscope_hrtimer_setup(&s->timer, latscope_gpio_timer_fire,
			       CLOCK_MONOTONIC, LATSCOPE_GPIO_TIMER_MODE);
	g->timer_armed = true;
	return smp_call_function_single(s->setup.cpu, latscope_gpio_timer_arm,
					s, 1);
}

/* Undoes what start did, in reverse; safe after a failed start. */
static void latscope_gpio_stop(struct latscope_session *s)
{
	struct latscope_gpio *g = s->gpio;

	if (g->timer_armed) {
		hrtimer_cancel(&s->timer);
		g->timer_armed = false;
	}
	if (g->pulse_task) {
		kthread_stop(g->pulse_task);
		g->pulse_task = NULL;
	}
	if (g->irq_requested) {
		free_irq(g->irq, s);
		g->irq_requested = false;
	}
	if (g->mode == LATSCOPE_GPIO_LOOPBACK)
		latscope_gpio_idle(g);
	latscope_gpio_restore(g);
}

/* The responder is gone: the lines go back, the figures stay. */
static void latscope_gpio_put_lines(struct latscope_session *s)
{
	latscope_gpio_release(s->gpio);
}

void latscope_gpio_export(const struct latscope_gpio *g,
			  struct latscope_gpio_result *out)
{
	out->acks = g->acks;
	out->lost = g->lost;
	out->spurious = g->spurious;
	out->paths = atomic_read(&g->paths);
	out->irq = g->irq;
	out->irq_thread_pid = g->thread_pid;
	memcpy(out->irq_thread_comm, g->thread_comm, sizeof(out->irq_thread_comm));
	out->irq_thread_policy = g->thread_policy;
	out->irq_thread_rtprio = g->thread_rtprio;
	out->edge = g->edge;
}

const struct latscope_source latscope_gpio_source = {
	.name = "gpio",
	.start = latscope_gpio_start,
	.stop = latscope_gpio_stop,
	.respond = latscope_gpio_respond,
	.release = latscope_gpio_put_lines,
};
