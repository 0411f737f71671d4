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
		{ "--cost-only queens", "--cost-only 'queens': give workloads from: queens-1, queens-all" },
		{ "--cost-only fsync,", "--cost-only 'fsync,'" },
		{ "--cost-only ,fsync", "--cost-only ',fsync'" },
		{ "--cost-repeat 3", "belongs to --cost" },
		{ "--cost -T 10", "--cost measures with the timer on one CPU" },
		{ "--cost --cpus 0,1", "--cost measures" },
		{ "--cost -g x.plot", "--cost measures" },
		{ "--cost -z host", "--cost measures" },
		{ "--cost --gpiod -I a,1 -O a,2", "--cost measures" },
	};
	check_refusals(bad, ARRAY_SIZE(bad));
}

/* A suite of two workloads and a skipped one, as the JSON and the table say it. */
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
	r.nr = 3;
	r.variant_ran[LS_COST_PLAIN] = r.variant_ran[LS_COST_MEASURED] = true;
	snprintf(r.latency_json, sizeof(r.latency_json), "x-latency.json");
	snprintf(r.latency_rts, sizeof(r.latency_rts), "RTS| test");
	r.w[0].name = "queens-1";
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

	f = open_memstream(&buf, &len);
	ls_cost_print(f, &r);
	fclose(f);
	check(buf && strstr(buf, "COST| queens-1    2.000 s sd 1.414 (2 runs)    2.500 s sd 0.000 (2 runs)    +25.0 %\n") &&
	      strstr(buf, "COST| fsync       0.500 s sd 0.000 (1 run)     no run                       -\n") &&
	      strstr(buf, "COST| fsync       FAILED measured: run 1: disk full\n") &&
	      strstr(buf, "COST| iperf3      skipped: iperf3 not found\n") &&
	      strstr(buf, "COST| measured: user context on CPU2, 1000 us period, priority 90; its RTS| test\n"),
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
	check(buf && strstr(buf, "COST| workload    plain                        measured                     change   loaded                       change\n") &&
	      strstr(buf, "COST| queens-1    2.000 s sd 1.414 (2 runs)    2.500 s sd 0.000 (2 runs)    +25.0 %  4.000 s sd 0.000 (1 run)     +100.0 %\n") &&
	      strstr(buf, "COST| fsync       0.500 s sd 0.000 (1 run)     no run                       -        no run                       -\n") &&
	      strstr(buf, "COST| loaded: while the load 'grinder' ran on CPU0-3, nothing measured\n"),
	      "cost: the table with a load", "\n%s", buf ? buf : "");
	free(buf);
	r.variant_ran[LS_COST_LOADED] = false;

	snprintf(path, sizeof(path), "%s/cost.json", dir);
	check(!ls_cost_write_file(path, &r, err, sizeof(err)), "cost: cost.json written", "%s", err);
}

void test_cost(const char *dir)
{
	test_queens();
	test_cost_arithmetic();
	test_cost_options();
	test_cost_output(dir);
}
