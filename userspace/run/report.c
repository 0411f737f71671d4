// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the run's report. Each CPU's result read from the driver
 * (GET_RESULT at the end, SNAPSHOT for a --checkpoint while the run goes
 * on), the totals and the measured time worked out of them, and the
 * checkpoint copies written meanwhile so that a crash keeps the run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/engine.h"
#include "run/gpiod_compat.h"

/*
 * The counters of one CPU's result, in one block that free(out->cells)
 * frees: two histograms of @cells, then two tails, then room for @why
 * explained worst samples.
 */
static int result_alloc(struct ls_cpu_result *out, unsigned int cells, unsigned int why)
{
	size_t counters = 2 * ((size_t)cells + LATSCOPE_TAIL_BUCKETS);

	out->cells = calloc(1, counters * sizeof(__u64) + why * sizeof(*out->why));
	out->tail = out->cells ? out->cells + 2 * (size_t)cells : NULL;
	out->why = out->cells && why ? (struct latscope_why *)(out->cells + counters) : NULL;
	return out->cells ? 0 : -1;
}

/* @c's result once the run stopped, into @out, which it allocates. */
int ls_collect(struct cpu_run *c, struct ls_cpu_result *out, unsigned int cells,
	       char *err, size_t errlen)
{
	int ret;

	if (result_alloc(out, cells, c->p->why)) {
		ls_fail(err, errlen, "out of memory for CPU%d's histogram", c->cpu);
		return -1;
	}
	out->cpu = c->cpu;
	out->isolated = c->isolated;
	ret = c->ops->result(c, out, cells, false);
	if (ret) {
		ls_fail(err, errlen, "cannot read CPU%d's %sresult: %s", c->cpu,
			c->role == LS_ROLE_MONITOR ? "monitor's " : "", strerror(-ret));
		free(out->cells);
		out->cells = NULL;
		out->tail = NULL;
		out->why = NULL;
	}
	return ret;
}

/*
 * The buffers of a report of @nr_cpus CPUs, but the CPUs' histograms: the
 * CPUs' entries, the merged histogram and its tail (in one block,
 * total_cells), the timeline, with -z HOST the monitor's figures, and
 * with @monitor the one-board monitor's entry. ls_report_free() frees
 * them, even half taken.
 */
int ls_report_alloc(struct ls_report *r, int nr_cpus, unsigned int cells, bool monitor)
{
	r->cpu = calloc(nr_cpus, sizeof(*r->cpu));
	r->monitor = monitor ? calloc(1, sizeof(*r->monitor)) : NULL;
	r->total_cells = calloc((size_t)cells + LATSCOPE_TAIL_BUCKETS, sizeof(__u64));
	r->total_tail = r->total_cells ? r->total_cells + cells : NULL;
	r->timeline = malloc(sizeof(*r->timeline));
	ls_gpiod_version(r->gpiod_lib, sizeof(r->gpiod_lib));
	if (r->params->latmon_host[0]) {
		r->latmon = calloc(1, sizeof(*r->latmon));
		if (!r->latmon)
			return -1;
		r->latmon->cells = cells + 1;
		r->latmon->hist = calloc(cells + 1, sizeof(*r->latmon->hist));
		if (!r->latmon->hist)
			return -1;
	}
	return r->cpu && r->total_cells && r->timeline && (r->monitor || !monitor) ? 0 : -1;
}

/* Frees the buffers of @r: its CPUs' histograms, totals and timeline. */
void ls_report_free(struct ls_report *r)
{
	int i;

	for (i = 0; r->cpu && i < r->nr_cpus; i++)
		free(r->cpu[i].cells);
	free(r->cpu);
	free(r->total_cells);
	free(r->timeline);
	free(r->evt_json);
	r->evt_json = NULL;
	if (r->latmon)
		free(r->latmon->hist);
	free(r->latmon);
	r->latmon = NULL;
	if (r->monitor)
		free(r->monitor->cells);
	free(r->monitor);
	r->monitor = NULL;
	r->cpu = NULL;
	r->total_cells = NULL;
	r->total_tail = NULL;
	r->timeline = NULL;
	r->nr_cpus = 0;
}

/* Where session @i of @run puts its result in @r: a thread's entry, or the monitor's. */
struct ls_cpu_result *ls_result_slot(struct run *run, struct ls_report *r, int i)
{
	return run->cpus[i].role == LS_ROLE_MONITOR ? r->monitor : &r->cpu[i];
}

/*
 * Totals of @r's CPUs (of the one-board monitor, if any: the threads are
 * then this board's local split), and the measured time up to @stopped_ns.
 */
void ls_fill_report(struct ls_report *r, __u64 stopped_ns)
{
	const struct ls_cpu_result *from = r->monitor ? r->monitor : r->cpu;
	int nr = r->monitor ? !!r->monitor->cells : r->nr_cpus;
	unsigned int n = r->params->hist_cells;
	__u64 warmup_end;
	int i;

	memset(&r->total, 0, sizeof(r->total));
	memset(&r->total_irq, 0, sizeof(r->total_irq));
	memset(r->total_cells, 0, n * sizeof(*r->total_cells));
	memset(r->total_tail, 0, LATSCOPE_TAIL_BUCKETS * sizeof(*r->total_tail));
	r->total_overruns = 0;
	r->total_dropped = 0;
	r->has_tail = nr > 0;
	for (i = 0; i < nr; i++) {
		const struct latscope_result *res = &from[i].res;

		ls_merge_stats(&r->total, &res->latency);
		ls_merge_stats(&r->total_irq, &res->irq);
		ls_merge_cells(r->total_cells, from[i].cells, n);
		ls_merge_cells(r->total_tail, from[i].tail, LATSCOPE_TAIL_BUCKETS);
		r->has_tail &= from[i].has_tail;
		r->total_overruns += res->overruns;
		r->total_dropped += res->bulk_dropped;
	}
	r->ended = time(NULL);
	r->duration_ns = 0;
	r->peak_s = 0;
	for (i = 0; i < nr; i++) {
		const struct latscope_result *res = &from[i].res;

		warmup_end = res->start_ns + res->warmup_ns;
		if (stopped_ns > warmup_end && stopped_ns - warmup_end > r->duration_ns)
			r->duration_ns = stopped_ns - warmup_end;
		if (res->latency.samples && res->latency.max_ns == r->total.max_ns &&
		    res->latency.peak_ns >= warmup_end)
			r->peak_s = (res->latency.peak_ns - warmup_end) / 1000000000ULL;
	}
	r->duration_s = (r->duration_ns + 500000000ULL) / 1000000000ULL;
}

/* The buffers of --checkpoint's copy, taken before memory is locked. */
int ls_checkpoint_alloc(struct run *run, const struct ls_report *r)
{
	struct ls_report *s = &run->snap;
	unsigned int n = run->p->hist_cells;
	int i;

	*s = *r;
	s->checkpoint = true;
	s->nr_cpus = run->nr_threads;
	s->monitor = NULL;
	if (ls_report_alloc(s, run->nr_threads, n, r->monitor))
		return -1;
	for (i = 0; i < run->nr; i++)
		if (result_alloc(ls_result_slot(run, s, i), n, run->cpus[i].p->why))
			return -1;
	return 0;
}

/*
 * The sessions' figures so far into @run's copy: 0, or -1 with the reason
 * said once on stderr (an old driver cannot take snapshots: never again).
 */
static int snapshot(struct run *run, const char *what)
{
	struct ls_report *s = &run->snap;
	int i, ret;

	if (run->snap_off)
		return -1;
	for (i = 0; i < run->nr; i++) {
		struct ls_cpu_result *out = ls_result_slot(run, s, i);

		out->cpu = run->cpus[i].cpu;
		out->isolated = run->cpus[i].isolated;
		ret = run->cpus[i].ops->result(&run->cpus[i], out, run->p->hist_cells, true);
		if (ret == -ENOTTY) {
			fprintf(stderr, "latscope: this latscope.ko cannot read a running session: %s needs the driver of this latscope\n",
				what);
			run->snap_off = true;
			return -1;
		}
		if (ret) {
			fprintf(stderr, "latscope: %s skipped, CPU%d: %s\n", what,
				run->cpus[i].cpu,
				ret == -EAGAIN ? "its histogram changed during every copy" :
				strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/**
 * ls_run_snapshot() - the running sessions' figures so far
 * @run: a run whose plug asked for snapshots
 *
 * Context: the logger, from a sink.
 * Return: the run's copy, its cpu[] (and monitor) filled in, valid until
 * the next call; NULL if a session could not be read (said on stderr).
 */
const struct ls_report *ls_run_snapshot(struct run *run)
{
	return snapshot(run, "a snapshot") ? NULL : &run->snap;
}

/*
 * Rewrites the plot and JSON files with what the run measured so far, so
 * that a crash or a power cut keeps it. Errors are said and the run goes
 * on: the final files are written as usual.
 */
void ls_checkpoint(struct run *run, const struct ls_report *r)
{
	struct ls_report *s = &run->snap;

	if (snapshot(run, "--checkpoint"))
		return;
	pthread_mutex_lock(&run->tl_lock);
	memcpy(s->timeline, r->timeline, sizeof(*s->timeline));
	pthread_mutex_unlock(&run->tl_lock);
	s->stress = r->stress;
	s->c_state_restricted = r->c_state_restricted;
	s->started = r->started;
	s->ended = time(NULL);
	ls_fill_report(s, ls_now_ns());
	ls_evt_estimate(s);
	if (s->evt_line[0]) {
		printf("%s\n", s->evt_line);
		fflush(stdout);
	}
	ls_write_files(s, false);
}

