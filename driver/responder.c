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
#include <linux/rcuwait.h>
#include <linux/timekeeping.h>
#include <uapi/linux/sched/types.h>

#include "compat.h"
#include "latscope.h"

/**
 * latscope_kthread_start() - start a kthread on the session's CPU
 * @s: the session, passed to @fn
 * @slot: where the thread goes, for latscope_kthread_stop()
 * @fn: the thread's function
 * @prio: its SCHED_FIFO priority, or 0 for SCHED_OTHER at nice 0
 * @name: its name, to which "/<cpu>" is added
 *
 * Context: process, may sleep.
 * Return: 0, or the error of kthread_create() or of setting its
 * priority (then no thread is left).
 */
int latscope_kthread_start(struct latscope_session *s, struct task_struct **slot,
			   int (*fn)(void *), u32 prio, const char *name)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = prio ? SCHED_FIFO : SCHED_NORMAL,
		.sched_priority = prio,
	};
	struct task_struct *t;
	int ret;

	t = kthread_create(fn, s, "%s/%u", name, s->setup.cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, s->setup.cpu);
	ret = latscope_sched_setattr(t, &attr);
	if (ret) {
		kthread_stop(t);
		return ret;
	}
	wake_up_process(t);
	*slot = t;
	return 0;
}

/**
 * latscope_kthread_stop() - stop a thread latscope_kthread_start() started
 * @slot: where it is; NULL on return. Nothing if there is none.
 *
 * Context: process; waits for the thread to end.
 */
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

/**
 * latscope_responder_start() - start the session's responder, if it has one
 * @s: the session, before its source starts
 *
 * The kernel context's kthread, at the setup's priority; the user
 * context's responder is the application's thread, in PULSE. A
 * self-timed source has none: it answers nothing.
 *
 * Context: process, may sleep.
 * Return: 0, or the error of latscope_kthread_start().
 */
int latscope_responder_start(struct latscope_session *s)
{
	if (s->setup.context != LATSCOPE_CTX_KERNEL || s->source->self_timed)
		return 0;
	return latscope_kthread_start(s, &s->kthread, latscope_kthread_fn,
				      s->setup.priority, "latscope");
}

/**
 * latscope_responder_stop() - stop the kernel responder
 * @s: the session, its source stopped
 *
 * The user responder ends by itself when it sees the state.
 *
 * Context: process; waits for the kthread to end.
 */
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

/*
 * Takes the next event for the user responder, or tells why there is none.
 * One waiter (@s->resp_busy): an rcuwait, which the event's handler wakes
 * without a lock, as nanosleep's timer wakes its task.
 */
static int latscope_pulse_wait(struct latscope_session *s, u32 run, u64 *ideal)
{
	if (rcuwait_wait_event(&s->resp_wait, latscope_pulse_ready(s, run, ideal),
			       TASK_INTERRUPTIBLE))
		return -EINTR;
	if (!*ideal)
		return -ECANCELED;
	return 0;
}

/**
 * latscope_session_pulse() - PULSE, the user-context responder's one call
 * @s: the session
 * @pulse: in: the stamp of the answer to the event the caller's previous
 *	PULSE returned (0: none); out: the ideal time of the next event
 *
 * Records that answer (and lets the source answer on its line), then
 * waits for the next event. One caller at a time.
 *
 * Context: process; sleeps until an event, the stop, or a signal.
 * Return: 0 with the next event in @pulse; -EBUSY if another caller is
 * in PULSE; -EINVAL if the session is not set up or not in the user
 * context; -ECANCELED once the run stopped (or a later one started);
 * -EINTR if a signal came first.
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
	    s->setup.context != LATSCOPE_CTX_USER || s->source->self_timed) {
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
	WRITE_ONCE(s->resp_pid, task_pid_nr(current));
	mutex_unlock(&s->lock);

	ret = latscope_pulse_wait(s, run, &ideal);
	WRITE_ONCE(s->resp_cpu, raw_smp_processor_id());
	if (!ret) {
		s->outstanding = ideal;
		pulse->ideal_ns = ideal;
	}
out:
	/* Release: the next caller reads @outstanding after taking resp_busy. */
	atomic_set_release(&s->resp_busy, 0);
	return ret;
}

/**
 * latscope_session_report() - NOISE, the user context's busy task's call
 * @s: the session
 * @rep: the report, copied in
 * @gaps: its @rep->count gaps, copied in
 *
 * Hands the report to the source, which checks and records it.
 *
 * Context: process; takes @s->lock.
 * Return: 0; -EINVAL if the session does not run, is not of the user
 * context, or its source takes no report; else the source's error.
 */
int latscope_session_report(struct latscope_session *s,
			    const struct latscope_noise_report *rep,
			    const struct latscope_noise_gap *gaps)
{
	int ret = -EINVAL;

	mutex_lock(&s->lock);
	if (s->state == LATSCOPE_RUNNING &&
	    s->setup.context == LATSCOPE_CTX_USER && s->source->report)
		ret = s->source->report(s, rep, gaps);
	mutex_unlock(&s->lock);
	return ret;
}
