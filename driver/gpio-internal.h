/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope GPIO source internals, private to its files (and its KUnit
 * tests): gpio.c (the source's hooks), gpio_lines.c (run-time lines by
 * chip label and offset), gpio_dt.c (the device tree's lines),
 * gpio_pulse.c (the pulse train of loopback and monitor modes) and
 * gpio_irq.c (arrivals on pulse-in, answers on ack-out). The rest of the
 * driver knows the source by its hooks only (struct latscope_source).
 */
#ifndef LATSCOPE_GPIO_INTERNAL_H
#define LATSCOPE_GPIO_INTERNAL_H

#include <linux/atomic.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <uapi/linux/latscope.h>

struct device;
struct gpio_desc;
struct latscope_dt_lines;
struct latscope_session;

/* The lines of a GPIO session: @out not in remote mode, @ack not in monitor mode. */
struct latscope_gpio_lines {
	struct gpio_desc *in;		/* pulse-in, the event */
	struct gpio_desc *ack;		/* ack-out, the answer */
	struct gpio_desc *out;		/* pulse-out, wired to pulse-in */
};

/*
 * The GPIO source's state in a session (its priv). The lines are held
 * from SETUP to the run's end, the figures until the next SETUP.
 */
struct latscope_gpio {
	struct latscope_gpio_lines lines;
	struct latscope_dt_lines *dt;	/* lent by the DT device, or NULL */
	int in_irq;			/* of pulse-in */
	u32 mode;			/* enum latscope_gpio_mode */
	u32 edge;			/* enum latscope_gpio_edge */
	bool out_cansleep;		/* pulse-out via pulse_task */
	bool irq_requested;

	/* Pulse train (loopback, monitor), timer-owned. */
	int pulse_level;		/* raw level of a pulse */
	bool toggle_out;		/* each send toggles, no end step */
	u64 sent_ns;			/* monitor: stamp of the last pulse out */
	u64 (*clock)(void);		/* of @sent_ns if set (KUnit), else ktime */
	int level;			/* raw level last asked of pulse-out */
	atomic64_t in_flight;		/* ideal of the pulse out, or 0 */
	u64 lost;			/* pulses given up, past the warm-up */
	struct task_struct *pulse_task;	/* sleeping chips only */
	atomic_t out_req;		/* level for pulse_task, or -1 */
	int driven;			/* pulse_task-owned */

	/* Arrival side, irq-handler owned. */
	u64 spurious;
	atomic_t paths;			/* LATSCOPE_GPIO_* path bits */
	pid_t thread_pid;
	char thread_comm[TASK_COMM_LEN];

	/* The stamping thread raised for the run (irq_thread_priority). */
	u32 thread_prio;		/* asked, 0: leave it */
	struct task_struct *thread;	/* held from its first arrival */
	struct work_struct raise_work;
	u32 thread_policy;		/* what it had, to give back */
	u32 thread_rtprio;
	int thread_nice;

	/* Responder side. */
	bool ack_pulse;			/* LATSCOPE_GPIO_ACK_PULSE */
	int ack_level;
	u64 acks;			/* answers; a monitor's by its irq handler */
};

/*
 * The raw level pulse-out idles at for @edge: the one its pulses start
 * from (high for falling). Rising and both pulse from low.
 */
static inline int latscope_gpio_idle_level(u32 edge)
{
	return edge == LATSCOPE_EDGE_FALLING;
}

/*
 * The raw level pulse-out idles at in @mode: from the event edge in
 * loopback mode, from LATSCOPE_GPIO_PULSE_LOW in @flags in monitor mode
 * (there the edge is the answer's).
 */
static inline int latscope_gpio_out_idle(u32 mode, u32 edge, u32 flags)
{
	if (mode == LATSCOPE_GPIO_MONITOR)
		return !!(flags & LATSCOPE_GPIO_PULSE_LOW);
	return latscope_gpio_idle_level(edge);
}

/* gpio_lines.c */
int latscope_gpio_lines_get(struct latscope_gpio_lines *lines,
			    const struct latscope_gpio_setup *gs,
			    struct device *dev);
void latscope_gpio_lines_put(struct latscope_gpio_lines *lines);

/* gpio_dt.c */
struct latscope_dt_lines *latscope_dt_borrow(struct latscope_gpio_lines *lines,
					     u32 *edge, u32 mode);
void latscope_dt_return(struct latscope_dt_lines *d);
int latscope_dt_edge_parse(const char *name);
const char *latscope_dt_edge_name(u32 edge);
int latscope_dt_init(void);
void latscope_dt_exit(void);

/* gpio_pulse.c */
void latscope_gpio_out_polarity(struct latscope_gpio *g, u32 flags);
void latscope_gpio_pulse_reset(struct latscope_gpio *g);
int latscope_gpio_step(struct latscope_session *s, u64 ideal, bool send);
void latscope_gpio_pulse_use(struct latscope_session *s);
void latscope_gpio_out_to_idle(struct latscope_gpio *g);
int latscope_gpio_pulse_start(struct latscope_session *s);
void latscope_gpio_pulse_stop(struct latscope_gpio *g);

/* gpio_irq.c */
void latscope_gpio_irq_reset(struct latscope_gpio *g);
void latscope_gpio_ack_idle(struct latscope_gpio *g);
void latscope_gpio_arrival(struct latscope_session *s, u64 arrival);
int latscope_gpio_irq_start(struct latscope_session *s);
void latscope_gpio_irq_stop(struct latscope_session *s);
void latscope_gpio_respond(struct latscope_session *s, u64 ideal);

#endif /* LATSCOPE_GPIO_INTERNAL_H */
