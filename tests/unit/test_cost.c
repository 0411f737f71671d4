// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the cost suite's parts that need no workload: the
 * N-queens counts, the arithmetic of running times, the options, what it
 * prints, and its JSON (written to DIR/cost.json, parsed back by
 * tests/unit/run.sh).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "output/output.h"
#include "unit.h"

static void test_queens(void)
{
	unsigned int n;
	bool all = true;

	/* Counted here against OEIS A000170, 1 to 12 (13 up is slow for a test). */
	for (n = 1; n <= 12; n++)
		if (ls_queens(n) != ls_queens_known(n)) {
			check(false, "cost: N-queens counts", "n %u: %llu, known %llu", n,
			      ls_queens(n), ls_queens_known(n));
			all = false;
		}
	check(all && ls_queens_known(8) == 92 && ls_queens_known(12) == 14200,
	      "cost: N-queens 1 to 12 as known", " ");
	check(!ls_queens(0) && !ls_queens(LS_QUEENS_MAX + 1) && !ls_queens_known(17),
	      "cost: N-queens out of range", " ");
}

static void test_cost_arithmetic(void)
{
	const double t[] = { 2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0 };
	struct ls_cost_stat a, b, none;

	/* Mean 5, squares summed 32, sample variance 32/7. */
	ls_cost_stat(t, 8, &a);
	check(a.n == 8 && a.mean == 5.0 && fabs(a.stddev - sqrt(32.0 / 7.0)) < 1e-12 &&
	      a.min == 2.0 && a.max == 9.0, "cost: mean, sample stddev, min, max",
	      "%u %g %g %g %g", a.n, a.mean, a.stddev, a.min, a.max);
	ls_cost_stat(t + 1, 1, &b);
	check(b.n == 1 && b.mean == 4.0 && b.stddev == 0.0, "cost: one run, no spread",
	      "%g %g", b.mean, b.stddev);
	ls_cost_stat(t, 0, &none);
	check(!none.n && isnan(ls_cost_change(&none, &a)) && isnan(ls_cost_change(&a, &none)),
	      "cost: no run, no change", " ");
	check(fabs(ls_cost_change(&b, &a) - 25.0) < 1e-12 &&
	      fabs(ls_cost_change(&a, &b) + 20.0) < 1e-12, "cost: change in percent of the plain",
	      "%g %g", ls_cost_change(&b, &a), ls_cost_change(&a, &b));
	check(ls_word_in_list("queens-1,fsync", "fsync") &&
	      ls_word_in_list("queens-1,fsync", "queens-1") &&
	      !ls_word_in_list("queens-1,fsync", "queens") &&
	      !ls_word_in_list("queens-all", "queens"), "cost: a word in a list", " ");
}

/*
 * The change's 95 % interval (cost/stat.c's formula), each figure worked
 * out apart with SciPy's stats.t.ppf(0.975, floor(df)):
 *   {1.0, 1.2} vs {1.3, 1.5}: +27.27 %, df 1.89 -> 1, [-159.69, +214.24]
 *   1.00 +- 0.02 vs 1.10 +- 0.02 (5 runs each): +10.00 %, df 7.93 -> 7, [+7.51, +12.49]
 *   the same vs 1.00 +- 0.03: +0.20 %, df 6.95 -> 6, [-2.94, +3.34]: no difference
 */
static void test_cost_interval(void)
{
	static const double few_a[] = { 1.0, 1.2 }, few_b[] = { 1.3, 1.5 };
	static const double a[] = { 1.00, 1.02, 0.98, 1.01, 0.99 };
	static const double slow[] = { 1.10, 1.12, 1.08, 1.11, 1.09 };
	static const double same[] = { 1.00, 1.03, 0.97, 1.02, 0.99 };
	struct ls_cost_stat sa, sb, one;
	struct ls_cost_delta d;

	check(ls_t975(1) == 12.7063 && ls_t975(1.9) == 12.7063 && ls_t975(30) == 2.0423 &&
	      ls_t975(39.9) == 2.0423 && ls_t975(1e9) == 1.98 && ls_t975(INFINITY) == 1.96 &&
	      isnan(ls_t975(0.5)) && isnan(ls_t975(NAN)),
	      "cost: t at 0.975, df rounded down to a row", "%g %g", ls_t975(1.9), ls_t975(39.9));
	for (double df = 1, last = INFINITY; df < 200; df += 0.5) {
		if (ls_t975(df) > last) {
			check(false, "cost: t falls as df grows", "df %g", df);
			break;
		}
		last = ls_t975(df);
	}
	ls_cost_stat(few_a, 2, &sa);
	ls_cost_stat(few_b, 2, &sb);
	ls_cost_delta(&sa, &sb, &d);
	check(fabs(d.pct - 27.2727) < 0.01 && fabs(d.lo + 159.692) < 0.01 &&
	      fabs(d.hi - 214.238) < 0.01 && !ls_cost_delta_differs(&d),
	      "cost: two runs a side: a wide interval, no difference", "%g [%g, %g]", d.pct, d.lo,
	      d.hi);
	ls_cost_stat(a, 5, &sa);
	ls_cost_stat(slow, 5, &sb);
	ls_cost_delta(&sa, &sb, &d);
	check(fabs(d.pct - 10.0) < 0.01 && fabs(d.lo - 7.5143) < 0.01 &&
	      fabs(d.hi - 12.4857) < 0.01 && ls_cost_delta_differs(&d),
	      "cost: 10 % slower, the interval leaves 0 out", "%g [%g, %g]", d.pct, d.lo, d.hi);
	ls_cost_delta(&sb, &sa, &d);
	check(d.hi < 0 && ls_cost_delta_differs(&d), "cost: faster is a difference too",
	      "%g [%g, %g]", d.pct, d.lo, d.hi);
	ls_cost_stat(same, 5, &sb);
	ls_cost_delta(&sa, &sb, &d);
	check(fabs(d.pct - 0.2) < 0.01 && fabs(d.lo + 2.9355) < 0.01 &&
	      fabs(d.hi - 3.3355) < 0.01 && !ls_cost_delta_differs(&d),
	      "cost: inside the noise, no difference", "%g [%g, %g]", d.pct, d.lo, d.hi);
	ls_cost_stat(a, 1, &one);
	ls_cost_delta(&one, &sb, &d);
	check(!isnan(d.pct) && isnan(d.lo) && isnan(d.hi) && !ls_cost_delta_differs(&d),
	      "cost: one run, a change but no interval", "%g", d.pct);
	ls_cost_stat(a, 0, &one);
	ls_cost_delta(&one, &sb, &d);
	check(isnan(d.pct) && isnan(d.lo), "cost: no run, nothing", " ");
}

/* The next of a fixed sequence in [0, 1) (xorshift64*): the same on every machine. */
static double uniform(unsigned long long *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return ((*x * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

/* A normal draw from two uniform ones (Box-Muller). */
static double normal(unsigned long long *x)
{
	double u1 = uniform(x), u2 = uniform(x);

	return sqrt(-2 * log(u1 > 0 ? u1 : 0x1.0p-53)) * cos(2 * M_PI * u2);
}

/*
 * How often the interval says "differs" over @trials comparisons of 5
 * runs with 5, the second's mean @shift times the first's (sd 2 %).
 */
static double differ_rate(double shift, int trials)
{
	unsigned long long x = 0x9e3779b97f4a7c15ULL;
	struct ls_cost_stat sa, sb;
	struct ls_cost_delta d;
	double a[5], b[5];
	int i, k, n = 0;

	for (i = 0; i < trials; i++) {
		for (k = 0; k < 5; k++) {
			a[k] = 1.0 + 0.02 * normal(&x);
			b[k] = shift * (1.0 + 0.02 * normal(&x));
		}
		ls_cost_stat(a, 5, &sa);
		ls_cost_stat(b, 5, &sb);
		ls_cost_delta(&sa, &sb, &d);
		n += ls_cost_delta_differs(&d);
	}
	return (double)n / trials;
}

/*
 * The interval's calibration on synthetic A/A runs: the same law both
 * ways differs about 1 time in 20 at most (df rounded down makes it a
 * little less: 4.4 % measured); 5 % slower, 5 runs a side at a 2 % spread, 8 times in 10 or more
 * (0.87 measured).
 */
static void test_cost_calibration(void)
{
	double aa = differ_rate(1.0, 4000), ab = differ_rate(1.05, 1000);

	check(aa >= 0.02 && aa <= 0.06, "cost: A/A, the same law: 2 to 6 % differ", "%.4f", aa);
	check(ab >= 0.8, "cost: 5 % slower at 2 % spread: found 8 times in 10 or more", "%.4f", ab);
}

static void test_cost_options(void)
{
	struct ls_options o;
	char err[256];

	check(parse_options("--cost", &o, err) == LS_PARSE_RUN && o.cost.asked &&
	      o.cost.repeat == 5 && o.cost.scale == 100 && !o.cost.only && !o.cost.dir,
	      "cost: --cost, its defaults", "%s", err);
	check(parse_options("--cost -k -c 1 -p 500 --cost-repeat 3 --cost-scale 10 --cost-dir /tmp --json c.json",
			    &o, err) == LS_PARSE_RUN && o.cost.repeat == 3 && o.cost.scale == 10 &&
	      !strcmp(o.cost.dir, "/tmp") && o.p.context == LATSCOPE_CTX_KERNEL &&
	      o.p.period_us == 500, "cost: its options", "%s", err);
	check(parse_options("--cost --stress grinder", &o, err) == LS_PARSE_RUN && o.cost.asked &&
	      !strcmp(o.p.stress, "grinder"), "cost: --stress adds the loaded runs", "%s", err);
	check(parse_options("--cost-only fsync,queens-1", &o, err) == LS_PARSE_RUN &&
	      o.cost.asked && !strcmp(o.cost.only, "fsync,queens-1"),
	      "cost: --cost-only is --cost", "%s", err);
	check(parse_options("-k", &o, err) == LS_PARSE_RUN && !o.cost.asked,
	      "cost: not without --cost", "%s", err);

	static const struct refusal bad[] = {
		{ "--cost --cost-repeat 0", "'0' for --cost-repeat" },
		{ "--cost --cost-repeat 101", "'101' for --cost-repeat" },
		{ "--cost --cost-scale 0", "'0' for --cost-scale" },
		{ "--cost --cost-min-run 600001", "'600001' for --cost-min-run (milliseconds, 0 to 600000)" },
		{ "--cost --cost-min-run 1s", "'1s' for --cost-min-run" },
		{ "--cost-min-run 100", "--cost-min-run belongs to --survey or --cost" },
		{ "--cost-aa", "--cost-aa belongs to --cost" },
		{ "--cost-only queens", "--cost-only 'queens': give workloads from: queens-1, queens-all" },
		{ "--cost-only fsync,", "--cost-only 'fsync,'" },
		{ "--cost-only ,fsync", "--cost-only ',fsync'" },
		{ "--cost-repeat 3", "belongs to --survey or --cost" },
		{ "--cost -T 10", "--cost measures with the timer on one CPU" },
		{ "--cost --cpus 0,1", "--cost measures" },
		{ "--cost -g x.plot", "--cost measures" },
		{ "--cost -z host", "--cost measures" },
		{ "--cost --gpiod -I a,1 -O a,2", "--cost measures" },
	};
	check_refusals(bad, ARRAY_SIZE(bad));
}

/*
 * A suite of three workloads and a skipped one, as the JSON and the table
 * say it. queens-1 ran 3 times a timing. switch: 1.00 +- 0.02 plain,
 * 1.20 +- 0.02 measured (3 runs each): +20.0 %, df 3.87 -> 3, t 3.1825,
 * [+14.26, +25.74] (worked out with Python's statistics module).
 * queens-1: {1, 3} and {2.5, 2.5}: df 1, t 12.7063, se 0.625: +-794.1 %.
 */
static void test_cost_output(const char *dir)
{
	static struct ls_cost_report r;
	struct ls_params p;
	struct ls_sysinfo si;
	struct ls_heat_src h = { .cpu = 2, .zone = "thermal_zone0", .zone_type = "cpu-thermal" };
	struct ls_heat_sample hot = { .has_temp = true, .temp_mc = 70000 };
	unsigned char heat, throttled;
	char path[512], err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	parse("--cost -c 2 --json x.json", &p, err);
	memset(&si, 0, sizeof(si));
	snprintf(si.release, sizeof(si.release), "6.12.0-test");
	snprintf(si.preemption, sizeof(si.preemption), "PREEMPT_RT");
	memset(&r, 0, sizeof(r));
	r.params = &p;
	r.sys = &si;
	r.heat = &h;
	r.repeat = 2;
	r.scale = 100;
	r.measured_cpu = 2;
	r.min_run_ms = 1000;
	r.nr = 4;
	r.variant_ran[LS_COST_PLAIN] = r.variant_ran[LS_COST_MEASURED] = true;
	snprintf(r.latency_json, sizeof(r.latency_json), "x-latency.json");
	snprintf(r.latency_rts, sizeof(r.latency_rts), "RTS| test");
	r.w[0].name = "queens-1";
	r.w[0].batch = 3;
	snprintf(r.w[0].what, sizeof(r.w[0].what), "N-queens \"12\"");
	r.w[0].t[0][0] = 1.0;
	r.w[0].t[0][1] = 3.0;
	r.w[0].t[1][0] = 2.5;
	r.w[0].t[1][1] = 2.5;
	ls_cost_stat(r.w[0].t[0], 2, &r.w[0].stat[0]);
	ls_cost_stat(r.w[0].t[1], 2, &r.w[0].stat[1]);
	ls_heat_total_add(&r.w[0].heat[1], &hot, &heat, &throttled);
	r.w[1].name = "fsync";
	r.w[1].t[0][0] = 0.5;
	ls_cost_stat(r.w[1].t[0], 1, &r.w[1].stat[0]);
	snprintf(r.w[1].failed[1], sizeof(r.w[1].failed[1]), "run 1: disk full");
	r.w[2].name = "iperf3";
	snprintf(r.w[2].skipped, sizeof(r.w[2].skipped), "iperf3 not found");
	r.w[3].name = "switch";
	r.w[3].batch = 1;
	/* A batched workload's times per run: microseconds, said in us. */
	memcpy(r.w[3].t[0], (double[]){ 1.0e-6, 1.02e-6, 0.98e-6 }, 3 * sizeof(double));
	memcpy(r.w[3].t[1], (double[]){ 1.2e-6, 1.22e-6, 1.18e-6 }, 3 * sizeof(double));
	ls_cost_stat(r.w[3].t[0], 3, &r.w[3].stat[0]);
	ls_cost_stat(r.w[3].t[1], 3, &r.w[3].stat[1]);

	f = open_memstream(&buf, &len);
	ls_cost_print(f, &r);
	fclose(f);
	check(buf && strstr(buf, "COST| queens-1    2.000 s sd 1.414 (2 runs)       2.500 s sd 0.000 (2 runs)       no difference at this precision (±794.1 %)\n") &&
	      strstr(buf, "COST| fsync       500.000 ms sd 0.000 (1 run)     no run                          -\n") &&
	      strstr(buf, "COST| fsync       FAILED measured: run 1: disk full\n") &&
	      strstr(buf, "COST| iperf3      skipped: iperf3 not found\n") &&
	      strstr(buf, "COST| switch      1.000 us sd 0.020 (3 runs)      1.200 us sd 0.020 (3 runs)      +20.0 % [+14.3, +25.7]\n") &&
	      strstr(buf, "COST| batches: each timing runs the work this often, to last 1000 ms (--cost-min-run); the times are of one run: queens-1 ×3\n") &&
	      strstr(buf, "COST| measured: user context on CPU2, 1000 us period, priority 90, plain and measured alternating; its first round's RTS| test\n"),
	      "cost: the table", "\n%s", buf ? buf : "");
	free(buf);

	/* With a load: two more columns, and what the load was. */
	r.variant_ran[LS_COST_LOADED] = true;
	snprintf(r.load.name, sizeof(r.load.name), "grinder");
	snprintf(r.load.cpus, sizeof(r.load.cpus), "0-3");
	r.w[0].t[2][0] = 4.0;
	ls_cost_stat(r.w[0].t[2], 1, &r.w[0].stat[2]);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ls_cost_print(f, &r);
	fclose(f);
	check(buf && strstr(buf, "COST| workload    plain                           measured                        change                                       loaded                          change\n") &&
	      strstr(buf, "COST| queens-1    2.000 s sd 1.414 (2 runs)       2.500 s sd 0.000 (2 runs)       no difference at this precision (±794.1 %)   4.000 s sd 0.000 (1 run)        +100.0 % (no interval: 1 run)\n") &&
	      strstr(buf, "COST| fsync       500.000 ms sd 0.000 (1 run)     no run                          -                                            no run                          -\n") &&
	      strstr(buf, "COST| loaded: while the load 'grinder' ran on CPU0-3, nothing measured\n"),
	      "cost: the table with a load", "\n%s", buf ? buf : "");
	free(buf);
	r.variant_ran[LS_COST_LOADED] = false;

	/* The A/A control: "again", and how many differ. */
	r.aa = true;
	buf = NULL;
	f = open_memstream(&buf, &len);
	ls_cost_print(f, &r);
	fclose(f);
	check(buf && strstr(buf, "COST| workload    plain                           again                           change\n") &&
	      strstr(buf, "COST| A/A: the second pass of each round ran plain too, nothing measured: 1 of 2 workloads differ at 95 % (noise; about 1 in 20 by chance)\n") &&
	      !strstr(buf, "COST| measured:"), "cost: the A/A table", "\n%s", buf ? buf : "");
	free(buf);
	r.aa = false;

	snprintf(path, sizeof(path), "%s/cost.json", dir);
	check(!ls_cost_write_file(path, &r, err, sizeof(err)), "cost: cost.json written", "%s", err);
}

void test_cost(const char *dir)
{
	test_queens();
	test_cost_arithmetic();
	test_cost_interval();
	test_cost_calibration();
	test_cost_options();
	test_cost_output(dir);
}
