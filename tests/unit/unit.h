/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CLI's unit tests: the checks every file uses (unit.c) and each
 * file's tests, which unit.c's main() runs in turn.
 */
#ifndef LATSCOPE_UNIT_H
#define LATSCOPE_UNIT_H

#include <stdbool.h>

#include "cli/cli.h"
#include "core/core.h"

__attribute__((format(printf, 3, 4)))
void check(bool ok, const char *name, const char *fmt, ...);
void check_str(const char *got, const char *want, const char *name);
/* Writes @text to @dir/@name, making its directories. */
void put_file(const char *dir, const char *name, const char *text);
/* Parses a command line given as one string. */
enum ls_parse parse(const char *line, struct ls_params *p, char *err);
/* The same, with each mode's own options (struct ls_options). */
enum ls_parse parse_options(const char *line, struct ls_options *o, char *err);
/* A command line the parser must refuse, and what its one line must name. */
struct refusal {
	const char *line;
	const char *named;
};
/* Checks that the parser refuses each of @bad's @n lines, naming its part. */
void check_refusals(const struct refusal *bad, size_t n);
/* 100 samples: 90 in cell 1, 9 in cell 5, 1 past the histogram at 50 us. */
struct latscope_stats sample_stats(__u64 *cells);
/* One second into @t, as the logger adds it. */
void second(struct ls_timeline *t, __u64 s, __u64 samples, __u64 overruns,
	    __s64 min, __s64 avg, __s64 max);

/* test_core.c */
void test_acc(void);
void test_sources(void);
void test_cpu_lists(void);
void test_stats(void);
void test_tail_buckets(void);
void test_tail_percentiles(void);
void test_timeline(void);
void test_latmon_frames(void);
void test_allow(void);

/* test_noise.c */
void test_noise(void);

/* test_latmon.c */
void test_latmon_sums(void);

/* test_cost.c */
void test_cost(const char *dir);

/* test_survey.c */
void test_survey(const char *dir);

/* test_file.c */
void test_file(const char *dir);

/* test_heat.c */
void test_heat(const char *dir);

/* test_output.c */
void test_lines(void);
void test_plot(void);
void test_plot_rows_add_up(void);
void test_summary_no_sample(void);
void test_scenarios(void);
void test_gpio_edge_used(void);
void test_json(const char *path);
void test_why(const char *dir);
void test_json_strings(void);

/* test_prom.c */
void test_prom(const char *dir);

/* test_run.c */
void test_gpiod_compat(void);
void test_irq_thread(const char *dir);
void test_driver_check(void);
void test_stress(const char *man_path);
void test_stress_lifecycle(const char *dir);
void test_evt(const char *dir, const char *evt);
void test_signals_after_run(void);

/* test_cli.c */
void test_options(void);
void test_gpio_options(void);
void test_gpiod_options(void);
void test_mode_options(void);
void test_durations(void);

#endif /* LATSCOPE_UNIT_H */
