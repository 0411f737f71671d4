// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the survey's plan (survey/plan.c) and its options: the
 * timer runs share -T to the second, the EVT run from 20 minutes on and
 * only with the quiet user run kept, --survey-skip's words and bad
 * values, what the parser refuses with --survey.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "survey/survey.h"
#include "unit.h"

/* The timer phases' seconds together, and how many there are. */
static unsigned long long timed(const struct ls_survey_plan *plan, int *runs, int *evt)
{
	unsigned long long sum = 0;
	int i;

	*runs = 0;
	*evt = 0;
	for (i = 0; i < plan->nr; i++) {
		if (plan->phase[i].kind != LS_PHASE_TIMER)
			continue;
		sum += plan->phase[i].seconds;
		(*runs)++;
		*evt += plan->phase[i].evt;
	}
	return sum;
}

static void test_plan_sums(void)
{
	static const unsigned long long totals[] = { 120, 121, 599, 600, 1199, 1200, 3600, 86400 };
	struct ls_survey_plan plan;
	char err[256];
	size_t i;
	int runs, evt;
	bool ok = true;

	for (i = 0; i < ARRAY_SIZE(totals); i++) {
		unsigned long long sum;

		if (ls_survey_plan(totals[i], 0, 0, &plan, err, sizeof(err))) {
			check(false, "survey: plans", "-T %llu refused: %s", totals[i], err);
			return;
		}
		sum = timed(&plan, &runs, &evt);
		if (sum != totals[i] || runs != 12 ||
		    evt != (totals[i] >= 1200) || plan.phase[0].kind != LS_PHASE_SETUP ||
		    plan.phase[plan.nr - 1].kind != LS_PHASE_COST) {
			check(false, "survey: plans", "-T %llu: %llu s in %d runs, %d EVT", totals[i],
			      sum, runs, evt);
			ok = false;
		}
	}
	check(ok, "survey: the timer runs share -T to the second, setup first, cost last", " ");
	ls_survey_plan(3600, 0, 0, &plan, err, sizeof(err));
	check(plan.phase[1].evt && plan.phase[1].context == LATSCOPE_CTX_USER &&
	      !strcmp(plan.phase[1].stress, "none") && plan.phase[1].seconds == 1807 &&
	      plan.phase[2].seconds == 163 && plan.cost_scale == 100 &&
	      !strcmp(plan.phase[1].name, "02-user-quiet") &&
	      !strcmp(plan.phase[13].name, "14-cost"),
	      "survey: 1 h: the EVT run first, half and the rest, the cost suite whole",
	      "%s %llu, %llu, scale %u", plan.phase[1].name, plan.phase[1].seconds,
	      plan.phase[2].seconds, plan.cost_scale);
	ls_survey_plan(600, 0, 0, &plan, err, sizeof(err));
	check(plan.phase[1].seconds == 50 && !plan.phase[1].evt && plan.cost_scale == 10 &&
	      plan.nr == 14, "survey: 10 min: twelve runs of 50 s, the cost suite at 10 %",
	      "%d phases, %llu s", plan.nr, plan.phase[1].seconds);
}

static void test_plan_skip(void)
{
	struct ls_survey_plan plan;
	unsigned int skip = 0;
	char err[256] = "";
	int runs, evt;

	check(!ls_survey_parse_skip("cost,grinder,neighbour,classic,setup", &skip, err,
				    sizeof(err)) &&
	      skip == (LS_SKIP_COST | LS_SKIP_GRINDER | LS_SKIP_NEIGHBOUR | LS_SKIP_CLASSIC |
		       LS_SKIP_SETUP),
	      "survey: --survey-skip's words as bits", "%#x %s", skip, err);
	ls_survey_plan(30, skip, 0, &plan, err, sizeof(err));
	check(timed(&plan, &runs, &evt) == 30 && runs == 3 && plan.nr == 3 &&
	      !strcmp(plan.phase[0].name, "01-user-quiet"),
	      "survey: the loads, setup and cost skipped: three quiet runs, numbered from 1",
	      "%d phases, first %s", plan.nr, plan.phase[0].name);
	check(ls_survey_plan(29, skip, 0, &plan, err, sizeof(err)) && strstr(err, "29 s") &&
	      strstr(err, "3 timed runs") && strstr(err, "30 s"),
	      "survey: -T under 10 s a run refused, both named", "%s", err);
	ls_survey_parse_skip("quiet", &skip, err, sizeof(err));
	ls_survey_plan(3600, skip, 0, &plan, err, sizeof(err));
	check(timed(&plan, &runs, &evt) == 3600 && runs == 9 && !evt,
	      "survey: quiet skipped, no EVT run, nine runs share -T", "%d runs, %d EVT", runs, evt);
	ls_survey_parse_skip("grinder", &skip, err, sizeof(err));
	ls_survey_plan(600, skip, 0, &plan, err, sizeof(err));
	check(!strcmp(plan.phase[plan.nr - 1].stress, "none"),
	      "survey: grinder skipped, the cost suite has no loaded pass", "%s",
	      plan.phase[plan.nr - 1].stress);
	skip = 7;
	check(ls_survey_parse_skip("cost,,quiet", &skip, err, sizeof(err)) && skip == 7 &&
	      strstr(err, "''"), "survey: an empty word refused, nothing set", "%s", err);
	check(ls_survey_parse_skip("costs", &skip, err, sizeof(err)) && strstr(err, "'costs'"),
	      "survey: a word that is none refused, named", "%s", err);
	ls_survey_parse_skip("user,kernel,irq", &skip, err, sizeof(err));
	check(ls_survey_plan(3600, skip, 0, &plan, err, sizeof(err)) && strstr(err, "no timer run"),
	      "survey: every context skipped: refused", "%s", err);
}

static void test_survey_options(void)
{
	static const struct refusal bad[] = {
		{ "--survey d -k", "--kernel" },
		{ "--survey d --stress grinder", "--stress" },
		{ "--survey d --cost", "--cost" },
		{ "--survey d -g p", "--plot" },
		{ "--survey d -T 100", "2 min" },
		{ "--survey d --survey-skip bogus", "'bogus'" },
		{ "--survey-plan --apply-setup", "--apply-setup" },
		{ "--survey=", "--survey ''" },
		{ "--survey-skip cost", "--survey" },
		{ "--resume", "--survey DIR" },
		{ "--survey-plan --resume", "--survey DIR" },
		{ "--survey d --monitor", "--monitor" },
		{ "--survey d --gpiod", "--gpiod" },
		{ "--survey d -I gpiochip0,24 -O gpiochip0,23 --subtract 5", "--subtract" },
	};
	struct ls_options o;
	char err[512] = "";

	check_refusals(bad, ARRAY_SIZE(bad));
	check(parse_options("--survey d", &o, err) == LS_PARSE_RUN && !strcmp(o.survey.dir, "d") &&
	      o.p.timeout_s == LS_SURVEY_DEFAULT_S,
	      "survey: --survey DIR, -T an hour by default", "%s %llu", err, o.p.timeout_s);
	check(parse_options("--survey d -T 20m -c 1 -p 500 -P 80 --apply-setup "
			    "--survey-skip cost", &o, err) == LS_PARSE_RUN &&
	      o.p.timeout_s == 1200 && o.survey.skip == LS_SKIP_COST && o.apply_setup,
	      "survey: with -T, -c, -p, -P, --apply-setup and --survey-skip", "%s", err);
	check(parse_options("--survey d --resume -T 10m", &o, err) == LS_PARSE_RUN &&
	      o.survey.resume, "survey: --resume with --survey DIR", "%s", err);
	check(parse_options("--survey d -T 10m -I gpiochip0,24 -O gpiochip0,23 "
			    "--pulse-out gpiochip0,25", &o, err) == LS_PARSE_RUN &&
	      o.survey.with == LS_SURVEY_WITH_GPIO && o.survey.gpio_nr == 3 &&
	      !strcmp(o.survey.gpio_args[0], "--gpio-in=gpiochip0,24") &&
	      !strcmp(o.survey.gpio_args[2], "--pulse-out=gpiochip0,25"),
	      "survey: GPIO lines kept for the GPIO runs", "%s %d", err, o.survey.gpio_nr);
	check(parse_options("--survey d -T 10m -z 192.0.2.1 -I gpiochip0,24 -O gpiochip0,23",
			    &o, err) == LS_PARSE_RUN && o.survey.with == LS_SURVEY_WITH_LATMON &&
	      !strcmp(o.survey.gpio_args[0], "--inband-gpio=192.0.2.1"),
	      "survey: a latmon monitor: its round trips", "%s", err);
	check(parse_options("--survey d -T 10m", &o, err) == LS_PARSE_RUN &&
	      !o.survey.with && !o.survey.gpio_nr && !o.survey.cost_scale && !o.survey.cost_repeat && o.survey.cost_min_run_ms == -1,
	      "survey: the cost suite's scale and rounds the plan's, unless given", "%s", err);
	check(parse_options("--survey d -T 10m --cost-scale 2 --cost-repeat 1 --cost-min-run 100",
			    &o, err) == LS_PARSE_RUN && o.survey.cost_scale == 2 &&
	      o.survey.cost_repeat == 1 && o.survey.cost_min_run_ms == 100,
	      "survey: --cost-scale and --cost-repeat given", "%s", err);
	check(parse_options("--survey d --cost-scale 0", &o, err) == LS_PARSE_ERROR &&
	      strstr(err, "cost-scale"), "survey: --cost-scale 0 refused, named", "%s", err);
}

/* GPIO lines add the driver's GPIO runs; a latmon monitor its round trips. */
static void test_plan_gpio(void)
{
	struct ls_survey_plan plan;
	unsigned int skip = 0;
	char err[256] = "";
	int i, gpio = 0, irq = 0;

	ls_survey_plan(600, 0, LS_SURVEY_WITH_GPIO, &plan, err, sizeof(err));
	for (i = 0; i < plan.nr; i++) {
		gpio += plan.phase[i].kind == LS_PHASE_GPIO;
		irq += plan.phase[i].kind == LS_PHASE_GPIO &&
		       plan.phase[i].context == LATSCOPE_CTX_IRQ;
	}
	check(plan.nr == 22 && gpio == 8 && !irq && plan.phase[13].seconds == 30 &&
	      !strcmp(plan.phase[13].name, "14-gpio-user-quiet") &&
	      !strcmp(plan.phase[20].name, "21-gpio-kernel-classic") &&
	      plan.phase[21].kind == LS_PHASE_COST,
	      "survey: GPIO lines: the kernel and user threads under each load, 30 s of 10 min each",
	      "%d %d %d %s", plan.nr, gpio, irq, plan.phase[13].name);
	ls_survey_parse_skip("gpio", &skip, err, sizeof(err));
	ls_survey_plan(600, skip, LS_SURVEY_WITH_GPIO, &plan, err, sizeof(err));
	check(plan.nr == 14, "survey: --survey-skip gpio: no GPIO run", "%d", plan.nr);
	ls_survey_plan(600, 0, LS_SURVEY_WITH_LATMON, &plan, err, sizeof(err));
	check(plan.nr == 18 && plan.phase[13].kind == LS_PHASE_LATMON &&
	      !strcmp(plan.phase[13].name, "14-latmon-quiet") && plan.phase[13].seconds == 37,
	      "survey: a latmon monitor: its round trip under each load", "%d %s %llu", plan.nr,
	      plan.phase[13].name, plan.phase[13].seconds);
	ls_survey_parse_skip("timer,cost,setup", &skip, err, sizeof(err));
	check(!ls_survey_plan(80, skip, LS_SURVEY_WITH_GPIO, &plan, err, sizeof(err)) &&
	      plan.nr == 8 && plan.phase[0].kind == LS_PHASE_GPIO && plan.phase[0].seconds == 10 &&
	      !strcmp(plan.phase[0].name, "01-gpio-user-quiet"),
	      "survey: --survey-skip timer: the GPIO runs alone", "%d %s", plan.nr, err);
	ls_survey_parse_skip("user,kernel,irq,cost,setup", &skip, err, sizeof(err));
	check(!ls_survey_plan(40, skip, LS_SURVEY_WITH_LATMON, &plan, err, sizeof(err)) &&
	      plan.nr == 4 && plan.phase[0].seconds == 10,
	      "survey: the latmon round trips alone, 10 s each", "%d %s", plan.nr, err);
	check(ls_survey_plan(40, skip, LS_SURVEY_WITH_GPIO, &plan, err, sizeof(err)) &&
	      strstr(err, "no timer run"), "survey: no context left for the GPIO runs: refused",
	      "%s", err);
}

/* --cost-scale and --cost-repeat in place of the plan's, and said in it. */
static void test_plan_cost(void)
{
	struct ls_survey_params sp = { .cost_scale = 2, .cost_min_run_ms = -1 };
	struct ls_survey_plan plan;
	char err[256] = "", text[2048] = "";
	FILE *f;

	ls_survey_plan(600, 0, 0, &plan, err, sizeof(err));
	check(plan.cost_scale == 10 && plan.cost_repeat == LS_SURVEY_COST_REPEAT,
	      "survey: 10 min, the cost suite at 10 %, 3 rounds", "%u %u", plan.cost_scale,
	      plan.cost_repeat);
	ls_survey_plan_cost(&plan, &sp);
	check(plan.cost_scale == 2 && plan.cost_repeat == LS_SURVEY_COST_REPEAT,
	      "survey: --cost-scale 2 alone: 2 %, the rounds the plan's", "%u %u",
	      plan.cost_scale, plan.cost_repeat);
	check(plan.cost_min_run_ms == -1, "survey: the cost suite's own shortest timing", "%d",
	      plan.cost_min_run_ms);
	sp.cost_repeat = 1;
	sp.cost_min_run_ms = 0;
	ls_survey_plan_cost(&plan, &sp);
	f = fmemopen(text, sizeof(text) - 1, "w");
	if (f) {
		ls_survey_print_plan(f, &plan);
		fclose(f);
	}
	check(strstr(text, "the cost suite: 2 % of its work, 1 round, timings of 0 ms at least, then under grinder") != NULL,
	      "survey: the plan says the cost suite's scale and rounds", "%s", text);
}

/* system.txt from a fake root: x86's DMI and cpuinfo, then a device tree board's. */
static void test_system(const char *dir)
{
	char root[4096], *text = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(root, sizeof(root), "%s/survey-root", dir);
	put_file(root, "sys/devices/virtual/dmi/id/sys_vendor", "Siemens AG\n");
	put_file(root, "sys/devices/virtual/dmi/id/product_name", "SIMATIC IPC427E\n");
	put_file(root, "sys/devices/virtual/dmi/id/bios_vendor", "American Megatrends\n");
	put_file(root, "sys/devices/virtual/dmi/id/bios_version", "V21.01.09\n");
	put_file(root, "sys/devices/virtual/dmi/id/bios_date", "03/12/2021\n");
	put_file(root, "proc/cpuinfo", "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) E-2124\n"
		 "microcode\t: 0xf4\nmodel name with more: no\nprocessor\t: 1\n"
		 "microcode\t: 0xf5\n");
	put_file(root, "sys/devices/system/cpu/online", "0-3\n");
	put_file(root, "sys/devices/system/cpu/isolated", "\n");
	put_file(root, "proc/cmdline", "isolcpus=3 quiet\n");
	put_file(root, "proc/modules", "latscope 61440 0 - Live 0x0\ngpio_sim 20480 0 - Live 0x0\n");
	put_file(root, "sys/module/latscope/version", "0.1.0\n");
	f = open_memstream(&text, &len);
	check(f && !ls_survey_system(f, root), "survey: system.txt written", " ");
	if (f)
		fclose(f);
	check(text && strstr(text, "board: Siemens AG SIMATIC IPC427E\n") &&
	      strstr(text, "device tree model: unknown\n") &&
	      strstr(text, "firmware: American Megatrends V21.01.09 (03/12/2021)\n") &&
	      strstr(text, "cpu: Intel(R) Xeon(R) E-2124\n") && strstr(text, "microcode: 0xf4\n") &&
	      strstr(text, "cpus online: 0-3\n") && strstr(text, "cpus isolated: none\n") &&
	      strstr(text, "command line: isolcpus=3 quiet\n") &&
	      strstr(text, "clocksource: unknown\n") &&
	      strstr(text, "latscope: " LS_VERSION ", driver 0.1.0\n") &&
	      strstr(text, "modules (2): latscope, gpio_sim\n"),
	      "survey: system.txt of an x86 board: DMI, the first CPU's model and microcode, empty and missing files said",
	      "%s", text ? text : "(none)");
	free(text);
	text = NULL;
	snprintf(root, sizeof(root), "%s/survey-root-dt", dir);
	put_file(root, "proc/device-tree/model", "Raspberry Pi 4 Model B Rev 1.4");
	put_file(root, "proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 108.00\n"
		 "Model\t\t: Raspberry Pi 4 Model B Rev 1.4\n");
	f = open_memstream(&text, &len);
	if (f) {
		ls_survey_system(f, root);
		fclose(f);
	}
	check(text && strstr(text, "board: unknown unknown\n") &&
	      strstr(text, "device tree model: Raspberry Pi 4 Model B Rev 1.4\n") &&
	      strstr(text, "cpu: Raspberry Pi 4 Model B Rev 1.4\n") &&
	      strstr(text, "modules (0): unknown\n"),
	      "survey: system.txt of a device tree board", "%s", text ? text : "(none)");
	free(text);
}

void test_survey(const char *dir)
{
	test_plan_sums();
	test_plan_skip();
	test_survey_options();
	test_plan_cost();
	test_plan_gpio();
	if (dir)
		test_system(dir);
}
