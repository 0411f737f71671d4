// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/latmon/: what the client takes of a monitor's
 * data records, each of which passed the wire's own check.
 */
#include <stdint.h>
#include <string.h>

#include "latmon/latmon.h"
#include "unit.h"

/* A record that passes ls_latmon_data_unpack(): @samples of @ns each. */
static struct ls_latmon_data flat(int32_t ns, uint32_t samples)
{
	struct ls_latmon_data d = { (int64_t)ns * samples, ns, ns, 0, samples }, got = { 0 };
	unsigned char wire[LS_LATMON_DATA_SIZE];
	char err[256] = "";

	ls_latmon_data_pack(&d, wire);
	check(!ls_latmon_data_unpack(wire, &got, err, sizeof(err)),
	      "latmon sums: the record passes the wire's check", "%s", err);
	return got;
}

/*
 * Every sum the client keeps fits in 64 bits, or the record is refused
 * with why and nothing of it kept: the run's total, and any run of
 * consecutive seconds, which a timeline point adds up.
 */
void test_latmon_sums(void)
{
	const struct ls_latmon_data low = flat(INT32_MIN, UINT32_MAX);
	const struct ls_latmon_data high = flat(INT32_MAX, UINT32_MAX);
	const struct ls_latmon_data minus_high = flat(-INT32_MAX, UINT32_MAX);
	struct ls_latmon_data small = flat(-1000, 10);
	struct ls_latmon_sums s, before;
	char why[256] = "";
	int i, bad = 0;

	memset(&s, 0, sizeof(s));
	small.overruns = 3;
	check(!ls_latmon_sums_add(&s, &small, why, sizeof(why)) &&
	      !ls_latmon_sums_add(&s, &small, why, sizeof(why)) && s.records == 2 &&
	      s.samples == 20 && s.overruns == 6 && s.sum_ns == -20000,
	      "latmon sums: records add up", "%s", why);

	/* -9.2e18, +9.2e18, +9.2e18: the total fits, the last two do not. */
	memset(&s, 0, sizeof(s));
	check(!ls_latmon_sums_add(&s, &low, why, sizeof(why)) &&
	      !ls_latmon_sums_add(&s, &high, why, sizeof(why)),
	      "latmon sums: -9.2e18 then +9.2e18 taken", "%s", why);
	before = s;
	check(ls_latmon_sums_add(&s, &high, why, sizeof(why)) &&
	      !memcmp(&s, &before, sizeof(s)),
	      "latmon sums: a third record of +9.2e18 refused, nothing kept", " ");
	check_str(why, "the latencies of records 2 to 3 add up past 64 bits",
		  "latmon sums: says which records");

	/* Two of +9.2e18: the total itself. */
	memset(&s, 0, sizeof(s));
	check(!ls_latmon_sums_add(&s, &high, why, sizeof(why)) &&
	      ls_latmon_sums_add(&s, &high, why, sizeof(why)) && s.records == 1,
	      "latmon sums: two records of +9.2e18 refused", " ");
	check_str(why, "the sum of the latencies overflows 64 bits",
		  "latmon sums: says the total overflows");

	/* -X and +X in turn, X near 9.2e18: every run of them fits. */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 100; i++)
		bad += ls_latmon_sums_add(&s, i % 2 ? &high : &minus_high, why, sizeof(why)) != 0;
	check(!bad && s.records == 100 && s.sum_ns == 0,
	      "latmon sums: -9.2e18 and +9.2e18 in turn, 100 taken", "%d refused: %s", bad, why);
}
