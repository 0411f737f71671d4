// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: --help, by mode, generated from two tables. rows.c has
 * one line per option a page shows: its page, its long name as the
 * parser's table has it (options.c, which gives the letter), its value
 * and its description; pages.c has one row per mode: its name, its line
 * on the first page, and the prose before and after its options. The
 * first page has the timer contexts and the options every run takes,
 * then one line per mode; each mode's page is complete for it, and
 * --help=all is every page. --help after a mode's options shows that
 * mode's page (latscope --monitor --help). Every option row is aligned
 * at one column (DESC_COL), none is wider than 79; tests/docs/run.sh
 * checks both and that every row names an option of the parser.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* Where descriptions start, 0-based: column 27. */
#define DESC_COL	26

static const char main_head[] =
"usage: latscope [options]: how late this system answers timer or GPIO events\n"
"\n"
"Who answers (one of them):\n";

static const char main_tail[] =
"Exit status: 0 ok, 1 device or file failed, 2 usage, 3 setup (device, CPU,\n"
"file), 4 no monitor, 5 lost, 6 a setup factor costs, 102 -A, 103 weird, 104 -b.\n";

/* Prints @text's lines, each from column DESC_COL + 1. */
static void text_at_column(FILE *f, const char *text, int used)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		fprintf(f, "%*s%.*s\n", used < DESC_COL ? DESC_COL - used : 0, "", (int)n, text);
		text += n + (text[n] == '\n');
		used = 0;
	}
}

/* @page's option rows: "  -p --period=<us>" then the text at DESC_COL; how many. */
static int page_rows(FILE *f, const char *page)
{
	int n = 0;
	size_t i;

	for (i = 0; ls_help_row(i); i++) {
		const struct ls_help_row *r = ls_help_row(i);
		char label[80];
		char letter = 0;
		int used;

		if (strcmp(r->page, page))
			continue;
		n++;
		if (!r->name)
			snprintf(label, sizeof(label), "  %s", r->value);
		else if (ls_option_letter(r->name, &letter) && letter)
			snprintf(label, sizeof(label), "  -%c --%s%s", letter, r->name, r->value);
		else
			snprintf(label, sizeof(label), "     --%s%s", r->name, r->value);
		used = fprintf(f, "%s", label);
		if (used >= DESC_COL - 1) {	/* no room for two spaces: its own line */
			fputc('\n', f);
			used = 0;
		}
		text_at_column(f, r->text, used);
	}
	return n;
}

static void main_page(FILE *f)
{
	size_t i;

	fputs(main_head, f);
	page_rows(f, "who");
	fputs("\nEvery run:\n", f);
	page_rows(f, "run");
	fputs("\nModes, each with its page:\n", f);
	for (i = 0; ls_help_page(i); i++) {
		int used = fprintf(f, "  --help=%s", ls_help_page(i)->name);

		text_at_column(f, ls_help_page(i)->summary, used);
	}
	fputc('\n', f);
	fputs(main_tail, f);
}

static void mode_page(FILE *f, const struct ls_help_page *page)
{
	fputs(page->intro, f);
	fputc('\n', f);
	if (page_rows(f, page->name))
		fputc('\n', f);
	fputs(page->outro, f);
}

/*
 * The page --help shows after a mode's options, when it names none: the
 * first of these modes the options ask for.
 */
static const char *page_of(const struct ls_options *o)
{
	static const char *const order[] = {
		"monitor", "cost", "serve", "setup", "gpiod", "latmon", "gpio",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (ls_help_page_named(order[i])->holds(o))
			return order[i];
	return NULL;
}

void ls_usage(FILE *f, const struct ls_options *o)
{
	const char *topic = o && o->help_topic ? o->help_topic : o ? page_of(o) : NULL;
	bool all = topic && !strcmp(topic, "all");
	size_t i;

	if (!topic || all)
		main_page(f);
	for (i = 0; ls_help_page(i); i++) {
		if (!all && !(topic && !strcmp(topic, ls_help_page(i)->name)))
			continue;
		if (all)
			fputc('\n', f);
		mode_page(f, ls_help_page(i));
	}
}
