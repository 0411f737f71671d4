/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, serve: the exporter's metrics (--serve, --textfile) as
 * plain numbers, without a socket or a thread (prom.c): the bucket bounds, a
 * run's histograms read into Prometheus's cumulative buckets, the
 * sliding-window maximum, and the totals carried from one run to the
 * next so that counters only grow within one process; and a scrape in
 * Prometheus's text format or OpenMetrics (prom_text.c).
 * docs/design/exporter.md.
 */
#ifndef LATSCOPE_PROM_H
#define LATSCOPE_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <linux/latscope.h>

#include "core/core.h"

/* Bucket bounds: at most this many, besides +Inf. */
#define LS_PROM_MAX_BOUNDS	32
/* The sliding window of the maximum: seconds, default and most. */
#define LS_PROM_WINDOW_S	60
#define LS_PROM_MAX_WINDOW_S	3600
/* CPUs an exporter follows at most: the series per board stay bounded. */
#define LS_PROM_MAX_CPUS	256

/* The upper bounds of the buckets, ns, increasing. */
struct ls_prom_bounds {
	unsigned int n;
	__u64 le_ns[LS_PROM_MAX_BOUNDS];
};

void ls_prom_default_bounds(struct ls_prom_bounds *b);
int ls_prom_parse_bounds(const char *s, struct ls_prom_bounds *b, char *err, size_t errlen);

/**
 * struct ls_prom_hist - one latency histogram as Prometheus has it
 * @bucket: samples at most le_ns[i], for each bound
 * @count: every sample (the +Inf bucket)
 * @sum_ns: their sum
 * @max_ns: the largest, since the exporter started
 */
struct ls_prom_hist {
	__u64 bucket[LS_PROM_MAX_BOUNDS];
	__u64 count;
	__s64 sum_ns;
	__s64 max_ns;
};

void ls_prom_hist_read(struct ls_prom_hist *out, const struct ls_hist *h,
		       const struct latscope_stats *st, const struct ls_prom_bounds *b);
void ls_prom_hist_add(struct ls_prom_hist *into, const struct ls_prom_hist *from,
		      unsigned int n);

/* One second of a window: @second is the second plus one (0: none). */
struct ls_prom_slot {
	__u64 second;
	__s64 max_ns;
};

/**
 * struct ls_prom_window - the largest latency of the last seconds
 * @len: seconds in the window
 * @slot: one per second, by second modulo @len
 */
struct ls_prom_window {
	unsigned int len;
	struct ls_prom_slot *slot;
};

int ls_prom_window_init(struct ls_prom_window *w, unsigned int len);
void ls_prom_window_free(struct ls_prom_window *w);
void ls_prom_window_add(struct ls_prom_window *w, __u64 second, __s64 max_ns);
bool ls_prom_window_max(const struct ls_prom_window *w, __u64 now, __s64 *max_ns);

/**
 * struct ls_prom_series - what a scrape shows of one measured CPU
 * @cpu: the CPU
 * @lat: the latency, what the context measures
 * @irq: its irq part, if @has_irq
 * @has_irq: the context measures the irq part apart
 * @has_window: @window_max_ns holds a second of the window
 * @window_max_ns: the largest latency of the window
 * @overruns: periods missed
 * @dropped: per-second records the driver dropped
 * @lost: GPIO pulses that never came back
 * @has_culprit: the worst sample of the window has a record (--why)
 * @culprit_kind: what took the longest in it, LATSCOPE_WHY_*
 * @culprit_name: its name
 */
struct ls_prom_series {
	int cpu;
	struct ls_prom_hist lat, irq;
	bool has_irq;
	bool has_window;
	__s64 window_max_ns;
	__u64 overruns;
	__u64 dropped;
	__u64 lost;
	__u64 noise_runtime_ns;		/* a noise run's: runtime, */
	__u64 noise_ns;			/* noise, */
	__u64 gaps[LATSCOPE_NOISE_KINDS];	/* gaps by kind */
	bool has_culprit;
	__u32 culprit_kind;
	char culprit_name[32];
};

void ls_prom_series_add(struct ls_prom_series *into, const struct ls_prom_series *from,
			unsigned int n);

/**
 * struct ls_prom_view - one scrape's figures, copied whole
 * @bounds: the buckets' bounds
 * @window_s: the window of @series' window maxima
 * @nr: entries of @series
 * @series: one per measured CPU, by CPU
 * @measuring: whether a run measures now
 * @runs: runs that measured so far (a restart after a failure is one more)
 * @source: "timer", "GPIO" or "noise"
 * @context: the context as the JSON names it
 * @version: latscope's
 * @kernel: the kernel's release
 * @preemption: its preemption model
 * @clocksource: the current clocksource
 * @http: the view is an HTTP scrape's: @scrapes counts them
 * @scrapes: scrapes answered before this one
 */
struct ls_prom_view {
	struct ls_prom_bounds bounds;
	unsigned int window_s;
	unsigned int nr;
	struct ls_prom_series series[LS_PROM_MAX_CPUS];
	bool measuring;
	__u64 runs;
	char source[16];
	char context[16];
	char version[32];
	char kernel[128];
	char preemption[64];
	char clocksource[64];
	bool http;
	__u64 scrapes;
};

/* prom_text.c: an exporter's scrape. */
void ls_prom_write(FILE *f, const struct ls_prom_view *v, bool om);

#endif /* LATSCOPE_PROM_H */
