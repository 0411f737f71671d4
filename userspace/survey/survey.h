/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, survey: one command that qualifies a board (--survey DIR).
 * A plan (plan.c, pure: the phases and their times from -T) run phase by
 * phase, each a child latscope whose files go into DIR (run.c), then the
 * profile: latscope-report on all of them. Below it: cost/ (its child
 * commands), run/ (signals), output/ (files written whole) and core/
 * (docs/design/layers.md, docs/guide/survey.md).
 */
#ifndef LATSCOPE_SURVEY_H
#define LATSCOPE_SURVEY_H

#include <signal.h>
#include <stdio.h>

#include "cost/cost.h"
#include "output/output.h"

/* The GPIO options a survey passes on ("--gpio-in=gpiochip0,24"), at most. */
#define LS_SURVEY_GPIO_ARGS	12
#define LS_SURVEY_GPIO_ARG_LEN	160

/* What the GPIO options add: the driver's GPIO runs, or latmon round trips. */
enum {
	LS_SURVEY_WITH_GPIO = 1 << 0,	/* -I (or --gpio-dt), no monitor */
	LS_SURVEY_WITH_LATMON = 1 << 1,	/* -z or -Z HOST, and its lines */
};

/* --survey and --survey-plan. */
struct ls_survey_params {
	const char *dir;		/* --survey DIR: a new directory, NULL: none */
	bool plan_only;			/* --survey-plan: print the plan, run nothing */
	unsigned int skip;		/* --survey-skip: LS_SKIP_* bits */
	bool resume;			/* --resume: carry on the survey in DIR */
	const char *root;		/* LATSCOPE_ROOT: the tests' /proc and /sys, NULL: / */
	char cpus[256];			/* -c/--cpus as a list for the phases, "": theirs */
	int first_cpu;			/* the first of them: the cost suite's CPU */
	unsigned int cost_scale;	/* --cost-scale given: in place of the plan's, 0: not */
	unsigned int cost_repeat;	/* --cost-repeat given: in place of the plan's, 0: not */
	int cost_min_run_ms;		/* --cost-min-run given: the cost suite's, -1: not */
	/* The GPIO options given (-I, -O, --pulse-out, -z...), for the GPIO phases. */
	char gpio_args[LS_SURVEY_GPIO_ARGS][LS_SURVEY_GPIO_ARG_LEN];
	int gpio_nr;
	unsigned int with;		/* LS_SURVEY_WITH_*: the phases they add */
};

/* -T without the option, and the least a timer phase and a survey take. */
#define LS_SURVEY_DEFAULT_S	3600ULL
#define LS_SURVEY_MIN_PHASE_S	10ULL
/* A survey this long or longer has a quiet user-context run for the EVT bound. */
#define LS_SURVEY_EVT_FROM_S	1200ULL
#define LS_SURVEY_MAX_PHASES	32
/* The longest --survey DIR: its files' names must fit PATH_MAX. */
#define LS_SURVEY_MAX_DIR	3800
/* The cost suite's --cost-repeat in a survey, unless given. */
#define LS_SURVEY_COST_REPEAT	3

enum ls_phase_kind {
	LS_PHASE_SETUP,			/* latscope --check-setup */
	LS_PHASE_TIMER,			/* a timer run: a context, a load */
	LS_PHASE_GPIO,			/* a GPIO run: the driver's thread (-k, -u), a load */
	LS_PHASE_LATMON,		/* a latmon round trip (-z): a load */
	LS_PHASE_COST,			/* latscope --cost, untimed */
};

/**
 * struct ls_phase - one step of a survey
 * @kind: what it runs
 * @name: its files' stem in the directory, "03-kernel-grinder"
 * @what: in words, for the plan and the progress line
 * @context: LATSCOPE_CTX_* of a timer or GPIO run
 * @stress: the load preset of a timed run or the cost suite's loaded
 *	pass, "none": quiet
 * @seconds: a timed run's length (timer, GPIO, latmon); 0: untimed (it
 *	takes what it takes)
 * @evt: the long quiet run the extreme-value bound needs (10 min or more)
 */
struct ls_phase {
	enum ls_phase_kind kind;
	char name[32];
	char what[64];
	int context;
	const char *stress;
	unsigned long long seconds;
	bool evt;
};

struct ls_survey_plan {
	unsigned long long total_s;	/* -T: the timer phases' seconds together */
	unsigned int cost_scale;	/* the cost suite's --cost-scale */
	unsigned int cost_repeat;	/* and its --cost-repeat */
	int cost_min_run_ms;		/* and its --cost-min-run, -1: the suite's own */
	int nr;
	struct ls_phase phase[LS_SURVEY_MAX_PHASES];
};

/* --survey-skip's words, as bits: a phase with any of them is left out. */
enum {
	LS_SKIP_SETUP = 1 << 0,
	LS_SKIP_COST = 1 << 1,
	LS_SKIP_USER = 1 << 2,
	LS_SKIP_KERNEL = 1 << 3,
	LS_SKIP_IRQ = 1 << 4,
	LS_SKIP_QUIET = 1 << 5,
	LS_SKIP_GRINDER = 1 << 6,
	LS_SKIP_NEIGHBOUR = 1 << 7,
	LS_SKIP_CLASSIC = 1 << 8,
	LS_SKIP_GPIO = 1 << 9,
	LS_SKIP_LATMON = 1 << 10,
	LS_SKIP_TIMER = 1 << 11,
};

/* plan.c */
int ls_survey_parse_skip(const char *list, unsigned int *skip, char *err, size_t errlen);
int ls_survey_plan(unsigned long long total_s, unsigned int skip, unsigned int with,
		   struct ls_survey_plan *plan, char *err, size_t errlen);
void ls_survey_plan_cost(struct ls_survey_plan *plan, const struct ls_survey_params *sp);
void ls_survey_print_plan(FILE *f, const struct ls_survey_plan *plan);
const char *ls_survey_duration(unsigned long long s, char *buf, size_t len);

/* A phase's outcome: for the progress lines and survey.txt, read back by --resume. */
struct ls_phase_outcome {
	bool ran;
	bool ok;
	bool interrupted;
	double max_us;			/* its RTS| maximum, < 0: none */
	char said[200];			/* "done", or why not */
};

/* system.c */
int ls_survey_system(FILE *f, const char *root);

/* resume.c */
int ls_survey_read_state(int dirfd, const struct ls_survey_plan *plan, const char *settings,
			 struct ls_phase_outcome *out, char *err, size_t errlen);
int ls_survey_set_aside(int dirfd, const char *name, char *err, size_t errlen);
int ls_survey_same_kernel(int dirfd, char *err, size_t errlen);

/* run.c */
struct ls_survey;

int ls_survey_open(const struct ls_params *p, const struct ls_survey_params *sp,
		   const struct ls_survey_plan *plan, const sigset_t *child_mask,
		   struct ls_survey **out);
void ls_survey_close(struct ls_survey *s);
int ls_survey_run(struct ls_survey *s);

#endif /* LATSCOPE_SURVEY_H */
