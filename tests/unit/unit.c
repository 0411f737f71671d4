// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the latscope CLI, one file per layer it tests
 * (test_core.c, test_output.c, test_file.c, test_run.c, test_latmon.c,
 * test_cli.c): this file has the checks they share and main(). Ends with
 * "N passed, N failed".
 * Usage: unit JSON-OUT MAN-PAGE DIR (tests/unit/run.sh).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "unit.h"

static int passed, failed;

void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("not ok - %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void check_str(const char *got, const char *want, const char *name)
{
	check(!strcmp(got, want), name, "\n     got '%s'\n    want '%s'", got, want);
}

enum ls_parse parse_options(const char *line, struct ls_options *o, char *err)
{
	static char buf[512];	/* ls_options keeps pointers into argv */
	char *argv[32], *save = NULL, *tok;
	int argc = 0;

	snprintf(buf, sizeof(buf), "latscope %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	ls_options_init(o);
	err[0] = '\0';
	return ls_parse_args(argc, argv, o, err, 256);
}

enum ls_parse parse(const char *line, struct ls_params *p, char *err)
{
	struct ls_options o;
	enum ls_parse ret = parse_options(line, &o, err);

	*p = o.p;
	return ret;
}

void check_refusals(const struct refusal *bad, size_t n)
{
	struct ls_params p;
	char err[256];

	for (size_t i = 0; i < n; i++) {
		enum ls_parse r = parse(bad[i].line, &p, err);

		check(r == LS_PARSE_ERROR && strstr(err, bad[i].named), bad[i].line,
		      "result %d, message '%s' should name %s", r, err, bad[i].named);
	}
}

void put_file(const char *dir, const char *name, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	check(f != NULL, "a test's file written", "%s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	test_options();
	test_gpio_options();
	test_gpiod_options();
	test_mode_options();
	test_gpiod_compat();
	test_acc();
	test_sources();
	test_durations();
	test_cpu_lists();
	test_lines();
	test_stats();
	test_tail_buckets();
	test_tail_percentiles();
	test_plot();
	test_plot_rows_add_up();
	test_why(argc > 3 ? argv[3] : NULL);
	test_json_strings();
	test_summary_no_sample();
	test_scenarios();
	test_driver_check();
	test_gpio_edge_used();
	test_timeline();
	test_signals_after_run();
	test_latmon_frames();
	test_latmon_sums();
	test_allow();
	test_prom(argc > 3 ? argv[3] : NULL);
	test_survey(argc > 3 ? argv[3] : NULL);
	test_noise();
	if (argc > 1)
		test_json(argv[1]);
	if (argc > 2)
		test_stress(argv[2]);
	if (argc > 3)
		test_stress_lifecycle(argv[3]);
	if (argc > 3)
		test_irq_thread(argv[3]);
	if (argc > 3)
		test_heat(argv[3]);
	if (argc > 3)
		test_cost(argv[3]);
	if (argc > 3)
		test_file(argv[3]);
	if (argc > 3)
		test_evt(argv[3], argc > 4 ? argv[4] : NULL);
	printf("cli unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
