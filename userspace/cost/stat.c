// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the cost suite's arithmetic: the mean and spread of a
 * workload's running times, and how much slower one set is than another,
 * with the 95 % confidence interval of that: Welch's t on the two means,
 * the spread of their ratio by the delta method,
 *   R = mB / mA,  a = vA / (nA mA^2),  b = vB / (nB mB^2),
 *   se(R) = R sqrt(a + b),  df = (a + b)^2 / (a^2 / (nA - 1) + b^2 / (nB - 1)),
 * the change 100 (R - 1) and its interval 100 (R - 1 +- t(0.975, df) se).
 * df is rounded down to a row of the t table, so the interval is never
 * narrower than Welch's.
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

/*
 * Student's t at 0.975 for @df degrees of freedom, rounded down to a row
 * (SciPy's stats.t.ppf, rounded up at the fourth decimal); @df below 1: NAN.
 */
double ls_t975(double df)
{
	static const struct {
		double df, t;
	} rows[] = {
		{ 1, 12.7063 }, { 2, 4.3027 }, { 3, 3.1825 }, { 4, 2.7765 }, { 5, 2.5706 },
		{ 6, 2.4470 }, { 7, 2.3647 }, { 8, 2.3061 }, { 9, 2.2622 }, { 10, 2.2282 },
		{ 11, 2.2010 }, { 12, 2.1789 }, { 13, 2.1604 }, { 14, 2.1448 }, { 15, 2.1315 },
		{ 16, 2.1200 }, { 17, 2.1099 }, { 18, 2.1010 }, { 19, 2.0931 }, { 20, 2.0860 },
		{ 21, 2.0797 }, { 22, 2.0739 }, { 23, 2.0687 }, { 24, 2.0639 }, { 25, 2.0596 },
		{ 26, 2.0556 }, { 27, 2.0519 }, { 28, 2.0485 }, { 29, 2.0453 }, { 30, 2.0423 },
		{ 40, 2.0211 }, { 60, 2.0003 }, { 120, 1.9800 }, { INFINITY, 1.9600 },
	};
	size_t i;

	if (!(df >= 1))
		return NAN;
	for (i = ARRAY_SIZE(rows) - 1; rows[i].df > df; i--)
		;
	return rows[i].t;
}

void ls_cost_delta(const struct ls_cost_stat *base, const struct ls_cost_stat *other,
		   struct ls_cost_delta *d)
{
	double r, a, b, se, df;

	d->pct = ls_cost_change(base, other);
	d->lo = NAN;
	d->hi = NAN;
	if (isnan(d->pct) || base->n < 2 || other->n < 2 || other->mean <= 0)
		return;
	r = other->mean / base->mean;
	a = base->stddev * base->stddev / (base->n * base->mean * base->mean);
	b = other->stddev * other->stddev / (other->n * other->mean * other->mean);
	se = r * sqrt(a + b);
	/* No spread on either side: nothing to widen the change by. */
	df = a + b > 0 ? (a + b) * (a + b) / (a * a / (base->n - 1) + b * b / (other->n - 1)) :
			 INFINITY;
	d->lo = (r - ls_t975(df) * se - 1) * 100.0;
	d->hi = (r + ls_t975(df) * se - 1) * 100.0;
}

bool ls_cost_delta_differs(const struct ls_cost_delta *d)
{
	return !isnan(d->lo) && (d->lo > 0 || d->hi < 0);
}

/* How much longer @other took than @base, in percent of @base; NAN without a base. */
double ls_cost_change(const struct ls_cost_stat *base, const struct ls_cost_stat *other)
{
	if (!base->n || !other->n || base->mean <= 0)
		return NAN;
	return (other->mean - base->mean) / base->mean * 100.0;
}
