/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, cli: the command line into struct ls_options (options.c),
 * and main(), which strings the layers together and is the only place
 * that exits. The top layer: it may use every layer below
 * (docs/design/layers.md).
 */
#ifndef LATSCOPE_CLI_H
#define LATSCOPE_CLI_H

#include "core/core.h"
#include "cost/cost.h"
#include "latmon/latmon.h"
#include "serve/serve.h"
#include "survey/survey.h"

enum ls_parse {
	LS_PARSE_RUN,
	LS_PARSE_HELP,
	LS_PARSE_VERSION,
	LS_PARSE_ERROR,
};

/*
 * The command line: what every run is asked (@p, which the layers below
 * read), each mode's own options, which only its folder takes, and how
 * the line gave them, which only the parser and --help read.
 */
struct ls_options {
	struct ls_params p;
	struct ls_survey_params survey;	/* --survey, --survey-plan: survey/ */
	struct ls_cost_params cost;	/* --cost, --cost-*: cost/ */
	struct ls_serve_params serve;	/* --serve, --textfile, ...: serve/ */
	struct ls_door_params door;	/* --listen, --allow, ...: latmon/'s monitor */
	bool check_setup;		/* --check-setup: the setup verdict, no run */
	bool apply_setup;		/* --apply-setup: fix what can be, for the run */
	bool restore_setup;		/* --restore-setup: set back a dead run's changes */
	int thermal_zone;		/* --thermal-zone N, LS_ZONE_AUTO or _NONE */
	bool context_given;		/* -i, -k, -u or --gpiod: else by the mode */
	bool inband;			/* -z (not -Z): latmus's in-band test */
	bool priority_given;		/* -P: refused where nothing uses it */
	const char *cpus_opt;		/* -c or --cpus: which one set p.cpus */
	const char *help_topic;		/* --help=<mode>, NULL: by the options */
};

/* options.c: the defaults (latmus's), then the command line over them. */
void ls_params_init(struct ls_params *p);
void ls_options_init(struct ls_options *o);
enum ls_parse ls_parse_args(int argc, char **argv, struct ls_options *o,
			    char *err, size_t errlen);
int ls_parse_duration(const char *s, unsigned long long *secs);
/* The parser's option @name: true, its letter in *@letter (0: none); false if none such. */
bool ls_option_letter(const char *name, char *letter);

/* pages.c: one row per mode's --help page. */
struct ls_help_page {
	const char *name;	/* --help=NAME */
	const char *summary;	/* its line on the first page */
	const char *intro;	/* the prose before its options */
	const char *outro;	/* and after them: examples */
	const char *asked;	/* how a run asks for the mode: "--cost" */
	/* Whether a run of @o is of the mode; NULL: none is (report). */
	bool (*holds)(const struct ls_options *o);
};

const struct ls_help_page *ls_help_page(size_t i);	/* NULL past the last */
const struct ls_help_page *ls_help_page_named(const char *name);
bool ls_help_topic(const char *topic);
void ls_help_pages(char *buf, size_t len);

/*
 * rows.c: one row per line of an option on a --help page: @page, @name
 * the long option (NULL: @value is a label of its own, "-I, -O, --ack"),
 * @value what follows it ("=<us>"), @text its lines split by '\n'.
 */
struct ls_help_row {
	const char *page;
	const char *name;
	const char *value;
	const char *text;
};

const struct ls_help_row *ls_help_row(size_t i);	/* NULL past the last */

/* help.c: --help's pages printed, their options' rows from its table. */
void ls_usage(FILE *f, const struct ls_options *o);

#endif /* LATSCOPE_CLI_H */
