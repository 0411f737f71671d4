// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: what the cost suite (--cost) prints: one COST| line per
 * workload with its mean running time and spread plain and while measured,
 * and how much slower measured is; and the JSON document of it all.
 */
#include <math.h>
#include <stdio.h>

#include "cost/cost.h"
#include "output/output.h"

static const char *const variant_name[LS_COST_VARIANTS] = { "plain", "measured", "loaded" };

/* "0.612 s sd 0.004 (5 runs)", or why there is none. */
static void cell(char *buf, size_t len, const struct ls_cost_result *w, int v,
		 bool ran)
{
	const struct ls_cost_stat *st = &w->stat[v];

	if (!ran)
		snprintf(buf, len, "not run");
	else if (!st->n)
		snprintf(buf, len, "no run");
	else
		snprintf(buf, len, "%.3f s sd %.3f (%u run%s)", st->mean, st->stddev, st->n,
			 st->n == 1 ? "" : "s");
}

/* "+4.6 %", or "-" without both figures. */
static void percent(char *buf, size_t len, double change)
{
	if (isnan(change))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f %%", change);
}

void ls_cost_print(FILE *f, const struct ls_cost_report *r)
{
	const struct ls_params *p = r->params;
	char a[64], b[64], names[128], pct[16];
	int i, v;

	bool loaded = r->variant_ran[LS_COST_LOADED];

	fprintf(f, "COST| %-11s %-28s %-28s %-*s", "workload", "plain", "measured",
		loaded ? 8 : 0, "change");
	if (loaded)
		fprintf(f, " %-28s %s", "loaded", "change");
	fputc('\n', f);
	for (i = 0; i < r->nr; i++) {
		const struct ls_cost_result *w = &r->w[i];
		double change = ls_cost_change(&w->stat[LS_COST_PLAIN],
					       &w->stat[LS_COST_MEASURED]);

		if (w->skipped[0]) {
			fprintf(f, "COST| %-11s skipped: %s\n", w->name, w->skipped);
			continue;
		}
		cell(a, sizeof(a), w, LS_COST_PLAIN, r->variant_ran[LS_COST_PLAIN]);
		cell(b, sizeof(b), w, LS_COST_MEASURED, r->variant_ran[LS_COST_MEASURED]);
		percent(pct, sizeof(pct), change);
		fprintf(f, "COST| %-11s %-28s %-28s %-*s", w->name, a, b, loaded ? 8 : 0, pct);
		if (loaded) {
			cell(a, sizeof(a), w, LS_COST_LOADED, true);
			percent(pct, sizeof(pct), ls_cost_change(&w->stat[LS_COST_PLAIN],
								 &w->stat[LS_COST_LOADED]));
			fprintf(f, " %-28s %s", a, pct);
		}
		fputc('\n', f);
		for (v = 0; v < LS_COST_VARIANTS; v++) {
			if (w->failed[v][0])
				fprintf(f, "COST| %-11s FAILED %s: %s\n", w->name, variant_name[v],
					w->failed[v]);
			if (w->heat[v].throttled) {
				ls_throttle_names(w->heat[v].throttled, names, sizeof(names));
				fprintf(f, "COST| %-11s THROTTLED %s: %s\n", w->name,
					variant_name[v], names);
			}
		}
	}
	fprintf(f, "COST| measured: %s context on CPU%d, %u us period, priority %d%s%s\n",
		ls_run_context(p), r->measured_cpu, p->period_us, p->priority,
		r->latency_rts[0] ? "; its " : "", r->latency_rts[0] ? r->latency_rts : "");
	if (loaded)
		fprintf(f, "COST| loaded: while the load '%s' ran on CPU%s, nothing measured\n",
			r->load.name, r->load.cpus);
	if (r->interrupted)
		fprintf(f, "COST| interrupted: the figures are of the runs made before the signal\n");
}

/* One variant of a workload: its runs, their figures, its heat. */
static void json_variant(FILE *f, const struct ls_cost_report *r,
			 const struct ls_cost_result *w, int v)
{
	const struct ls_cost_stat *st = &w->stat[v];
	unsigned int i;

	if (!r->variant_ran[v] && v == LS_COST_LOADED) {
		fprintf(f, "      \"%s\": null,\n", variant_name[v]);
		return;
	}
	fprintf(f, "      \"%s\": {\n        \"runs\": [", variant_name[v]);
	for (i = 0; i < st->n; i++)
		fprintf(f, "%s%.9f", i ? ", " : "", w->t[v][i]);
	fputs("],\n", f);
	if (st->n)
		fprintf(f, "        \"mean\": %.9f, \"stddev\": %.9f, \"min\": %.9f, \"max\": %.9f,\n",
			st->mean, st->stddev, st->min, st->max);
	else
		fprintf(f, "        \"%s\": null, \"%s\": null, \"%s\": null, \"%s\": null,\n",
			"mean", "stddev", "min", "max");
	fputs("        \"failed\": ", f);
	ls_json_string_or_null(f, w->failed[v]);
	fputs(",\n        \"heat\": ", f);
	if (r->heat)
		ls_heat_json_value(f, r->heat, &w->heat[v], "          ");
	else
		fputs("null", f);
	fputs("\n      },\n", f);
}

static void json_percent(FILE *f, const char *key, double change, const char *end)
{
	if (isnan(change))
		fprintf(f, "      \"%s\": null%s\n", key, end);
	else
		fprintf(f, "      \"%s\": %.3f%s\n", key, change, end);
}

static void json_workload(FILE *f, const struct ls_cost_report *r,
			  const struct ls_cost_result *w, bool last)
{
	double change = ls_cost_change(&w->stat[LS_COST_PLAIN], &w->stat[LS_COST_MEASURED]);
	int v;

	fputs("    {\n", f);
	ls_json_key_string(f, "      ", "name", w->name, ",\n");
	ls_json_key_string(f, "      ", "what", w->what, ",\n");
	fputs("      \"skipped\": ", f);
	ls_json_string_or_null(f, w->skipped);
	fputs(",\n", f);
	ls_json_key_string(f, "      ", "check", w->check, ",\n");
	for (v = 0; v < LS_COST_VARIANTS; v++)
		json_variant(f, r, w, v);
	json_percent(f, "change_percent", change, ",");
	json_percent(f, "loaded_change_percent", !r->variant_ran[LS_COST_LOADED] ? NAN :
		     ls_cost_change(&w->stat[LS_COST_PLAIN], &w->stat[LS_COST_LOADED]), "");
	fprintf(f, "    }%s\n", last ? "" : ",");
}

/*
 * The suite as JSON: "kind": "cost", the system as a latency run's JSON
 * says it (so a report labels both alike), the settings, the measuring
 * run, and each workload's runs in seconds.
 */
int ls_cost_write_json(FILE *f, const struct ls_cost_report *r)
{
	const struct ls_params *p = r->params;
	int i;

	ls_json_head(f, "cost", p, r->started, r->ended, r->exit_code);
	fprintf(f, "  \"interrupted\": %s,\n", r->interrupted ? "true" : "false");
	ls_json_sysinfo(f, r->sys);
	fprintf(f, "  \"settings\": {\n    \"repeat\": %u,\n    \"scale_percent\": %u,\n",
		r->repeat, r->scale);
	fputs("    \"measured\": { ", f);
	ls_json_key_string(f, "", "context", ls_run_context(p), ", ");
	fprintf(f, "\"cpu\": %d, \"period_us\": %u, \"priority\": %d },\n", r->measured_cpu,
		p->period_us, p->priority);
	fputs("    \"load\": ", f);
	if (r->variant_ran[LS_COST_LOADED]) {
		int i;

		fputs("{ ", f);
		ls_json_key_string(f, "", "name", r->load.name, ", ");
		ls_json_key_string(f, "", "cpus", r->load.cpus, ", ");
		fputs("\"commands\": [", f);
		for (i = 0; i < r->load.ncmds; i++) {
			fputs(i ? ", " : "", f);
			ls_json_string(f, r->load.cmd[i]);
		}
		fputs("] }\n  },\n", f);
	} else {
		fputs("null\n  },\n", f);
	}
	fputs("  \"measuring_run\": {\n", f);
	fputs("    \"json\": ", f);
	ls_json_string_or_null(f, r->latency_json);
	fputs(",\n", f);
	ls_json_key_string(f, "    ", "rts", r->latency_rts, ",\n");
	fprintf(f, "    \"exit_code\": %d\n  },\n", r->latency_exit);
	fputs("  \"workloads\": [\n", f);
	for (i = 0; i < r->nr; i++)
		json_workload(f, r, &r->w[i], i + 1 == r->nr);
	fputs("  ]\n}\n", f);
	return ferror(f) ? -1 : 0;
}

static int write_json(FILE *f, const void *ctx)
{
	return ls_cost_write_json(f, ctx);
}

int ls_cost_write_file(const char *path, const struct ls_cost_report *r, char *err,
		       size_t errlen)
{
	return ls_write_other(path, write_json, r, err, errlen);
}

/* The --json file, rescued on standard output if it cannot be written. */
int ls_cost_write_files(const struct ls_cost_report *r)
{
	return ls_write_other_rescued(r->params->json_path, write_json, r);
}
