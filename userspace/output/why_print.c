// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: why the worst samples were late, as the driver's recorder
 * explained them (DOC: why in the uapi header): one WHY| line per worst
 * sample in the summary and the plot header, read at a glance, and every
 * record whole in the JSON's "worst" array. What the recorder could not
 * see on this kernel is said, never guessed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/output.h"

/* At most this many things that took the time, per WHY| line. */
#define LS_WHY_LINE_ITEMS	4

/* One record with the CPU that measured it. */
struct why_ref {
	const struct latscope_why *w;
	const struct ls_cpu_result *c;
};

/* Whether any CPU's driver had a recorder. */
static bool has_why(const struct ls_report *r)
{
	int i;

	for (i = 0; i < r->nr_cpus; i++)
		if (r->cpu[i].has_why)
			return true;
	return false;
}

static int why_cmp(const void *a, const void *b)
{
	const struct why_ref *x = a, *y = b;

	if (x->w->latency_ns != y->w->latency_ns)
		return x->w->latency_ns < y->w->latency_ns ? 1 : -1;
	return x->w->ideal_ns < y->w->ideal_ns ? -1 : x->w->ideal_ns > y->w->ideal_ns;
}

/* Every CPU's records, the worst first; NULL (and 0) for none. */
static struct why_ref *why_sorted(const struct ls_report *r, size_t *n)
{
	struct why_ref *refs;
	size_t total = 0, k = 0;
	__u32 j;
	int i;

	for (i = 0; i < r->nr_cpus; i++)
		if (r->cpu[i].has_why && r->cpu[i].why)
			total += r->cpu[i].res.why_count;
	*n = 0;
	if (!total)
		return NULL;
	refs = calloc(total, sizeof(*refs));
	if (!refs)
		return NULL;
	for (i = 0; i < r->nr_cpus; i++) {
		const struct ls_cpu_result *c = &r->cpu[i];

		if (!c->has_why || !c->why)
			continue;
		for (j = 0; j < c->res.why_count; j++) {
			refs[k].w = &c->why[j];
			refs[k].c = c;
			k++;
		}
	}
	qsort(refs, k, sizeof(*refs), why_cmp);
	*n = k;
	return refs;
}

/**
 * ls_policy_short() - a scheduling policy as people write it
 * @policy: SCHED_* number
 *
 * Return: "OTHER", "FIFO", ... or "?".
 */
const char *ls_policy_short(int policy)
{
	static const char *const names[] = {
		"OTHER", "FIFO", "RR", "BATCH", "ISO", "IDLE", "DEADLINE",
	};

	return policy >= 0 && policy < (int)ARRAY_SIZE(names) ? names[policy] : "?";
}

/* What a record's item is, as the JSON and the exporter name it. */
const char *ls_why_kind_name(__u32 kind)
{
	switch (kind) {
	case LATSCOPE_WHY_TASK:
		return "task";
	case LATSCOPE_WHY_IRQ:
		return "irq";
	case LATSCOPE_WHY_SOFTIRQ:
		return "softirq";
	case LATSCOPE_WHY_NMI:
		return "nmi";
	case LATSCOPE_WHY_HRTIMER:
		return "hrtimer";
	case LATSCOPE_WHY_IDLE:
		return "idle";
	}
	return "unknown";
}

/* "FIFO 50" or "OTHER" (nice 0), "OTHER nice 5". */
static void fmt_sched(char *buf, size_t len, int policy, int prio)
{
	if (policy == 1 || policy == 2)
		snprintf(buf, len, "%s %d", ls_policy_short(policy), prio);
	else if (prio)
		snprintf(buf, len, "%s nice %d", ls_policy_short(policy), prio);
	else
		snprintf(buf, len, "%s", ls_policy_short(policy));
}

/* Appends to @buf at *@at, never past @len. */
static void add(char *buf, size_t len, int *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t len, int *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= (int)len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += n;
}

/* "irq 3.1 + wake 9.4 + sched 391.0 + run 8.8", "?" for a part not known. */
static void fmt_parts(char *buf, size_t len, int *at, const struct latscope_why *w,
		      unsigned int context)
{
	if (context == LATSCOPE_CTX_IRQ) {
		add(buf, len, at, "irq %.1f", ls_us(w->irq_ns));
		return;
	}
	if (w->flags & LATSCOPE_WHY_HAS_IRQ)
		add(buf, len, at, "irq %.1f", ls_us(w->irq_ns));
	else
		add(buf, len, at, "irq ?");
	if (w->flags & LATSCOPE_WHY_HAS_WAKE)
		add(buf, len, at, " + wake %.1f", ls_us(w->wake_ns));
	else
		add(buf, len, at, " + wake ?");
	if (w->flags & LATSCOPE_WHY_HAS_RUN)
		add(buf, len, at, " + sched %.1f + run %.1f", ls_us(w->sched_ns),
		    ls_us(w->run_ns));
	else
		add(buf, len, at, " + sched ? + run ?");
}

/*
 * What a task's waiting part was: the irq held off (the irq context), or
 * the responder kept from its CPU, by a higher priority or by code that
 * could not be preempted.
 */
static const char *blocking_word(const struct latscope_why_item *it, unsigned int context,
				 int responder_prio)
{
	if (context == LATSCOPE_CTX_IRQ)
		return "while the irq was due";
	if ((it->policy == 1 || it->policy == 2) && it->prio >= responder_prio)
		return "at higher priority";
	return "non-preemptible";
}

static void fmt_item(char *buf, size_t len, int *at, const struct latscope_why_item *it,
		     unsigned int context, int responder_prio)
{
	char sched[32];

	switch (it->kind) {
	case LATSCOPE_WHY_TASK:
		fmt_sched(sched, sizeof(sched), it->policy, it->prio);
		add(buf, len, at, "%.16s (%d, %s) ran %.1f us", it->name, it->id, sched,
		    ls_us(it->duration_ns));
		if (it->blocking_ns)
			add(buf, len, at, ", %.1f %s", ls_us(it->blocking_ns),
			    blocking_word(it, context, responder_prio));
		break;
	case LATSCOPE_WHY_IRQ:
		add(buf, len, at, "irq %d %.32s", it->id, it->name);
		break;
	case LATSCOPE_WHY_IDLE:
		if (it->id >= 0)
			add(buf, len, at, "idle (state %d)", it->id);
		else
			add(buf, len, at, "idle");
		break;
	default:
		add(buf, len, at, "%s %.32s", ls_why_kind_name(it->kind), it->name);
		break;
	}
	if (it->kind != LATSCOPE_WHY_TASK) {
		if (it->count > 1)
			add(buf, len, at, " x%u", it->count);
		add(buf, len, at, " %.1f us", ls_us(it->duration_ns));
	}
}

/* When the sample's event was due, local time of day. */
static void fmt_clock(char *buf, size_t len, __u64 realtime_ns)
{
	time_t t = (time_t)(realtime_ns / 1000000000ULL);
	struct tm tm;

	if (!realtime_ns || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	strftime(buf, len, "%H:%M:%S", &tm);
}

/**
 * ls_why_line() - one worst sample in a line read at a glance
 * @buf: the line, without "WHY| " and newline
 * @len: its room
 * @w: the record
 * @cpu: the CPU that measured it
 * @p: the run's options (context, responder priority)
 */
void ls_why_line(char *buf, size_t len, const struct latscope_why *w, int cpu,
		 const struct ls_params *p)
{
	char when[16], sched[32];
	int at = 0;
	__u32 i, shown;

	buf[0] = '\0';
	fmt_clock(when, sizeof(when), w->realtime_ns);
	/* A noise run's sample is a gap the busy task saw: no parts to split it in. */
	if (p->source == LATSCOPE_SRC_NOISE) {
		add(buf, len, &at, "%.1f us gap at %s CPU%d", ls_us(w->latency_ns), when, cpu);
	} else {
		add(buf, len, &at, "%.1f us at %s CPU%d: ", ls_us(w->latency_ns), when, cpu);
		fmt_parts(buf, len, &at, w, p->context);
	}
	if (w->flags & LATSCOPE_WHY_THRESHOLD)
		add(buf, len, &at, " (crossed -b)");
	if (w->flags & LATSCOPE_WHY_BUSY)
		add(buf, len, &at, " | the responder was busy when woken");
	if (w->flags & LATSCOPE_WHY_ELSEWHERE)
		add(buf, len, &at, " | the responder ran on another CPU: its part not seen");
	if (!(w->flags & LATSCOPE_WHY_NO_WHERE)) {
		if (!w->pid) {
			add(buf, len, &at, " | interrupted idle");
		} else {
			fmt_sched(sched, sizeof(sched), w->policy, w->prio);
			add(buf, len, &at, " | interrupted %.16s (%d, %s)", w->comm, w->pid, sched);
		}
		if (w->flags & LATSCOPE_WHY_USER_MODE)
			add(buf, len, &at, " in user space");
		else if (w->pid && w->where[0])
			add(buf, len, &at, " in %.64s", w->where);
	}
	shown = w->nr_items < LS_WHY_LINE_ITEMS ? w->nr_items : LS_WHY_LINE_ITEMS;
	for (i = 0; i < shown; i++) {
		add(buf, len, &at, " | ");
		fmt_item(buf, len, &at, &w->item[i], p->context, ls_responder_priority(p));
	}
	if (w->nr_items > shown || w->more_items)
		add(buf, len, &at, " | %u more", w->nr_items - shown + w->more_items);
	if (w->unknown_ns)
		add(buf, len, &at, " | %.1f us not known", ls_us(w->unknown_ns));
	if (w->flags & LATSCOPE_WHY_CUT)
		add(buf, len, &at, " | record cut: it covers the last %.1f us",
		    ls_us(w->window_ns));
}

/* What no CPU's recorder saw on this kernel, or "" for nothing missing. */
static void fmt_unseen(char *buf, size_t len, __u32 seen)
{
	static const struct { __u32 bit; const char *what; } parts[] = {
		{ LATSCOPE_WHY_SEEN_IRQ, "irqs" },
		{ LATSCOPE_WHY_SEEN_SOFTIRQ, "softirqs" },
		{ LATSCOPE_WHY_SEEN_SWITCH, "task switches" },
		{ LATSCOPE_WHY_SEEN_NMI, "NMIs" },
		{ LATSCOPE_WHY_SEEN_IDLE, "idle states" },
		{ LATSCOPE_WHY_SEEN_HRTIMER, "hrtimer callbacks" },
	};
	int at = 0;
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(parts); i++)
		if (!(seen & parts[i].bit))
			add(buf, len, &at, "%s%s", at ? ", " : "", parts[i].what);
}

static __u32 why_seen(const struct ls_report *r)
{
	__u32 seen = ~0U;
	int i;

	for (i = 0; i < r->nr_cpus; i++)
		if (r->cpu[i].has_why)
			seen &= r->cpu[i].res.why_seen;
	return seen;
}

/* The lines, each after @prefix: the summary's and the plot's. */
static void print_lines(FILE *f, const struct ls_report *r, const char *prefix)
{
	struct why_ref *refs;
	char line[1024];
	size_t n, i, shown;

	if (!has_why(r))
		return;
	refs = why_sorted(r, &n);
	shown = n < r->params->why ? n : r->params->why;
	for (i = 0; i < n; i++) {
		/* The worst, and the one that crossed -b whatever its rank. */
		if (i >= shown && !(refs[i].w->flags & LATSCOPE_WHY_THRESHOLD))
			continue;
		ls_why_line(line, sizeof(line), refs[i].w, refs[i].c->cpu, r->params);
		fprintf(f, "%sWHY| %s\n", prefix, line);
	}
	free(refs);
	fmt_unseen(line, sizeof(line), why_seen(r));
	if (line[0])
		fprintf(f, "%sWHY| not seen on this kernel: %s\n", prefix, line);
}

void ls_why_print_summary(FILE *f, const struct ls_report *r)
{
	print_lines(f, r, "");
}

void ls_why_write_plot(FILE *f, const struct ls_report *r)
{
	if (!has_why(r))
		return;
	fprintf(f, "# worst samples explained (--why %u per CPU):\n", r->params->why);
	print_lines(f, r, "# ");
}

static void json_flags(FILE *f, __u32 flags)
{
	static const struct { __u32 bit; const char *name; } names[] = {
		{ LATSCOPE_WHY_CUT, "cut" },
		{ LATSCOPE_WHY_IDLE, "idle" },
		{ LATSCOPE_WHY_USER_MODE, "user_mode" },
		{ LATSCOPE_WHY_BUSY, "responder_busy" },
		{ LATSCOPE_WHY_THRESHOLD, "threshold" },
		{ LATSCOPE_WHY_ELSEWHERE, "responder_elsewhere" },
	};
	bool first = true;
	size_t i;

	fputs("[", f);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(flags & names[i].bit))
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ", ", names[i].name);
		first = false;
	}
	fputs("]", f);
}

/* A part in ns, or null when the record does not know it. */
static void json_part(FILE *f, const char *key, bool known, __s64 ns, const char *end)
{
	if (known)
		fprintf(f, "\"%s\": %lld%s", key, (long long)ns, end);
	else
		fprintf(f, "\"%s\": null%s", key, end);
}

static void json_item(FILE *f, const struct latscope_why_item *it, bool last)
{
	fprintf(f, "          {\"kind\": \"%s\", \"id\": %d, \"name\": ",
		ls_why_kind_name(it->kind), it->id);
	ls_json_string(f, it->name);
	fprintf(f, ", \"count\": %u, \"duration_ns\": %llu, \"blocking_ns\": %llu",
		it->count, (unsigned long long)it->duration_ns,
		(unsigned long long)it->blocking_ns);
	if (it->kind == LATSCOPE_WHY_TASK)
		fprintf(f, ", \"policy\": \"%s\", \"prio\": %d", ls_policy_short(it->policy),
			it->prio);
	fprintf(f, ", \"began_before\": %s, \"went_on\": %s}%s\n",
		it->flags & LATSCOPE_WHY_ITEM_BEFORE ? "true" : "false",
		it->flags & LATSCOPE_WHY_ITEM_AFTER ? "true" : "false", last ? "" : ",");
}

static void json_record(FILE *f, const struct why_ref *ref, const struct ls_params *p,
			bool last)
{
	const struct latscope_why *w = ref->w;
	const struct latscope_result *res = &ref->c->res;
	__u64 from = res->start_ns + res->warmup_ns;
	char line[1024];
	__u32 i;

	fprintf(f, "    {\n      \"cpu\": %d,\n      \"latency_ns\": %lld,\n", ref->c->cpu,
		(long long)w->latency_ns);
	fprintf(f, "      \"ideal_ns\": %llu,\n      \"realtime_ns\": %llu,\n",
		(unsigned long long)w->ideal_ns, (unsigned long long)w->realtime_ns);
	fprintf(f, "      \"elapsed_s\": %.6f,\n",
		w->ideal_ns > from ? (w->ideal_ns - from) / 1e9 : 0.0);
	fputs("      \"parts\": {", f);
	json_part(f, "irq_ns", w->flags & LATSCOPE_WHY_HAS_IRQ, w->irq_ns, ", ");
	json_part(f, "wake_ns", w->flags & LATSCOPE_WHY_HAS_WAKE, w->wake_ns, ", ");
	json_part(f, "sched_ns", w->flags & LATSCOPE_WHY_HAS_RUN, w->sched_ns, ", ");
	json_part(f, "run_ns", w->flags & LATSCOPE_WHY_HAS_RUN, w->run_ns, "},\n");
	fputs("      \"flags\": ", f);
	json_flags(f, w->flags);
	fprintf(f, ",\n      \"window_ns\": %llu,\n", (unsigned long long)w->window_ns);
	if (w->flags & LATSCOPE_WHY_IDLE && w->idle_state >= 0)
		fprintf(f, "      \"idle_state\": %d,\n", w->idle_state);
	else
		fputs("      \"idle_state\": null,\n", f);
	if (w->flags & LATSCOPE_WHY_NO_WHERE) {
		fputs("      \"interrupted\": null,\n", f);
	} else {
		fprintf(f, "      \"interrupted\": {\"pid\": %d, \"comm\": ", w->pid);
		ls_json_string(f, w->pid ? w->comm : "idle");
		fprintf(f, ", \"policy\": \"%s\", \"prio\": %d, \"user_mode\": %s, \"where\": ",
			ls_policy_short(w->policy), w->prio,
			w->flags & LATSCOPE_WHY_USER_MODE ? "true" : "false");
		ls_json_string_or_null(f, w->where);
		fputs("},\n", f);
	}
	fputs("      \"items\": [\n", f);
	for (i = 0; i < w->nr_items && i < LATSCOPE_WHY_ITEMS; i++)
		json_item(f, &w->item[i], i + 1 == w->nr_items);
	fprintf(f, "      ],\n      \"more_items\": %u,\n      \"more_ns\": %llu,\n",
		w->more_items, (unsigned long long)w->more_ns);
	fprintf(f, "      \"unknown_ns\": %llu,\n", (unsigned long long)w->unknown_ns);
	ls_why_line(line, sizeof(line), w, ref->c->cpu, p);
	ls_json_key_string(f, "      ", "line", line, "\n");
	fprintf(f, "    }%s\n", last ? "" : ",");
}

/* "why": what the recorder is and saw; "worst": its records, the worst first. */
void ls_why_write_json(FILE *f, const struct ls_report *r)
{
	static const char *const seen_names[] = {
		"irq", "softirq", "switch", "nmi", "idle", "hrtimer",
	};
	struct why_ref *refs;
	__u32 seen;
	size_t n, i;
	bool first = true;

	if (!has_why(r)) {
		fprintf(f, "  \"why\": {\"records_per_cpu\": %u, \"recorder\": false},\n",
			r->params->why);
		fputs("  \"worst\": [],\n", f);
		return;
	}
	seen = why_seen(r);
	fprintf(f, "  \"why\": {\"records_per_cpu\": %u, \"recorder\": true, \"seen\": [",
		r->params->why);
	for (i = 0; i < ARRAY_SIZE(seen_names); i++) {
		if (!(seen & (1U << i)))
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ", ", seen_names[i]);
		first = false;
	}
	fputs("]},\n  \"worst\": [\n", f);
	refs = why_sorted(r, &n);
	for (i = 0; i < n; i++)
		json_record(f, &refs[i], r->params, i + 1 == n);
	free(refs);
	fputs("  ],\n", f);
}
