// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's scrape cost off the measurement: ls_prom_write() of a
 * view of N CPUs (the kernel context: a total and an irq part each, the
 * default 16 buckets, a culprit), to a memory stream as a scrape does, in
 * both formats. Prints per N the series, the bytes and the time of one
 * scrape (the fastest of 5 rounds of 200), on this machine's CPU.
 * Usage: prom_bench (make prom-bench)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/prom.h"
#include "output/output.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void fill(struct ls_prom_view *v, unsigned int n)
{
	unsigned int i, k;

	memset(v, 0, sizeof(*v));
	ls_prom_default_bounds(&v->bounds);
	v->window_s = 60;
	v->nr = n;
	v->measuring = true;
	v->http = true;
	strcpy(v->source, "timer");
	strcpy(v->context, "kernel");
	strcpy(v->version, LS_VERSION);
	strcpy(v->kernel, "6.12.0-bench");
	strcpy(v->preemption, "PREEMPT_RT");
	strcpy(v->clocksource, "tsc");
	for (i = 0; i < n; i++) {
		struct ls_prom_series *s = &v->series[i];

		s->cpu = (int)i;
		s->lat.count = 123456789ULL + i;
		s->lat.sum_ns = 987654321987LL;
		s->lat.max_ns = 87654;
		for (k = 0; k < v->bounds.n; k++)
			s->lat.bucket[k] = s->lat.count - (v->bounds.n - k) * 1000;
		s->irq = s->lat;
		s->has_irq = true;
		s->has_window = true;
		s->window_max_ns = 54321;
		s->overruns = 12;
		s->has_culprit = true;
		s->culprit_kind = LATSCOPE_WHY_TASK;
		strcpy(s->culprit_name, "kworker/3:1");
	}
}

int main(void)
{
	static const unsigned int cpus[] = { 1, 4, 16, 64, 256 };
	struct ls_prom_view *v = malloc(sizeof(*v));
	unsigned int c, om, round, i;

	if (!v)
		return 1;
	printf("cpus  format       series  bytes   us/scrape\n");
	for (c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
		fill(v, cpus[c]);
		for (om = 0; om <= 1; om++) {
			double best = 1e30;
			size_t len = 0, series = 0;
			char *buf = NULL;

			for (round = 0; round < 5; round++) {
				double t = now_us();

				for (i = 0; i < 200; i++) {
					FILE *f = open_memstream(&buf, &len);

					ls_prom_write(f, v, om);
					fclose(f);
					if (i < 199)
						free(buf);
				}
				t = (now_us() - t) / 200;
				if (t < best)
					best = t;
				if (round < 4)
					free(buf);
			}
			for (i = 0; i < len; i++)
				series += buf[i] == '\n' && i + 1 < len && buf[i + 1] != '#';
			printf("%4u  %-11s  %6zu  %6zu  %9.1f\n", cpus[c],
			       om ? "OpenMetrics" : "0.0.4", series + (buf[0] != '#'), len, best);
			free(buf);
		}
	}
	free(v);
	return 0;
}
