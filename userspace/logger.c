// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the logger, a SCHED_OTHER thread off the measured CPUs.
 * It reads each CPU's bulk records (one per second of measurement),
 * merges the CPUs second by second into the timeline, prints latmus's
 * RTT/RTH/RTD lines (with a monitor, a latmon one or the one-board
 * monitor's session, its records do that instead and this board's own
 * are only drained), and asks the main thread to end
 * the run when a second crosses -A or -b, looks weird, or a session ends
 * by itself.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

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

static void print_header(struct run *run)
{
	const struct ls_params *p = run->p;
	time_t now = time(NULL);
	unsigned long long elapsed = now > run->start + 1 ? now - run->start - 1 : 0;
	char line[256];

	ls_fmt_rtt(line, sizeof(line), elapsed, ls_run_context(p), ls_period_us(p),
		   ls_responder_priority(p), run->cpu_list, run->all_isolated);
	fputs(line, stdout);
	ls_fmt_rth(line, sizeof(line));
	fputs(line, stdout);
}

/* One second, all CPUs merged: a RTD line and the checks on it. */
static void log_second(struct run *run, const struct latscope_bulk *b)
{
	const struct ls_params *p = run->p;
	char line[256];
	bool weird;

	ls_merge_extremes(&run->best, &run->worst, !run->rounds, b->min_ns, b->max_ns);
	run->overruns += b->overruns;
	weird = b->min_ns > b->max_ns || b->min_ns > b->avg_ns ||
		b->avg_ns > b->max_ns || b->max_ns > run->worst ||
		run->best > run->worst;
	if (p->verbosity > 0 || weird) {
		if (p->lines ? run->rounds % p->lines == 0 : run->rounds == 0)
			print_header(run);
		ls_fmt_rtd(line, sizeof(line), ls_us(b->min_ns), ls_us(b->avg_ns),
			   ls_us(b->max_ns), run->overruns, ls_us(run->best),
			   ls_us(run->worst));
		fputs(line, stdout);
		fflush(stdout);
	}
	run->rounds++;
	if (weird) {
		fprintf(stderr, "results look weird, aborting.\n");
		ls_request_stop(run, LS_EXIT_WEIRD);
	} else if (p->abort_us && b->max_ns > (__s64)p->abort_us * 1000) {
		fprintf(stderr, "latency threshold is exceeded (%u >= %.3f), aborting.\n",
			p->abort_us, ls_us(b->max_ns));
		ls_request_stop(run, LS_EXIT_ABORT);
	} else if (p->breaktrace_us && b->max_ns > (__s64)p->breaktrace_us * 1000) {
		ls_request_stop(run, LS_EXIT_BREAKTRACE);
	}
}

/*
 * Prints every second all CPUs have reported (or that is the oldest left
 * once a CPU reached its end of stream), merging the CPUs' records.
 */
static void log_ready_seconds(struct run *run, bool drain)
{
	struct latscope_bulk m;
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
			if (c->queue[0].second < second)
				second = c->queue[0].second;
		}
		if (!any)
			return;
		memset(&m, 0, sizeof(m));
		m.second = second;
		sum = 0;
		for (i = 0; i < run->nr; i++) {
			struct cpu_run *c = &run->cpus[i];
			const struct latscope_bulk *b = &c->queue[0];

			if (!c->queued || b->second != second)
				continue;
			if (b->samples)
				ls_merge_extremes(&m.min_ns, &m.max_ns, !m.samples,
						  b->min_ns, b->max_ns);
			sum += b->avg_ns * (__s64)b->samples;
			m.samples += b->samples;
			m.overruns += b->overruns;
			for (j = 1; j < c->queued; j++)
				c->queue[j - 1] = c->queue[j];
			c->queued--;
		}
		m.avg_ns = m.samples ? sum / (__s64)m.samples : 0;
		ls_log_bulk(run, &m);
	}
}

/*
 * One second of the run's figures, all CPUs merged or from the monitor:
 * into the timeline, then its RTD line and the checks on it. One thread
 * only calls it: the logger, or the latmon client's.
 */
void ls_log_bulk(struct run *run, const struct latscope_bulk *b)
{
	pthread_mutex_lock(&run->tl_lock);
	ls_timeline_add(run->timeline, b);
	pthread_mutex_unlock(&run->tl_lock);
	if (run->peer)
		ls_peer_send_bulk(run, b);
	if (b->samples)
		log_second(run, b);
	else
		run->overruns += b->overruns;
}

void *ls_logger(void *arg)
{
	struct run *run = arg;
	struct pollfd pfd[CPU_SETSIZE];
	struct latscope_bulk rec[8];
	int i, k, open_streams;
	ssize_t n;

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
			n = read(c->fd, rec, sizeof(rec));
			if (n <= 0) {
				if (n == 0 || (errno != EAGAIN && errno != EINTR))
					c->eof = true;
				/* A session that ends by itself lost its CPU. */
				if (c->eof)
					ls_request_stop(run, LS_EXIT_RUNTIME);
				continue;
			}
			for (k = 0; k < n / (ssize_t)sizeof(rec[0]); k++) {
				if (c->queued == LS_QUEUE_LEN)
					log_ready_seconds(run, true);
				c->queue[c->queued++] = rec[k];
			}
		}
		log_ready_seconds(run, false);
	}
	log_ready_seconds(run, true);
	return NULL;
}

