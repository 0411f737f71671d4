// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: latmus's RTT/RTH/RTD/RTS lines, to the character, and the
 * closing summary. What latmus does not print (the irq/responder split,
 * percentiles, per-CPU figures, losses) goes on lines with prefixes of
 * their own, never as extra columns, so latmus parsers keep working.
 */
#include <stdio.h>

#include "output/output.h"

/* Seconds as latmus prints a time: hh:mm:ss, hours past 99 in full. */
int ls_fmt_hhmmss(char *buf, size_t len, unsigned long long s)
{
	return snprintf(buf, len, "%.2llu:%.2llu:%.2llu", s / 3600, (s / 60) % 60, s % 60);
}

int ls_fmt_rtt(char *buf, size_t len, unsigned long long elapsed_s,
	       const char *context, unsigned int period_us, int priority,
	       const char *cpus, bool isolated)
{
	char prio[32] = "", period[32] = "remote pulses", elapsed[32];

	if (priority > 0)
		snprintf(prio, sizeof(prio), " priority %d,", priority);
	/* 0: the events come from a remote GPIO monitor, at its pace. */
	if (period_us)
		snprintf(period, sizeof(period), "%u us period", period_us);
	ls_fmt_hhmmss(elapsed, sizeof(elapsed), elapsed_s);
	return snprintf(buf, len, "RTT|  %s  (%s, %s,%s CPU%s%s)\n", elapsed, context,
			period, prio, cpus, isolated ? "" : "-noisol");
}

int ls_fmt_rth(char *buf, size_t len)
{
	return snprintf(buf, len, "RTH|%11s|%11s|%11s|%8s|%6s|%11s|%11s\n",
			"----lat min", "----lat avg", "----lat max", "-overrun",
			"---msw", "---lat best", "--lat worst");
}

/* min..worst in microseconds; msw (mode switches) is always 0 here. */
int ls_fmt_rtd(char *buf, size_t len, double min, double avg, double max,
	       unsigned long long overruns, double best, double worst)
{
	return snprintf(buf, len, "RTD|%11.3f|%11.3f|%11.3f|%8llu|%6u|%11.3f|%11.3f\n",
			min, avg, max, overruns, 0U, best, worst);
}

int ls_fmt_rts(char *buf, size_t len, double min, double avg, double max,
	       unsigned long long overruns, unsigned long long duration_s,
	       unsigned long long timeout_s)
{
	char duration[32], timeout[32];

	ls_fmt_hhmmss(duration, sizeof(duration), duration_s);
	ls_fmt_hhmmss(timeout, sizeof(timeout), timeout_s);
	return snprintf(buf, len,
			"---|-----------|-----------|-----------|--------|------|-------------------------\n"
			"RTS|%11.3f|%11.3f|%11.3f|%8llu|%6u|    %s/%s\n",
			min, avg, max, overruns, 0U, duration, timeout);
}

static void print_percentiles(FILE *f, const char *prefix,
			      const struct ls_summary *sum)
{
	char buf[64];
	int i;

	if (sum->has_stddev)
		fprintf(f, "%s| stddev %.3f", prefix, ls_us(sum->stddev));
	else
		fprintf(f, "%s| stddev -", prefix);
	for (i = 0; i < LS_NR_PCT; i++) {
		ls_fmt_pct(buf, sizeof(buf), &sum->pct[i]);
		fprintf(f, "  %g%% %s", ls_percentiles[i], buf);
	}
	fputc('\n', f);
}

/* The source's own lines, such as GPIO|. */
static void print_source(FILE *f, const struct ls_report *r)
{
	const struct ls_source_output *src = ls_source_output(r->params->source);

	if (src->print_summary)
		src->print_summary(f, r);
}

void ls_print_summary(FILE *f, const struct ls_report *r)
{
	const struct ls_params *p = r->params;
	struct ls_summary sum, irq;
	struct ls_hist h;
	char line[512];
	int i;

	if (!r->total.samples) {
		fprintf(f, "RTS| no sample was measured\n");
		if (r->latmon)
			ls_latmon_print_summary(f, r);
		/* Lost pulses and no arrival: what a miswired board shows. */
		print_source(f, r);
		ls_heat_print_summary(f, r);
		ls_setup_print_summary(f, r);
		return;
	}
	ls_total_summary(r, &sum);
	ls_fmt_rts(line, sizeof(line), ls_us(sum.min), ls_us(sum.avg), ls_us(sum.max),
		   r->total_overruns, r->duration_s,
		   p->timeout_s ? p->timeout_s : r->duration_s);
	fputs(line, f);
	print_percentiles(f, "PCT", &sum);
	if (r->latmon)
		ls_latmon_print_summary(f, r);
	else if (r->monitor && ls_local_part(r, line, sizeof(line)))
		fprintf(f, "LOC| %s\n", line);
	if (r->total_irq.samples && !r->monitor) {
		ls_summarize(&r->total_irq, NULL, &irq);
		if (p->context == LS_CTX_GPIOD)
			fprintf(f, "IRQ| edge to thread running: min %.3f avg %.3f max %.3f, thread running to ack written: avg %.3f us\n",
				ls_us(irq.min), ls_us(irq.avg), ls_us(irq.max),
				ls_us(sum.avg - irq.avg));
		else
			fprintf(f, "IRQ| irq part: min %.3f avg %.3f max %.3f, %s part: avg %.3f us\n",
				ls_us(irq.min), ls_us(irq.avg), ls_us(irq.max),
				ls_context_name(p->context), ls_us(sum.avg - irq.avg));
	}
	if (r->nr_cpus > ls_report_cpus(r))
		fprintf(f, "CPU| M:N: %d responders on %d CPUs, each its own session, one priority\n",
			r->nr_cpus, ls_report_cpus(r));
	if (r->nr_cpus > 1 || p->verbosity > 1) {
		for (i = 0; i < r->nr_cpus; i++) {
			const struct latscope_stats *st = &r->cpu[i].res.latency;
			char who[32] = "";

			if (r->nr_cpus > ls_report_cpus(r))
				snprintf(who, sizeof(who), "thread %d on ", i);
			ls_cpu_hist(&r->cpu[i], false, &h);
			ls_summarize(st, &h, &sum);
			fprintf(f, "CPU| %sCPU%d%s: min %.3f avg %.3f max %.3f us, %llu samples, %llu overruns\n",
				who, r->cpu[i].cpu, r->cpu[i].isolated ? "" : "-noisol",
				ls_us(sum.min), ls_us(sum.avg), ls_us(sum.max),
				(unsigned long long)st->samples,
				(unsigned long long)r->cpu[i].res.overruns);
		}
	}
	print_source(f, r);
	ls_why_print_summary(f, r);
	if (r->total.underflow || r->total.overflow || r->total_dropped)
		fprintf(f, "LOS| %llu below 0 us, %llu past the %u us histogram%s, %llu per-second records dropped\n",
			(unsigned long long)r->total.underflow,
			(unsigned long long)r->total.overflow, p->hist_cells,
			r->has_tail ? " (in its tail)" : "",
			(unsigned long long)r->total_dropped);
	ls_heat_print_summary(f, r);
	ls_setup_print_summary(f, r);
	if (r->evt_line[0])
		fprintf(f, "%s\n", r->evt_line);
}
