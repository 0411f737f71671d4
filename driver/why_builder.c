// SPDX-License-Identifier: GPL-2.0
/*
 * latscope worst-sample recorder: the builders. One per measured CPU,
 * shared by every session with a recorder there (an M:N run has many): a
 * kthread worker at SCHED_FIFO 1, off that CPU when there is another, and
 * the memory it builds records in, set aside once. Its works run one at a
 * time, so that memory needs no lock.
 */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "why.h"

static DEFINE_PER_CPU(struct latscope_builder *, latscope_builders);
static DEFINE_MUTEX(latscope_builders_lock);

static void latscope_builder_free(struct latscope_builder *b)
{
	if (!IS_ERR_OR_NULL(b->worker))
		kthread_destroy_worker(b->worker);
	kvfree(b->tally);
	kvfree(b->scratch);
	kfree(b);
}

/*
 * SCHED_FIFO 1: a load at SCHED_OTHER does not hold the records back
 * until the flight record wrapped. Off @cpu, when there is another.
 */
static struct latscope_builder *latscope_builder_new(unsigned int cpu)
{
	struct latscope_builder *b = kzalloc(sizeof(*b), GFP_KERNEL);
	cpumask_var_t others;

	if (!b)
		return ERR_PTR(-ENOMEM);
	b->cpu = cpu;
	/* A flight record's copy, and an EVENT from another CPU. */
	b->scratch = kvcalloc(LATSCOPE_FLIGHT_SLOTS + 1, sizeof(*b->scratch), GFP_KERNEL);
	b->tally = kvzalloc(sizeof(*b->tally), GFP_KERNEL);
	b->worker = kthread_create_worker(0, "latscope-why/%u", cpu);
	if (!b->scratch || !b->tally || IS_ERR(b->worker)) {
		int ret = IS_ERR(b->worker) ? PTR_ERR(b->worker) : -ENOMEM;

		latscope_builder_free(b);
		return ERR_PTR(ret);
	}
	sched_set_fifo_low(b->worker->task);
	if (zalloc_cpumask_var(&others, GFP_KERNEL)) {
		cpumask_andnot(others, cpu_online_mask, cpumask_of(cpu));
		if (!cpumask_empty(others))
			set_cpus_allowed_ptr(b->worker->task, others);
		free_cpumask_var(others);
	}
	return b;
}

/**
 * latscope_builder_get() - @cpu's builder, made if need be
 * @cpu: the CPU a session with a recorder measures
 *
 * Context: process, may sleep.
 * Return: the builder, or an ERR_PTR (-ENOMEM, or kthread_create's).
 */
struct latscope_builder *latscope_builder_get(unsigned int cpu)
{
	struct latscope_builder *b;

	mutex_lock(&latscope_builders_lock);
	b = per_cpu(latscope_builders, cpu);
	if (!b) {
		b = latscope_builder_new(cpu);
		if (IS_ERR(b))
			goto out;
		per_cpu(latscope_builders, cpu) = b;
	}
	b->users++;
out:
	mutex_unlock(&latscope_builders_lock);
	return b;
}

/**
 * latscope_builder_put() - undo latscope_builder_get()
 * @b: the builder; none of the caller's works is queued or running
 *
 * The last user stops its thread and frees it.
 *
 * Context: process, may sleep.
 */
void latscope_builder_put(struct latscope_builder *b)
{
	mutex_lock(&latscope_builders_lock);
	if (!--b->users) {
		per_cpu(latscope_builders, b->cpu) = NULL;
		latscope_builder_free(b);
	}
	mutex_unlock(&latscope_builders_lock);
}
