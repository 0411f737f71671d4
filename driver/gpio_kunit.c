// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the GPIO source's bookkeeping, without GPIO hardware:
 * SETUP validation of the GPIO fields, a chip that does not exist, and the
 * loopback pulse train and arrivals fed by hand (one pulse in flight,
 * missed and lost pulses, stray edges, each edge choice, remote mode).
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gpio-internal.h"
#include "latscope.h"
#include "latscope_kunit.h"

/* ---- SETUP validation ---- */

static struct latscope_setup latscope_gpio_base(u32 mode)
{
	struct latscope_setup setup = latscope_base_setup(LATSCOPE_CTX_KERNEL, NS_PER_MS);

	setup.source = LATSCOPE_SRC_GPIO;
	setup.gpio.mode = mode;
	setup.gpio.edge = LATSCOPE_EDGE_RISING;
	strscpy(setup.gpio.pulse_in.chip, "chip-a", sizeof(setup.gpio.pulse_in.chip));
	setup.gpio.pulse_in.offset = 24;
	strscpy(setup.gpio.ack_out.chip, "chip-a", sizeof(setup.gpio.ack_out.chip));
	setup.gpio.ack_out.offset = 23;
	if (mode != LATSCOPE_GPIO_REMOTE) {
		strscpy(setup.gpio.pulse_out.chip, "chip-b",
			sizeof(setup.gpio.pulse_out.chip));
		setup.gpio.pulse_out.offset = 24;
	} else {
		setup.period_ns = 0;
	}
	/* A monitor: pulse-out and its ack-in (pulse_in), in hard irq. */
	if (mode == LATSCOPE_GPIO_MONITOR) {
		setup.context = LATSCOPE_CTX_IRQ;
		setup.gpio.edge = LATSCOPE_EDGE_FALLING;
		memset(&setup.gpio.ack_out, 0, sizeof(setup.gpio.ack_out));
	}
	return setup;
}

static void latscope_gpio_no_lines(struct latscope_setup *setup)
{
	memset(&setup->gpio.pulse_in, 0, sizeof(setup->gpio.pulse_in));
	memset(&setup->gpio.ack_out, 0, sizeof(setup->gpio.ack_out));
	memset(&setup->gpio.pulse_out, 0, sizeof(setup->gpio.pulse_out));
}

struct latscope_gpio_case {
	const char *desc;
	u32 mode;
	void (*mutate)(struct latscope_setup *setup);
	int ret;
};

#define GPIO_MUTATION(name, body)					\
	static void gpio_##name(struct latscope_setup *setup) { body; }

GPIO_MUTATION(valid, (void)setup)
GPIO_MUTATION(user_context, setup->context = LATSCOPE_CTX_USER)
GPIO_MUTATION(edge_falling, setup->gpio.edge = LATSCOPE_EDGE_FALLING)
GPIO_MUTATION(edge_both, setup->gpio.edge = LATSCOPE_EDGE_BOTH)
GPIO_MUTATION(offset_max, setup->gpio.pulse_in.offset = U16_MAX - 1)
GPIO_MUTATION(irq_context, setup->context = LATSCOPE_CTX_IRQ)
GPIO_MUTATION(source_unknown, setup->source = LATSCOPE_SRC_NOISE + 1)
GPIO_MUTATION(mode_unknown, setup->gpio.mode = LATSCOPE_GPIO_MONITOR + 1)
GPIO_MUTATION(edge_none, setup->gpio.edge = 0)
GPIO_MUTATION(edge_unknown, setup->gpio.edge = LATSCOPE_EDGE_BOTH + 1)
GPIO_MUTATION(flags_unknown, setup->gpio.flags = LATSCOPE_GPIO_ACK_PULSE << 1)
GPIO_MUTATION(ack_pulse, setup->gpio.flags = LATSCOPE_GPIO_ACK_PULSE)
GPIO_MUTATION(from_dt, setup->gpio.flags = LATSCOPE_GPIO_FROM_DT; latscope_gpio_no_lines(setup))
GPIO_MUTATION(from_dt_with_line, setup->gpio.flags = LATSCOPE_GPIO_FROM_DT)
GPIO_MUTATION(from_dt_edge_none, gpio_from_dt(setup); setup->gpio.edge = 0)
GPIO_MUTATION(from_dt_edge_unknown, gpio_from_dt(setup); setup->gpio.edge = LATSCOPE_EDGE_BOTH + 1)
GPIO_MUTATION(thread_prio_99, setup->gpio.irq_thread_priority = 99)
GPIO_MUTATION(thread_prio_100, setup->gpio.irq_thread_priority = 100)
GPIO_MUTATION(reserved_set, setup->gpio.__reserved[1] = 1)
GPIO_MUTATION(line_reserved_set, setup->gpio.ack_out.__reserved = 1)
GPIO_MUTATION(chip_empty, setup->gpio.pulse_in.chip[0] = 0)
GPIO_MUTATION(chip_unterminated,
	      memset(setup->gpio.ack_out.chip, 'x', sizeof(setup->gpio.ack_out.chip)))
GPIO_MUTATION(offset_too_big, setup->gpio.pulse_in.offset = U16_MAX)
GPIO_MUTATION(in_is_ack, setup->gpio.ack_out.offset = 24)
GPIO_MUTATION(in_is_out, strscpy(setup->gpio.pulse_out.chip, "chip-a", 32))
GPIO_MUTATION(no_pulse_out, memset(&setup->gpio.pulse_out, 0, sizeof(setup->gpio.pulse_out)))
GPIO_MUTATION(period_short, setup->period_ns = LATSCOPE_MIN_PERIOD_NS - 1)
GPIO_MUTATION(remote_period, setup->period_ns = NS_PER_MS)
GPIO_MUTATION(remote_pulse_out, setup->gpio.pulse_out.offset = 3)
GPIO_MUTATION(timer_with_gpio, setup->source = LATSCOPE_SRC_TIMER; setup->period_ns = NS_PER_MS)
GPIO_MUTATION(pulse_low, setup->gpio.flags = LATSCOPE_GPIO_PULSE_LOW)
GPIO_MUTATION(kernel_context, setup->context = LATSCOPE_CTX_KERNEL)
GPIO_MUTATION(with_ack_out, strscpy(setup->gpio.ack_out.chip, "chip-a", 32))
GPIO_MUTATION(no_period, setup->period_ns = 0)
GPIO_MUTATION(out_is_ack_in, strscpy(setup->gpio.pulse_out.chip, "chip-a", 32))

#define L LATSCOPE_GPIO_LOOPBACK
#define R LATSCOPE_GPIO_REMOTE
#define M LATSCOPE_GPIO_MONITOR
#define GPIO_ENTRY(name, mode, ret) { #name, mode, gpio_##name, ret }

static const struct latscope_gpio_case latscope_gpio_cases[] = {
	GPIO_ENTRY(valid, L, 0),
	GPIO_ENTRY(valid, R, 0),
	GPIO_ENTRY(user_context, L, 0),
	GPIO_ENTRY(edge_falling, L, 0),
	GPIO_ENTRY(edge_both, R, 0),
	GPIO_ENTRY(offset_max, L, 0),
	GPIO_ENTRY(irq_context, L, -EINVAL),
	GPIO_ENTRY(source_unknown, L, -EINVAL),
	GPIO_ENTRY(mode_unknown, L, -EINVAL),
	GPIO_ENTRY(edge_none, L, -EINVAL),
	GPIO_ENTRY(edge_unknown, R, -EINVAL),
	GPIO_ENTRY(flags_unknown, L, -EINVAL),
	GPIO_ENTRY(ack_pulse, R, 0),
	GPIO_ENTRY(ack_pulse, L, 0),
	GPIO_ENTRY(from_dt, L, 0),
	GPIO_ENTRY(from_dt, R, 0),
	GPIO_ENTRY(from_dt_with_line, R, -EINVAL),
	GPIO_ENTRY(from_dt_edge_none, L, 0),
	GPIO_ENTRY(from_dt_edge_none, R, 0),
	GPIO_ENTRY(from_dt_edge_unknown, R, -EINVAL),
	GPIO_ENTRY(thread_prio_99, R, 0),
	GPIO_ENTRY(thread_prio_100, L, -EINVAL),
	GPIO_ENTRY(reserved_set, R, -EINVAL),
	GPIO_ENTRY(line_reserved_set, L, -EINVAL),
	GPIO_ENTRY(chip_empty, L, -EINVAL),
	GPIO_ENTRY(chip_unterminated, R, -EINVAL),
	GPIO_ENTRY(offset_too_big, L, -EINVAL),
	GPIO_ENTRY(in_is_ack, R, -EINVAL),
	GPIO_ENTRY(in_is_out, L, -EINVAL),
	GPIO_ENTRY(no_pulse_out, L, -EINVAL),
	GPIO_ENTRY(period_short, L, -EINVAL),
	GPIO_ENTRY(remote_period, R, -EINVAL),
	GPIO_ENTRY(remote_pulse_out, R, -EINVAL),
	GPIO_ENTRY(timer_with_gpio, L, -EINVAL),
	GPIO_ENTRY(valid, M, 0),
	GPIO_ENTRY(pulse_low, M, 0),
	GPIO_ENTRY(edge_both, M, 0),
	GPIO_ENTRY(pulse_low, L, -EINVAL),
	GPIO_ENTRY(pulse_low, R, -EINVAL),
	GPIO_ENTRY(kernel_context, M, -EINVAL),
	GPIO_ENTRY(user_context, M, -EINVAL),
	GPIO_ENTRY(with_ack_out, M, -EINVAL),
	GPIO_ENTRY(ack_pulse, M, -EINVAL),
	GPIO_ENTRY(from_dt, M, 0),
	GPIO_ENTRY(from_dt_with_line, M, -EINVAL),
	GPIO_ENTRY(no_period, M, -EINVAL),
	GPIO_ENTRY(no_pulse_out, M, -EINVAL),
	GPIO_ENTRY(out_is_ack_in, M, -EINVAL),
	GPIO_ENTRY(edge_none, M, -EINVAL),
};

static void latscope_gpio_case_desc(const struct latscope_gpio_case *c, char *desc)
{
	static const char *const modes[] = { "loopback", "remote", "monitor" };

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s", c->desc, modes[c->mode]);
}

KUNIT_ARRAY_PARAM(latscope_gpio, latscope_gpio_cases, latscope_gpio_case_desc);

static void latscope_gpio_validation(struct kunit *test)
{
	const struct latscope_gpio_case *c = test->param_value;
	struct latscope_setup setup = latscope_gpio_base(c->mode);

	c->mutate(&setup);
	KUNIT_EXPECT_EQ(test, latscope_setup_check(&setup), c->ret);
}

/* A well-formed setup naming a chip that is not there: nothing held. */
static void latscope_gpio_missing_chip(struct kunit *test)
{
	struct latscope_setup setup = latscope_gpio_base(LATSCOPE_GPIO_LOOPBACK);
	struct device *dev = kunit_device_register(test, "latscope-kunit");
	struct latscope_session *s;

	KUNIT_ASSERT_FALSE(test, IS_ERR(dev));
	s = latscope_session_create(dev);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	strscpy(setup.gpio.pulse_in.chip, "latscope-no-such-chip",
		sizeof(setup.gpio.pulse_in.chip));
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), -ENODEV);
	KUNIT_EXPECT_EQ(test, s->state, LATSCOPE_IDLE);
	KUNIT_EXPECT_NULL(test, s->priv);
	KUNIT_EXPECT_NULL(test, s->cells);
	KUNIT_EXPECT_EQ(test, latscope_session_start(s), -EINVAL);
}

/* No "latscope,gpio" device is bound here: its lines are not there. */
static void latscope_gpio_no_dt_device(struct kunit *test)
{
	struct latscope_setup setup = latscope_gpio_base(LATSCOPE_GPIO_REMOTE);
	struct latscope_session *s = latscope_session_create(NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, latscope_kunit_destroy, s), 0);
	setup.gpio.flags = LATSCOPE_GPIO_FROM_DT;
	latscope_gpio_no_lines(&setup);
	KUNIT_EXPECT_EQ(test, latscope_session_setup(s, &setup, true), -ENODEV);
	KUNIT_EXPECT_EQ(test, s->state, LATSCOPE_IDLE);
	KUNIT_EXPECT_NULL(test, s->priv);
}

/* ---- loopback and remote bookkeeping, fed by hand ---- */

#define PERIOD	(100 * NS_PER_US)

/*
 * The synthetic sessions' clock: the time the step being run by hand
 * handles its expiry, on the same timeline as their ideal times. The
 * tests run one at a time.
 */
static u64 latscope_gpio_now_ns;

static u64 latscope_gpio_clock(void)
{
	return latscope_gpio_now_ns;
}

/*
 * A GPIO session with no lines, its timeline at T0_NOW, no warm-up: the
 * timeline's steps and the irq handler's arrivals are called by hand, as
 * the hrtimer and the interrupt would, and the pulse train's stamps read
 * the synthetic clock. The GPIO state is freed with the session.
 */
static struct latscope_session *latscope_gpio_synthetic(struct kunit *test,
							u32 mode, u32 edge)
{
	u32 context = mode == LATSCOPE_GPIO_MONITOR ? LATSCOPE_CTX_IRQ : LATSCOPE_CTX_KERNEL;
	struct latscope_setup setup = latscope_base_setup(context, PERIOD);
	struct latscope_session *s = latscope_kunit_session(test, &setup);
	struct latscope_gpio *g = kzalloc(sizeof(*g), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, g);
	g->mode = mode;
	g->edge = edge;
	g->clock = latscope_gpio_clock;
	latscope_gpio_out_polarity(g, 0);
	s->source = &latscope_gpio_source;
	s->priv = g;
	if (mode == LATSCOPE_GPIO_REMOTE)
		s->setup.period_ns = 0;
	latscope_timeline_init(s, T0_NOW);
	latscope_gpio_pulse_reset(g);
	latscope_gpio_irq_reset(g);
	if (mode != LATSCOPE_GPIO_REMOTE)
		latscope_gpio_pulse_use(s);
	return s;
}

static struct latscope_gpio *gpio_of(struct latscope_session *s)
{
	return s->priv;
}

/*
 * The timeline's next step, due at @t and run @late ns after it (the
 * clock then reads @t + @late): pulse-out's level.
 */
static int latscope_gpio_at_late(struct latscope_session *s, u64 t, u64 late)
{
	latscope_gpio_now_ns = t + late;
	latscope_timeline_step(s, t, t + late);
	return gpio_of(s)->level;
}

/* The timeline's next step, due at @t and run on time. */
static int latscope_gpio_at(struct latscope_session *s, u64 t)
{
	return latscope_gpio_at_late(s, t, 0);
}

/* What the kernel responder does with the event waiting for it. */
static void latscope_gpio_answer(struct latscope_session *s, u64 when)
{
	u64 ideal = atomic64_xchg(&s->pending, 0);

	if (ideal)
		latscope_record(s, (s64)(when - ideal), ideal);
}

static void latscope_gpio_one_pulse_in_flight(struct kunit *test)
{
	struct latscope_session *s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_LOOPBACK,
							     LATSCOPE_EDGE_RISING);
	struct latscope_gpio *g = gpio_of(s);
	u64 t = s->t0, half = PERIOD / 2;
	struct latscope_result res;

	/* Pulse 0 comes back 10 us late, is answered, and ends. */
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), 1);
	latscope_gpio_arrival(s, t + 10 * NS_PER_US);
	latscope_gpio_answer(s, t + 30 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + half), 0);

	/* Pulse 1 is late by 1.2 periods: it does not end, send 2 is skipped. */
	t += PERIOD;
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), 1);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + half), 1);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + PERIOD), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&g->in_flight), (s64)t);
	latscope_gpio_arrival(s, t + 120 * NS_PER_US);
	latscope_gpio_answer(s, t + 130 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + PERIOD + half), 0);

	/* An edge with nothing in flight is stray, not an event. */
	latscope_gpio_arrival(s, t + PERIOD + half + 1);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + 2 * PERIOD), 1);
	latscope_gpio_arrival(s, t + 2 * PERIOD + 5 * NS_PER_US);
	latscope_gpio_answer(s, t + 2 * PERIOD + 6 * NS_PER_US);
	latscope_measure_flush(s);
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.events, 4ULL);
	KUNIT_EXPECT_EQ(test, res.overruns, 1ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 3ULL);
	KUNIT_EXPECT_EQ(test, res.irq.samples, 3ULL);
	/* The late pulse keeps its full lateness, on both sides. */
	KUNIT_EXPECT_EQ(test, res.irq.max_ns, (s64)(120 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, res.latency.max_ns, (s64)(130 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, res.irq.min_ns, (s64)(5 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, res.gpio.spurious, 1ULL);
	KUNIT_EXPECT_EQ(test, res.gpio.lost, 0ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples + res.overruns, res.events);
	KUNIT_EXPECT_EQ(test, atomic64_read(&g->in_flight), 0LL);
}

/*
 * A pulse whose edge never comes: every send step behind it is skipped
 * until it is given up, a second after it left; the step that gives it up
 * finds pulse-out still high, and the next one sends.
 */
static void latscope_gpio_lost_pulse(struct kunit *test)
{
	struct latscope_session *s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_LOOPBACK,
							     LATSCOPE_EDGE_RISING);
	struct latscope_gpio *g = gpio_of(s);
	u64 sends = NSEC_PER_SEC / PERIOD, t = s->t0, i;

	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), 1);
	for (i = 1; i < sends; i++) {
		latscope_gpio_at(s, t + i * PERIOD - PERIOD / 2);
		latscope_gpio_at(s, t + i * PERIOD);
	}
	/* Just under a second: still in flight, not lost. */
	KUNIT_EXPECT_EQ(test, g->lost, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&g->in_flight), (s64)t);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->overruns), (s64)(sends - 1));
	latscope_gpio_at(s, t + sends * PERIOD - PERIOD / 2);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + sends * PERIOD), 1);
	KUNIT_EXPECT_EQ(test, g->lost, 1ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&g->in_flight), 0LL);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + sends * PERIOD + PERIOD / 2), 0);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + (sends + 1) * PERIOD), 1);
	/* Its edge, if it ever comes, is taken for the new pulse. */
	KUNIT_EXPECT_EQ(test, s->events, sends + 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->overruns), (s64)(sends + 1));
}

static void latscope_gpio_edges(struct kunit *test)
{
	struct latscope_session *s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_LOOPBACK,
							     LATSCOPE_EDGE_FALLING);
	u64 t = s->t0;
	int i;

	/* Falling: idle high, a pulse drives it low. */
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), 0);
	latscope_gpio_arrival(s, t + 1);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + PERIOD / 2), 1);

	/* Both: every send step toggles, and there is no half step. */
	s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_LOOPBACK, LATSCOPE_EDGE_BOTH);
	t = s->t0;
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), !(i & 1));
		latscope_gpio_arrival(s, t + 1);
		latscope_gpio_answer(s, t + 2);
		t += PERIOD;
	}
	KUNIT_EXPECT_EQ(test, s->events, 4ULL);
	KUNIT_EXPECT_EQ(test, s->lat.samples, 4ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->overruns), 0LL);
}

static void latscope_gpio_remote(struct kunit *test)
{
	struct latscope_session *s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_REMOTE,
							     LATSCOPE_EDGE_BOTH);
	u64 t = s->t0 + NS_PER_MS;

	/* Arrival to response; no timeline, so no irq part. */
	latscope_gpio_arrival(s, t);
	latscope_gpio_answer(s, t + 7 * NS_PER_US);
	/* A third edge before the second is answered: the responder misses it. */
	latscope_gpio_arrival(s, t + NS_PER_MS);
	latscope_gpio_arrival(s, t + 2 * NS_PER_MS);
	latscope_gpio_answer(s, t + 2 * NS_PER_MS + 9 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, s->events, 3ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->overruns), 1LL);
	KUNIT_EXPECT_EQ(test, s->lat.samples, 2ULL);
	KUNIT_EXPECT_EQ(test, s->lat.min, (s64)(7 * NS_PER_US));
	/* The answered one is the first of the two: its full delay counts. */
	KUNIT_EXPECT_EQ(test, s->lat.max, (s64)(1009 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, s->irq.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, gpio_of(s)->spurious, 0ULL);
}

/*
 * Arrivals stamped in a thread (here the test's own, as a threaded GPIO
 * chip would call the handler): that thread runs at the asked priority
 * for the run, and has its own back after the stop.
 */
static void latscope_gpio_thread_raised(struct kunit *test)
{
	struct latscope_session *s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_REMOTE,
							     LATSCOPE_EDGE_RISING);
	struct latscope_gpio *g = gpio_of(s);
	unsigned int policy = current->policy, rtprio = current->rt_priority;
	struct latscope_result res = {};

	g->thread_prio = 42;
	latscope_gpio_arrival(s, s->t0 + NS_PER_MS);
	flush_work(&g->raise_work);
	KUNIT_EXPECT_TRUE(test, atomic_read(&g->paths) & LATSCOPE_GPIO_IN_THREAD);
	KUNIT_EXPECT_FALSE(test, atomic_read(&g->paths) & LATSCOPE_GPIO_IN_HARDIRQ);
	KUNIT_EXPECT_EQ(test, g->thread_pid, task_pid_nr(current));
	KUNIT_EXPECT_TRUE(test, atomic_read(&g->paths) & LATSCOPE_GPIO_THREAD_RAISED);
	KUNIT_EXPECT_EQ(test, current->policy, (unsigned int)SCHED_FIFO);
	KUNIT_EXPECT_EQ(test, current->rt_priority, 42U);

	latscope_gpio_source.stop(s);
	KUNIT_EXPECT_EQ(test, current->policy, policy);
	KUNIT_EXPECT_EQ(test, current->rt_priority, rtprio);
	KUNIT_EXPECT_NULL(test, g->thread);
	latscope_gpio_source.export(s, &res);
	KUNIT_EXPECT_EQ(test, res.gpio.irq_thread_policy, policy);
	KUNIT_EXPECT_STREQ(test, res.gpio.irq_thread_comm, current->comm);
}

/*
 * The monitor: each sample is the round trip from the stamp taken as the
 * pulse went out to the answer's edge, recorded at once (no responder);
 * an answer missing at the next ideal time makes that one an overrun; the
 * pulse polarity is its own, whatever edge the answer has.
 */
static void latscope_gpio_monitor_round_trip(struct kunit *test)
{
	struct latscope_session *s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_MONITOR,
							     LATSCOPE_EDGE_BOTH);
	struct latscope_gpio *g = gpio_of(s);
	u64 t = s->t0, half = PERIOD / 2;
	struct latscope_result res;
	struct latscope_bulk rec;

	/*
	 * Rising pulses: idle low. The step runs 3 us late, so the pulse
	 * leaves then: the sample starts from the send stamp, not from the
	 * ideal time. It is answered 25 us later.
	 */
	KUNIT_EXPECT_EQ(test, latscope_gpio_at_late(s, t, 3 * NS_PER_US), 1);
	KUNIT_EXPECT_EQ(test, g->sent_ns, t + 3 * NS_PER_US);
	latscope_gpio_arrival(s, t + 28 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->pending), 0LL);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + half), 0);

	/* No answer before the next ideal time: that send is an overrun. */
	t += PERIOD;
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), 1);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + half), 1);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + PERIOD), 1);
	/* ...and the late answer keeps its whole round trip. */
	KUNIT_EXPECT_EQ(test, g->sent_ns, t);
	latscope_gpio_arrival(s, t + 130 * NS_PER_US);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + PERIOD + half), 0);
	t += 2 * PERIOD;
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), 1);
	latscope_gpio_arrival(s, t + 9 * NS_PER_US);
	/* An edge with no pulse out is stray. */
	latscope_gpio_arrival(s, t + 1);
	latscope_measure_flush(s);
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.events, 4ULL);
	KUNIT_EXPECT_EQ(test, res.overruns, 1ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 3ULL);
	KUNIT_EXPECT_EQ(test, res.latency.min_ns, (s64)(9 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, res.latency.max_ns, (s64)(130 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, res.latency.sum_ns, (s64)(164 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, res.irq.samples, 0ULL);
	KUNIT_EXPECT_EQ(test, res.gpio.spurious, 1ULL);
	KUNIT_EXPECT_EQ(test, res.latency.samples + res.overruns, res.events);
	/* Each answer timed is an ack: the summary's acks are the samples. */
	KUNIT_EXPECT_EQ(test, res.gpio.acks, res.latency.samples);
	/* The second's bulk record, what a latmon client gets. */
	KUNIT_ASSERT_TRUE(test, latscope_ring_pop(&s->ring, &rec));
	KUNIT_EXPECT_EQ(test, rec.samples, 3ULL);
	KUNIT_EXPECT_EQ(test, rec.overruns, 1ULL);
	KUNIT_EXPECT_EQ(test, rec.min_ns, (s64)(9 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, rec.max_ns, (s64)(130 * NS_PER_US));
	KUNIT_EXPECT_EQ(test, rec.avg_ns, (s64)(164 * NS_PER_US / 3));
	KUNIT_EXPECT_FALSE(test, latscope_ring_pop(&s->ring, &rec));

	/* LATSCOPE_GPIO_PULSE_LOW: idle high, each pulse drives it low. */
	s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_MONITOR, LATSCOPE_EDGE_FALLING);
	latscope_gpio_out_polarity(gpio_of(s), LATSCOPE_GPIO_PULSE_LOW);
	latscope_gpio_pulse_reset(gpio_of(s));
	t = s->t0;
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), 0);
	latscope_gpio_arrival(s, t + 1);
	KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + half), 1);
	KUNIT_EXPECT_EQ(test, s->lat.samples, 1ULL);
	KUNIT_EXPECT_EQ(test, s->lat.min, 1LL);
}

/*
 * A monitor's acks are counted where its samples are: an answer to a
 * pulse of the warm-up is neither, and a second edge for one pulse is a
 * stray edge, not another ack.
 */
static void latscope_gpio_monitor_acks(struct kunit *test)
{
	struct latscope_session *s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_MONITOR,
							     LATSCOPE_EDGE_RISING);
	struct latscope_result res;
	u64 t;
	int i;

	/* A warm-up of one period: the first pulse does not count. */
	s->setup.warmup_ns = PERIOD;
	latscope_timeline_init(s, T0_NOW);
	latscope_gpio_pulse_use(s);
	KUNIT_ASSERT_EQ(test, s->warmup_end, s->t0 + PERIOD);
	for (i = 0, t = s->t0; i < 4; i++, t += PERIOD) {
		KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t), 1);
		latscope_gpio_arrival(s, t + 10 * NS_PER_US);
		latscope_gpio_arrival(s, t + 20 * NS_PER_US);
		KUNIT_EXPECT_EQ(test, latscope_gpio_at(s, t + PERIOD / 2), 0);
	}
	latscope_measure_flush(s);
	s->state = LATSCOPE_STOPPED;

	res = latscope_kunit_result(test, s);
	KUNIT_EXPECT_EQ(test, res.latency.samples, 3ULL);
	KUNIT_EXPECT_EQ(test, res.gpio.acks, 3ULL);
	KUNIT_EXPECT_EQ(test, res.gpio.spurious, 3ULL);
	KUNIT_EXPECT_EQ(test, res.overruns, 0ULL);
}

/* latscope,edge's values, and the edge a run reports. */
static void latscope_dt_edge_names(struct kunit *test)
{
	struct latscope_session *s;
	struct latscope_result res = { };
	static const char *const bad[] = { "Rising", "rising-edge", "", "none" };
	int i;

	KUNIT_EXPECT_EQ(test, latscope_dt_edge_parse("rising"), LATSCOPE_EDGE_RISING);
	KUNIT_EXPECT_EQ(test, latscope_dt_edge_parse("falling"), LATSCOPE_EDGE_FALLING);
	KUNIT_EXPECT_EQ(test, latscope_dt_edge_parse("both"), LATSCOPE_EDGE_BOTH);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, latscope_dt_edge_parse(bad[i]), -EINVAL,
				    "\"%s\"", bad[i]);
	for (i = LATSCOPE_EDGE_RISING; i <= LATSCOPE_EDGE_BOTH; i++)
		KUNIT_EXPECT_EQ(test, latscope_dt_edge_parse(latscope_dt_edge_name(i)), i);

	s = latscope_gpio_synthetic(test, LATSCOPE_GPIO_REMOTE, LATSCOPE_EDGE_FALLING);
	latscope_gpio_source.export(s, &res);
	KUNIT_EXPECT_EQ(test, res.gpio.edge, LATSCOPE_EDGE_FALLING);
}

static struct kunit_case latscope_gpio_test_cases[] = {
	KUNIT_CASE_PARAM(latscope_gpio_validation, latscope_gpio_gen_params),
	KUNIT_CASE(latscope_gpio_missing_chip),
	KUNIT_CASE(latscope_gpio_monitor_round_trip),
	KUNIT_CASE(latscope_gpio_monitor_acks),
	KUNIT_CASE(latscope_gpio_no_dt_device),
	KUNIT_CASE(latscope_dt_edge_names),
	KUNIT_CASE(latscope_gpio_one_pulse_in_flight),
	KUNIT_CASE(latscope_gpio_lost_pulse),
	KUNIT_CASE(latscope_gpio_edges),
	KUNIT_CASE(latscope_gpio_remote),
	KUNIT_CASE(latscope_gpio_thread_raised),
	{}
};

static struct kunit_suite latscope_gpio_suite = {
	.name = "latscope_gpio",
	.test_cases = latscope_gpio_test_cases,
};

kunit_test_suites(&latscope_gpio_suite);
