// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: figures derived from the driver's totals and histogram:
 * average, standard deviation from the 128-bit sum of squares, and tail
 * percentiles read off the histogram.
 */
#include <math.h>
#include <string.h>

#include "latscope.h"

const double ls_percentiles[4] = { 99.0, 99.9, 99.99, 99.999 };

/*
 * The p-th percentile: the upper edge of the first cell where at least p%
 * of the samples lie at or below. Samples below zero count first; if the
 * rank falls among the samples past the last cell, only the maximum bounds
 * it, and @beyond says so.
 */
static double percentile(const struct latscope_stats *st, const __u64 *cells,
			 unsigned int nr_cells, unsigned int cell_ns, double p,
			 bool *beyond)
{
	__u64 rank = (__u64)ceil(st->samples * p / 100.0), seen;
	unsigned int i;

	*beyond = false;
	if (!rank)
		rank = 1;
	seen = st->underflow;
	if (seen >= rank)
		return 0.0;
	for (i = 0; i < nr_cells; i++) {
		seen += cells[i];
		if (seen >= rank)
			return (double)(i + 1) * cell_ns;
	}
	*beyond = true;
	return (double)st->max_ns;
}

void ls_summarize(const struct latscope_stats *st, const __u64 *cells,
		  unsigned int nr_cells, unsigned int cell_ns,
		  struct ls_summary *out)
{
	long double n, mean, sumsq, var;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->samples = st->samples;
	if (!st->samples)
		return;
	n = st->samples;
	mean = st->sum_ns / n;
	sumsq = ldexpl((long double)st->sum_sq_hi, 64) + st->sum_sq_lo;
	var = sumsq / n - mean * mean;
	out->min = st->min_ns;
	out->max = st->max_ns;
	out->avg = (double)mean;
	out->stddev = var > 0 ? (double)sqrtl(var) : 0.0;
	for (i = 0; i < 4; i++)
		out->pct[i] = percentile(st, cells, nr_cells, cell_ns,
					 ls_percentiles[i], &out->pct_beyond[i]);
}

/* Adds @from's samples to @into, as if both had been one run. */
void ls_merge_stats(struct latscope_stats *into,
		    const struct latscope_stats *from)
{
	__u64 lo;

	if (!from->samples)
		return;
	if (!into->samples || from->min_ns < into->min_ns)
		into->min_ns = from->min_ns;
	if (!into->samples || from->max_ns > into->max_ns) {
		into->max_ns = from->max_ns;
		into->peak_ns = from->peak_ns;
	}
	into->samples += from->samples;
	into->sum_ns += from->sum_ns;
	lo = into->sum_sq_lo + from->sum_sq_lo;
	into->sum_sq_hi += from->sum_sq_hi + (lo < into->sum_sq_lo);
	into->sum_sq_lo = lo;
	into->underflow += from->underflow;
	into->overflow += from->overflow;
}

void ls_merge_cells(__u64 *into, const __u64 *from, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		into[i] += from[i];
}
