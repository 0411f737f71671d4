// SPDX-License-Identifier: GPL-2.0
/*
 * The noise source's CLI side: its options and defaults, the user
 * context's busy loop on a made-up clock (the gaps it keeps, its reports,
 * its periods), and the NOI| line.
 */
#include <errno.h>
#include <string.h>

#include "output/output.h"
#include "unit.h"

/*
 * A clock that advances @step ns a read, jumps @jump ns at the reads
 * @jump_at lists, and records the reports; it stops the loop once it
 * reaches @end.
 */
struct fake {
	__u64 t, step, end;
	__u64 jump_at[4];
	__u64 jump;
	unsigned int reads;
	atomic_bool stop;
	unsigned int reports, gaps, sleeps;
	__u64 runtime, last_to, first_from;
	struct latscope_noise_gap gap[8];
	bool ordered;
	int fail_at;
};

static __u64 fake_now(void *priv)
{
	struct fake *f = priv;
	unsigned int i;

	f->t += f->step;
	for (i = 0; i < 4; i++)
		if (f->jump_at[i] && f->reads == f->jump_at[i])
			f->t += f->jump;
	f->reads++;
	if (f->t >= f->end)
		atomic_store(&f->stop, true);
	return f->t;
}

static int fake_report(void *priv, const struct latscope_noise_report *rep)
{
	struct fake *f = priv;
	const struct latscope_noise_gap *g = (const void *)(uintptr_t)rep->gaps;
	__u64 prev = rep->from_ns;
	unsigned int i;

	if (f->fail_at && (int)f->reports + 1 == f->fail_at)
		return EXDEV;
	if (!f->reports)
		f->first_from = rep->from_ns;
	f->reports++;
	if (rep->from_ns < f->last_to || rep->to_ns < rep->from_ns)
		f->ordered = false;
	for (i = 0; i < rep->count; i++) {
		if (g[i].start_ns < prev || g[i].end_ns > rep->to_ns)
			f->ordered = false;
		prev = g[i].end_ns;
		if (f->gaps < 8)
			f->gap[f->gaps] = g[i];
		f->gaps++;
	}
	f->runtime += rep->to_ns - rep->from_ns;
	f->last_to = rep->to_ns;
	return 0;
}

static void fake_sleep(void *priv, __u64 ns)
{
	struct fake *f = priv;

	f->sleeps++;
	if (ns > f->t)
		f->t = ns;
}

static int run_fake(struct fake *f, __u64 period, __u64 runtime)
{
	struct ls_noise_spin sp = {
		.now = fake_now, .report = fake_report, .sleep_until = fake_sleep,
		.stop = &f->stop, .priv = f, .period_ns = period, .runtime_ns = runtime,
		.threshold_ns = 5000,
	};

	f->ordered = true;
	return ls_noise_loop(&sp);
}

static void test_noise_loop(void)
{
	struct fake f = { .step = 100, .end = 3000000, .jump_at = { 1000, 2000 }, .jump = 7000 };
	struct fake g = { .step = 100, .end = 2500000 };
	struct fake h = { .step = 100, .end = 50000000, .fail_at = 3 };
	int ret;

	/* Reading without end (runtime = period): two gaps of 7.1 us, no sleep. */
	ret = run_fake(&f, 1000000, 1000000);
	check(!ret && f.gaps == 2 && f.gap[0].end_ns - f.gap[0].start_ns == 7100 &&
	      f.gap[1].end_ns - f.gap[1].start_ns == 7100 && !f.sleeps,
	      "noise loop: the gaps kept, no sleep reading without end",
	      "ret %d, %u gaps, %u sleeps", ret, f.gaps, f.sleeps);
	check(f.ordered, "noise loop: reports in order, gaps inside them", " ");
	/*
	 * A report at least each period's end: 3 ms of reading takes three.
	 * Only the reads between two reports (the report's own time) are
	 * not runtime: 99.9 % of the reading is.
	 */
	check(f.reports >= 3 && f.runtime <= f.t &&
	      f.runtime * 1000 >= (f.t - f.first_from) * 999,
	      "noise loop: the reports cover the reading", "%u reports, %llu of %llu ns",
	      f.reports, (unsigned long long)f.runtime, (unsigned long long)f.t);

	/* 200 us of each 1 ms: it sleeps between, and reads 200 us a period. */
	ret = run_fake(&g, 1000000, 200000);
	check(!ret && g.sleeps >= 2 && g.runtime >= 2 * 199000 && g.runtime <= 3 * 200100 && !g.gaps,
	      "noise loop: a runtime of each period, asleep between",
	      "ret %d, %u sleeps, runtime %llu", ret, g.sleeps, (unsigned long long)g.runtime);

	/* A report the driver refuses (the thread moved): the loop ends with it. */
	ret = run_fake(&h, 1000000, 1000000);
	check(ret == EXDEV && h.reports == 2, "noise loop: a refused report ends it with its errno",
	      "ret %d after %u reports", ret, h.reports);
}

static void test_noise_options(void)
{
	static const struct refusal bad[] = {
		{ "--noise -i", "-i" },
		{ "--noise --gpiod", "not with GPIO lines" },
		{ "--noise -I a,1 -O a,2", "not with GPIO lines" },
		{ "--noise -p 999", "1000 to 1000000" },
		{ "--noise -p 1000 --noise-runtime 2000", "--noise-runtime 2000" },
		{ "--noise --noise-runtime 99", "--noise-runtime" },
		{ "--noise --noise-threshold 0", "--noise-threshold" },
		{ "--noise --noise-threshold 1000001", "--noise-threshold" },
		{ "--noise --noise-runtime 5ms", "--noise-runtime" },
		{ "--noise -u --irqs-off --noise-runtime 1000", "--irqs-off" },
		{ "--noise -k --irqs-off", "at most half the period" },
		{ "--noise -k --irqs-off --noise-runtime 500001 -p 1000000", "at most half" },
		{ "--noise -k --irqs-off --noise-runtime 600000", "and 500000 us" },
		{ "--irqs-off", "belongs to --noise" },
		{ "--noise-threshold 3", "belongs to --noise" },
		{ "--noise --cost", "not with --cost" },
		{ "--noise --threads 2", "--threads" },
	};
	struct ls_options o;
	char err[512];

	check(parse_options("--noise", &o, err) == LS_PARSE_RUN &&
	      o.p.source == LATSCOPE_SRC_NOISE && o.p.period_us == LS_NOISE_PERIOD_US &&
	      !o.p.priority && o.p.context == LATSCOPE_CTX_USER &&
	      !strcmp(ls_run_context(&o.p), "noise-user"),
	      "--noise: osnoise's defaults, a SCHED_OTHER user thread", "%s", err);
	check(parse_options("--noise -k -p 10000 -P 80 --noise-runtime 2000 --noise-threshold 2",
			    &o, err) == LS_PARSE_RUN && o.p.period_us == 10000 && o.p.priority == 80 &&
	      o.p.noise_runtime_us == 2000 && o.p.noise_threshold_us == 2 &&
	      !strcmp(ls_run_context(&o.p), "noise-kernel"),
	      "--noise -k: the period, priority, runtime and threshold given", "%s", err);
	check(parse_options("--noise -k --irqs-off --noise-runtime 500000", &o, err) ==
	      LS_PARSE_RUN && o.p.irqs_off, "--noise --irqs-off: half of each second", "%s", err);
	check(parse_options("--check-setup --noise -c 1", &o, err) == LS_PARSE_RUN &&
	      o.check_setup && o.p.noise, "--check-setup --noise: the verdict for a noise run",
	      "%s", err);
	check_refusals(bad, ARRAY_SIZE(bad));
}

static void test_noise_line(void)
{
	struct latscope_noise_bulk w = {
		.bulk = { .second = 7, .samples = 3, .min_ns = 6000, .avg_ns = 8000,
			  .max_ns = 12345 },
		.runtime_ns = 1000000000, .noise_ns = 24000,
		.gaps = { 2, 1, 0, 0, 1, 0 },
	};
	char line[256];

	ls_noise_format_second(line, sizeof(line), &w);
	check_str(line,
		  "NOI|      7|   1000.000|     24.000|  99.9976|    12.345|     3|     2|      1|     0|   0|     1|     0\n",
		  "NOI| line");
	check(ls_noise_available(0, 0) < 0 && ls_noise_available(100, 200) == 0.0,
	      "available: none without runtime, never below 0", " ");
}

void test_noise(void)
{
	test_noise_loop();
	test_noise_options();
	test_noise_line();
}
