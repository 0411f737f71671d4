// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: what the cost suite (--cost) prints: one COST| line per
 * workload with its mean running time and spread plain and while measured,
 * and how much slower measured is, with its 95 % interval, or "no
 * difference at this precision" when that holds 0; and the JSON document
 * of it all.
 */
#include <math.h>
#include <stdio.h>

#include "cost/cost.h"
#include "output/output.h"

static const char *const variant_name[LS_COST_VARIANTS] = { "plain", "measured", "loaded" };

/*
 * "0.612 s sd 0.004 (5 runs)", "7.120 ms sd 0.031 (5 runs)", or why there
 * is none: a batch's time per run can be microseconds, and the unit the
 * mean's, so its figures keep three decimals that say something.
 */
static void cell(char *buf, size_t len, const struct ls_cost_result *w, int v,
		 bool ran)
{
	const struct ls_cost_stat *st = &w->stat[v];
	double scale = 1;
	const char *unit = "s";

	if (st->n && st->mean < 0.001) {
		scale = 1e6;
		unit = "us";
	} else if (st->n && st->mean < 1) {
		scale = 1e3;
		unit = "ms";
	}
	if (!ran)
		snprintf(buf, len, "not run");
	else if (!st->n)
		snprintf(buf, len, "no run");
	else
		snprintf(buf, len, "%.3f %s sd %.3f (%u run%s)", st->mean * scale, unit,
			 st->stddev * scale, st->n, st->n == 1 ? "" : "s");
}

/*
 * "+4.6 % [+3.1, +6.0]"; "no difference at this precision (±2.1 %)" when
 * the interval holds 0; "+4.6 % (no interval: 1 run)"; "-" without both.
 */
static void percent(char *buf, size_t len, const struct ls_cost_delta *d)
{
	if (isnan(d->pct))
		snprintf(buf, len, "-");
	else if (isnan(d->lo))
		snprintf(buf, len, "%+.1f %% (no interval: 1 run)", d->pct);
	else if (ls_cost_delta_differs(d))
		snprintf(buf, len, "%+.1f %% [%+.1f, %+.1f]", d->pct, d->lo, d->hi);
	else
		snprintf(buf, len, "no difference at this precision (±%.1f %%)",
			 (d->hi - d->lo) / 2);
}

/* @s padded to @width characters (not bytes: "±" is two). */
static void padded(FILE *f, const char *s, int width)
{
	int chars = 0;
	const char *c;

	for (c = s; *c; c++)
		chars += ((unsigned char)*c & 0xc0) != 0x80;
	fprintf(f, "%s%*s", s, width > chars ? width - chars : 0, "");
}

/* Each workload's batch, when one is more than a run: "queens-1 ×30, fsync ×2". */
static void batch_line(FILE *f, const struct ls_cost_report *r)
{
	const char *sep = "";
	int i;

	for (i = 0; i < r->nr; i++) {
		if (r->w[i].batch < 2)
			continue;
		if (!sep[0])
			fprintf(f, "COST| batches: each timing runs the work this often, to last %u ms (--cost-min-run); the times are of one run: ",
				r->min_run_ms);
		fprintf(f, "%s%s ×%u", sep, r->w[i].name, r->w[i].batch);
		sep = ", ";
	}
	if (sep[0])
		fputc('\n', f);
}

/* How many workloads' measured (or A/A) runs differ from their plain ones at 95 %. */
static int differing(const struct ls_cost_report *r, int *known)
{
	struct ls_cost_delta d;
	int i, n = 0;

	*known = 0;
	for (i = 0; i < r->nr; i++) {
		ls_cost_delta(&r->w[i].stat[LS_COST_PLAIN], &r->w[i].stat[LS_COST_MEASURED], &d);
		*known += !isnan(d.lo);
		n += ls_cost_delta_differs(&d);
	}
	return n;
}

void ls_cost_print(FILE *f, const struct ls_cost_report *r)
{
	const struct ls_params *p = r->params;
	char a[64], b[64], names[128], pct[64], prio[32];
	bool loaded = r->variant_ran[LS_COST_LOADED];
	struct ls_cost_delta d;
	int i, v, n, known;

	fprintf(f, "COST| %-11s %-31s %-31s ", "workload", "plain", r->aa ? "again" : "measured");
	padded(f, "change", loaded ? 44 : 0);
	if (loaded)
		fprintf(f, " %-31s %s", "loaded", "change");
	fputc('\n', f);
	for (i = 0; i < r->nr; i++) {
		const struct ls_cost_result *w = &r->w[i];

		if (w->skipped[0]) {
			fprintf(f, "COST| %-11s skipped: %s\n", w->name, w->skipped);
			continue;
		}
		cell(a, sizeof(a), w, LS_COST_PLAIN, r->variant_ran[LS_COST_PLAIN]);
		cell(b, sizeof(b), w, LS_COST_MEASURED, r->variant_ran[LS_COST_MEASURED]);
		ls_cost_delta(&w->stat[LS_COST_PLAIN], &w->stat[LS_COST_MEASURED], &d);
		percent(pct, sizeof(pct), &d);
		fprintf(f, "COST| %-11s %-31s %-31s ", w->name, a, b);
		padded(f, pct, loaded ? 44 : 0);
		if (loaded) {
			cell(a, sizeof(a), w, LS_COST_LOADED, true);
			ls_cost_delta(&w->stat[LS_COST_PLAIN], &w->stat[LS_COST_LOADED], &d);
			percent(pct, sizeof(pct), &d);
			fprintf(f, " %-31s %s", a, pct);
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
	batch_line(f, r);
	if (r->heat && r->heat->spared[0])
		fprintf(f, "COST| heat: not read, not to interrupt the measured CPU: %s\n",
			r->heat->spared);
	/* The irq context has no responder thread, so no priority. */
	if (ls_responder_priority(p))
		snprintf(prio, sizeof(prio), "priority %d", ls_responder_priority(p));
	else
		snprintf(prio, sizeof(prio), "no responder thread");
	n = differing(r, &known);
	if (r->aa)
		fprintf(f, "COST| A/A: the second pass of each round ran plain too, nothing measured: %d of %d workloads differ at 95 %% (noise; about 1 in 20 by chance)\n",
			n, known);
	else
		fprintf(f, "COST| measured: %s context on CPU%d, %u us period, %s, plain and measured alternating%s%s\n",
			ls_run_context(p), r->measured_cpu, p->period_us, prio,
			r->latency_rts[0] ? "; its first round's " : "",
			r->latency_rts[0] ? r->latency_rts : "");
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

/* "KEY_percent": the change, "KEY_ci95": its interval [lo, hi]; null each when unknown. */
static void json_delta(FILE *f, const char *key, const struct ls_cost_delta *d,
		       const char *end)
{
	if (isnan(d->pct))
		fprintf(f, "      \"%s_percent\": null,\n", key);
	else
		fprintf(f, "      \"%s_percent\": %.3f,\n", key, d->pct);
	if (isnan(d->lo))
		fprintf(f, "      \"%s_ci95\": null%s\n", key, end);
	else
		fprintf(f, "      \"%s_ci95\": [%.3f, %.3f]%s\n", key, d->lo, d->hi, end);
}

static void json_workload(FILE *f, const struct ls_cost_report *r,
			  const struct ls_cost_result *w, bool last)
{
	struct ls_cost_delta d = { NAN, NAN, NAN };
	int v;

	fputs("    {\n", f);
	ls_json_key_string(f, "      ", "name", w->name, ",\n");
	ls_json_key_string(f, "      ", "what", w->what, ",\n");
	fputs("      \"skipped\": ", f);
	ls_json_string_or_null(f, w->skipped);
	fputs(",\n", f);
	ls_json_key_string(f, "      ", "check", w->check, ",\n");
	fprintf(f, "      \"batch\": %u,\n      \"warm_up_s\": %.9f,\n", w->batch, w->warm_s);
	for (v = 0; v < LS_COST_VARIANTS; v++)
		json_variant(f, r, w, v);
	ls_cost_delta(&w->stat[LS_COST_PLAIN], &w->stat[LS_COST_MEASURED], &d);
	json_delta(f, "change", &d, ",");
	d = (struct ls_cost_delta){ NAN, NAN, NAN };
	if (r->variant_ran[LS_COST_LOADED])
		ls_cost_delta(&w->stat[LS_COST_PLAIN], &w->stat[LS_COST_LOADED], &d);
	json_delta(f, "loaded_change", &d, "");
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
	fprintf(f, "    \"min_run_ms\": %u,\n    \"order\": \"alternating\",\n    \"aa\": %s,\n",
		r->min_run_ms, r->aa ? "true" : "false");
	fputs("    \"measured\": { ", f);
	ls_json_key_string(f, "", "context", ls_run_context(p), ", ");
	fprintf(f, "\"cpu\": %d, \"period_us\": %u, \"priority\": %d },\n", r->measured_cpu,
		p->period_us, ls_responder_priority(p));
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
