// SPDX-License-Identifier: GPL-2.0
/*
 * latscope responders: what answers an event the source handed off. In
 * the kernel context a SCHED_FIFO kthread bound to the session's CPU; in
 * the user context a thread of the application, blocked in PULSE. Either
 * records the sample, then lets the source answer (an ack line).
 */
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/swait.h>
#include <linux/timekeeping.h>
#include <uapi/linux/sched/types.h>

#include "latscope.h"

/*
 * Starts @fn(@s) in a kthread named @name/<cpu>, bound to the session's
 * CPU at SCHED_FIFO @prio, and puts it in *@slot for latscope_kthread_stop().
 */
int latscope_kthread_start(struct latscope_session *s, struct task_struct **slot,
			   int (*fn)(void *), u32 prio, const char *name)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};
	struct task_struct *t;
	int ret;

	t = kthread_create(fn, s, "%s/%u", name, s->setup.cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, s->setup.cpu);
	ret = sched_setattr_nocheck(t, &attr);
	if (ret) {
		kthread_stop(t);
		return ret;
	}
	wake_up_process(t);
	*slot = t;
	return 0;
}

/* Stops the kthread in *@slot, if there is one. */
void latscope_kthread_stop(struct task_struct **slot)
{
	if (*slot) {
		kthread_stop(*slot);
		*slot = NULL;
	}
}

/* The kernel-context responder. */
static int latscope_kthread_fn(void *data)
{
	struct latscope_session *s = data;
	u64 ideal;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		ideal = atomic64_xchg(&s->pending, 0);
		if (!ideal) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		latscope_record(s, (s64)(ktime_get_ns() - ideal), ideal);
		if (s->source->respond)
			s->source->respond(s, ideal);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* The kernel responder, if the context has one; before the source starts. */
int latscope_responder_start(struct latscope_session *s)
{
	if (s->setup.context != LATSCOPE_CTX_KERNEL)
		return 0;
	return latscope_kthread_start(s, &s->kthread, latscope_kthread_fn,
				      s->setup.priority, "latscope");
}

/* Stops the kernel responder; the user one ends when it sees the state. */
void latscope_responder_stop(struct latscope_session *s)
{
	latscope_kthread_stop(&s->kthread);
}

/*
 * Wait condition of PULSE: an event of run @run to take, or a session that
 * ended. A caller woken by the stop may run only after a SETUP and START
 * made a later run, maybe of another context: it must not take that run's
 * event.
 */
static bool latscope_pulse_ready(struct latscope_session *s, u32 run, u64 *ideal)
{
	*ideal = 0;
	if ((s32)(READ_ONCE(s->run) - run) > 0)
		return true;
	*ideal = atomic64_xchg(&s->pending, 0);
	return *ideal || READ_ONCE(s->state) == LATSCOPE_STOPPED;
}

/* Takes the next event for the user responder, or tells why there is none. */
static int latscope_pulse_wait(struct latscope_session *s, u32 run, u64 *ideal)
{
	if (swait_event_interruptible_exclusive(s->resp_wq,
						latscope_pulse_ready(s, run, ideal)))
		return -EINTR;
	if (!*ideal)
		return -ECANCELED;
	return 0;
}

/*
 * PULSE, the user-context responder's one call: records the answer to the
 * event the caller's previous PULSE returned (stamped at @pulse->stamp_ns)
 * and waits for the next event.
 */
int latscope_session_pulse(struct latscope_session *s,
			   struct latscope_pulse *pulse)
{
	u64 ideal = 0;
	u32 run;
	int ret;

	if (atomic_xchg(&s->resp_busy, 1))
		return -EBUSY;

	mutex_lock(&s->lock);
	if (s->state == LATSCOPE_IDLE ||
	    s->setup.context != LATSCOPE_CTX_USER) {
		mutex_unlock(&s->lock);
		ret = -EINVAL;
		goto out;
	}
	if (s->state == LATSCOPE_STOPPED) {
		mutex_unlock(&s->lock);
		ret = -ECANCELED;
		goto out;
	}
	ideal = s->outstanding;
	s->outstanding = 0;
	/*
	 * It was set after the wait, unlocked: a STOP, SETUP and START may
	 * have come in between. An ideal time before this run's t0 is not
	 * this run's event.
	 */
	if (pulse->stamp_ns && ideal >= s->t0 &&
	    s->state == LATSCOPE_RUNNING) {
		latscope_record(s, (s64)(pulse->stamp_ns - ideal), ideal);
		if (s->source->respond)
			s->source->respond(s, ideal);
	}
	/* Called before the START, it answers the run that START makes. */
	run = s->state == LATSCOPE_READY ? s->run + 1 : s->run;
	mutex_unlock(&s->lock);

	ret = latscope_pulse_wait(s, run, &ideal);
	if (!ret) {
		s->outstanding = ideal;
		pulse->ideal_ns = ideal;
	}
out:
	/* Release: the next caller reads @outstanding after taking resp_busy. */
	atomic_set_release(&s->resp_busy, 0);
	return ret;
}
