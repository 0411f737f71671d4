// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: figures derived from the driver's totals and histogram:
 * average, standard deviation from the 128-bit sum of squares, and tail
 * percentiles read off the histogram and its logarithmic tail.
 */
#include <math.h>
#include <string.h>

#include "core/core.h"

const double ls_percentiles[LS_NR_PCT] = { 99.0, 99.9, 99.99, 99.999, 99.9999 };

/*
 * The p-th percentile: the cell or tail bucket that holds the sample of
 * rank ceil(samples * p / 100), samples below zero first. A linear cell
 * gives its upper edge (latmus's convention) and its lower one; a tail
 * bucket its bounds, past the last cell and clipped to the maximum.
 * Without a tail, only the maximum bounds a rank past the last cell.
 */
static struct ls_pct percentile(const struct latscope_stats *st,
				const struct ls_hist *h, double p)
{
	__u64 rank = (__u64)ceil(st->samples * p / 100.0), seen;
	double span = h ? (double)h->nr_cells * h->cell_ns : 0.0;
	struct ls_pct out = { .kind = LS_PCT_CELL };
	unsigned int i;

	if (!rank)
		rank = 1;
	seen = st->underflow;
	if (seen >= rank) {
		out.lo = (double)st->min_ns;
		return out;
	}
	for (i = 0; h && i < h->nr_cells; i++) {
		seen += h->cells[i];
		if (seen >= rank) {
			out.lo = (double)i * h->cell_ns;
			out.hi = (double)(i + 1) * h->cell_ns;
			return out;
		}
	}
	for (i = 0; h && h->tail && i < LATSCOPE_TAIL_BUCKETS; i++) {
		seen += h->tail[i];
		if (seen >= rank) {
			out.kind = LS_PCT_TAIL;
			out.lo = fmax((double)latscope_tail_lo(i), span);
			out.hi = fmin((double)latscope_tail_lo(i + 1), (double)st->max_ns);
			if (out.lo > out.hi)	/* the tail disagrees with the max */
				out.lo = out.hi;
			return out;
		}
	}
	out.kind = LS_PCT_MAX;
	out.lo = fmin(span, (double)st->max_ns);
	out.hi = (double)st->max_ns;
	return out;
}

/*
 * How a percentile prints, in us: "57.000" for a linear cell's upper
 * edge, "<=1006.633(-4.0%)" for a tail bucket (at most that, at least that
 * much less), "<=6863.044" when only the maximum bounds it.
 */
int ls_fmt_pct(char *buf, size_t len, const struct ls_pct *pct)
{
	double hi = ls_us(pct->hi);

	switch (pct->kind) {
	case LS_PCT_TAIL:
		return snprintf(buf, len, "<=%.3f(-%.1f%%)", hi,
				pct->hi > 0 ? 100.0 * (pct->hi - pct->lo) / pct->hi : 0.0);
	case LS_PCT_MAX:
		return snprintf(buf, len, "<=%.3f", hi);
	default:
		return snprintf(buf, len, "%.3f", hi);
	}
}

void ls_summarize(const struct latscope_stats *st, const struct ls_hist *h,
		  struct ls_summary *out)
{
	long double n, mean, sumsq, var;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->has_stddev = true;
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
	for (i = 0; i < LS_NR_PCT; i++)
		out->pct[i] = percentile(st, h, ls_percentiles[i]);
}

/*
 * Widens [*min, *max] to hold a block of samples from @lo to @hi; @empty:
 * [*min, *max] holds no sample yet. Returns whether @hi is the new max.
 */
bool ls_merge_extremes(__s64 *min, __s64 *max, bool empty, __s64 lo, __s64 hi)
{
	if (empty || lo < *min)
		*min = lo;
	if (!empty && hi <= *max)
		return false;
	*max = hi;
	return true;
}

/* Adds @from's samples to @into, as if both had been one run. */
void ls_merge_stats(struct latscope_stats *into,
		    const struct latscope_stats *from)
{
	__u64 lo;

	if (!from->samples)
		return;
	if (ls_merge_extremes(&into->min_ns, &into->max_ns, !into->samples,
			      from->min_ns, from->max_ns))
		into->peak_ns = from->peak_ns;
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

/* The merged latency histogram of @r, with its tail if every CPU had one. */
void ls_total_hist(const struct ls_report *r, struct ls_hist *h)
{
	h->cells = r->total_cells;
	h->nr_cells = r->params->hist_cells;
	h->cell_ns = LATSCOPE_DEFAULT_CELL_NS;
	h->tail = r->has_tail ? r->total_tail : NULL;
}

/* The run's totals summarized; a latmon monitor's have no stddev. */
void ls_total_summary(const struct ls_report *r, struct ls_summary *out)
{
	struct ls_hist h;

	ls_total_hist(r, &h);
	ls_summarize(&r->total, &h, out);
	out->has_stddev = !r->latmon;
}

/* The latency histogram of @c, or its irq part's. */
void ls_cpu_hist(const struct ls_cpu_result *c, bool irq, struct ls_hist *h)
{
	h->cells = c->cells + (irq ? c->res.hist_cells : 0);
	h->nr_cells = c->res.hist_cells;
	h->cell_ns = LATSCOPE_DEFAULT_CELL_NS;
	h->tail = c->has_tail ? c->tail + (irq ? LATSCOPE_TAIL_BUCKETS : 0) : NULL;
}

/* Adds sample @lat (ns) of the event at @at (CLOCK_MONOTONIC) to @a, as the driver does. */
void ls_acc_add(struct ls_acc *a, __s64 lat, __u64 at)
{
	unsigned __int128 sq, sum;
	struct latscope_stats *st = &a->st;
	__u64 mag = lat < 0 ? -(__u64)lat : (__u64)lat;

	sq = (unsigned __int128)mag * mag;
	sum = ((unsigned __int128)st->sum_sq_hi << 64 | st->sum_sq_lo) + sq;
	if (!st->samples || lat < st->min_ns)
		st->min_ns = lat;
	if (!st->samples || lat > st->max_ns) {
		st->max_ns = lat;
		st->peak_ns = at;
	}
	st->samples++;
	st->sum_ns += lat;
	st->sum_sq_lo = (__u64)sum;
	st->sum_sq_hi = (__u64)(sum >> 64);
	if (lat < 0) {
		st->underflow++;
	} else if (mag >= (__u64)a->nr_cells * a->cell_ns) {
		st->overflow++;
		a->tail[latscope_tail_index(mag)]++;
	} else {
		a->cells[mag / a->cell_ns]++;
	}
}

/*
 * This board's part of a monitor's round trip, from the responder's own
 * figures: the driver's arrival to answer, or the application thread's
 * edge to ack written and, within it, edge to thread running. False
 * without them.
 */
bool ls_local_part(const struct ls_report *r, char *buf, size_t len)
{
	const struct latscope_result *res;
	struct ls_summary loc, wake;

	if (r->nr_cpus != 1 || !r->cpu[0].res.latency.samples)
		return false;
	res = &r->cpu[0].res;
	ls_summarize(&res->latency, NULL, &loc);
	if (r->params->context != LS_CTX_GPIOD) {
		snprintf(buf, len, "this board, pulse-in interrupt to answer: min %.3f avg %.3f max %.3f us, %llu samples",
			 ls_us(loc.min), ls_us(loc.avg), ls_us(loc.max),
			 (unsigned long long)loc.samples);
		return true;
	}
	ls_summarize(&res->irq, NULL, &wake);
	snprintf(buf, len, "this board, edge to ack written: min %.3f avg %.3f max %.3f us, of which edge to thread running: min %.3f avg %.3f max %.3f us, %llu samples",
		 ls_us(loc.min), ls_us(loc.avg), ls_us(loc.max), ls_us(wake.min),
		 ls_us(wake.avg), ls_us(wake.max), (unsigned long long)loc.samples);
	return true;
}

/* The CPUs the report's responders ran on. */
int ls_report_cpus(const struct ls_report *r)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < r->nr_cpus; i++)
		CPU_SET(r->cpu[i].cpu, &set);
	return CPU_COUNT(&set);
}

/*
 * "1:1" one responder on one CPU, "N:N" one on each of several, "M:N"
 * more responders than CPUs (--threads), each its own session.
 */
const char *ls_scenario(const struct ls_report *r)
{
	int cpus = ls_report_cpus(r);

	if (r->nr_cpus > cpus)
		return "M:N";
	return r->nr_cpus > 1 ? "N:N" : "1:1";
}
