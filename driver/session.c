// SPDX-License-Identifier: GPL-2.0
/*
 * latscope sessions: one per open file. Validates SETUP, starts and stops
 * the event source and the responder, hands results out, and ends any
 * session whose CPU goes offline.
 *
 * Lock order: cpus_read_lock() (or the hotplug lock, in the offline hook),
 * then latscope_sessions_lock, then a session's lock, then its ring's lock.
 * No user copy happens under any of them: callers copy in before and out
 * after, from copies these functions make.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <uapi/linux/sched/types.h>

#include "latscope.h"

static LIST_HEAD(latscope_sessions);
static DEFINE_MUTEX(latscope_sessions_lock);
static enum cpuhp_state latscope_cpuhp_state;

/* Checks every field of @setup and fills in the defaults. */
int latscope_setup_check(struct latscope_setup *setup)
{
	unsigned int i;

	if (setup->context > LATSCOPE_CTX_USER)
		return -EINVAL;
	switch (setup->source) {
	case LATSCOPE_SRC_TIMER:
		if (setup->period_ns < LATSCOPE_MIN_PERIOD_NS ||
		    setup->period_ns > LATSCOPE_MAX_PERIOD_NS)
			return -EINVAL;
		if (memchr_inv(&setup->gpio, 0, sizeof(setup->gpio)))
			return -EINVAL;
		break;
	case LATSCOPE_SRC_GPIO:
		if (latscope_gpio_setup_check(setup))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (setup->cpu >= nr_cpu_ids || !cpu_online(setup->cpu))
		return -EINVAL;
	if (setup->priority > LATSCOPE_MAX_PRIORITY)
		return -EINVAL;
	if (setup->hist_cells > LATSCOPE_MAX_HIST_CELLS ||
	    setup->hist_cell_ns > LATSCOPE_MAX_CELL_NS)
		return -EINVAL;
	if (setup->flags & ~LATSCOPE_SETUP_FLAGS_MASK)
		return -EINVAL;
	if ((setup->flags & LATSCOPE_SETUP_NO_WARMUP) && setup->warmup_ns)
		return -EINVAL;
	if (setup->warmup_ns > LATSCOPE_MAX_WARMUP_NS)
		return -EINVAL;
	if (setup->trace_threshold_ns > S64_MAX)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(setup->__reserved); i++)
		if (setup->__reserved[i])
			return -EINVAL;

	if (!setup->priority)
		setup->priority = LATSCOPE_DEFAULT_PRIORITY;
	if (!setup->hist_cells)
		setup->hist_cells = LATSCOPE_DEFAULT_HIST_CELLS;
	if (!setup->hist_cell_ns)
		setup->hist_cell_ns = LATSCOPE_DEFAULT_CELL_NS;
	if (!setup->warmup_ns && !(setup->flags & LATSCOPE_SETUP_NO_WARMUP))
		setup->warmup_ns = LATSCOPE_DEFAULT_WARMUP_NS;
	setup->size = sizeof(*setup);
	return 0;
}

static void latscope_bulk_wake(struct irq_work *work)
{
	struct latscope_session *s = container_of(work, struct latscope_session,
						  bulk_work);

	wake_up_interruptible(&s->bulk_wq);
}

struct latscope_session *latscope_session_create(void)
{
	struct latscope_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	latscope_ring_init(&s->ring);
	init_swait_queue_head(&s->resp_wq);
	init_waitqueue_head(&s->bulk_wq);
	init_irq_work(&s->bulk_work, latscope_bulk_wake);
	s->state = LATSCOPE_IDLE;
	s->source = &latscope_timer_source;

	mutex_lock(&latscope_sessions_lock);
	list_add(&s->node, &latscope_sessions);
	mutex_unlock(&latscope_sessions_lock);
	return s;
}

/* Stops the kernel responder, then lets the source give back what it holds. */
static void latscope_responder_end(struct latscope_session *s)
{
	if (s->kthread) {
		kthread_stop(s->kthread);
		s->kthread = NULL;
	}
	if (s->source->release)
		s->source->release(s);
}

/* Stops the source and the responder; @s->lock held. */
static void latscope_halt(struct latscope_session *s)
{
	if (s->state != LATSCOPE_RUNNING)
		return;
	s->source->stop(s);
	latscope_responder_end(s);
	latscope_measure_flush(s);
	/* Pairs with the acquire in read(): the last record is visible. */
	smp_store_release(&s->state, LATSCOPE_STOPPED);
	swake_up_all(&s->resp_wq);
	wake_up_interruptible_all(&s->bulk_wq);
}

void latscope_session_destroy(struct latscope_session *s)
{
	mutex_lock(&latscope_sessions_lock);
	list_del(&s->node);
	mutex_unlock(&latscope_sessions_lock);

	mutex_lock(&s->lock);
	latscope_halt(s);
	mutex_unlock(&s->lock);
	irq_work_sync(&s->bulk_work);
	latscope_gpio_release(s->gpio);
	kfree(s->gpio);
	kvfree(s->cells);
	kfree(s);
}

int latscope_session_setup(struct latscope_session *s,
			   const struct latscope_setup *setup)
{
	struct latscope_setup checked = *setup;
	struct latscope_gpio *gpio = NULL;
	size_t nr;
	u64 *cells;
	int ret;

	ret = latscope_setup_check(&checked);
	if (ret)
		return ret;
	/* Both tails always: the irq one stays empty in the irq context. */
	nr = (size_t)checked.hist_cells * latscope_hist_count(&checked) +
	     2 * LATSCOPE_TAIL_BUCKETS;
	cells = kvcalloc(nr, sizeof(*cells), GFP_KERNEL);
	if (!cells)
		return -ENOMEM;

	mutex_lock(&s->lock);
	if (s->state == LATSCOPE_RUNNING) {
		ret = -EBUSY;
		goto fail;
	}
	/* The old lines go first: the new setup may name the same ones. */
	latscope_gpio_release(s->gpio);
	kfree(s->gpio);
	s->gpio = NULL;
	if (checked.source == LATSCOPE_SRC_GPIO) {
		gpio = latscope_gpio_get(&checked);
		if (IS_ERR(gpio)) {
			ret = PTR_ERR(gpio);
			/* Its lines are gone: the old setup cannot run either. */
			WRITE_ONCE(s->state, LATSCOPE_IDLE);
			/* read() and poll() waiting on it now fail. */
			wake_up_interruptible_all(&s->bulk_wq);
			goto fail;
		}
	}
	kvfree(s->cells);
	s->cells = cells;
	s->gpio = gpio;
	s->source = gpio ? &latscope_gpio_source : &latscope_timer_source;
	s->setup = checked;
	s->result_flags = 0;
	s->t0 = 0;
	s->warmup_end = 0;
	latscope_measure_reset(s);
	WRITE_ONCE(s->state, LATSCOPE_READY);
	mutex_unlock(&s->lock);
	return 0;

fail:
	mutex_unlock(&s->lock);
	kvfree(cells);
	return ret;
}

/*
 * Starts @fn(@s) in a kthread named @name/<cpu>, bound to the session's
 * CPU at SCHED_FIFO @prio.
 */
struct task_struct *latscope_fifo_kthread(struct latscope_session *s,
					  int (*fn)(void *), u32 prio,
					  const char *name)
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
		return t;
	kthread_bind(t, s->setup.cpu);
	ret = sched_setattr_nocheck(t, &attr);
	if (ret) {
		kthread_stop(t);
		return ERR_PTR(ret);
	}
	wake_up_process(t);
	return t;
}

static int latscope_kthread_start(struct latscope_session *s)
{
	struct task_struct *t;

	t = latscope_fifo_kthread(s, latscope_kthread_fn, s->setup.priority,
				  "latscope");
	if (IS_ERR(t))
		return PTR_ERR(t);
	s->kthread = t;
	return 0;
}

int latscope_session_start(struct latscope_session *s)
{
	const struct latscope_setup *setup = &s->setup;
	int ret;

	cpus_read_lock();
	mutex_lock(&s->lock);
	ret = -EINVAL;
	if (s->state != LATSCOPE_READY)
		goto out;
	ret = -ENODEV;
	if (!cpu_online(setup->cpu))
		goto out;
	if (setup->context == LATSCOPE_CTX_KERNEL) {
		ret = latscope_kthread_start(s);
		if (ret)
			goto out;
	}

	latscope_timeline_init(s, ktime_get_ns());
	WRITE_ONCE(s->run, s->run + 1);
	WRITE_ONCE(s->state, LATSCOPE_RUNNING);
	ret = s->source->start(s);
	if (ret) {
		s->source->stop(s);
		if (s->kthread) {
			kthread_stop(s->kthread);
			s->kthread = NULL;
		}
		WRITE_ONCE(s->state, LATSCOPE_READY);
	}
	if (ret == -EPROBE_DEFER)
		ret = -ENODEV;
out:
	mutex_unlock(&s->lock);
	cpus_read_unlock();
	return ret;
}

int latscope_session_stop(struct latscope_session *s)
{
	int ret = 0;

	mutex_lock(&s->lock);
	if (s->state == LATSCOPE_IDLE || s->state == LATSCOPE_READY)
		ret = -EINVAL;
	latscope_halt(s);
	if (s->result_flags & LATSCOPE_RESULT_CPU_OFFLINE)
		ret = -ENODEV;
	mutex_unlock(&s->lock);
	return ret;
}

/* Everything of @res but the statistics and the histogram. */
static void latscope_result_fill(struct latscope_session *s,
				 struct latscope_result *res)
{
	const struct latscope_setup *setup = &s->setup;

	res->size = sizeof(*res);
	res->flags = s->result_flags;
	if (atomic_read(&s->trace_fired))
		res->flags |= LATSCOPE_RESULT_TRACE_FIRED;
	res->context = setup->context;
	res->cpu = setup->cpu;
	res->period_ns = setup->period_ns;
	res->hist_cells = setup->hist_cells;
	res->hist_cell_ns = setup->hist_cell_ns;
	res->hist_count = latscope_hist_count(setup);
	res->tail_buckets = LATSCOPE_TAIL_BUCKETS;
	res->tail_sub_bits = LATSCOPE_TAIL_SUB_BITS;
	res->priority = setup->priority;
	res->warmup_ns = setup->warmup_ns;
	res->start_ns = s->t0;
	/* Written from the measurement path while a snapshot reads them. */
	res->events = READ_ONCE(s->events);
	res->overruns = atomic64_read(&s->overruns);
	res->bulk_dropped = READ_ONCE(s->ring.dropped);
	res->trace_sample_ns = READ_ONCE(s->trace_sample);
	if (s->gpio)
		latscope_gpio_export(s->gpio, &res->gpio);
}

/*
 * Fills @res (but its user buffers) and, if @cells is not NULL, copies the
 * histograms, then their tails (latscope_result_counters()), to a buffer
 * *@cells allocated here for the caller to kvfree():
 * a copy, so nothing the caller hands to user space can be freed or
 * rewritten by a SETUP or START once the lock is dropped. A @snapshot may
 * be taken while the session runs: each statistics block is consistent
 * with its own histogram, the other counters are a few events apart at
 * most, and -EAGAIN says a histogram could not be copied between two
 * samples. Otherwise a running session is -EBUSY.
 */
static int latscope_session_copy(struct latscope_session *s,
				 struct latscope_result *res, u64 **cells,
				 bool snapshot)
{
	u64 *copy = NULL, *tail = NULL, *irq_cells = NULL, *irq_tail = NULL;
	size_t nr = 0, want;
	int ret;

	/*
	 * The buffer is allocated unlocked, so a responder that takes the
	 * lock (PULSE) never waits for the allocator; a SETUP in between
	 * that changed the histogram's size means another try.
	 */
	for (;;) {
		mutex_lock(&s->lock);
		ret = 0;
		if (s->state == LATSCOPE_IDLE)
			ret = -EINVAL;
		else if (s->state == LATSCOPE_RUNNING && !snapshot)
			ret = -EBUSY;
		want = cells ? latscope_result_counters(&s->setup) : 0;
		if (ret || want <= nr)
			break;
		mutex_unlock(&s->lock);
		kvfree(copy);
		copy = kvmalloc_array(want, sizeof(*copy), GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		nr = want;
	}
	if (ret)
		goto out;
	latscope_result_fill(s, res);
	if (snapshot)
		res->flags |= LATSCOPE_RESULT_SNAPSHOT;
	if (copy) {
		tail = copy + (size_t)res->hist_count * res->hist_cells;
		if (res->hist_count > 1) {
			irq_cells = copy + res->hist_cells;
			irq_tail = tail + LATSCOPE_TAIL_BUCKETS;
		}
	}
	ret = latscope_acc_snapshot(&s->lat, &res->latency, copy, tail);
	if (!ret)
		ret = latscope_acc_snapshot(&s->irq, &res->irq, irq_cells,
					    irq_tail);
out:
	mutex_unlock(&s->lock);
	if (ret) {
		kvfree(copy);
		copy = NULL;
	}
	if (cells)
		*cells = copy;
	return ret;
}

/* The final result of a session that is not running. */
int latscope_session_result(struct latscope_session *s,
			    struct latscope_result *res, u64 **cells)
{
	return latscope_session_copy(s, res, cells, false);
}

/* The result so far, in any state but idle. */
int latscope_session_snapshot(struct latscope_session *s,
			      struct latscope_result *res, u64 **cells)
{
	return latscope_session_copy(s, res, cells, true);
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

/* Ends, with an error, every running session measuring @cpu. */
static int latscope_cpu_offline(unsigned int cpu)
{
	struct latscope_session *s;

	mutex_lock(&latscope_sessions_lock);
	list_for_each_entry(s, &latscope_sessions, node) {
		mutex_lock(&s->lock);
		if (s->state == LATSCOPE_RUNNING && s->setup.cpu == cpu) {
			s->result_flags |= LATSCOPE_RESULT_CPU_OFFLINE;
			latscope_halt(s);
		}
		mutex_unlock(&s->lock);
	}
	mutex_unlock(&latscope_sessions_lock);
	return 0;
}

int latscope_sessions_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "misc/latscope:online",
					NULL, latscope_cpu_offline);
	if (ret < 0)
		return ret;
	latscope_cpuhp_state = ret;
	return 0;
}

void latscope_sessions_exit(void)
{
	cpuhp_remove_state_nocalls(latscope_cpuhp_state);
}
