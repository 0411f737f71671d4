// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the run's timeline, from the per-second records of all
 * measured CPUs merged. It holds at most LS_TIMELINE_POINTS points, so its
 * memory is the same for a minute and for a day: each point covers
 * bucket_s seconds, 1 at first, doubled (neighbours merged) whenever the
 * next second would not fit. A 24-hour run ends with 32-second points.
 */
#include <string.h>

#include "core/core.h"

void ls_timeline_init(struct ls_timeline *t)
{
	memset(t, 0, sizeof(*t));
	t->bucket_s = 1;
}

/* Folds @from into @into; either may have no sample. */
static void merge_point(struct ls_point *into, const struct ls_point *from)
{
	if (from->samples)
		ls_merge_extremes(&into->min_ns, &into->max_ns, !into->samples,
				  from->min_ns, from->max_ns);
	into->samples += from->samples;
	into->overruns += from->overruns;
	into->sum_ns += from->sum_ns;
}

/* Doubles the bucket width, merging the points that now share a bucket. */
static void widen(struct ls_timeline *t)
{
	unsigned int i, n = 0;

	t->bucket_s *= 2;
	for (i = 0; i < t->n; i++) {
		struct ls_point *pt = &t->pt[i];
		__u64 start = pt->second - pt->second % t->bucket_s;

		if (n && t->pt[n - 1].second == start) {
			merge_point(&t->pt[n - 1], pt);
		} else {
			t->pt[n] = *pt;
			t->pt[n].second = start;
			n++;
		}
	}
	t->n = n;
}

/* Adds one merged second; seconds come in increasing order. */
void ls_timeline_add(struct ls_timeline *t, const struct latscope_bulk *b)
{
	struct ls_point pt = {
		.samples = b->samples,
		.overruns = b->overruns,
		.min_ns = b->min_ns,
		.max_ns = b->max_ns,
		.sum_ns = b->avg_ns * (__s64)b->samples,
	};

	for (;;) {
		pt.second = b->second - b->second % t->bucket_s;
		if (t->n && t->pt[t->n - 1].second == pt.second) {
			merge_point(&t->pt[t->n - 1], &pt);
			return;
		}
		if (t->n < LS_TIMELINE_POINTS)
			break;
		widen(t);
	}
	t->pt[t->n++] = pt;
}
