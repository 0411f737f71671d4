// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the setup verdict as --check-setup prints it (a SET| line
 * per factor: verdict, what this board has, the fix), as a run's summary
 * sums it up (one SET| line), in the plot header and in the JSON
 * ("setup"); and the extreme-value estimate latscope-evt made of the run
 * (EVT| line, "evt").
 */
#include <string.h>

#include "setup/setup.h"
#include "output/output.h"

/* "preemption, isolation, governor": the factors of one verdict. */
static void names_of(const struct ls_setup *s, enum ls_verdict v, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < s->n && at < len; i++)
		if (s->f[i].verdict == v)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					       s->f[i].name);
}

static unsigned int count_of(const struct ls_setup *s, enum ls_verdict v)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->f[i].verdict == v;
	return n;
}

/* --check-setup: each factor, then the count. */
void ls_setup_print(FILE *f, const struct ls_setup *s)
{
	char names[512];
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct ls_setup_factor *x = &s->f[i];

		fprintf(f, "SET| %-13s %-39s %s%s%s\n", ls_verdict_name(x->verdict), x->title,
			x->value, x->fix[0] ? " | fix: " : "", x->fix);
	}
	if (s->applied[0])
		fprintf(f, "SET| applied for the run: %s\n", s->applied);
	names_of(s, LS_VERDICT_COSTS, names, sizeof(names));
	fprintf(f, "SET| %u of %u factors cost latency%s%s", s->costs, s->n,
		s->costs ? ": " : "", names);
	names_of(s, LS_VERDICT_UNKNOWN, names, sizeof(names));
	if (names[0])
		fprintf(f, "; %u unknown: %s", count_of(s, LS_VERDICT_UNKNOWN), names);
	fputs("\n", f);
}

/* A run's summary: one line, the details are --check-setup's. */
void ls_setup_print_summary(FILE *f, const struct ls_report *r)
{
	const struct ls_setup *s = r->setup;
	char names[512];

	if (!s)
		return;
	names_of(s, LS_VERDICT_COSTS, names, sizeof(names));
	if (s->costs)
		fprintf(f, "SET| setup: %u of %u factors cost latency (%s): latscope --check-setup says how to fix them\n",
			s->costs, s->n, names);
	else
		fprintf(f, "SET| setup: none of %u factors costs latency\n", s->n);
	if (s->applied[0])
		fprintf(f, "SET| applied for the run and set back: %s\n", s->applied);
}

void ls_setup_write_plot(FILE *f, const struct ls_report *r)
{
	const struct ls_setup *s = r->setup;
	unsigned int i;

	if (!s)
		return;
	fprintf(f, "# setup: %u of %u factors cost latency\n", s->costs, s->n);
	for (i = 0; i < s->n; i++)
		fprintf(f, "# setup %s: %s: %s\n", s->f[i].name,
			ls_verdict_name(s->f[i].verdict), s->f[i].value);
	if (s->applied[0])
		fprintf(f, "# setup applied for the run: %s\n", s->applied);
}

void ls_setup_write_json(FILE *f, const struct ls_report *r)
{
	const struct ls_setup *s = r->setup;
	unsigned int i;

	if (!s)
		return;
	fprintf(f, "  \"setup\": {\n    \"costs\": %u,\n    \"factors\": %u,\n", s->costs, s->n);
	ls_json_key_string(f, "    ", "applied", s->applied, ",\n");
	fputs("    \"checks\": [", f);
	for (i = 0; i < s->n; i++) {
		const struct ls_setup_factor *x = &s->f[i];

		fprintf(f, "%s\n      { ", i ? "," : "");
		ls_json_key_string(f, "", "name", x->name, ", ");
		ls_json_key_string(f, "", "title", x->title, ", ");
		ls_json_key_string(f, "", "verdict", ls_verdict_name(x->verdict), ", ");
		ls_json_key_string(f, "", "value", x->value, ", ");
		ls_json_key_string(f, "", "fix", x->fix, " }");
	}
	fputs("\n    ]\n  },\n", f);
}
