// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the run's timeline, from the per-second records of all
 * measured CPUs merged. It holds at most LS_TIMELINE_POINTS points, so its
 * memory is the same for a minute and for a day: each point covers
 * bucket_s seconds, 1 at first, doubled (neighbours merged) whenever the
 * next second would not fit. A 24-hour run ends with 32-second points.
 */
#include <stdint.h>
#include <string.h>

#include "core/core.h"

void ls_timeline_init(struct ls_timeline *t)
{
	memset(t, 0, sizeof(*t));
	t->bucket_s = 1;
}

/* Heat into a point: the hottest second, the slowest clock, all throttling. */
static void merge_heat(struct ls_point *pt, unsigned char heat, int temp_mc,
		       unsigned int freq_khz, unsigned char throttled)
{
	if ((heat & LS_HEAT_TEMP) && (!(pt->heat & LS_HEAT_TEMP) || temp_mc > pt->temp_mc))
		pt->temp_mc = temp_mc;
	if ((heat & LS_HEAT_FREQ) && (!(pt->heat & LS_HEAT_FREQ) || freq_khz < pt->freq_khz))
		pt->freq_khz = freq_khz;
	pt->throttled |= throttled;
	pt->heat |= heat;
}

/*
 * Folds @from into @into; either may have no sample. The sum saturates
 * rather than wraps: a latmon monitor's records are checked so that no
 * point's sum can overflow (latmon/client.c), this is the last guard.
 */
static void merge_point(struct ls_point *into, const struct ls_point *from)
{
	int k;

	if (from->samples)
		ls_merge_extremes(&into->min_ns, &into->max_ns, !into->samples,
				  from->min_ns, from->max_ns);
	into->samples += from->samples;
	into->overruns += from->overruns;
	into->runtime_ns += from->runtime_ns;
	into->noise_ns += from->noise_ns;
	for (k = 0; k < LATSCOPE_NOISE_KINDS; k++)
		into->gaps[k] += from->gaps[k];
	if (__builtin_add_overflow(into->sum_ns, from->sum_ns, &into->sum_ns))
		into->sum_ns = from->sum_ns < 0 ? INT64_MIN : INT64_MAX;
	merge_heat(into, from->heat, from->temp_mc, from->freq_khz, from->throttled);
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

/*
 * A noise run's own figures of one second, after that second's
 * ls_timeline_add(): into its point.
 */
void ls_timeline_noise(struct ls_timeline *t, const struct latscope_noise_bulk *w)
{
	struct ls_point *last = t->n ? &t->pt[t->n - 1] : NULL;
	int k;

	if (!last || last->second != w->bulk.second - w->bulk.second % t->bucket_s)
		return;
	t->noise = true;
	last->runtime_ns += w->runtime_ns;
	last->noise_ns += w->noise_ns;
	for (k = 0; k < LATSCOPE_NOISE_KINDS; k++)
		last->gaps[k] += w->gaps[k];
}

/*
 * One sample into a run's heat figures; @heat and @throttled get what it
 * had and the throttling it saw: the flags set now, and the since-boot
 * flags that were not set at the sample before (it came and went between
 * two samples); those set at the first sample came before the run.
 */
void ls_heat_total_add(struct ls_heat_total *h, const struct ls_heat_sample *s,
		       unsigned char *heat, unsigned char *throttled)
{
	const unsigned int mask = (1u << LS_THROTTLE_BITS) - 1;

	*heat = 0;
	*throttled = 0;
	if (s->has_temp) {
		if (!(h->heat & LS_HEAT_TEMP) || s->temp_mc < h->temp_min_mc)
			h->temp_min_mc = s->temp_mc;
		if (!(h->heat & LS_HEAT_TEMP) || s->temp_mc > h->temp_max_mc)
			h->temp_max_mc = s->temp_mc;
		*heat |= LS_HEAT_TEMP;
	}
	if (s->has_freq) {
		if (!(h->heat & LS_HEAT_FREQ) || s->freq_khz < h->freq_min_khz)
			h->freq_min_khz = s->freq_khz;
		if (!(h->heat & LS_HEAT_FREQ) || s->freq_khz > h->freq_max_khz)
			h->freq_max_khz = s->freq_khz;
		*heat |= LS_HEAT_FREQ;
	}
	if (s->has_throttle) {
		unsigned int since = (s->throttle >> LS_THROTTLE_SINCE) & mask;

		*throttled = s->throttle & mask;
		if (h->heat & LS_HEAT_THROTTLE)
			*throttled |= since & ~h->since;
		else
			h->before = since;
		h->since = since;
		if (*throttled)
			h->throttled_s++;
		h->throttled |= *throttled;
		*heat |= LS_HEAT_THROTTLE;
	}
	h->heat |= *heat;
	h->seconds++;
}

/*
 * One second's heat, after that second's ls_timeline_add(): into the
 * run's figures, and into the second's point (a second without a point
 * only counts in the run's figures).
 */
void ls_timeline_heat(struct ls_timeline *t, __u64 second, const struct ls_heat_sample *s)
{
	struct ls_point *last = t->n ? &t->pt[t->n - 1] : NULL;
	unsigned char heat, throttled;

	ls_heat_total_add(&t->heat, s, &heat, &throttled);
	if (last && last->second == second - second % t->bucket_s)
		merge_heat(last, heat, s->temp_mc, s->freq_khz, throttled);
}
