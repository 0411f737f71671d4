// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: --cost as the CLI's table of modes runs it: the driver
 * checked first (the measuring run needs it, and it is known now, not
 * after the plain runs), the measuring run's file named beside the
 * suite's, then the suite, its table and its JSON. The A/A control
 * (--cost-aa) measures nothing: no driver, no measuring run's file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost.h"
#include "output/output.h"

/* "run.json" -> "run-latency.json": the measuring run's file beside the suite's. */
static void latency_path(const char *json, char *buf, size_t len)
{
	size_t n = strlen(json);

	if (n > 5 && !strcmp(json + n - 5, ".json"))
		n -= 5;
	snprintf(buf, len, "%.*s-latency.json", (int)n, json);
}

int ls_cost_mode(const struct ls_params *p, const struct ls_cost_params *cp,
		 const struct ls_sysinfo *sys, const struct ls_heat_src *heat, int measured_cpu)
{
	struct ls_cost_report *r = calloc(1, sizeof(*r));
	char err[512] = "";
	int ret;

	if (!r) {
		fprintf(stderr, "latscope: out of memory\n");
		return LS_EXIT_RUNTIME;
	}
	if (!cp->aa && ls_device_check(p, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		free(r);
		return LS_EXIT_SETUP;
	}
	r->params = p;
	r->sys = sys;
	r->heat = heat;
	r->measured_cpu = measured_cpu;
	if (!cp->aa && p->json_path && strcmp(p->json_path, "-")) {
		latency_path(p->json_path, r->latency_json, sizeof(r->latency_json));
		if (ls_check_output(r->latency_json, p->force, err, sizeof(err))) {
			fprintf(stderr, "latscope: %s\n", err);
			free(r);
			return LS_EXIT_SETUP;
		}
	}
	ret = ls_cost_suite(p, cp, r, err, sizeof(err));
	if (err[0])
		fprintf(stderr, "latscope: %s\n", err);
	r->exit_code = ret;
	ls_cost_print(stdout, r);
	fflush(stdout);
	if (ls_cost_write_files(r))
		ret = ret ? ret : LS_EXIT_RUNTIME;
	free(r);
	return ret;
}
