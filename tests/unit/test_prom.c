// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's figures (core/prom.c) and its scrape (output/prom_text.c):
 * bucket bounds, a histogram read into cumulative buckets without
 * guessing, the sliding-window maximum, and a scrape in both formats
 * written to files that tests/unit/run.sh hands to promtool and to
 * prometheus_client's OpenMetrics parser.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/prom.h"
#include "output/output.h"
#include "unit.h"

static void test_prom_bounds(void)
{
	struct ls_prom_bounds b;
	char err[256];

	ls_prom_default_bounds(&b);
	check(b.n == 16, "prom: default bounds: 1, 2, 5 per decade, 1 us to 100 ms", "%u", b.n);
	check(b.le_ns[0] == 1000 && b.le_ns[2] == 5000 && b.le_ns[b.n - 1] == 100000000,
	      "prom: default bounds' ends", "%llu %llu", (unsigned long long)b.le_ns[0],
	      (unsigned long long)b.le_ns[b.n - 1]);
	check(!ls_prom_parse_bounds("1,2.5,10", &b, err, sizeof(err)) && b.n == 3 &&
	      b.le_ns[1] == 2500, "prom: --buckets 1,2.5,10", "%s", err);
	check(ls_prom_parse_bounds("", &b, err, sizeof(err)) && strstr(err, "no bound"),
	      "prom: --buckets '' refused", "%s", err);
	check(ls_prom_parse_bounds("10,10", &b, err, sizeof(err)) && strstr(err, "increase"),
	      "prom: --buckets 10,10 refused", "%s", err);
	check(ls_prom_parse_bounds("1,,2", &b, err, sizeof(err)) && strstr(err, "''"),
	      "prom: --buckets 1,,2 names the empty bound", "%s", err);
	check(ls_prom_parse_bounds("1e8", &b, err, sizeof(err)) && strstr(err, "'1e8'"),
	      "prom: --buckets past 10 s refused", "%s", err);
	check(ls_prom_parse_bounds("1,nan", &b, err, sizeof(err)) && strstr(err, "'nan'"),
	      "prom: --buckets nan refused", "%s", err);
	check(ls_prom_parse_bounds("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33",
				   &b, err, sizeof(err)) && strstr(err, "more than 32"),
	      "prom: --buckets: 33 bounds refused", "%s", err);
}

/* 100 cells of 1 us and a tail, as the driver keeps them. */
static void acc_new(struct ls_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->nr_cells = 100;
	a->cell_ns = 1000;
	a->cells = calloc(a->nr_cells, sizeof(*a->cells));
	a->tail = calloc(LATSCOPE_TAIL_BUCKETS, sizeof(*a->tail));
}

static void test_prom_hist(void)
{
	static const __s64 lat[] = {
		-5, 500, 999, 1000, 1500, 1999, 2000, 99999, 100000, 150000, 5000000,
	};
	static const __u64 le_us[] = { 1, 2, 100, 200, 10000 };
	/* Lower bounds: 1000 ns is in the cell [1000, 1999], past le = 1000. */
	static const __u64 want[] = { 3, 6, 8, 10, 11 };
	static const __u64 want_no_tail[] = { 3, 6, 8, 8, 11 };
	struct ls_prom_bounds b = { .n = 5 };
	struct ls_prom_hist h, sum = { 0 };
	struct ls_hist view;
	struct ls_acc a;
	unsigned int i;

	for (i = 0; i < b.n; i++)
		b.le_ns[i] = le_us[i] * 1000;
	acc_new(&a);
	for (i = 0; i < ARRAY_SIZE(lat); i++)
		ls_acc_add(&a, lat[i], i);
	view = (struct ls_hist){ a.cells, a.nr_cells, a.cell_ns, a.tail };
	ls_prom_hist_read(&h, &view, &a.st, &b);
	for (i = 0; i < b.n; i++)
		check(h.bucket[i] == want[i], "prom: bucket of a histogram with a tail",
		      "le %llu us: %llu, want %llu", (unsigned long long)le_us[i],
		      (unsigned long long)h.bucket[i], (unsigned long long)want[i]);
	check(h.count == ARRAY_SIZE(lat) && h.max_ns == 5000000 && h.sum_ns == a.st.sum_ns,
	      "prom: count, max and sum", "%llu %lld", (unsigned long long)h.count,
	      (long long)h.max_ns);

	/* No tail: past the cells, only the maximum says where a sample is. */
	view.tail = NULL;
	ls_prom_hist_read(&h, &view, &a.st, &b);
	for (i = 0; i < b.n; i++)
		check(h.bucket[i] == want_no_tail[i], "prom: bucket without a tail",
		      "le %llu us: %llu, want %llu", (unsigned long long)le_us[i],
		      (unsigned long long)h.bucket[i], (unsigned long long)want_no_tail[i]);

	/* Two runs of one CPU add up, the maximum is the larger. */
	ls_prom_hist_add(&sum, &h, b.n);
	h.max_ns = 7;
	ls_prom_hist_add(&sum, &h, b.n);
	check(sum.count == 2 * ARRAY_SIZE(lat) && sum.bucket[4] == 22 && sum.max_ns == 5000000,
	      "prom: two runs carried", "%llu %llu %lld", (unsigned long long)sum.count,
	      (unsigned long long)sum.bucket[4], (long long)sum.max_ns);

	/* Nothing measured: zeros, no maximum. */
	memset(&a.st, 0, sizeof(a.st));
	memset(a.cells, 0, a.nr_cells * sizeof(*a.cells));
	ls_prom_hist_read(&h, NULL, &a.st, &b);
	check(!h.count && !h.bucket[4] && !h.max_ns, "prom: an empty histogram", "%llu",
	      (unsigned long long)h.count);
	free(a.cells);
	free(a.tail);
}

static void test_prom_window(void)
{
	struct ls_prom_window w;
	__s64 max = 0;

	if (ls_prom_window_init(&w, 3))
		return;
	check(!ls_prom_window_max(&w, 0, &max), "prom: an empty window has no maximum", "%s", "");
	ls_prom_window_add(&w, 10, 5);
	ls_prom_window_add(&w, 11, 7);
	ls_prom_window_add(&w, 12, 3);
	check(ls_prom_window_max(&w, 12, &max) && max == 7, "prom: window max", "%lld",
	      (long long)max);
	check(ls_prom_window_max(&w, 13, &max) && max == 7, "prom: window slides (11-13)",
	      "%lld", (long long)max);
	check(ls_prom_window_max(&w, 14, &max) && max == 3, "prom: the 7 left it (12-14)",
	      "%lld", (long long)max);
	check(!ls_prom_window_max(&w, 15, &max), "prom: nothing left (13-15)", "%s", "");
	/* Second 13 takes second 10's slot; a smaller figure of a second it holds does not. */
	ls_prom_window_add(&w, 13, 1);
	ls_prom_window_add(&w, 13, 0);
	check(ls_prom_window_max(&w, 13, &max) && max == 7, "prom: a slot reused", "%lld",
	      (long long)max);
	check(ls_prom_window_max(&w, 15, &max) && max == 1, "prom: a second's larger figure kept",
	      "%lld", (long long)max);
	/* A second from the future of @now is not in the window. */
	check(!ls_prom_window_max(&w, 9, &max), "prom: no second past now", "%s", "");
	ls_prom_window_free(&w);
}

/*
 * A view of three CPUs, one with an irq part, as a run of the kernel
 * context shows it; CPU1's culprit an IRQ, CPU2's a task whose name is no
 * UTF-8 (any user can prctl(PR_SET_NAME) it), CPU3 without one.
 */
static void view_fill(struct ls_prom_view *v)
{
	unsigned int i;

	memset(v, 0, sizeof(*v));
	ls_prom_default_bounds(&v->bounds);
	v->window_s = 60;
	v->nr = 3;
	v->measuring = true;
	v->runs = 2;
	strcpy(v->source, "timer");
	strcpy(v->context, "kernel");
	strcpy(v->version, LS_VERSION);
	strcpy(v->kernel, "6.12.0-test \"quoted\" back\\slash");
	strcpy(v->preemption, "PREEMPT_RT");
	strcpy(v->clocksource, "tsc");
	for (i = 0; i < v->nr; i++) {
		struct ls_prom_series *s = &v->series[i];
		unsigned int k;

		s->cpu = (int)i + 1;
		s->lat.count = 1000;
		s->lat.sum_ns = 1000 * 4500;
		s->lat.max_ns = 80000;
		for (k = 0; k < v->bounds.n; k++)
			s->lat.bucket[k] = v->bounds.le_ns[k] >= 100000 ? 1000 :
					   v->bounds.le_ns[k] >= 5000 ? 990 : 0;
		s->has_irq = i == 0;
		s->irq = s->lat;
		s->has_window = true;
		s->window_max_ns = 60000;
		s->overruns = 3;
		s->dropped = 1;
	}
	v->series[0].has_culprit = true;
	v->series[0].culprit_kind = LATSCOPE_WHY_IRQ;
	strcpy(v->series[0].culprit_name, "eth0 \"rx\"");
	v->series[1].has_culprit = true;
	v->series[1].culprit_kind = LATSCOPE_WHY_TASK;
	strcpy(v->series[1].culprit_name, "bad\xff");
}

/* The culprit line a name gives, as it appears in the scrape. */
static void culprit_line(struct ls_prom_view *v, const char *name, char **text)
{
	size_t len = 0;
	FILE *f;

	snprintf(v->series[1].culprit_name, sizeof(v->series[1].culprit_name), "%s", name);
	*text = NULL;
	f = open_memstream(text, &len);
	ls_prom_write(f, v, false);
	fclose(f);
}

/*
 * Label values stay valid UTF-8 whatever a task calls itself: a byte that
 * is no UTF-8 and a control character become the text \xHH; a valid
 * character of any length stays as it is.
 */
static void test_prom_label_bytes(void)
{
	static const struct {
		const char *name, *want, *what;
	} cases[] = {
		{ "bad\xff", "bad\\\\xff", "a byte that is never UTF-8" },
		{ "caf\xc3\xa9", "caf\xc3\xa9", "a two-byte character kept" },
		{ "\xe6\x97\xa5\xf0\x9f\x98\x80", "\xe6\x97\xa5\xf0\x9f\x98\x80",
		  "three- and four-byte characters kept" },
		{ "cut\xe6\x97", "cut\\\\xe6\\\\x97", "a character cut short (a name truncated)" },
		{ "\xc0\xaf", "\\\\xc0\\\\xaf", "an overlong form" },
		{ "\xed\xa0\x80", "\\\\xed\\\\xa0\\\\x80", "a surrogate" },
		{ "\xf4\x90\x80\x80", "\\\\xf4\\\\x90\\\\x80\\\\x80", "past U+10FFFF" },
		{ "\xc3(", "\\\\xc3(", "a lead byte without its continuation" },
		{ "\x1b[31mred\t", "\\\\x1b[31mred\\\\x09", "control characters" },
		{ "a\\b\"c\nd", "a\\\\b\\\"c\\nd", "backslash, quote, newline as the format says" },
	};
	struct ls_prom_view *v = calloc(1, sizeof(*v));
	char want[256], *text;
	unsigned int i;

	if (!v)
		return;
	view_fill(v);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		culprit_line(v, cases[i].name, &text);
		snprintf(want, sizeof(want),
			 "latscope_worst_culprit_info{cpu=\"2\",context=\"kernel\",kind=\"task\",name=\"%s\"} 1\n",
			 cases[i].want);
		check(strstr(text, want) != NULL, "prom: label bytes", "%s: want %s", cases[i].what,
		      want);
		free(text);
	}
	free(v);
}

static void test_prom_text(const char *dir)
{
	struct ls_prom_view *v = calloc(1, sizeof(*v));
	char path[512], *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!v)
		return;
	view_fill(v);
	f = open_memstream(&text, &len);
	ls_prom_write(f, v, false);
	fclose(f);
	check(strstr(text, "latscope_latency_seconds_bucket{cpu=\"1\",context=\"kernel\",part=\"total\",le=\"5e-06\"} 990\n") != NULL,
	      "prom: a bucket line", "%.300s", text);
	check(strstr(text, "latscope_latency_seconds_bucket{cpu=\"2\",context=\"kernel\",part=\"total\",le=\"+Inf\"} 1000\n") != NULL,
	      "prom: the +Inf bucket is the count", "%s", "");
	check(strstr(text, "latscope_latency_seconds_sum{cpu=\"1\",context=\"kernel\",part=\"irq\"} 0.0045\n") != NULL,
	      "prom: the sum in seconds, the irq part", "%s", "");
	check(!strstr(text, "cpu=\"2\",context=\"kernel\",part=\"irq\""),
	      "prom: no irq part where none is measured", "%s", "");
	check(strstr(text, "latscope_latency_window_max_seconds{cpu=\"1\",context=\"kernel\",part=\"total\"} 6e-05\n") &&
	      !strstr(text, "latscope_latency_window_max_seconds{cpu=\"1\",context=\"kernel\",part=\"irq\"}"),
	      "prom: the window's maximum, of the total only", "%s", "");
	check(strstr(text, "kernel=\"6.12.0-test \\\"quoted\\\" back\\\\slash\"") != NULL,
	      "prom: label values escaped", "%s", "");
	check(strstr(text, "# TYPE latscope_overruns_total counter\nlatscope_overruns_total{cpu=\"1\",context=\"kernel\"} 3\n") != NULL,
	      "prom: a counter", "%s", "");
	check(strstr(text, "latscope_worst_culprit_info{cpu=\"1\",context=\"kernel\",kind=\"irq\",name=\"eth0 \\\"rx\\\"\"} 1\n") &&
	      !strstr(text, "latscope_worst_culprit_info{cpu=\"3\""),
	      "prom: the culprit of the window's worst, where one is known", "%s", "");
	check(!strstr(text, "gpio_lost") && !strstr(text, "# EOF"),
	      "prom: no GPIO counter for the timer, no EOF in 0.0.4", "%s", "");
	snprintf(path, sizeof(path), "%s/scrape.prom", dir);
	put_file(dir, "scrape.prom", text);
	free(text);

	strcpy(v->source, "GPIO");
	text = NULL;
	f = open_memstream(&text, &len);
	ls_prom_write(f, v, true);
	fclose(f);
	check(len > 6 && !strcmp(text + len - 6, "# EOF\n"), "prom: OpenMetrics ends with # EOF",
	      "%s", "");
	check(strstr(text, "# TYPE latscope_overruns counter\n") &&
	      strstr(text, "# TYPE latscope info\n") &&
	      strstr(text, "# UNIT latscope_latency_seconds seconds\n") &&
	      strstr(text, "latscope_gpio_lost_pulses_total{cpu=\"1\""),
	      "prom: OpenMetrics families: counter and info names, a unit", "%s", "");
	put_file(dir, "scrape.om", text);
	free(text);

	/* A noise run's series: its runtime and noise in seconds, its gaps by kind. */
	strcpy(v->source, "noise");
	v->series[0].noise_runtime_ns = 3000000000ULL;
	v->series[0].noise_ns = 1500;
	v->series[0].gaps[LATSCOPE_NOISE_THREAD] = 7;
	for (int om = 0; om <= 1; om++) {
		text = NULL;
		f = open_memstream(&text, &len);
		ls_prom_write(f, v, om);
		fclose(f);
		check(strstr(text, "latscope_noise_runtime_seconds_total{cpu=\"1\",context=\"kernel\"} 3\n") &&
		      strstr(text, "latscope_noise_seconds_total{cpu=\"1\",context=\"kernel\"} 1.5e-06\n") &&
		      strstr(text, "latscope_noise_gaps_total{cpu=\"1\",context=\"kernel\",kind=\"thread\"} 7\n") &&
		      strstr(text, "latscope_noise_gaps_total{cpu=\"2\",context=\"kernel\",kind=\"unknown\"} 0\n") &&
		      !strstr(text, "gpio_lost"),
		      "prom: a noise run's runtime, noise and gaps by kind", "%s", om ? "om" : "0.0.4");
		put_file(dir, om ? "scrape-noise.om" : "scrape-noise.prom", text);
		free(text);
	}
	free(v);
}

void test_prom(const char *dir)
{
	test_prom_bounds();
	test_prom_hist();
	test_prom_window();
	test_prom_label_bytes();
	if (dir)
		test_prom_text(dir);
}
