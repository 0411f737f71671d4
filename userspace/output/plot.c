// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the histogram file for gnuplot, in latmus's format: a '#'
 * comment header, then "<us> <count>" lines from the first to the last
 * non-empty cell. Every sample the header counts is in a row: those below
 * 0 in a row "-1", those past the histogram in a last row "<cells>+", as
 * latmus puts its outliers in its last, '+', row. With several CPUs, one
 * count column per CPU. gnuplot -e "plot 'FILE' with histeps" reads it as
 * it is.
 */
#include <string.h>
#include <time.h>

#include "output/output.h"

static void plot_hhmmss(FILE *f, const char *what, unsigned long long s)
{
	char buf[32];

	ls_fmt_hhmmss(buf, sizeof(buf), s);
	fprintf(f, "# %s (hhmmss): %s\n", what, buf);
}

/* The load: preset, where it ran, its exact commands, its tools' versions. */
static void plot_load(FILE *f, const struct ls_stress *st)
{
	int i;

	if (!st->ncmds) {
		fprintf(f, "# load: none\n");
		return;
	}
	fprintf(f, "# load: %s, on CPU%s\n", st->name, st->cpus);
	for (i = 0; i < st->ncmds; i++)
		fprintf(f, "# load command: %s\n", st->cmd[i]);
	for (i = 0; i < st->ntools; i++)
		fprintf(f, "# load tool: %s\n", st->version[i]);
}

static void header(FILE *f, const struct ls_report *r,
		   const struct ls_summary *sum)
{
	const struct ls_params *p = r->params;
	const struct ls_source_output *src = ls_source_output(p->source);
	const struct ls_sysinfo *si = r->sys;
	char cpus[256], started[64], pct[64];
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < r->nr_cpus; i++)
		CPU_SET(r->cpu[i].cpu, &set);
	ls_format_cpu_list(&set, cpus, sizeof(cpus));
	ctime_r(&r->started, started);	/* ends with a newline */

	fprintf(f, "# test started on: %s", started);
	fprintf(f, "# %s\n", si->proc_version);
	fprintf(f, "# %s\n", si->proc_cmdline);
	fprintf(f, "# latscope version: %s\n", LS_VERSION);
	if (!ls_period_us(p))
		fprintf(f, "# sampling period: remote pulses\n");
	else
		fprintf(f, "# sampling period: %u microseconds\n", ls_period_us(p));
	if (si->clocksource[0])
		fprintf(f, "# clocksource: %s\n", si->clocksource);
	if (r->checkpoint)
		fprintf(f, "# checkpoint: written while the run went on; the run's own end rewrites this file\n");
	fprintf(f, "# context: %s\n", ls_run_context(p));
	plot_load(f, &r->stress);
	if (src->write_plot)
		src->write_plot(f, r);
	if (r->latmon)
		ls_latmon_write_plot(f, r);
	if (ls_responder_priority(p)) {
		fprintf(f, "# thread priority: %d\n", ls_responder_priority(p));
		fprintf(f, "# thread affinity: CPU%s%s\n", cpus,
			r->nr_cpus == 1 && !r->cpu[0].isolated ? "-noisol" : "");
	}
	if (r->c_state_restricted)
		fprintf(f, "# C-state restricted\n");
	plot_hhmmss(f, "duration", r->duration_s);
	plot_hhmmss(f, "peak", r->peak_s);
	if (r->total_overruns)
		fprintf(f, "# OVERRUNS: %llu\n", (unsigned long long)r->total_overruns);
	fprintf(f, "# min latency: %.3f\n", ls_us(sum->min));
	fprintf(f, "# avg latency: %.3f\n", ls_us(sum->avg));
	fprintf(f, "# max latency: %.3f\n", ls_us(sum->max));
	fprintf(f, "# sample count: %llu\n", (unsigned long long)sum->samples);

	/* What latmus does not say. */
	fprintf(f, "# measured CPUs: %s\n", cpus);
	fprintf(f, "# scenario: %s, %d responder%s on %d CPU%s\n", ls_scenario(r), r->nr_cpus,
		r->nr_cpus == 1 ? "" : "s", ls_report_cpus(r), ls_report_cpus(r) == 1 ? "" : "s");
	fprintf(f, "# preemption model: %s\n", si->preemption);
	fprintf(f, "# cpufreq governor: %s\n", si->governor);
	ls_heat_write_plot(f, r);
	ls_why_write_plot(f, r);
	ls_setup_write_plot(f, r);
	if (sum->has_stddev)
		fprintf(f, "# stddev: %.3f\n", ls_us(sum->stddev));
	else
		fprintf(f, "# stddev: unknown (the monitor sends no sum of squares)\n");
	for (i = 0; i < LS_NR_PCT; i++) {
		ls_fmt_pct(pct, sizeof(pct), &sum->pct[i]);
		fprintf(f, "# %g%% percentile: %s\n", ls_percentiles[i], pct);
	}
	fprintf(f, "# underflow (below 0 us): %llu\n",
		(unsigned long long)r->total.underflow);
	fprintf(f, "# overflow (%u us and more): %llu\n", p->hist_cells,
		(unsigned long long)r->total.overflow);
	fprintf(f, "# rows -1 and %u+: the samples below 0 us, and at %u us and more\n",
		p->hist_cells, p->hist_cells);
	fprintf(f, "# columns: latency (us), sample count");
	for (i = 0; r->nr_cpus > 1 && i < r->nr_cpus; i++) {
		if (r->nr_cpus > ls_report_cpus(r))
			fprintf(f, " thread%d@CPU%d", i, r->cpu[i].cpu);
		else
			fprintf(f, " CPU%d", r->cpu[i].cpu);
	}
	fputc('\n', f);
}

/* The count of @cell, or of the underflow (-1) or overflow (cells) row. */
static __u64 row_count(const struct latscope_stats *st, const __u64 *cells,
		       unsigned int n, long cell)
{
	if (cell < 0)
		return st->underflow;
	return (unsigned long)cell < n ? cells[cell] : st->overflow;
}

/* One row: the total, or one column per CPU. */
static void row(FILE *f, const struct ls_report *r, long cell, const char *suffix)
{
	unsigned int n = r->params->hist_cells;
	int i;

	fprintf(f, "%ld%s", cell, suffix);
	if (r->nr_cpus == 1) {
		fprintf(f, " %llu",
			(unsigned long long)row_count(&r->total, r->total_cells, n, cell));
	} else {
		for (i = 0; i < r->nr_cpus; i++)
			fprintf(f, " %llu", (unsigned long long)
				row_count(&r->cpu[i].res.latency, r->cpu[i].cells, n, cell));
	}
	fputc('\n', f);
}

int ls_write_plot(FILE *f, const struct ls_report *r)
{
	unsigned int n = r->params->hist_cells, first, last, c;
	struct ls_summary sum;

	ls_total_summary(r, &sum);
	header(f, r, &sum);
	if (r->total.underflow)
		row(f, r, -1, "");
	for (first = 0; first < n && !r->total_cells[first]; first++)
		;
	if (first < n) {
		for (last = n - 1; !r->total_cells[last]; last--)
			;
		for (c = first; c <= last; c++)
			row(f, r, c, "");
	}
	if (r->total.overflow)
		row(f, r, n, "+");
	return ferror(f) ? -1 : 0;
}
