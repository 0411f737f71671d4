// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the whole result as JSON, laid out like rt-tests'
 * (file_version, sysinfo, num_threads, thread.N with histogram, cycles,
 * min, max, avg, cpu; latencies in microseconds) so that tools reading
 * cyclictest's JSON read ours. latscope's additions sit beside those keys.
 */
#include <math.h>
#include <time.h>

#include "output/output.h"

void ls_json_time(FILE *f, const char *key, time_t t)
{
	char buf[64];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	ls_json_key_string(f, "  ", key, buf, ",\n");
}

/*
 * What every JSON document of latscope's begins with: "{", its version,
 * its kind where it is not a run's (@kind NULL), the command line, the
 * program's version, when it started and ended, and its exit code.
 */
void ls_json_head(FILE *f, const char *kind, const struct ls_params *p, time_t started,
		  time_t ended, int exit_code)
{
	fputs("{\n  \"file_version\": 1,\n", f);
	if (kind)
		ls_json_key_string(f, "  ", "kind", kind, ",\n");
	ls_json_key_string(f, "  ", "cmdline", p->cmdline, ",\n");
	ls_json_key_string(f, "  ", "latscope_version", LS_VERSION, ",\n");
	ls_json_time(f, "start_time", started);
	ls_json_time(f, "end_time", ended);
	fprintf(f, "  \"return_code\": %d,\n", exit_code);
}

/* "sysinfo": the system, as every JSON document of latscope's says it. */
void ls_json_sysinfo(FILE *f, const struct ls_sysinfo *si)
{
	fputs("  \"sysinfo\": {\n", f);
	ls_json_key_string(f, "    ", "sysname", si->sysname, ",\n");
	ls_json_key_string(f, "    ", "nodename", si->nodename, ",\n");
	ls_json_key_string(f, "    ", "release", si->release, ",\n");
	ls_json_key_string(f, "    ", "version", si->version, ",\n");
	ls_json_key_string(f, "    ", "machine", si->machine, ",\n");
	fprintf(f, "    \"realtime\": %d,\n", si->realtime ? 1 : 0);
	ls_json_key_string(f, "    ", "preemption", si->preemption, ",\n");
	ls_json_key_string(f, "    ", "clocksource", si->clocksource, ",\n");
	ls_json_key_string(f, "    ", "governor", si->governor, ",\n");
	ls_json_key_string(f, "    ", "cmdline", si->proc_cmdline, "\n");
	fputs("  },\n", f);
}

/* The non-empty tail buckets: [from, to, count], in microseconds. */
static void json_tail(FILE *f, const char *indent, const struct ls_hist *h)
{
	double span = (double)h->nr_cells * h->cell_ns;
	const char *sep = "";
	unsigned int i;

	fprintf(f, "%s\"tail\": [", indent);
	for (i = 0; i < LATSCOPE_TAIL_BUCKETS; i++) {
		if (!h->tail[i])
			continue;
		fprintf(f, "%s[%.3f, %.3f, %llu]", sep,
			ls_us(fmax((double)latscope_tail_lo(i), span)),
			ls_us((double)latscope_tail_lo(i + 1)),
			(unsigned long long)h->tail[i]);
		sep = ", ";
	}
	fputs("],\n", f);
}

/* Latency figures of one statistics block, in microseconds. */
static void json_stats(FILE *f, const char *indent, const struct latscope_stats *st,
		       const struct ls_hist *h, bool has_stddev)
{
	struct ls_summary sum;
	int i;

	ls_summarize(st, h, &sum);
	sum.has_stddev = has_stddev;
	fprintf(f, "%s\"samples\": %llu,\n", indent, (unsigned long long)sum.samples);
	fprintf(f, "%s\"min\": %.3f,\n%s\"avg\": %.3f,\n%s\"max\": %.3f,\n",
		indent, ls_us(sum.min), indent, ls_us(sum.avg), indent, ls_us(sum.max));
	if (sum.has_stddev)
		fprintf(f, "%s\"stddev\": %.3f,\n", indent, ls_us(sum.stddev));
	else
		fprintf(f, "%s\"stddev\": null,\n", indent);
	if (h) {
		fprintf(f, "%s\"percentiles\": {", indent);
		for (i = 0; i < LS_NR_PCT; i++)
			fprintf(f, "%s\"%g\": %.3f", i ? ", " : " ", ls_percentiles[i],
				ls_us(sum.pct[i].hi));
		fputs(" },\n", f);
		fprintf(f, "%s\"percentile_ranges\": {", indent);
		for (i = 0; i < LS_NR_PCT; i++)
			fprintf(f, "%s\"%g\": [%.3f, %.3f]", i ? ", " : " ", ls_percentiles[i],
				ls_us(sum.pct[i].lo), ls_us(sum.pct[i].hi));
		fputs(" },\n", f);
		if (h->tail)
			json_tail(f, indent, h);
	}
	fprintf(f, "%s\"underflow\": %llu,\n%s\"overflow\": %llu\n", indent,
		(unsigned long long)st->underflow, indent,
		(unsigned long long)st->overflow);
}

static void json_histogram(FILE *f, const __u64 *cells, unsigned int n)
{
	unsigned int c;
	bool first = true;

	fputs("      \"histogram\": {", f);
	for (c = 0; c < n; c++) {
		if (!cells[c])
			continue;
		fprintf(f, "%s\"%u\": %llu", first ? " " : ", ", c,
			(unsigned long long)cells[c]);
		first = false;
	}
	fputs(" },\n", f);
}

static void json_thread(FILE *f, const struct ls_report *r, int i)
{
	const struct ls_cpu_result *c = &r->cpu[i];
	const struct latscope_result *res = &c->res;
	unsigned int n = res->hist_cells;
	struct ls_summary sum;
	struct ls_hist h;

	ls_cpu_hist(c, false, &h);
	ls_summarize(&res->latency, &h, &sum);
	fprintf(f, "    \"%d\": {\n", i);
	json_histogram(f, c->cells, n);
	/* rt-tests' own keys: cycles, min, max, avg (us), cpu, node. */
	fprintf(f, "      \"cycles\": %llu,\n", (unsigned long long)sum.samples);
	fprintf(f, "      \"min\": %.3f,\n      \"max\": %.3f,\n      \"avg\": %.3f,\n",
		ls_us(sum.min), ls_us(sum.max), ls_us(sum.avg));
	fprintf(f, "      \"cpu\": %d,\n      \"node\": 0,\n", c->cpu);
	fprintf(f, "      \"isolated\": %s,\n", c->isolated ? "true" : "false");
	fprintf(f, "      \"events\": %llu,\n      \"overruns\": %llu,\n",
		(unsigned long long)res->events, (unsigned long long)res->overruns);
	fprintf(f, "      \"bulk_dropped\": %llu,\n", (unsigned long long)res->bulk_dropped);
	fprintf(f, "      \"cpu_offline\": %s,\n",
		res->flags & LATSCOPE_RESULT_CPU_OFFLINE ? "true" : "false");
	fprintf(f, "      \"released\": %s,\n",
		res->flags & LATSCOPE_RESULT_RELEASED ? "true" : "false");
	fprintf(f, "      \"latency\": {\n");
	json_stats(f, "        ", &res->latency, &h, true);
	fprintf(f, "      }");
	if (res->hist_count > 1) {
		fprintf(f, ",\n      \"irq\": {\n");
		ls_cpu_hist(c, true, &h);
		json_stats(f, "        ", &res->irq, &h, true);
		fprintf(f, "      }");
	}
	fprintf(f, "\n    }%s\n", i + 1 < r->nr_cpus ? "," : "");
}

/*
 * The one-board monitor's session, whose figures are the total: where it
 * ran, what it could not time, and its histogram (the total's tail and
 * underflow are the total's own).
 */
static void json_monitor(FILE *f, const struct ls_report *r)
{
	const struct ls_cpu_result *m = r->monitor;

	fputs("  \"monitor\": {\n", f);
	ls_json_key_string(f, "    ", "figures",
			   "total, timeline, overruns and histogram are this board's monitor's: pulse-out to ack-in; thread.0 is the responder's local split",
			   ",\n");
	fprintf(f, "    \"cpu\": %d,\n    \"overruns\": %llu,\n    \"lost\": %llu,\n",
		m->cpu, (unsigned long long)m->res.overruns,
		(unsigned long long)m->res.gpio.lost);
	fprintf(f, "    \"spurious\": %llu,\n", (unsigned long long)m->res.gpio.spurious);
	json_histogram(f, m->cells, r->params->hist_cells);
	fprintf(f, "    \"samples\": %llu\n  },\n", (unsigned long long)m->res.latency.samples);
}

/* The load: preset name, CPUs, exact commands, tool versions. */
static void json_stress(FILE *f, const struct ls_stress *st)
{
	int i;

	fputs("  \"stress\": {\n", f);
	ls_json_key_string(f, "    ", "name", st->ncmds ? st->name : "none", ",\n");
	ls_json_key_string(f, "    ", "cpus", st->ncmds ? st->cpus : "", ",\n");
	fputs("    \"commands\": [", f);
	for (i = 0; i < st->ncmds; i++) {
		fputs(i ? ", " : "", f);
		ls_json_string(f, st->cmd[i]);
	}
	fputs("],\n    \"tools\": {", f);
	for (i = 0; i < st->ntools; i++) {
		fputs(i ? ", " : " ", f);
		ls_json_string(f, st->tool[i]);
		fputs(": ", f);
		ls_json_string(f, st->version[i]);
	}
	fputs(st->ntools ? " }\n  },\n" : "}\n  },\n", f);
}

/* A point's heat and clock: its hottest °C, slowest MHz, throttling bits. */
static void json_point_heat(FILE *f, const struct ls_point *pt)
{
	if (pt->heat & LS_HEAT_TEMP)
		fprintf(f, ", %.1f", pt->temp_mc / 1000.0);
	else
		fputs(", null", f);
	if (pt->heat & LS_HEAT_FREQ)
		fprintf(f, ", %.3f", pt->freq_khz / 1000.0);
	else
		fputs(", null", f);
	if (pt->heat & LS_HEAT_THROTTLE)
		fprintf(f, ", %u", pt->throttled);
	else
		fputs(", null", f);
}

/*
 * The timeline, all CPUs merged: one row per bucket of bucket_s seconds,
 * latencies in microseconds, null where a bucket has no sample; then the
 * bucket's hottest temperature, slowest clock and throttling (bits 0-3 of
 * get_throttled, "heat" names them), null where none was read; a noise
 * run's then its runtime (ms), noise (us) and gaps by kind.
 */
static void json_point_noise(FILE *f, const struct ls_point *pt)
{
	int k;

	fprintf(f, ", %.6f, %.3f", (double)pt->runtime_ns / 1e6, ls_us((double)pt->noise_ns));
	for (k = 0; k < LATSCOPE_NOISE_KINDS; k++)
		fprintf(f, ", %llu", (unsigned long long)pt->gaps[k]);
}

static void json_timeline(FILE *f, const struct ls_timeline *t)
{
	unsigned int i;

	fprintf(f, "  \"timeline\": {\n    \"bucket_s\": %u,\n    \"max_points\": %u,\n",
		t->bucket_s, LS_TIMELINE_POINTS);
	fputs("    \"columns\": [\"second\", \"samples\", \"overruns\", \"min\", \"avg\", \"max\", \"temp_c\", \"cpu_mhz\", \"throttled\"",
	      f);
	if (t->noise)
		fputs(", \"runtime_ms\", \"noise_us\", \"irq\", \"softirq\", \"thread\", \"nmi\", \"unexplained\", \"unknown\"",
		      f);
	fputs("],\n", f);
	fputs("    \"points\": [", f);
	for (i = 0; i < t->n; i++) {
		const struct ls_point *pt = &t->pt[i];

		fprintf(f, "%s\n      [%llu, %llu, %llu, ", i ? "," : "",
			(unsigned long long)pt->second, (unsigned long long)pt->samples,
			(unsigned long long)pt->overruns);
		if (pt->samples)
			fprintf(f, "%.3f, %.3f, %.3f", ls_us(pt->min_ns),
				ls_us((double)pt->sum_ns / (double)pt->samples), ls_us(pt->max_ns));
		else
			fputs("null, null, null", f);
		json_point_heat(f, pt);
		if (t->noise)
			json_point_noise(f, pt);
		fputc(']', f);
	}
	fputs(t->n ? "\n    ]\n  },\n" : "]\n  },\n", f);
}

int ls_write_json(FILE *f, const struct ls_report *r)
{
	const struct ls_params *p = r->params;
	const struct ls_source_output *src = ls_source_output(p->source);
	const struct ls_sysinfo *si = r->sys;
	struct ls_hist h;
	int i;

	ls_json_head(f, NULL, p, r->started, r->ended, r->exit_code);
	/* true: a --checkpoint copy, written while the run went on. */
	fprintf(f, "  \"checkpoint\": %s,\n", r->checkpoint ? "true" : "false");
	ls_json_sysinfo(f, si);
	fprintf(f, "  \"num_threads\": %d,\n", r->nr_cpus);
	fprintf(f, "  \"resolution_in_ns\": %u,\n", LATSCOPE_DEFAULT_CELL_NS);
	fputs("  \"settings\": {\n", f);
	ls_json_key_string(f, "    ", "context", ls_run_context(p), ",\n");
	fprintf(f, "    \"period_us\": %u,\n    \"priority\": %d,\n",
		ls_period_us(p), ls_responder_priority(p));
	fprintf(f, "    \"histogram_cells\": %u,\n    \"timeout_s\": %llu,\n",
		p->hist_cells, p->timeout_s);
	fprintf(f, "    \"threads\": %d,\n    \"cpus\": %d,\n", r->nr_cpus, ls_report_cpus(r));
	ls_json_key_string(f, "    ", "scenario", ls_scenario(r), ",\n");
	fprintf(f, "    \"c_state_restricted\": %s\n  },\n",
		r->c_state_restricted ? "true" : "false");
	fprintf(f, "  \"duration_s\": %llu,\n  \"duration_ns\": %llu,\n",
		r->duration_s, r->duration_ns);
	fprintf(f, "  \"peak_s\": %llu,\n", r->peak_s);
	fprintf(f, "  \"overruns\": %llu,\n  \"bulk_dropped\": %llu,\n",
		(unsigned long long)r->total_overruns,
		(unsigned long long)r->total_dropped);
	if (src->write_json)
		src->write_json(f, r);
	if (r->latmon)
		ls_latmon_write_json(f, r);
	if (r->monitor && r->monitor->cells)
		json_monitor(f, r);
	json_stress(f, &r->stress);
	ls_heat_write_json(f, r);
	ls_why_write_json(f, r);
	ls_setup_write_json(f, r);
	if (r->evt_json)
		fprintf(f, "  \"evt\": %s,\n", r->evt_json);
	if (r->timeline)
		json_timeline(f, r->timeline);
	fputs("  \"total\": {\n", f);
	ls_total_hist(r, &h);
	json_stats(f, "    ", &r->total, &h, !r->latmon);
	fputs("  },\n  \"thread\": {\n", f);
	for (i = 0; i < r->nr_cpus; i++)
		json_thread(f, r, i);
	fputs("  }\n}\n", f);
	return ferror(f) ? -1 : 0;
}
