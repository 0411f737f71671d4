// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the exporter's figures. A sink of the logger's seconds:
 * each CPU's own record of a second goes into that CPU's sliding window,
 * and each merged second brings a snapshot of the sessions (histograms,
 * counters), read into Prometheus's buckets in the spare view, which then
 * takes the published one's place under the lock. A scraper copies the
 * published view under the same lock, so neither waits for more than a
 * copy, and the measurement (the driver's, or the --gpiod thread's) never
 * waits for either.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

int ls_exporter_init(struct ls_exporter *ex, const struct ls_params *p,
		     const struct ls_serve_params *sp, const struct ls_sysinfo *sys, char *err,
		     size_t errlen)
{
	struct ls_prom_view *v;

	memset(ex, 0, sizeof(*ex));
	if (sp->buckets) {
		if (ls_prom_parse_bounds(sp->buckets, &ex->bounds, err, errlen))
			return -1;
	} else {
		ls_prom_default_bounds(&ex->bounds);
	}
	ex->window_s = sp->window_s ? sp->window_s : LS_PROM_WINDOW_S;
	ex->view = calloc(1, sizeof(*ex->view));
	ex->spare = calloc(1, sizeof(*ex->spare));
	if (!ex->view || !ex->spare) {
		free(ex->view);
		free(ex->spare);
		ls_fail(err, errlen, "out of memory for the exporter's figures");
		return -1;
	}
	v = ex->view;
	v->bounds = ex->bounds;
	v->window_s = ex->window_s;
	snprintf(v->source, sizeof(v->source), "%s", ls_source_of(p)->name);
	snprintf(v->context, sizeof(v->context), "%s", ls_run_context(p));
	snprintf(v->version, sizeof(v->version), "%s", LS_VERSION);
	snprintf(v->kernel, sizeof(v->kernel), "%s", sys->release);
	snprintf(v->preemption, sizeof(v->preemption), "%s", sys->preemption);
	snprintf(v->clocksource, sizeof(v->clocksource), "%s", sys->clocksource);
	/* Both buffers carry the identity: publish() changes the figures only. */
	*ex->spare = *v;
	pthread_mutex_init(&ex->lock, NULL);
	return 0;
}

void ls_exporter_free(struct ls_exporter *ex)
{
	unsigned int i;

	for (i = 0; i < ex->nr; i++)
		ls_prom_window_free(&ex->cpu[i].window);
	free(ex->view);
	free(ex->spare);
	pthread_mutex_destroy(&ex->lock);
}

/* CPU @cpu's entry, made on its first second; NULL past LS_PROM_MAX_CPUS or without memory. */
static struct ls_exporter_cpu *cpu_entry(struct ls_exporter *ex, int cpu)
{
	struct ls_exporter_cpu *c;
	unsigned int i;

	for (i = 0; i < ex->nr; i++)
		if (ex->cpu[i].cpu == cpu)
			return &ex->cpu[i];
	if (ex->nr == LS_PROM_MAX_CPUS)
		return NULL;
	c = &ex->cpu[ex->nr];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->carried.cpu = cpu;
	if (ls_prom_window_init(&c->window, ex->window_s))
		return NULL;
	ex->nr++;
	return c;
}

/* Seconds of CLOCK_MONOTONIC: the window's clock, which goes on across runs. */
static __u64 now_s(void)
{
	return ls_now_ns() / 1000000000ULL;
}

/* A CPU's own record of a second: its maximum, into the window. */
void ls_exporter_cpu_second(struct run *run, void *priv, int cpu, const struct latscope_bulk *b)
{
	struct ls_exporter *ex = priv;
	struct ls_exporter_cpu *c;

	(void)run;
	if (!b->samples)
		return;
	c = cpu_entry(ex, cpu);
	if (c)
		ls_prom_window_add(&c->window, now_s(), b->max_ns);
}

/*
 * The culprit of the window's worst sample: the longest item of the
 * worst record (records come worst first) whose sample is in the window.
 * The run's records are its K worst, so a window whose worst is not among
 * them has none.
 */
static void read_culprit(struct ls_exporter *ex, const struct ls_cpu_result *r,
			 struct ls_prom_series *s)
{
	__u64 now = ls_now_ns(), span = (__u64)ex->window_s * 1000000000ULL;
	__u64 from = now > span ? now - span : 0;
	__u32 i;

	if (!r->has_why || !r->why)
		return;
	for (i = 0; i < r->res.why_count; i++) {
		const struct latscope_why *w = &r->why[i];

		if (w->ideal_ns < from || !w->nr_items)
			continue;
		s->has_culprit = true;
		s->culprit_kind = w->item[0].kind;
		memcpy(s->culprit_name, w->item[0].name, sizeof(s->culprit_name));
		s->culprit_name[sizeof(s->culprit_name) - 1] = '\0';
		return;
	}
}

/* One CPU's figures of the current run, from a snapshot. */
static void read_cpu(struct ls_exporter *ex, const struct ls_cpu_result *r,
		     struct ls_prom_series *s)
{
	struct ls_hist h;

	memset(s, 0, sizeof(*s));
	s->cpu = r->cpu;
	ls_cpu_hist(r, false, &h);
	ls_prom_hist_read(&s->lat, &h, &r->res.latency, &ex->bounds);
	s->has_irq = r->res.hist_count > 1;
	if (s->has_irq) {
		ls_cpu_hist(r, true, &h);
		ls_prom_hist_read(&s->irq, &h, &r->res.irq, &ex->bounds);
	}
	s->overruns = r->res.overruns;
	s->dropped = r->res.bulk_dropped;
	s->lost = r->res.gpio.lost;
	s->noise_runtime_ns = r->res.noise.runtime_ns;
	s->noise_ns = r->res.noise.noise_ns;
	memcpy(s->gaps, r->res.noise.gaps, sizeof(s->gaps));
	read_culprit(ex, r, s);
}

/*
 * A report's figures into each CPU's @last. With the one-board monitor
 * (--gpiod --pulse-out --ack-in) the figures are its round trips, as the
 * run's totals are: the responder's own session is not shown.
 */
static void read_report(struct ls_exporter *ex, const struct ls_report *r)
{
	struct ls_exporter_cpu *c;
	int i;

	if (r->monitor) {
		c = cpu_entry(ex, r->monitor->cpu);
		if (c && r->monitor->cells)
			read_cpu(ex, r->monitor, &c->last);
		return;
	}
	for (i = 0; i < r->nr_cpus; i++) {
		c = cpu_entry(ex, r->cpu[i].cpu);
		if (c && r->cpu[i].cells)
			read_cpu(ex, &r->cpu[i], &c->last);
	}
}

/* @src's culprit into @dst, the figures left alone. */
static void copy_culprit(struct ls_prom_series *dst, const struct ls_prom_series *src)
{
	dst->has_culprit = src->has_culprit;
	dst->culprit_kind = src->culprit_kind;
	memcpy(dst->culprit_name, src->culprit_name, sizeof(dst->culprit_name));
}

/* The published view and the spare (both with the identity) change places. */
static void publish(struct ls_exporter *ex, bool measuring)
{
	struct ls_prom_view *v = ex->spare, *old = ex->view;
	__u64 now = now_s();
	unsigned int i;

	v->runs = ex->runs;
	v->measuring = measuring;
	v->nr = ex->nr;
	for (i = 0; i < ex->nr; i++) {
		struct ls_exporter_cpu *c = &ex->cpu[i];
		struct ls_prom_series *s = &v->series[i];

		*s = c->carried;
		ls_prom_series_add(s, &c->last, ex->bounds.n);
		s->cpu = c->cpu;
		/* The current run's culprit, else the last one of a run that ended. */
		copy_culprit(s, c->last.has_culprit ? &c->last : &c->carried);
		s->has_window = ls_prom_window_max(&c->window, now, &s->window_max_ns);
	}
	pthread_mutex_lock(&ex->lock);
	ex->view = v;
	ex->spare = old;
	pthread_mutex_unlock(&ex->lock);
}

/* A merged second: the sessions' figures so far, published. */
void ls_exporter_second(struct run *run, void *priv, const struct latscope_bulk *b)
{
	const struct ls_report *snap = ls_run_snapshot(run);
	struct ls_exporter *ex = priv;

	(void)b;
	if (!snap)
		return;		/* said on stderr: the last figures stay */
	/* A run's first second: one more run that measures. */
	if (!ex->view->measuring && ++ex->runs > 1) {
		fprintf(stderr, "latscope: measuring again (run %llu)\n",
			(unsigned long long)ex->runs);
		fflush(stderr);
	}
	read_report(ex, snap);
	publish(ex, true);
}

/*
 * A run ended (or failed): what it counted is carried, so the next run's
 * counts add to it; nothing measures until the next second of a run. Its
 * figures are its results (@r, taken after the stop) where it has them,
 * else its last snapshot's.
 */
void ls_exporter_run_ended(struct ls_exporter *ex, const struct ls_report *r)
{
	struct ls_exporter_cpu *c;
	unsigned int i;

	if (r)
		read_report(ex, r);
	for (i = 0; i < ex->nr; i++) {
		c = &ex->cpu[i];
		ls_prom_series_add(&c->carried, &c->last, ex->bounds.n);
		if (c->last.has_culprit)
			copy_culprit(&c->carried, &c->last);
		memset(&c->last, 0, sizeof(c->last));
	}
	publish(ex, false);
}

/* A scrape's copy of the published view. */
void ls_exporter_copy(struct ls_exporter *ex, struct ls_prom_view *out)
{
	pthread_mutex_lock(&ex->lock);
	memcpy(out, ex->view, sizeof(*out));
	pthread_mutex_unlock(&ex->lock);
}
