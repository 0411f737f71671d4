// SPDX-License-Identifier: GPL-2.0
/*
 * latscope sessions: one per open file. Validates SETUP, takes and gives
 * back the event source's resources through its hooks, starts and stops
 * the source and the responder, hands results out, and ends any session
 * whose CPU goes offline, or all of them when the device is released for
 * rmmod. What a source is, only the source knows.
 *
 * Lock order: a session's worst_lock (SETUP, and a result that waits for
 * the recorder's builder), cpus_read_lock() (or the hotplug lock, in the
 * offline hook), then latscope_sessions_lock, then a session's lock, then
 * its ring's lock. Nothing waits for the builder under a session's lock:
 * the user responder takes it.
 * No user copy happens under any of them: callers copy in before and out
 * after, from copies these functions make.
 *
 * What a session allocates is charged to its opener's memory cgroup, and
 * at most max_running_per_cpu sessions run on one CPU at a time.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "latscope.h"
#include "why.h"

static LIST_HEAD(latscope_sessions);
static DEFINE_MUTEX(latscope_sessions_lock);
static enum cpuhp_state latscope_cpuhp_state;
/* Set by a release (for rmmod): no SETUP or START until it is cleared. */
static bool latscope_released;
/* Woken when a session goes: a release waits for the last. */
static DECLARE_WAIT_QUEUE_HEAD(latscope_sessions_gone);

static unsigned int max_running_per_cpu = 16;
module_param(max_running_per_cpu, uint, 0644);
MODULE_PARM_DESC(max_running_per_cpu,
		 "sessions that may run on one CPU at a time (0: no limit; default 16)");

/* Running sessions per CPU: START takes a slot, the run's end gives it back. */
static DEFINE_PER_CPU(atomic_t, latscope_nr_running);

/* A slot on @cpu for one more running session: 0, or -EBUSY. */
static int latscope_running_get(unsigned int cpu)
{
	atomic_t *n = per_cpu_ptr(&latscope_nr_running, cpu);
	unsigned int max = READ_ONCE(max_running_per_cpu);

	if (atomic_inc_return(n) > max && max) {
		atomic_dec(n);
		return -EBUSY;
	}
	return 0;
}

static void latscope_running_put(unsigned int cpu)
{
	atomic_dec(per_cpu_ptr(&latscope_nr_running, cpu));
}

/**
 * latscope_setup_check() - validate a SETUP and fill in its defaults
 * @setup: the setup, copied from user space; its defaults are filled in
 *	(priority, histogram shape, warm-up) and its size set to this ABI's
 *
 * Every field is checked, the source's own by its &latscope_source.check.
 * Nothing is allocated or taken.
 *
 * Return: 0, or -EINVAL for any field out of range, an unknown source,
 * context or flag, a CPU that is not online, or a reserved field set.
 */
int latscope_setup_check(struct latscope_setup *setup)
{
	const struct latscope_source *src = latscope_source_of(setup->source);
	unsigned int i;

	if (!src || setup->context > LATSCOPE_CTX_USER)
		return -EINVAL;
	if (src->check(setup))
		return -EINVAL;
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
	if (setup->why_records > LATSCOPE_WHY_MAX_RECORDS || setup->why_flags)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(setup->__reserved); i++)
		if (setup->__reserved[i])
			return -EINVAL;

	/* A self-timed source reads 0 itself (noise: SCHED_OTHER). */
	if (!setup->priority && !src->self_timed)
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

/*
 * A noise run whose busy task is the driver's: a kernel thread that never
 * sleeps through its runtime, bound to a CPU the caller's cpuset may not
 * have, outside its CPU cgroup, at a real-time priority or with
 * interrupts off. Several sessions would add up past any per-session
 * bound: the user context's thread, the caller's own, is a member's.
 */
static bool latscope_noise_hogs(const struct latscope_setup *setup)
{
	return setup->source == LATSCOPE_SRC_NOISE && setup->context == LATSCOPE_CTX_KERNEL;
}

/**
 * latscope_setup_sees() - whether a SETUP's source may read the flight record
 * @setup: the setup, permitted
 * @trusted: the module's trusted_group
 * @caps: what the caller holds
 *
 * A noise run tells its gaps apart by what ran on the CPU, from the
 * tracepoints the recorder hooks: when other tasks' threads and irqs
 * began there, as the recorder hands out. As the recorder, that needs
 * CAP_PERFMON (or the trusted group); without it the gaps are all of an
 * unknown kind, and no tracepoint is hooked for the caller.
 *
 * Return: true if the source may read it.
 */
bool latscope_setup_sees(const struct latscope_setup *setup, bool trusted,
			 const struct latscope_caps *caps)
{
	const struct latscope_source *src = latscope_source_of(setup->source);

	if (!src || !src->uses_flight)
		return false;
	return trusted || caps->perfmon();
}

/**
 * latscope_setup_permitted() - whether the caller may ask what @setup asks
 * @setup: the setup, copied from user space
 * @trusted: the module's trusted_group: the device alone grants it all
 * @caps: what the caller holds, asked only when @setup needs it
 *
 * Opening the device grants timer runs and noise runs of the user context.
 * GPIO lines (driven, an interrupt thread's priority raised), the trace
 * threshold (tracing turned off system-wide) and a noise run of the
 * kernel context (latscope_noise_hogs()) need CAP_SYS_ADMIN. The
 * worst-sample recorder hands out what ran on the CPU (other tasks' names
 * and host pids, policies, irq names, interrupted kernel code), as perf
 * would: it needs CAP_PERFMON
 * (or CAP_SYS_ADMIN, which perfmon_capable() accepts too).
 *
 * Return: 0, or -EPERM with nothing done.
 */
int latscope_setup_permitted(const struct latscope_setup *setup, bool trusted,
			     const struct latscope_caps *caps)
{
	bool admin = setup->source == LATSCOPE_SRC_GPIO || setup->trace_threshold_ns ||
		     latscope_noise_hogs(setup);

	if (trusted || (!admin && !setup->why_records))
		return 0;
	if (admin && !caps->admin())
		return -EPERM;
	if (setup->why_records && !caps->perfmon())
		return -EPERM;
	return 0;
}

static void latscope_bulk_wake(struct irq_work *work)
{
	struct latscope_session *s = container_of(work, struct latscope_session,
						  bulk_work);

	wake_up_interruptible(&s->bulk_wq);
}

/**
 * latscope_session_create() - a new session, idle, for one open file
 * @dev: the device its source requests resources for, or NULL
 *
 * The session goes on the list the CPU hotplug hook walks.
 *
 * Context: process, may sleep.
 * Return: the session, or NULL if memory ran out.
 */
struct latscope_session *latscope_session_create(struct device *dev)
{
	struct latscope_session *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	mutex_init(&s->worst_lock);
	latscope_ring_init(&s->ring);
	rcuwait_init(&s->resp_wait);
	init_waitqueue_head(&s->bulk_wq);
	init_irq_work(&s->bulk_work, latscope_bulk_wake);
	s->state = LATSCOPE_IDLE;
	s->dev = dev;

	mutex_lock(&latscope_sessions_lock);
	list_add(&s->node, &latscope_sessions);
	mutex_unlock(&latscope_sessions_lock);
	return s;
}

/* The source gives back what it holds; its figures stay. */
static void latscope_source_put(struct latscope_session *s)
{
	if (s->held && s->source->put)
		s->source->put(s);
	s->held = false;
}

/* The source's state goes too: at the next SETUP, and at the close. */
static void latscope_source_free(struct latscope_session *s)
{
	latscope_source_put(s);
	kfree(s->priv);
	s->priv = NULL;
}

/*
 * The state of @src for the setup in @s->setup, and what it names.
 * Errors: ENOMEM, or the source's get().
 */
static int latscope_source_get(struct latscope_session *s,
			       const struct latscope_source *src)
{
	int ret;

	WRITE_ONCE(s->source, src);
	if (src->priv_size) {
		s->priv = kzalloc(src->priv_size, GFP_KERNEL_ACCOUNT);
		if (!s->priv)
			return -ENOMEM;
	}
	ret = src->get ? src->get(s) : 0;
	if (ret) {
		kfree(s->priv);
		s->priv = NULL;
		return ret;
	}
	s->held = true;
	return 0;
}

/* A run of a source that reads the flight record arms it, or disarms. */
static void latscope_flight_run(struct latscope_session *s, bool on)
{
	if (!s->flight)
		return;
	if (on)
		latscope_flight_arm(s->flight);
	else
		latscope_flight_disarm(s->flight);
}

/* The source's hold on the flight record, from latscope_flight_get(). */
static void latscope_flight_release(struct latscope_flight *fl)
{
	if (fl)
		latscope_flight_put();
}

/* Stops the source and the responder; @s->lock held. */
static void latscope_halt(struct latscope_session *s)
{
	if (s->state != LATSCOPE_RUNNING)
		return;
	s->source->stop(s);
	latscope_responder_stop(s);
	latscope_recorder_disarm(s);
	latscope_flight_run(s, false);
	latscope_source_put(s);
	latscope_running_put(s->setup.cpu);
	latscope_measure_flush(s);
	/* Pairs with the acquire in read(): the last record is visible. */
	smp_store_release(&s->state, LATSCOPE_STOPPED);
	rcuwait_wake_up(&s->resp_wait);
	wake_up_interruptible_all(&s->bulk_wq);
}

/**
 * latscope_session_destroy() - end a session, whatever its state, and free it
 * @s: the session; nobody else uses it any more (its file is released)
 *
 * A running session is stopped first; the source's resources and state,
 * the histograms and the session go.
 *
 * Context: process, may sleep.
 */
void latscope_session_destroy(struct latscope_session *s)
{
	mutex_lock(&latscope_sessions_lock);
	list_del(&s->node);
	mutex_unlock(&latscope_sessions_lock);
	wake_up_all(&latscope_sessions_gone);

	mutex_lock(&s->lock);
	latscope_halt(s);
	mutex_unlock(&s->lock);
	irq_work_sync(&s->bulk_work);
	if (s->source)
		latscope_source_free(s);
	latscope_recorder_free(s->worst);
	latscope_flight_release(s->flight);
	kvfree(s->cells);
	kfree(s);
}

/**
 * latscope_session_setup() - set a session up for its next run
 * @s: the session, not running
 * @setup: the setup, copied from user space; not changed
 * @sees: its source may read the flight record (latscope_setup_sees())
 *
 * The setup is checked and the histograms allocated before anything is
 * given back; then the previous setup's source resources go and the new
 * source's are taken. A failure past the check leaves the session idle:
 * the old resources are gone, so the old setup cannot run either.
 *
 * Context: process, may sleep; takes @s->lock.
 * Return: 0; -EINVAL for a bad setup (the session unchanged); -ENOMEM;
 * -EBUSY if the session runs; -ESHUTDOWN while the device is released
 * (the session unchanged); else the source's &latscope_source.get error
 * (-ENODEV, -EBUSY, -ENXIO, ...).
 */
int latscope_session_setup(struct latscope_session *s,
			   const struct latscope_setup *setup, bool sees)
{
	struct latscope_setup checked = *setup;
	const struct latscope_source *src;
	struct latscope_flight *fl = NULL;
	struct latscope_worst_set *worst;
	u32 seen, fl_seen = 0;
	u64 *cells;
	int ret;

	ret = latscope_setup_check(&checked);
	if (ret)
		return ret;
	src = latscope_source_of(checked.source);
	cells = kvcalloc(latscope_counters_size(&checked, 2), sizeof(*cells),
			 GFP_KERNEL_ACCOUNT);
	if (!cells)
		return -ENOMEM;
	/* Unlocked: hooking the tracepoints may take a while. */
	worst = latscope_recorder_alloc(&checked, latscope_timeline_fn(), &seen);
	if (IS_ERR(worst)) {
		kvfree(cells);
		return PTR_ERR(worst);
	}
	if (src->uses_flight && sees) {
		ret = latscope_flight_get(checked.cpu, &fl_seen);
		if (ret) {
			latscope_recorder_free(worst);
			kvfree(cells);
			return ret;
		}
		fl = latscope_flight_of(checked.cpu);
	}

	/* A result being taken keeps the recorder it waits on: after it. */
	mutex_lock(&s->worst_lock);
	mutex_lock(&s->lock);
	if (s->state == LATSCOPE_RUNNING) {
		ret = -EBUSY;
		goto fail;
	}
	ret = -ESHUTDOWN;
	if (READ_ONCE(latscope_released))
		goto fail;
	/* The old resources go first: the new setup may name the same ones. */
	if (s->source)
		latscope_source_free(s);
	/* What get() reads; the state says whether it may run. */
	s->setup = checked;
	ret = latscope_source_get(s, src);
	if (ret) {
		/* The old ones are gone: the old setup cannot run either. */
		WRITE_ONCE(s->state, LATSCOPE_IDLE);
		/* read() and poll() waiting on it now fail. */
		wake_up_interruptible_all(&s->bulk_wq);
		goto fail;
	}
	kvfree(s->cells);
	s->cells = cells;
	swap(s->worst, worst);
	s->why_seen = seen;
	swap(s->flight, fl);
	s->flight_seen = fl_seen;
	s->result_flags = 0;
	s->t0 = 0;
	s->warmup_end = 0;
	latscope_measure_reset(s);
	WRITE_ONCE(s->state, LATSCOPE_READY);
	mutex_unlock(&s->lock);
	mutex_unlock(&s->worst_lock);
	/* The previous setup's recorder and flight hold, if any: its run is over. */
	latscope_recorder_free(worst);
	latscope_flight_release(fl);
	return 0;

fail:
	mutex_unlock(&s->lock);
	mutex_unlock(&s->worst_lock);
	latscope_recorder_free(worst);
	latscope_flight_release(fl);
	kvfree(cells);
	return ret;
}

/**
 * latscope_session_start() - start a run
 * @s: the session, set up and not running
 *
 * Starts the responder (kernel context), places the timeline one period
 * from now, then starts the source on the setup's CPU.
 *
 * Context: process, may sleep; takes cpus_read_lock() and @s->lock.
 * Return: 0; -EINVAL if the session is not set up or runs already;
 * -ENODEV if its CPU is offline (or a deferred resource is missing);
 * -EBUSY if max_running_per_cpu sessions run on its CPU already;
 * -ESHUTDOWN while the device is released; else the responder's or the
 * source's error, with nothing left running.
 */
int latscope_session_start(struct latscope_session *s)
{
	const struct latscope_setup *setup = &s->setup;
	int ret;

	cpus_read_lock();
	mutex_lock(&s->lock);
	ret = -EINVAL;
	if (s->state != LATSCOPE_READY)
		goto out;
	/* Ordered by @s->lock against a release's pass over the sessions. */
	ret = -ESHUTDOWN;
	if (READ_ONCE(latscope_released))
		goto out;
	ret = -ENODEV;
	if (!cpu_online(setup->cpu))
		goto out;
	ret = latscope_running_get(setup->cpu);
	if (ret)
		goto out;
	ret = latscope_responder_start(s);
	if (ret) {
		latscope_running_put(setup->cpu);
		goto out;
	}

	latscope_timeline_init(s, ktime_get_ns());
	WRITE_ONCE(s->run, s->run + 1);
	WRITE_ONCE(s->state, LATSCOPE_RUNNING);
	latscope_recorder_arm(s);
	latscope_flight_run(s, true);
	ret = s->source->start(s);
	if (ret) {
		s->source->stop(s);
		latscope_responder_stop(s);
		latscope_recorder_disarm(s);
		latscope_flight_run(s, false);
		latscope_running_put(setup->cpu);
		WRITE_ONCE(s->state, LATSCOPE_READY);
	}
	if (ret == -EPROBE_DEFER)
		ret = -ENODEV;
out:
	mutex_unlock(&s->lock);
	cpus_read_unlock();
	return ret;
}

/**
 * latscope_session_stop() - stop a run, keeping its figures
 * @s: the session
 *
 * The source and the responder stop, the source gives its resources
 * back, the last second's record is queued, and readers and the user
 * responder are woken. Stopping a stopped session does nothing.
 *
 * Context: process, may sleep; takes @s->lock.
 * Return: 0; -EINVAL if there is no run to stop (not set up, or not
 * started since its SETUP); -ENODEV if its CPU went offline during the
 * run, which that ended; -ESHUTDOWN if a release of the device ended it.
 */
int latscope_session_stop(struct latscope_session *s)
{
	int ret = 0;

	mutex_lock(&s->lock);
	if (s->state == LATSCOPE_IDLE || s->state == LATSCOPE_READY)
		ret = -EINVAL;
	latscope_halt(s);
	if (s->result_flags & LATSCOPE_RESULT_CPU_OFFLINE)
		ret = -ENODEV;
	if (s->result_flags & LATSCOPE_RESULT_RELEASED)
		ret = -ESHUTDOWN;
	mutex_unlock(&s->lock);
	return ret;
}

/* u64 words of room for a recorder's records, 0 without one. */
static size_t latscope_worst_words(const struct latscope_worst_set *set)
{
	return set ? DIV_ROUND_UP(set->k * sizeof(struct latscope_worst),
				  sizeof(u64)) : 0;
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
	res->why_records = setup->why_records;
	res->why_seen = s->why_seen;
	res->why_record_size = sizeof(struct latscope_why);
	if (s->source->export)
		s->source->export(s, res);
}

/*
 * Fills @res (but its user buffers) and, if @cells is not NULL, copies the
 * histograms, then their tails (latscope_result_counters()), then the
 * recorder's res->why_count records (struct latscope_why), to a buffer
 * *@cells allocated here for the caller to kvfree():
 * a copy, so nothing the caller hands to user space can be freed or
 * rewritten by a SETUP or START once the lock is dropped. A @snapshot may
 * be taken while the session runs: each statistics block is consistent
 * with its own histogram, the other counters are a few events apart at
 * most, and -EAGAIN says a histogram could not be copied between two
 * samples. Otherwise a running session is -EBUSY.
 *
 * The records are waited for (the builder may be starved) and
 * symbolised with @s->lock dropped: the user responder's PULSE takes it,
 * and a snapshot (the exporter's, a checkpoint's) must not delay it.
 * @s->worst_lock keeps @s->worst, and @s->setup with it, meanwhile.
 */
static int latscope_session_copy(struct latscope_session *s,
				 struct latscope_result *res, u64 **cells,
				 bool snapshot)
{
	struct latscope_counters c;
	struct latscope_worst *why;
	u64 *copy = NULL;
	size_t nr = 0, want;
	int ret;

	mutex_lock(&s->worst_lock);
	/*
	 * The buffer is allocated unlocked, so a responder that takes the
	 * lock (PULSE) never waits for the allocator.
	 */
	for (;;) {
		mutex_lock(&s->lock);
		ret = 0;
		if (s->state == LATSCOPE_IDLE)
			ret = -EINVAL;
		else if (s->state == LATSCOPE_RUNNING && !snapshot)
			ret = -EBUSY;
		want = cells ? latscope_result_counters(&s->setup) +
			       latscope_worst_words(s->worst) : 0;
		if (ret || want <= nr)
			break;
		mutex_unlock(&s->lock);
		kvfree(copy);
		copy = kvmalloc_array(want, sizeof(*copy), GFP_KERNEL_ACCOUNT);
		if (!copy) {
			mutex_unlock(&s->worst_lock);
			return -ENOMEM;
		}
		nr = want;
	}
	if (!ret) {
		latscope_result_fill(s, res);
		if (snapshot)
			res->flags |= LATSCOPE_RESULT_SNAPSHOT;
		c = latscope_counters_at(copy, &s->setup, res->hist_count);
		ret = latscope_acc_snapshot(&s->lat, &res->latency, c.lat_cells,
					    c.lat_tail);
		if (!ret)
			ret = latscope_acc_snapshot(&s->irq, &res->irq,
						    c.irq_cells, c.irq_tail);
	}
	mutex_unlock(&s->lock);

	if (!ret && copy && s->worst) {
		why = (struct latscope_worst *)(copy + latscope_result_counters(&s->setup));
		ret = latscope_recorder_export(s, why);
		if (ret >= 0) {
			res->why_count = ret;
			ret = 0;
		}
	}
	mutex_unlock(&s->worst_lock);
	if (ret) {
		kvfree(copy);
		copy = NULL;
	}
	if (cells)
		*cells = copy;
	return ret;
}

/**
 * latscope_session_result() - the final result of a run
 * @s: the session, not running
 * @res: filled in, but for its user buffers
 * @cells: if not NULL, set to a copy of the histograms then their tails
 *	(latscope_result_counters() of them), for the caller to kvfree(),
 *	or NULL on failure
 *
 * Context: process, may sleep; takes @s->lock.
 * Return: 0; -EINVAL if the session is not set up; -EBUSY if it runs;
 * -ENOMEM.
 */
int latscope_session_result(struct latscope_session *s,
			    struct latscope_result *res, u64 **cells)
{
	return latscope_session_copy(s, res, cells, false);
}

/**
 * latscope_session_snapshot() - the result so far, while the run goes on
 * @s: the session, in any state but idle
 * @res: filled in, but for its user buffers; its flags have
 *	LATSCOPE_RESULT_SNAPSHOT
 * @cells: as for latscope_session_result()
 *
 * Each statistics block agrees with its own histogram; the other counters
 * are a few events apart at most.
 *
 * Context: process, may sleep; takes @s->lock.
 * Return: 0; -EINVAL if the session is not set up; -ENOMEM; -EAGAIN if a
 * histogram could not be copied between two samples.
 */
int latscope_session_snapshot(struct latscope_session *s,
			      struct latscope_result *res, u64 **cells)
{
	return latscope_session_copy(s, res, cells, true);
}

/*
 * Ends every running session on @cpu (every one if @cpu is negative), as
 * a STOP would, with @flag in its result.
 */
static void latscope_end_runs(int cpu, u32 flag)
{
	struct latscope_session *s;

	mutex_lock(&latscope_sessions_lock);
	list_for_each_entry(s, &latscope_sessions, node) {
		mutex_lock(&s->lock);
		if (s->state == LATSCOPE_RUNNING && (cpu < 0 || s->setup.cpu == (u32)cpu)) {
			s->result_flags |= flag;
			latscope_halt(s);
		}
		mutex_unlock(&s->lock);
	}
	mutex_unlock(&latscope_sessions_lock);
}

/* Ends, with an error, every running session measuring @cpu. */
static int latscope_cpu_offline(unsigned int cpu)
{
	latscope_end_runs(cpu, LATSCOPE_RESULT_CPU_OFFLINE);
	return 0;
}

/* True while the device is released: opens are refused too (core.c). */
bool latscope_sessions_released(void)
{
	return READ_ONCE(latscope_released);
}

/*
 * Nothing holds the device: no session, and no file of it still pinning
 * the module (a file's reference to it goes just after its release()).
 */
static bool latscope_unused(void)
{
	if (!list_empty(&latscope_sessions))
		return false;
#ifdef MODULE
	return !module_refcount(THIS_MODULE);
#else
	return true;
#endif
}

/**
 * latscope_sessions_release() - let go of the device, so the module can go
 * @timeout: jiffies to wait for the last session's file to be closed
 *
 * From now until latscope_sessions_admit(), SETUP and START are refused
 * (and opens, by the caller). Every running session ends now as if
 * stopped, with %LATSCOPE_RESULT_RELEASED: its figures stay readable,
 * and its STOP says -ESHUTDOWN. Then it waits until no session is left:
 * a daemon that keeps the device open (the exporter) sees its run end,
 * closes the device and tries again later, and rmmod can go on.
 *
 * Context: process, may sleep; takes latscope_sessions_lock and each
 * session's lock.
 * Return: 0 once no session is left and no file pins the module;
 * -EBUSY if one still does after @timeout (the device stays released);
 * -ERESTARTSYS if a signal came.
 */
int latscope_sessions_release(long timeout)
{
	unsigned long deadline = jiffies + timeout;
	long left;

	WRITE_ONCE(latscope_released, true);
	/* A START that did not see the flag ran before this pass: ended here. */
	latscope_end_runs(-1, LATSCOPE_RESULT_RELEASED);
	/* Lockless: destroy wakes us after its list_del() under the lock. */
	left = wait_event_interruptible_timeout(latscope_sessions_gone,
						list_empty(&latscope_sessions),
						timeout);
	if (left < 0)
		return left;
	/* The files' last module references go right after: polled. */
	while (!latscope_unused()) {
		if (time_after_eq(jiffies, deadline))
			return -EBUSY;
		if (msleep_interruptible(1))
			return -ERESTARTSYS;
	}
	return 0;
}

/* The end of a release: sessions may be opened, set up and started again. */
void latscope_sessions_admit(void)
{
	WRITE_ONCE(latscope_released, false);
}

/**
 * latscope_sessions_init() - hook the sessions to CPU hotplug
 *
 * A CPU going offline ends the running sessions measuring it.
 *
 * Context: module init.
 * Return: 0, or the error of cpuhp_setup_state_nocalls().
 */
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

/**
 * latscope_sessions_exit() - unhook the sessions from CPU hotplug
 *
 * Context: module exit, or a failed init; no session is left.
 */
void latscope_sessions_exit(void)
{
	cpuhp_remove_state_nocalls(latscope_cpuhp_state);
}
