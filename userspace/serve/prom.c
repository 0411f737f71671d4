// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the exporter's figures (prom.h). A run's histogram (the
 * driver's linear cells, then its logarithmic tail) is read into
 * cumulative buckets without guessing: a bucket counts the cells and tail
 * buckets that lie wholly at or below its bound, so a bound on a cell's
 * edge is exact and any other is a lower bound of the true count (a
 * quantile read from it errs high, never low).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve/prom.h"

/* 1, 2, 5 per decade from 1 us to 100 ms: Prometheus's usual spacing. */
void ls_prom_default_bounds(struct ls_prom_bounds *b)
{
	static const unsigned int steps[] = { 1, 2, 5 };
	__u64 decade;
	unsigned int i;

	b->n = 0;
	for (decade = 1000; decade <= 100000000ULL; decade *= 10)
		for (i = 0; i < ARRAY_SIZE(steps) && decade * steps[i] <= 100000000ULL; i++)
			b->le_ns[b->n++] = decade * steps[i];
}

/*
 * --buckets: microseconds, increasing, comma-separated: "1,2,5,10". A
 * bound is a whole number of ns, at least 1 us and at most 10 s.
 */
int ls_prom_parse_bounds(const char *s, struct ls_prom_bounds *b, char *err, size_t errlen)
{
	const char *at = s;
	char *end;
	double us;

	b->n = 0;
	while (*at) {
		if (b->n == LS_PROM_MAX_BOUNDS) {
			ls_fail(err, errlen, "--buckets '%.40s...': more than %d bounds", s,
				LS_PROM_MAX_BOUNDS);
			return -1;
		}
		errno = 0;
		us = strtod(at, &end);
		if (end == at || errno || (*end && *end != ',') || !(us >= 1.0 && us <= 1e7)) {
			int n = (int)strcspn(at, ",");

			ls_fail(err, errlen,
				"--buckets '%.40s%s': '%.*s%s' is not a bound in us from 1 to 10000000",
				s, strlen(s) > 40 ? "..." : "", n > 40 ? 40 : n, at,
				n > 40 ? "..." : "");
			return -1;
		}
		b->le_ns[b->n] = (__u64)(us * 1000.0 + 0.5);
		if (b->n && b->le_ns[b->n] <= b->le_ns[b->n - 1]) {
			ls_fail(err, errlen, "--buckets '%.60s': the bounds must increase", s);
			return -1;
		}
		b->n++;
		at = *end ? end + 1 : end;
		if (*end && !*at) {
			ls_fail(err, errlen, "--buckets '%.60s': no bound after the last comma", s);
			return -1;
		}
	}
	if (!b->n) {
		ls_fail(err, errlen, "--buckets '%s': no bound", s);
		return -1;
	}
	return 0;
}

/*
 * @out from histogram @h and its statistics @st. A sample below zero is
 * below every bound; a cell or tail bucket counts once its last value
 * (ns) is at most the bound; past the cells without a tail, a sample is
 * only known to be at most the maximum.
 */
void ls_prom_hist_read(struct ls_prom_hist *out, const struct ls_hist *h,
		       const struct latscope_stats *st, const struct ls_prom_bounds *b)
{
	__u64 span = h ? (__u64)h->nr_cells * h->cell_ns : 0, seen = st->underflow, le;
	unsigned int i = 0, t = 0, k;

	memset(out, 0, sizeof(*out));
	out->count = st->samples;
	out->sum_ns = st->sum_ns;
	out->max_ns = st->samples ? st->max_ns : 0;
	for (k = 0; k < b->n; k++) {
		le = b->le_ns[k];
		if (st->samples && st->max_ns <= (__s64)le) {
			out->bucket[k] = st->samples;
			continue;
		}
		/*
		 * One pass for all bounds, as they increase: cell i holds
		 * [i c, (i + 1) c - 1], past the cells tail bucket t
		 * [lo(t), lo(t + 1) - 1].
		 */
		for (; h && i < h->nr_cells && (i + 1) * (__u64)h->cell_ns - 1 <= le; i++)
			seen += h->cells[i];
		for (; h && h->tail && span && le >= span && t < LATSCOPE_TAIL_BUCKETS &&
		     latscope_tail_lo(t + 1) - 1 <= le; t++)
			seen += h->tail[t];
		out->bucket[k] = seen;
	}
}

/* Adds @from's counts to @into's, with @n bounds; the maximum is the larger. */
void ls_prom_hist_add(struct ls_prom_hist *into, const struct ls_prom_hist *from,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		into->bucket[i] += from->bucket[i];
	if (from->count && (!into->count || from->max_ns > into->max_ns))
		into->max_ns = from->max_ns;
	into->count += from->count;
	into->sum_ns += from->sum_ns;
}

/* Counters and histograms of @from added to @into's: one CPU, two runs. */
void ls_prom_series_add(struct ls_prom_series *into, const struct ls_prom_series *from,
			unsigned int n)
{
	int k;

	ls_prom_hist_add(&into->lat, &from->lat, n);
	ls_prom_hist_add(&into->irq, &from->irq, n);
	into->has_irq |= from->has_irq;
	into->overruns += from->overruns;
	into->dropped += from->dropped;
	into->lost += from->lost;
	into->noise_runtime_ns += from->noise_runtime_ns;
	into->noise_ns += from->noise_ns;
	for (k = 0; k < LATSCOPE_NOISE_KINDS; k++)
		into->gaps[k] += from->gaps[k];
}

int ls_prom_window_init(struct ls_prom_window *w, unsigned int len)
{
	w->len = len;
	w->slot = calloc(len, sizeof(*w->slot));
	return w->slot ? 0 : -1;
}

void ls_prom_window_free(struct ls_prom_window *w)
{
	free(w->slot);
	w->slot = NULL;
}

/* Second @second's maximum; a later one of the same slot replaces it. */
void ls_prom_window_add(struct ls_prom_window *w, __u64 second, __s64 max_ns)
{
	struct ls_prom_slot *s = &w->slot[second % w->len];

	if (s->second == second + 1 && s->max_ns >= max_ns)
		return;
	s->second = second + 1;
	s->max_ns = max_ns;
}

/*
 * The largest of the seconds (now - len, now], if any. Seconds are the
 * run's clock: each that had samples was added.
 */
bool ls_prom_window_max(const struct ls_prom_window *w, __u64 now, __s64 *max_ns)
{
	bool any = false;
	unsigned int i;

	for (i = 0; i < w->len; i++) {
		__u64 s = w->slot[i].second;

		if (!s || s - 1 > now || now - (s - 1) >= w->len)
			continue;
		if (!any || w->slot[i].max_ns > *max_ns)
			*max_ns = w->slot[i].max_ns;
		any = true;
	}
	return any;
}
