// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI, survey: the plan, from -T alone (docs/guide/survey.md).
 *
 * The setup verdict first. Then the timer runs: each context (user,
 * kernel, irq) quiet and under each load preset (grinder, neighbour,
 * classic), twelve runs sharing -T evenly. A survey of LS_SURVEY_EVT_FROM_S
 * (20 minutes) or more gives half of -T to one quiet user-context run,
 * first, while the board is still cool: long enough (10 minutes at
 * least) for the extreme-value bound, which shorter runs do not get; it
 * stands for the short quiet user run. Then the cost suite, untimed:
 * 10 % of its work below an hour, all of it from an hour on, its loaded
 * pass under grinder. GPIO lines given add the driver's GPIO runs (kernel
 * and user thread) under each load; a latmon monitor given adds its round
 * trip under each load instead; they share -T with the timer runs. Pure:
 * no file, no clock.
 */
#include <stdio.h>
#include <string.h>

#include "survey/survey.h"

static const struct {
	const char *name;
	unsigned int skip;
} loads[] = {
	{ "none", LS_SKIP_QUIET },
	{ "grinder", LS_SKIP_GRINDER },
	{ "neighbour", LS_SKIP_NEIGHBOUR },
	{ "classic", LS_SKIP_CLASSIC },
};

static const struct {
	int ctx;
	const char *name;
	unsigned int skip;
} contexts[] = {
	{ LATSCOPE_CTX_USER, "user", LS_SKIP_USER },
	{ LATSCOPE_CTX_KERNEL, "kernel", LS_SKIP_KERNEL },
	{ LATSCOPE_CTX_IRQ, "irq", LS_SKIP_IRQ },
};

static const struct {
	const char *word;
	unsigned int bit;
} skip_words[] = {
	{ "setup", LS_SKIP_SETUP }, { "cost", LS_SKIP_COST }, { "user", LS_SKIP_USER },
	{ "kernel", LS_SKIP_KERNEL }, { "irq", LS_SKIP_IRQ }, { "quiet", LS_SKIP_QUIET },
	{ "grinder", LS_SKIP_GRINDER }, { "neighbour", LS_SKIP_NEIGHBOUR },
	{ "classic", LS_SKIP_CLASSIC }, { "gpio", LS_SKIP_GPIO }, { "latmon", LS_SKIP_LATMON },
	{ "timer", LS_SKIP_TIMER },
};

/**
 * ls_survey_parse_skip() - --survey-skip's list, "cost,classic", as LS_SKIP_* bits
 * @list: words separated by commas
 * @skip: the bits, set on success only
 * @err: the word that is none of them, and what they are
 * @errlen: its size
 *
 * Return: 0, or -1.
 */
int ls_survey_parse_skip(const char *list, unsigned int *skip, char *err, size_t errlen)
{
	unsigned int bits = 0;
	const char *w = list;
	size_t n, k;

	do {
		n = strcspn(w, ",");
		for (k = 0; k < ARRAY_SIZE(skip_words); k++)
			if (n == strlen(skip_words[k].word) && !strncmp(w, skip_words[k].word, n))
				break;
		if (k == ARRAY_SIZE(skip_words)) {
			ls_fail(err, errlen, "--survey-skip '%.*s': not a phase; the words are setup, cost, user, kernel, irq, quiet, grinder, neighbour, classic, timer, gpio and latmon",
				(int)(n > 40 ? 40 : n), w);
			return -1;
		}
		bits |= skip_words[k].bit;
		w += n;
	} while (*w++);
	*skip = bits;
	return 0;
}

/* "1 h", "30 min", "2 min 30 s", "50 s". */
const char *ls_survey_duration(unsigned long long s, char *buf, size_t len)
{
	if (s >= 3600 && !(s % 3600))
		snprintf(buf, len, "%llu h", s / 3600);
	else if (s >= 60 && !(s % 60))
		snprintf(buf, len, "%llu min", s / 60);
	else if (s >= 60)
		snprintf(buf, len, "%llu min %llu s", s / 60, s % 60);
	else
		snprintf(buf, len, "%llu s", s);
	return buf;
}

static struct ls_phase *add(struct ls_survey_plan *plan, enum ls_phase_kind kind,
			    const char *stem, const char *what)
{
	struct ls_phase *ph = &plan->phase[plan->nr];

	memset(ph, 0, sizeof(*ph));
	ph->kind = kind;
	ph->stress = "none";
	snprintf(ph->name, sizeof(ph->name), "%02d-%s", plan->nr + 1, stem);
	snprintf(ph->what, sizeof(ph->what), "%s", what);
	plan->nr++;
	return ph;
}

static void add_timer(struct ls_survey_plan *plan, size_t c, size_t l,
		      unsigned long long seconds, bool evt)
{
	char stem[32], what[64];
	struct ls_phase *ph;

	snprintf(stem, sizeof(stem), "%s-%s", contexts[c].name, l ? loads[l].name : "quiet");
	snprintf(what, sizeof(what), "%s context, %s%s", contexts[c].name,
		 l ? loads[l].name : "quiet", evt ? ", for the EVT bound" : "");
	ph = add(plan, LS_PHASE_TIMER, stem, what);
	ph->context = contexts[c].ctx;
	ph->stress = loads[l].name;
	ph->seconds = seconds;
	ph->evt = evt;
}

static bool kept(unsigned int skip, size_t c, size_t l)
{
	return !(skip & (contexts[c].skip | loads[l].skip));
}

/* The timer runs: "timer" leaves them out, and the GPIO or latmon runs alone. */
static bool timer_kept(unsigned int skip, size_t c, size_t l)
{
	return !(skip & LS_SKIP_TIMER) && kept(skip, c, l);
}

/* The driver's GPIO runs: its kernel and user threads answer (no irq context). */
static bool gpio_kept(unsigned int skip, unsigned int with, size_t c, size_t l)
{
	return with & LS_SURVEY_WITH_GPIO && !(skip & LS_SKIP_GPIO) &&
	       contexts[c].ctx != LATSCOPE_CTX_IRQ && kept(skip, c, l);
}

static bool latmon_kept(unsigned int skip, unsigned int with, size_t l)
{
	return with & LS_SURVEY_WITH_LATMON && !(skip & (LS_SKIP_LATMON | loads[l].skip));
}

static void add_gpio(struct ls_survey_plan *plan, size_t c, size_t l, unsigned long long seconds)
{
	char stem[32], what[64];
	struct ls_phase *ph;

	snprintf(stem, sizeof(stem), "gpio-%s-%s", contexts[c].name,
		 l ? loads[l].name : "quiet");
	snprintf(what, sizeof(what), "GPIO, %s thread, %s", contexts[c].name,
		 l ? loads[l].name : "quiet");
	ph = add(plan, LS_PHASE_GPIO, stem, what);
	ph->context = contexts[c].ctx;
	ph->stress = loads[l].name;
	ph->seconds = seconds;
}

static void add_latmon(struct ls_survey_plan *plan, size_t l, unsigned long long seconds)
{
	char stem[32], what[64];
	struct ls_phase *ph;

	snprintf(stem, sizeof(stem), "latmon-%s", l ? loads[l].name : "quiet");
	snprintf(what, sizeof(what), "latmon round trip, %s", l ? loads[l].name : "quiet");
	ph = add(plan, LS_PHASE_LATMON, stem, what);
	ph->stress = loads[l].name;
	ph->seconds = seconds;
}

/**
 * ls_survey_plan() - the phases of a survey of @total_s seconds of timer runs
 * @total_s: -T, at least LS_SURVEY_MIN_PHASE_S for each timer run
 * @skip: --survey-skip's LS_SKIP_* bits: the phases left out
 * @with: LS_SURVEY_WITH_* bits: the GPIO or latmon runs the options add
 * @plan: filled
 * @err: why not, naming the value
 * @errlen: its size
 *
 * Return: 0, or -1 if @total_s is too short or @skip leaves no timer run.
 */
int ls_survey_plan(unsigned long long total_s, unsigned int skip, unsigned int with,
		   struct ls_survey_plan *plan, char *err, size_t errlen)
{
	unsigned long long evt_s, each, rest;
	unsigned int runs = 0, shared;
	size_t c, l;
	char t[32], u[32];

	memset(plan, 0, sizeof(*plan));
	for (l = 0; l < ARRAY_SIZE(loads); l++) {
		for (c = 0; c < ARRAY_SIZE(contexts); c++)
			runs += timer_kept(skip, c, l) + gpio_kept(skip, with, c, l);
		runs += latmon_kept(skip, with, l);
	}
	if (!runs) {
		ls_fail(err, errlen, "--survey-skip leaves no timer run: keep a context (user, kernel, irq) and a load (quiet, grinder, neighbour, classic)");
		return -1;
	}
	if (total_s < runs * LS_SURVEY_MIN_PHASE_S) {
		ls_fail(err, errlen, "--survey -T %s: a survey of %u timed runs needs at least %s (%llu s each)",
			ls_survey_duration(total_s, t, sizeof(t)), runs,
			ls_survey_duration(runs * LS_SURVEY_MIN_PHASE_S, u, sizeof(u)),
			LS_SURVEY_MIN_PHASE_S);
		return -1;
	}
	plan->total_s = total_s;
	plan->cost_scale = total_s >= 3600 ? 100 : 10;
	plan->cost_repeat = LS_SURVEY_COST_REPEAT;
	plan->cost_min_run_ms = -1;
	/* The long quiet user run stands for the short one; it needs both kept. */
	evt_s = total_s >= LS_SURVEY_EVT_FROM_S && timer_kept(skip, 0, 0) ? total_s / 2 : 0;
	shared = runs - (evt_s ? 1 : 0);
	each = shared ? (total_s - evt_s) / shared : 0;
	rest = total_s - evt_s - each * shared;
	if (!(skip & LS_SKIP_SETUP))
		add(plan, LS_PHASE_SETUP, "setup", "the setup verdict");
	if (evt_s) {
		add_timer(plan, 0, 0, evt_s + rest, true);
		rest = 0;
	}
	for (l = 0; l < ARRAY_SIZE(loads); l++)
		for (c = 0; c < ARRAY_SIZE(contexts); c++)
			if (timer_kept(skip, c, l) && (l || c || !evt_s)) {
				add_timer(plan, c, l, each + rest, false);
				rest = 0;
			}
	for (l = 0; l < ARRAY_SIZE(loads); l++)
		for (c = 0; c < ARRAY_SIZE(contexts); c++)
			if (gpio_kept(skip, with, c, l)) {
				add_gpio(plan, c, l, each + rest);
				rest = 0;
			}
	for (l = 0; l < ARRAY_SIZE(loads); l++)
		if (latmon_kept(skip, with, l)) {
			add_latmon(plan, l, each + rest);
			rest = 0;
		}
	if (!(skip & LS_SKIP_COST))
		add(plan, LS_PHASE_COST, "cost", "the cost suite")->stress =
			skip & LS_SKIP_GRINDER ? "none" : "grinder";
	return 0;
}

/*
 * --cost-scale, --cost-repeat and --cost-min-run given with --survey: the
 * cost suite's, in place of the plan's (a short test survey, or a board
 * whose suite is slow).
 */
void ls_survey_plan_cost(struct ls_survey_plan *plan, const struct ls_survey_params *sp)
{
	if (sp->cost_scale)
		plan->cost_scale = sp->cost_scale;
	if (sp->cost_repeat)
		plan->cost_repeat = sp->cost_repeat;
	if (sp->cost_min_run_ms >= 0)
		plan->cost_min_run_ms = sp->cost_min_run_ms;
}

/* The cost suite's line of the plan: its work, rounds, shortest timing, load. */
static void print_cost(FILE *f, const struct ls_survey_plan *plan, const struct ls_phase *ph)
{
	fprintf(f, "  %-24s %s: %u %% of its work, %u round%s", ph->name, ph->what,
		plan->cost_scale, plan->cost_repeat, plan->cost_repeat == 1 ? "" : "s");
	if (plan->cost_min_run_ms >= 0)
		fprintf(f, ", timings of %d ms at least", plan->cost_min_run_ms);
	if (strcmp(ph->stress, "none"))
		fprintf(f, ", then under %s", ph->stress);
	fprintf(f, "; untimed\n");
}

/* The plan, one line a phase: what --survey-plan prints, and a survey first. */
void ls_survey_print_plan(FILE *f, const struct ls_survey_plan *plan)
{
	bool evt = false;
	char t[32];
	int i;

	fprintf(f, "SURVEY| plan for -T %s of timer runs; the untimed phases and the profile come on top:\n",
		ls_survey_duration(plan->total_s, t, sizeof(t)));
	for (i = 0; i < plan->nr; i++) {
		const struct ls_phase *ph = &plan->phase[i];

		evt |= ph->evt;
		if (ph->kind == LS_PHASE_COST)
			print_cost(f, plan, ph);
		else if (ph->seconds)
			fprintf(f, "  %-24s %s, %s\n", ph->name, ph->what,
				ls_survey_duration(ph->seconds, t, sizeof(t)));
		else
			fprintf(f, "  %-24s %s\n", ph->name, ph->what);
	}
	if (!evt)
		fprintf(f, "  no EVT bound: it needs a quiet user-context run of 10 min; -T %s or more gives one, unless user or quiet is skipped\n",
			ls_survey_duration(LS_SURVEY_EVT_FROM_S, t, sizeof(t)));
	fprintf(f, "  then the profile: latscope-report of the directory, profile/profile.md and .html\n");
}
