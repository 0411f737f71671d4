// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the sinks every front-end that prints a run installs.
 * The timeline keeps each second for the plot and the JSON, and heat and
 * clock beside it; the console prints latmus's RTT/RTH/RTD lines and makes
 * its checks on each second: -A, -b, figures that cannot be true and a
 * closed stdout end the run.
 */
#include <errno.h>
#include <string.h>

#include "run/engine.h"

/*
 * Into the run's timeline, which a checkpoint may be copying; a noise
 * run's runtime and gaps by kind with it.
 */
void ls_timeline_second(struct run *run, void *priv, const struct latscope_bulk *b)
{
	const struct latscope_noise_bulk *w = ls_run_whole(run);

	(void)priv;
	pthread_mutex_lock(&run->tl_lock);
	ls_timeline_add(run->timeline, b);
	if (w && w->runtime_ns)
		ls_timeline_noise(run->timeline, w);
	pthread_mutex_unlock(&run->tl_lock);
}

/*
 * This second's heat and clock (@priv: where to read them, a struct
 * ls_heat_src), beside its latency: plug it after ls_timeline_second().
 */
void ls_heat_second(struct run *run, void *priv, const struct latscope_bulk *b)
{
	struct ls_heat_sample s;

	ls_heat_read(priv, &s);
	pthread_mutex_lock(&run->tl_lock);
	ls_timeline_heat(run->timeline, b->second, &s);
	pthread_mutex_unlock(&run->tl_lock);
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

/* Whether this second's line goes under a header: every -l lines, or once. */
static bool header_due(const struct run *run)
{
	const struct ls_params *p = run->p;

	return p->lines ? run->rounds % p->lines == 0 : run->rounds == 0;
}

/* A second's line out; its reader gone (| head), the run ends as by Ctrl-C. */
static void put_line(struct run *run, const char *line)
{
	fputs(line, stdout);
	/* SIGPIPE is ignored: the write fails with EPIPE instead. */
	if (fflush(stdout) == EOF && errno == EPIPE)
		ls_request_stop(run, LS_EXIT_OK);
}

/* The checks on a second with samples: figures that cannot be true, -A, -b. */
static void check_second(struct run *run, const struct latscope_bulk *b, bool weird)
{
	const struct ls_params *p = run->p;

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
		if (header_due(run))
			print_header(run);
		ls_fmt_rtd(line, sizeof(line), ls_us(b->min_ns), ls_us(b->avg_ns),
			   ls_us(b->max_ns), run->overruns, ls_us(run->best),
			   ls_us(run->worst));
		put_line(run, line);
	}
	run->rounds++;
	check_second(run, b, weird);
}

/*
 * A source's own line of each second (--noise: NOI|), the whole record
 * at hand, under its own header; then the checks on its samples.
 */
static bool own_line(struct run *run, const struct latscope_bulk *b)
{
	const struct ls_source_output *out = ls_source_output(run->p->source);
	const struct latscope_noise_bulk *w = ls_run_whole(run);
	const struct ls_params *p = run->p;
	char line[256];

	if (!out->format_second || !w)
		return false;
	if (p->verbosity > 0) {
		if (header_due(run)) {
			out->format_header(line, sizeof(line));
			fputs(line, stdout);
		}
		out->format_second(line, sizeof(line), w);
		put_line(run, line);
	}
	run->rounds++;
	if (b->samples)
		check_second(run, b, b->min_ns > b->avg_ns || b->avg_ns > b->max_ns);
	return true;
}

/* A second with samples: a RTD line and the checks; without, its overruns. */
void ls_console_second(struct run *run, void *priv, const struct latscope_bulk *b)
{
	(void)priv;
	if (own_line(run, b))
		return;
	if (b->samples)
		log_second(run, b);
	else
		run->overruns += b->overruns;
}
