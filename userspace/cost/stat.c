// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the cost suite's arithmetic: the mean and spread of a
 * workload's running times, and how much slower one set is than another.
 */
#include <math.h>

#include "cost/cost.h"

/* Mean, sample standard deviation (n - 1), min and max of @n times. */
void ls_cost_stat(const double *t, unsigned int n, struct ls_cost_stat *out)
{
	double sum = 0, sq = 0;
	unsigned int i;

	out->n = n;
	out->mean = 0;
	out->stddev = 0;
	out->min = n ? t[0] : 0;
	out->max = out->min;
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		sum += t[i];
		if (t[i] < out->min)
			out->min = t[i];
		if (t[i] > out->max)
			out->max = t[i];
	}
	out->mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (t[i] - out->mean) * (t[i] - out->mean);
	out->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
}

/* How much longer @other took than @base, in percent of @base; NAN without a base. */
double ls_cost_change(const struct ls_cost_stat *base, const struct ls_cost_stat *other)
{
	if (!base->n || !other->n || base->mean <= 0)
		return NAN;
	return (other->mean - base->mean) / base->mean * 100.0;
}
