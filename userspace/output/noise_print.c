// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: what a noise run prints (the driver's DOC: noise): the
 * NOH|/NOI| lines of each second, the NOS| lines of its summary, its plot
 * header lines and its JSON object.
 */
#include <string.h>

#include "output/output.h"

/* The kinds, as NOI|, NOS| and the JSON name them (enum latscope_noise_kind). */
static const char *const kind_names[LATSCOPE_NOISE_KINDS] = {
	[LATSCOPE_NOISE_IRQ] = "irq",
	[LATSCOPE_NOISE_SOFTIRQ] = "softirq",
	[LATSCOPE_NOISE_THREAD] = "thread",
	[LATSCOPE_NOISE_NMI] = "nmi",
	[LATSCOPE_NOISE_UNEXPLAINED] = "unexplained",
	[LATSCOPE_NOISE_UNKNOWN] = "unknown",
};

/* The share of @runtime (ns) not taken by @noise, in percent; -1: no runtime. */
double ls_noise_available(__u64 runtime, __u64 noise)
{
	if (!runtime)
		return -1;
	return 100.0 * (double)(runtime - (noise < runtime ? noise : runtime)) / (double)runtime;
}

void ls_noise_format_header(char *buf, size_t len)
{
	snprintf(buf, len, "NOH|%7s|%11s|%11s|%9s|%10s|%6s|%6s|%7s|%6s|%4s|%6s|%6s\n",
		 "second", "runtime ms", "noise us", "avail %", "max us", "gaps", "irq",
		 "softirq", "thread", "nmi", "unexpl", "unknwn");
}

/* One second, all measured CPUs summed: a NOI| line. */
void ls_noise_format_second(char *buf, size_t len, const struct latscope_noise_bulk *w)
{
	const __u64 *g = w->gaps;

	snprintf(buf, len,
		 "NOI|%7llu|%11.3f|%11.3f|%9.4f|%10.3f|%6llu|%6llu|%7llu|%6llu|%4llu|%6llu|%6llu\n",
		 (unsigned long long)w->bulk.second, (double)w->runtime_ns / 1e6,
		 ls_us((double)w->noise_ns), ls_noise_available(w->runtime_ns, w->noise_ns),
		 ls_us((double)w->bulk.max_ns), (unsigned long long)w->bulk.samples,
		 (unsigned long long)g[LATSCOPE_NOISE_IRQ],
		 (unsigned long long)g[LATSCOPE_NOISE_SOFTIRQ],
		 (unsigned long long)g[LATSCOPE_NOISE_THREAD],
		 (unsigned long long)g[LATSCOPE_NOISE_NMI],
		 (unsigned long long)g[LATSCOPE_NOISE_UNEXPLAINED],
		 (unsigned long long)g[LATSCOPE_NOISE_UNKNOWN]);
}

/* "irq 20, softirq 3, thread 2, nmi 0, unexplained 0, unknown 0" */
static void kinds_text(const __u64 *gaps, char *buf, size_t len)
{
	size_t used = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < LATSCOPE_NOISE_KINDS && used < len; k++)
		used += snprintf(buf + used, len - used, "%s%s %llu", k ? ", " : "",
				 kind_names[k], (unsigned long long)gaps[k]);
}

/* The busy task's scheduling, as the summary and the JSON say it. */
static void task_text(const struct ls_params *p, char *buf, size_t len)
{
	if (p->priority)
		snprintf(buf, len, "SCHED_FIFO %d", p->priority);
	else
		snprintf(buf, len, "SCHED_OTHER");
}

void ls_noise_print_summary(FILE *f, const struct ls_report *r)
{
	const struct ls_params *p = r->params;
	char kinds[256], task[32];
	int i;

	task_text(p, task, sizeof(task));
	for (i = 0; i < r->nr_cpus; i++) {
		const struct latscope_result *res = &r->cpu[i].res;
		const struct latscope_noise_result *n = &res->noise;

		kinds_text(n->gaps, kinds, sizeof(kinds));
		fprintf(f, "NOS| CPU%d %s, %s: runtime %.3f s, noise %.3f us, %.4f %% of the CPU left, largest gap %.3f us; %llu gaps of %.3f us or more: %s\n",
			r->cpu[i].cpu, ls_run_context(p), task, (double)n->runtime_ns / 1e9,
			ls_us((double)n->noise_ns),
			n->runtime_ns ? ls_noise_available(n->runtime_ns, n->noise_ns) : 0.0,
			ls_us((double)res->latency.max_ns),
			(unsigned long long)res->latency.samples, ls_us((double)n->threshold_ns),
			kinds);
	}
	if (p->irqs_off)
		fprintf(f, "NOS| interrupts off while reading: what is left is NMIs and what the hardware (or a hypervisor) took\n");
	if (r->nr_cpus && !(r->cpu[0].res.noise.seen & LATSCOPE_WHY_SEEN_IRQ))
		fprintf(f, "NOS| the gaps are not told apart (unknown): that needs CAP_PERFMON, as --why (root, or the module's trusted_group), and the kernel's irq tracepoints\n");
}

void ls_noise_write_plot(FILE *f, const struct ls_report *r)
{
	const struct latscope_noise_result *n;

	if (!r->nr_cpus)
		return;
	n = &r->cpu[0].res.noise;
	fprintf(f, "# noise: gaps of %.3f us or more while a busy task read the clock for %.3f ms of each %u us%s; the histogram is the gaps' lengths\n",
		ls_us((double)n->threshold_ns), (double)n->runtime_per_period_ns / 1e6,
		r->params->period_us, r->params->irqs_off ? ", interrupts off" : "");
}

/* The JSON file's "noise" object: the settings, and each CPU's figures. */
void ls_noise_write_json(FILE *f, const struct ls_report *r)
{
	const struct ls_params *p = r->params;
	char task[32];
	int i, k;

	if (!r->nr_cpus)
		return;
	task_text(p, task, sizeof(task));
	fputs("  \"noise\": {\n", f);
	fprintf(f, "    \"threshold_us\": %.3f,\n",
		ls_us((double)r->cpu[0].res.noise.threshold_ns));
	fprintf(f, "    \"runtime_per_period_us\": %.3f,\n",
		ls_us((double)r->cpu[0].res.noise.runtime_per_period_ns));
	fprintf(f, "    \"irqs_off\": %s,\n", p->irqs_off ? "true" : "false");
	ls_json_key_string(f, "    ", "task", task, ",\n");
	fputs("    \"cpus\": [\n", f);
	for (i = 0; i < r->nr_cpus; i++) {
		const struct latscope_result *res = &r->cpu[i].res;
		const struct latscope_noise_result *n = &res->noise;

		fprintf(f, "      {\"cpu\": %d, \"runtime_s\": %.9f, \"noise_us\": %.3f, ",
			r->cpu[i].cpu, (double)n->runtime_ns / 1e9, ls_us((double)n->noise_ns));
		if (n->runtime_ns)
			fprintf(f, "\"available_pct\": %.6f, ",
				ls_noise_available(n->runtime_ns, n->noise_ns));
		else
			fputs("\"available_pct\": null, ", f);
		fprintf(f, "\"max_gap_us\": %.3f, \"gaps\": %llu, \"kinds\": {",
			ls_us((double)res->latency.max_ns),
			(unsigned long long)res->latency.samples);
		for (k = 0; k < LATSCOPE_NOISE_KINDS; k++)
			fprintf(f, "%s\"%s\": %llu", k ? ", " : "", kind_names[k],
				(unsigned long long)n->gaps[k]);
		fprintf(f, "}}%s\n", i + 1 < r->nr_cpus ? "," : "");
	}
	fputs("    ]\n  },\n", f);
}
