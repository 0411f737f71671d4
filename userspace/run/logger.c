// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the logger, a SCHED_OTHER thread off the measured CPUs.
 * It reads each CPU's bulk records (one per second of measurement),
 * merges the CPUs second by second and hands each second to the run's
 * sinks (sinks.c: the timeline, latmus's RTT/RTH/RTD lines and the -A/-b
 * checks; a latmon client). With a monitor, a latmon one or the
 * one-board monitor's session, its records are the seconds instead and
 * this board's own are only drained. It asks the main thread to end the
 * run when a session ends by itself.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "run/engine.h"

/*
 * Asks the main thread to end the run with @code, unless it is ending it
 * already (the last partial second comes after the stop).
 */
void ls_request_stop(struct run *run, int code)
{
	int none = LS_EXIT_OK;

	if (atomic_load(&run->stopping))
		return;
	if (atomic_compare_exchange_strong(&run->exit_code, &none, code))
		kill(getpid(), SIGUSR1);
}

/* One CPU's record of a second, to the sinks that want it. */
static void cpu_second(struct run *run, int cpu, const struct latscope_noise_bulk *b)
{
	const struct ls_sink *s = run->plug->sinks;
	int i;

	run->whole = b;
	for (i = 0; i < run->plug->nr_sinks; i++)
		if (s[i].cpu_second)
			s[i].cpu_second(run, s[i].priv, cpu, &b->bulk);
	run->whole = NULL;
}

/* A noise record's own part of @from added to @into's. */
static void merge_noise(struct latscope_noise_bulk *into, const struct latscope_noise_bulk *from)
{
	int k;

	into->runtime_ns += from->runtime_ns;
	into->noise_ns += from->noise_ns;
	for (k = 0; k < LATSCOPE_NOISE_KINDS; k++)
		into->gaps[k] += from->gaps[k];
}

/*
 * Prints every second all CPUs have reported (or that is the oldest left
 * once a CPU reached its end of stream), merging the CPUs' records.
 */
static void log_ready_seconds(struct run *run, bool drain)
{
	struct latscope_noise_bulk whole;
	struct latscope_bulk *m = &whole.bulk;
	__s64 sum;
	int i, j;

	for (;;) {
		__u64 second = UINT64_MAX;
		bool any = false;

		for (i = 0; i < run->nr; i++) {
			struct cpu_run *c = &run->cpus[i];

			/* A monitor measures: this board's own records are only read. */
			if (c->role == LS_ROLE_LOCAL) {
				c->queued = 0;
				continue;
			}
			if (!c->queued) {
				if (!c->eof && !drain)
					return;	/* wait for this CPU */
				continue;
			}
			any = true;
			if (c->queue[0].bulk.second < second)
				second = c->queue[0].bulk.second;
		}
		if (!any)
			return;
		memset(&whole, 0, sizeof(whole));
		m->second = second;
		sum = 0;
		for (i = 0; i < run->nr; i++) {
			struct cpu_run *c = &run->cpus[i];
			const struct latscope_bulk *b = &c->queue[0].bulk;

			if (!c->queued || b->second != second)
				continue;
			cpu_second(run, c->cpu, &c->queue[0]);
			if (b->samples)
				ls_merge_extremes(&m->min_ns, &m->max_ns, !m->samples,
						  b->min_ns, b->max_ns);
			sum += b->avg_ns * (__s64)b->samples;
			m->samples += b->samples;
			m->overruns += b->overruns;
			merge_noise(&whole, &c->queue[0]);
			for (j = 1; j < c->queued; j++)
				c->queue[j - 1] = c->queue[j];
			c->queued--;
		}
		m->avg_ns = m->samples ? sum / (__s64)m->samples : 0;
		run->whole = &whole;
		ls_run_second(run, m);
		run->whole = NULL;
	}
}

/*
 * One second of the run's figures, all CPUs merged or from the other
 * board, to the front-end's sinks in their order. One thread only calls
 * it: the logger, or a link's reader.
 */
void ls_run_second(struct run *run, const struct latscope_bulk *b)
{
	int i;

	for (i = 0; i < run->plug->nr_sinks; i++)
		run->plug->sinks[i].second(run, run->plug->sinks[i].priv, b);
}

void *ls_logger(void *arg)
{
	struct run *run = arg;
	struct pollfd pfd[CPU_SETSIZE];
	struct latscope_noise_bulk rec[8];
	size_t size = ls_source_of(run->p)->record_size;
	int i, k, open_streams;
	ssize_t n;

	if (!size)
		size = sizeof(struct latscope_bulk);

	for (;;) {
		open_streams = 0;
		for (i = 0; i < run->nr; i++) {
			pfd[i].fd = run->cpus[i].eof ? -1 : run->cpus[i].fd;
			pfd[i].events = POLLIN;
			open_streams += !run->cpus[i].eof;
		}
		if (!open_streams)
			break;
		if (poll(pfd, run->nr, 1000) < 0 && errno != EINTR)
			break;
		for (i = 0; i < run->nr; i++) {
			struct cpu_run *c = &run->cpus[i];

			if (c->eof || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(c->fd, rec, ARRAY_SIZE(rec) * size);
			if (n <= 0) {
				if (n == 0 || (errno != EAGAIN && errno != EINTR))
					c->eof = true;
				/* A session that ends by itself lost its CPU. */
				if (c->eof)
					ls_request_stop(run, LS_EXIT_RUNTIME);
				continue;
			}
			for (k = 0; k < n / (ssize_t)size; k++) {
				if (c->queued == LS_QUEUE_LEN)
					log_ready_seconds(run, true);
				/* From the read's stride: a noise part, or zeros. */
				memset(&c->queue[c->queued], 0, sizeof(c->queue[0]));
				memcpy(&c->queue[c->queued++], (const char *)rec + k * size, size);
			}
		}
		log_ready_seconds(run, false);
	}
	log_ready_seconds(run, true);
	return NULL;
}

