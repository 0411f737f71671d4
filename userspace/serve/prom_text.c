// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: an exporter's scrape in Prometheus's text exposition
 * format 0.0.4, or in OpenMetrics 1.0.0 for a scraper that asks for it.
 * Base units (seconds), _total on counters, one _info series; the
 * labels are bounded: cpu, context, part. docs/design/exporter.md lists
 * the metrics.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "output/output.h"
#include "serve/prom.h"

/* Nanoseconds as seconds, the base unit. */
static void put_seconds(FILE *f, double ns)
{
	fprintf(f, "%.9g", ns / 1e9);
}

/*
 * A label value, escaped as both formats want: backslash, quote and
 * newline as they say; a byte that is no UTF-8 (a task may call itself
 * anything: prctl(PR_SET_NAME)) or a control character as the four
 * characters \xHH (its backslash escaped), so the scrape stays valid UTF-8
 * that promtool and the OpenMetrics parser accept, and a terminal shows
 * no escape sequence.
 */
static void put_label(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int n;

	while (*u) {
		/* Each byte of an ill-formed part on its own (ls_utf8_char() < 0). */
		n = ls_utf8_char(u);
		if (n < 0)
			n = 0;
		if (*u == '\\' || *u == '"')
			fprintf(f, "\\%c", *u);
		else if (*u == '\n')
			fputs("\\n", f);
		else if (!n || *u < 0x20 || *u == 0x7f)
			fprintf(f, "\\\\x%02x", *u);
		else
			fwrite(u, 1, (size_t)n, f);
		u += n ? n : 1;
	}
}

/*
 * A family's HELP and TYPE: @name is its samples' name; an OpenMetrics
 * counter's family drops the _total, an info family the _info.
 */
static void family(FILE *f, bool om, const char *name, const char *type, const char *help)
{
	size_t len = strlen(name);

	if (om && !strcmp(type, "counter") && len > 6 && !strcmp(name + len - 6, "_total"))
		len -= 6;
	else if (om && !strcmp(type, "info") && len > 5 && !strcmp(name + len - 5, "_info"))
		len -= 5;
	else if (!om && !strcmp(type, "info"))
		type = "gauge";
	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, name, help, (int)len, name,
		type);
	if (om && len > 8 && !strncmp(name + len - 8, "_seconds", 8))
		fprintf(f, "# UNIT %.*s seconds\n", (int)len, name);
}

static void labels(FILE *f, const struct ls_prom_view *v, const struct ls_prom_series *s,
		   const char *part)
{
	fprintf(f, "{cpu=\"%d\",context=\"", s->cpu);
	put_label(f, v->context);
	fputc('"', f);
	if (part)
		fprintf(f, ",part=\"%s\"", part);
	fputc('}', f);
}

static void histogram(FILE *f, const struct ls_prom_view *v, const struct ls_prom_series *s,
		      const char *part, const struct ls_prom_hist *h)
{
	unsigned int i;

	for (i = 0; i < v->bounds.n; i++) {
		fprintf(f, "latscope_latency_seconds_bucket{cpu=\"%d\",context=\"", s->cpu);
		put_label(f, v->context);
		fprintf(f, "\",part=\"%s\",le=\"", part);
		put_seconds(f, (double)v->bounds.le_ns[i]);
		fprintf(f, "\"} %llu\n", (unsigned long long)h->bucket[i]);
	}
	fprintf(f, "latscope_latency_seconds_bucket{cpu=\"%d\",context=\"", s->cpu);
	put_label(f, v->context);
	fprintf(f, "\",part=\"%s\",le=\"+Inf\"} %llu\n", part, (unsigned long long)h->count);
	fputs("latscope_latency_seconds_sum", f);
	labels(f, v, s, part);
	fputc(' ', f);
	put_seconds(f, (double)h->sum_ns);
	fputs("\nlatscope_latency_seconds_count", f);
	labels(f, v, s, part);
	fprintf(f, " %llu\n", (unsigned long long)h->count);
}

/* One sample per CPU (and part) of a gauge in ns, where @get says it is known. */
static void gauges(FILE *f, const struct ls_prom_view *v, const char *name, bool parts,
		   bool (*get)(const struct ls_prom_series *s, bool irq, __s64 *ns))
{
	unsigned int i, irq;
	__s64 ns;

	for (i = 0; i < v->nr; i++) {
		const struct ls_prom_series *s = &v->series[i];

		for (irq = 0; irq <= (parts && s->has_irq); irq++) {
			if (!get(s, irq, &ns))
				continue;
			fputs(name, f);
			labels(f, v, s, parts ? (irq ? "irq" : "total") : NULL);
			fputc(' ', f);
			put_seconds(f, (double)ns);
			fputc('\n', f);
		}
	}
}

static bool get_max(const struct ls_prom_series *s, bool irq, __s64 *ns)
{
	const struct ls_prom_hist *h = irq ? &s->irq : &s->lat;

	*ns = h->max_ns;
	return h->count;
}

/* The window's maximum is the total's: the per-second records have no irq part. */
static bool get_window(const struct ls_prom_series *s, bool irq, __s64 *ns)
{
	*ns = s->window_max_ns;
	return !irq && s->has_window;
}

static void counter(FILE *f, const struct ls_prom_view *v, bool om, const char *name,
		    const char *help, size_t offset)
{
	unsigned int i;

	family(f, om, name, "counter", help);
	for (i = 0; i < v->nr; i++) {
		const struct ls_prom_series *s = &v->series[i];
		__u64 n;

		memcpy(&n, (const char *)s + offset, sizeof(n));
		fputs(name, f);
		labels(f, v, s, NULL);
		fprintf(f, " %llu\n", (unsigned long long)n);
	}
}

/* A counter of nanoseconds at @offset of each series, in seconds. */
static void seconds_counter(FILE *f, const struct ls_prom_view *v, bool om, const char *name,
			    const char *help, size_t offset)
{
	unsigned int i;
	__u64 ns;

	family(f, om, name, "counter", help);
	for (i = 0; i < v->nr; i++) {
		memcpy(&ns, (const char *)&v->series[i] + offset, sizeof(ns));
		fputs(name, f);
		labels(f, v, &v->series[i], NULL);
		fputc(' ', f);
		put_seconds(f, (double)ns);
		fputc('\n', f);
	}
}

/* A noise run's series (--noise): runtime, noise, and its gaps by kind. */
static void noise_series(FILE *f, const struct ls_prom_view *v, bool om)
{
	static const char *const kinds[LATSCOPE_NOISE_KINDS] = {
		"irq", "softirq", "thread", "nmi", "unexplained", "unknown",
	};
	unsigned int i, k;

	seconds_counter(f, v, om, "latscope_noise_runtime_seconds_total",
			"Time the busy thread read the clock, its gaps included.",
			offsetof(struct ls_prom_series, noise_runtime_ns));
	seconds_counter(f, v, om, "latscope_noise_seconds_total",
			"Time taken from the busy thread: the sum of its gaps of the threshold or more.",
			offsetof(struct ls_prom_series, noise_ns));
	family(f, om, "latscope_noise_gaps_total", "counter",
	       "Gaps of the threshold or more, by what began in them (a gap counts in each kind).");
	for (i = 0; i < v->nr; i++) {
		for (k = 0; k < LATSCOPE_NOISE_KINDS; k++) {
			fprintf(f, "latscope_noise_gaps_total{cpu=\"%d\",context=\"",
				v->series[i].cpu);
			put_label(f, v->context);
			fprintf(f, "\",kind=\"%s\"} %llu\n", kinds[k],
				(unsigned long long)v->series[i].gaps[k]);
		}
	}
}

/**
 * ls_prom_write() - a scrape
 * @f: where
 * @v: the figures, a copy no thread changes meanwhile
 * @om: OpenMetrics 1.0.0 (ends with "# EOF"), else the 0.0.4 text format
 */
void ls_prom_write(FILE *f, const struct ls_prom_view *v, bool om)
{
	const struct {
		const char *name, *value;
	} info[] = {
		{ "version", v->version }, { "kernel", v->kernel },
		{ "preemption", v->preemption }, { "clocksource", v->clocksource },
		{ "source", v->source }, { "context", v->context },
	};
	unsigned int i;

	family(f, om, "latscope_info", "info",
	       "What measures: latscope's version, the kernel, its preemption model and clocksource, the event source and the responder's context.");
	fputs("latscope_info{", f);
	for (i = 0; i < ARRAY_SIZE(info); i++) {
		fprintf(f, "%s%s=\"", i ? "," : "", info[i].name);
		put_label(f, info[i].value);
		fputc('"', f);
	}
	fputs("} 1\n", f);

	family(f, om, "latscope_measuring", "gauge",
	       "1 while a run measures, 0 while none can (no driver, a CPU offline): the figures then stand still.");
	fprintf(f, "latscope_measuring %d\n", v->measuring);
	family(f, om, "latscope_runs_total", "counter",
	       "Runs that measured: the first, then one per restart after a run failed.");
	fprintf(f, "latscope_runs_total %llu\n", (unsigned long long)v->runs);

	if (v->http) {
		family(f, om, "latscope_scrapes_total", "counter",
		       "Scrapes of /metrics answered before this one.");
		fprintf(f, "latscope_scrapes_total %llu\n", (unsigned long long)v->scrapes);
	}

	family(f, om, "latscope_latency_seconds", "histogram",
	       "Latency of each event's answer since the exporter started; part total is what the context measures, part irq the ideal time to the irq.");
	for (i = 0; i < v->nr; i++) {
		histogram(f, v, &v->series[i], "total", &v->series[i].lat);
		if (v->series[i].has_irq)
			histogram(f, v, &v->series[i], "irq", &v->series[i].irq);
	}
	family(f, om, "latscope_latency_max_seconds", "gauge",
	       "The largest latency since the exporter started.");
	gauges(f, v, "latscope_latency_max_seconds", true, get_max);
	family(f, om, "latscope_latency_window_max_seconds", "gauge",
	       "The largest latency of the last latscope_latency_window_seconds, whoever scrapes.");
	gauges(f, v, "latscope_latency_window_max_seconds", true, get_window);
	family(f, om, "latscope_latency_window_seconds", "gauge",
	       "The length of the window of latscope_latency_window_max_seconds.");
	fprintf(f, "latscope_latency_window_seconds %u\n", v->window_s);

	counter(f, v, om, "latscope_samples_total", "Events answered and measured.",
		offsetof(struct ls_prom_series, lat.count));
	counter(f, v, om, "latscope_overruns_total", "Periods missed: events not taken in time.",
		offsetof(struct ls_prom_series, overruns));
	counter(f, v, om, "latscope_dropped_records_total",
		"Per-second records the driver dropped because the reader was late.",
		offsetof(struct ls_prom_series, dropped));
	for (i = 0; i < v->nr && !v->series[i].has_culprit; i++)
		;
	if (i < v->nr)
		family(f, om, "latscope_worst_culprit_info", "info",
		       "With --why: what took the longest in the window's worst sample, if the run kept its record.");
	for (i = 0; i < v->nr; i++) {
		const struct ls_prom_series *s = &v->series[i];

		if (!s->has_culprit)
			continue;
		fputs("latscope_worst_culprit_info", f);
		fprintf(f, "{cpu=\"%d\",context=\"", s->cpu);
		put_label(f, v->context);
		fprintf(f, "\",kind=\"%s\",name=\"", ls_why_kind_name(s->culprit_kind));
		put_label(f, s->culprit_name);
		fputs("\"} 1\n", f);
	}
	if (!strcmp(v->source, "GPIO"))
		counter(f, v, om, "latscope_gpio_lost_pulses_total",
			"GPIO pulses sent that never came back.",
			offsetof(struct ls_prom_series, lost));
	if (!strcmp(v->source, "noise"))
		noise_series(f, v, om);
	if (om)
		fputs("# EOF\n", f);
}
