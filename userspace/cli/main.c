// SPDX-License-Identifier: GPL-2.0
/*
 * latscope: measures how late this system answers timer and GPIO events
 * through /dev/latscope, with latmus's command line and output. main() only
 * strings the layers together: parse, check outputs, plug the sinks and
 * the link into a run, run, report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cost/cost.h"
#include "latmon/latmon.h"
#include "output/output.h"
#include "run/run.h"
#include "serve/serve.h"

/* A final check, as latmus makes one: figures that cannot all be true. */
static bool results_consistent(const struct ls_report *r)
{
	const struct latscope_stats *t = &r->total;
	__s64 avg;

	if (!t->samples)
		return true;
	avg = t->sum_ns / (__s64)t->samples;
	return t->min_ns <= avg && avg <= t->max_ns;
}

/* Which CPU's trace stopped, at which sample, and where to read it. */
static void print_breaktrace(const struct ls_report *r)
{
	int i;

	/* The threads', then the one-board monitor's (index nr_cpus). */
	for (i = 0; i <= r->nr_cpus; i++) {
		const struct ls_cpu_result *c = i < r->nr_cpus ? &r->cpu[i] : r->monitor;

		if (c && (c->res.flags & LATSCOPE_RESULT_TRACE_FIRED))
			printf("BRK| %sCPU%d stopped the trace at a %.3f us sample: read /sys/kernel/tracing/trace%s\n",
			       c == r->monitor ? "the monitor on " : "", c->cpu,
			       ls_us(c->res.trace_sample_ns),
			       c->has_why ?
			       "; its account is the WHY| line that says (crossed -b)" : "");
	}
}

/* Whose clock to read: the first CPU the run will measure. */
static int first_measured_cpu(const struct ls_params *p, const struct ls_sysinfo *sys)
{
	if (p->cpus_all)
		return 0;
	return ls_first_cpu(&p->cpus, ls_default_cpu(&sys->isolated));
}

/*
 * Heat and clock that would interrupt a measured CPU left unread: the
 * run's CPUs, or the cost suite's one.
 */
static void spare_measured(const struct ls_options *o, const struct ls_sysinfo *sys,
			   struct ls_heat_src *h, const char *sysfs)
{
	char err[512];
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	if (o->cost.asked)
		CPU_SET(first_measured_cpu(&o->p, sys), &cpus);
	else if (ls_pick_cpus(&o->p, sys, &cpus, err, sizeof(err)))
		return;	/* a bad CPU is the run's to refuse, in its words */
	ls_heat_spare(h, sysfs, &cpus, sys->release, sys->machine);
}

/*
 * The priority the setup verdict weighs threads against: the responder's;
 * a SCHED_OTHER busy task (--noise without -P) is outranked by every
 * real-time thread, as one at 1 would be.
 */
static int verdict_priority(const struct ls_params *p)
{
	if (p->noise && p->context != LATSCOPE_CTX_IRQ && !p->priority)
		return 1;
	return ls_responder_priority(p);
}

/*
 * The verdict of each factor for a run on @cpus into @s; with
 * --apply-setup, taken after the changes, which @undo keeps for
 * ls_setup_restore(). The caller holds the signals meanwhile. 0, or the
 * exit code with the message said.
 */
static int setup_verdict(const struct ls_options *o, const char *root, const cpu_set_t *cpus,
			 struct ls_setup *s, struct ls_setup_undo *undo)
{
	char err[512] = "";

	ls_setup_check(s, root, cpus, verdict_priority(&o->p));
	if (!o->apply_setup)
		return LS_EXIT_OK;
	if (ls_setup_apply(undo, s, root, cpus, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		return LS_EXIT_SETUP;
	}
	ls_setup_check(s, root, cpus, verdict_priority(&o->p));
	return LS_EXIT_OK;
}

/*
 * --check-setup: the verdict of each factor for the run the options
 * describe. With --apply-setup, what can be fixed is, and held until a
 * signal, then set back.
 */
static int check_setup(const struct ls_options *o, const struct ls_sysinfo *sys,
		       const char *root)
{
	struct ls_setup_undo undo = { 0 };
	sigset_t signals, old;
	struct ls_setup *s;
	char err[512] = "";
	cpu_set_t cpus;
	int ret, sig;

	if (ls_pick_cpus(&o->p, sys, &cpus, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		return LS_EXIT_SETUP;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "latscope: out of memory\n");
		return LS_EXIT_RUNTIME;
	}
	if (o->apply_setup)
		ls_block_signals(&signals, &old);
	ret = setup_verdict(o, root, &cpus, s, &undo);
	if (ret) {
		/* Only --apply-setup fails: set back what it changed. */
		ls_setup_restore(&undo);
		ls_unblock_signals(&signals, &old);
		free(s);
		return ret;
	}
	ls_setup_print(stdout, s);
	ret = s->costs ? LS_EXIT_SETUP_COSTS : LS_EXIT_OK;
	if (o->apply_setup) {
		printf("SET| held until Ctrl-C or SIGTERM, then set back\n");
		/* No one reads it any more (| head): set back at once. */
		if (fflush(stdout) != EOF || errno != EPIPE)
			sigwait(&signals, &sig);
		ls_setup_restore(&undo);
		ls_unblock_signals(&signals, &old);
		printf("SET| set back\n");
	}
	free(s);
	return ret;
}

/* The verdict a run carries in its summary, plot and JSON (setup_verdict()). */
static int setup_for_run(const struct ls_options *o, const struct ls_sysinfo *sys,
			 const char *root, struct ls_setup *s, struct ls_setup_undo *undo)
{
	char err[512] = "";
	cpu_set_t cpus;

	/* A bad CPU is the run's to refuse, in its words. */
	if (ls_pick_cpus(&o->p, sys, &cpus, err, sizeof(err)))
		return LS_EXIT_OK;
	return setup_verdict(o, root, &cpus, s, undo);
}

/* What each mode's entry point gets. */
struct mode_env {
	const struct ls_options *o;
	const struct ls_sysinfo *sys;
	struct ls_heat_src *heat;	/* NULL: a monitor serving clients reads none */
	const char *root;		/* LATSCOPE_ROOT: the fake root of the tests, or NULL */
};

/* A measurement on this board: the sessions, the summary, the files. */
static int measure(const struct mode_env *e)
{
	const struct ls_params *p = &e->o->p;
	/* Each second: kept for the files with its heat, then printed and checked. */
	const struct ls_sink sinks[] = {
		{ .second = ls_timeline_second }, { .second = ls_heat_second, .priv = e->heat },
		{ .second = ls_console_second },
	};
	struct ls_latmon_conn conn;
	const struct ls_link latmon = { &ls_latmon_client_ops, &conn };
	struct ls_plug plug = { .sinks = sinks, .nr_sinks = ARRAY_SIZE(sinks) };
	struct ls_report report = { .params = p, .sys = e->sys, .heat = e->heat };
	struct ls_setup_undo undo = { 0 };
	struct ls_setup *setup = NULL;
	sigset_t signals, old_signals;
	char err[512] = "";
	int ret;

	/* -z HOST: the run's figures are a latmon monitor's. */
	if (p->latmon_host[0])
		plug.link = &latmon;
	/*
	 * What --apply-setup changes is set back however the run ends; a
	 * second Ctrl-C waits until the results are written.
	 */
	ls_block_signals(&signals, &old_signals);
	setup = calloc(1, sizeof(*setup));
	ret = setup ? setup_for_run(e->o, e->sys, e->root, setup, &undo) : LS_EXIT_OK;
	report.setup = setup;
	if (ret == LS_EXIT_OK)
		ret = ls_run(p, &report, &plug, err, sizeof(err));
	ls_setup_restore(&undo);
	if (ret == LS_EXIT_SETUP || ret == LS_EXIT_MONITOR) {
		if (err[0])
			fprintf(stderr, "latscope: %s\n", err);
		ls_unblock_signals(&signals, &old_signals);
		ls_report_free(&report);
		free(setup);
		return ret;
	}
	if (err[0])
		fprintf(stderr, "latscope: %s\n", err);
	if (ret == LS_EXIT_OK && !results_consistent(&report)) {
		fprintf(stderr, "results look weird, aborting.\n");
		ret = LS_EXIT_WEIRD;
	}
	report.exit_code = ret;
	ls_evt_estimate(&report);
	ls_print_summary(stdout, &report);
	if (ret == LS_EXIT_BREAKTRACE)
		print_breaktrace(&report);
	fflush(stdout);
	if (ls_write_files(&report, true) && ret == LS_EXIT_OK)
		ret = LS_EXIT_RUNTIME;
	ls_unblock_signals(&signals, &old_signals);
	ls_report_free(&report);
	free(setup);
	return ret;
}

static bool is_check_setup(const struct ls_options *o)
{
	return o->check_setup;
}

static int mode_check_setup(const struct mode_env *e)
{
	return check_setup(e->o, e->sys, e->root);
}

static bool is_survey(const struct ls_options *o)
{
	return o->survey.dir || o->survey.plan_only || o->survey.resume;
}

/*
 * --survey: the plan (the parser checked -T against it), then its phases;
 * --apply-setup's changes held for all of them and set back at the end.
 */
static int mode_survey(const struct mode_env *e)
{
	const struct ls_options *o = e->o;
	struct ls_survey_params sp = o->survey;
	struct ls_setup_undo undo = { 0 };
	struct ls_survey *survey = NULL;
	struct ls_survey_plan plan;
	struct ls_setup *setup;
	sigset_t signals, old;
	char err[512] = "";
	cpu_set_t cpus;
	int ret;

	ls_survey_plan(o->p.timeout_s, o->survey.skip, o->survey.with, &plan, err, sizeof(err));
	ls_survey_plan_cost(&plan, &sp);
	if (sp.plan_only) {
		ls_survey_print_plan(stdout, &plan);
		return LS_EXIT_OK;
	}
	if (ls_pick_cpus(&o->p, e->sys, &cpus, err, sizeof(err)) ||
	    ls_device_check(&o->p, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		return LS_EXIT_SETUP;
	}
	if (o->p.cpus_all)
		snprintf(sp.cpus, sizeof(sp.cpus), "all");
	else if (o->cpus_opt)
		ls_format_cpu_list(&cpus, sp.cpus, sizeof(sp.cpus));
	sp.first_cpu = first_measured_cpu(&o->p, e->sys);
	sp.root = e->root;
	setup = calloc(1, sizeof(*setup));
	if (!setup) {
		fprintf(stderr, "latscope: out of memory\n");
		return LS_EXIT_RUNTIME;
	}
	ls_block_signals(&signals, &old);
	/* The directory first: one that cannot be used leaves the board as it was. */
	ret = ls_survey_open(&o->p, &sp, &plan, &old, &survey);
	if (ret == LS_EXIT_OK)
		ret = setup_verdict(o, e->root, &cpus, setup, &undo);
	if (ret == LS_EXIT_OK)
		ret = ls_survey_run(survey);
	else
		ls_survey_close(survey);
	ls_setup_restore(&undo);
	ls_unblock_signals(&signals, &old);
	free(setup);
	return ret;
}

static bool is_cost(const struct ls_options *o)
{
	return o->cost.asked;
}

static int mode_cost(const struct mode_env *e)
{
	return ls_cost_mode(&e->o->p, &e->o->cost, e->sys, e->heat,
			    first_measured_cpu(&e->o->p, e->sys));
}

static bool is_exporter(const struct ls_options *o)
{
	return o->serve.http || o->serve.textfile;
}

static int mode_exporter(const struct mode_env *e)
{
	return ls_serve(&e->o->p, &e->o->serve, &e->o->door, e->sys);
}

static bool is_monitor(const struct ls_options *o)
{
	return o->p.monitor && !o->p.calibrate;
}

static int mode_monitor(const struct mode_env *e)
{
	return ls_monitor_serve(&e->o->p, &e->o->door, e->sys, NULL);
}

static bool is_measurement(const struct ls_options *o)
{
	(void)o;
	return true;
}

/*
 * The modes, in the order they are tried: the first whose @is holds
 * runs. @prepare: the event source prepares first (finds its GPIO chip or
 * device tree node). A new mode is a row, its page a row of pages.c.
 */
static const struct {
	const char *name;
	bool (*is)(const struct ls_options *o);
	bool prepare;
	int (*run)(const struct mode_env *e);
} modes[] = {
	{ "check-setup", is_check_setup, false, mode_check_setup },
	{ "survey", is_survey, false, mode_survey },
	{ "cost", is_cost, false, mode_cost },
	{ "exporter", is_exporter, true, mode_exporter },
	{ "monitor", is_monitor, true, mode_monitor },
	{ "measurement", is_measurement, true, measure },
};

int main(int argc, char **argv)
{
	const char *sysfs = getenv("LATSCOPE_SYSFS");
	struct mode_env env = { .root = getenv("LATSCOPE_ROOT") };
	const struct ls_source *src;
	struct ls_heat_src heat;
	struct ls_sysinfo sys;
	struct ls_options o;
	struct ls_params *p = &o.p;
	char err[512] = "";
	size_t m;

	/*
	 * A closed stdout is an EPIPE where it is written, an end like any
	 * other: --apply-setup's changes are then set back.
	 */
	signal(SIGPIPE, SIG_IGN);
	ls_options_init(&o);
	switch (ls_parse_args(argc, argv, &o, err, sizeof(err))) {
	case LS_PARSE_HELP:
		ls_usage(stdout, &o);
		return LS_EXIT_OK;
	case LS_PARSE_VERSION:
		printf("latscope %s (ABI %u)\n", LS_VERSION, LATSCOPE_ABI_VERSION);
		return LS_EXIT_OK;
	case LS_PARSE_ERROR:
		/* A message that names its page already has its pointer. */
		fprintf(stderr, "latscope: %s%s\n", err,
			strstr(err, "--help=") ? "" : " (see latscope --help)");
		return LS_EXIT_USAGE;
	case LS_PARSE_RUN:
		break;
	}
	/* cyclictest's and rtla's habit: their -p 99 is a priority, here a 99 us period. */
	if (p->period_us < 100)
		fprintf(stderr, "latscope: -p %u: -p is the period in us; the priority is -P\n",
			p->period_us);
	/* What a latscope killed with --apply-setup left changed goes back first. */
	if (ls_setup_restore_left(env.root, o.restore_setup, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		if (o.restore_setup)
			return LS_EXIT_SETUP;
		err[0] = '\0';
	}
	if (o.restore_setup)
		return LS_EXIT_OK;
	if (ls_check_output(p->plot_path, p->force, err, sizeof(err)) ||
	    ls_check_output(p->json_path, p->force, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		return LS_EXIT_SETUP;
	}

	ls_sysinfo_read(&sys, ls_first_cpu(&p->cpus, 0));
	env.o = &o;
	env.sys = &sys;
	/* A run reads heat and clock each second; a monitor serving clients does not. */
	if (!is_monitor(&o)) {
		if (ls_heat_find(&heat, sysfs ? sysfs : "/sys", first_measured_cpu(p, &sys),
				 o.thermal_zone, err, sizeof(err))) {
			fprintf(stderr, "latscope: %s\n", err);
			return LS_EXIT_SETUP;
		}
		spare_measured(&o, &sys, &heat, sysfs ? sysfs : "/sys");
		env.heat = &heat;
	}
	for (m = 0; !modes[m].is(&o); m++)
		;	/* the last row, a measurement, always holds */
	src = ls_source_of(p);
	if (modes[m].prepare && src->prepare && src->prepare(p, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		return LS_EXIT_SETUP;
	}
	return modes[m].run(&env);
}
