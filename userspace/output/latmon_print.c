// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: what a run with a latmon monitor (-z HOST) prints beside
 * the totals, which are the monitor's: who measured, how much of its
 * stream came, and this board's own part of the round trip (pulse-in
 * interrupt to the responder's answer, from the driver).
 */
#include "output/output.h"

void ls_latmon_print_summary(FILE *f, const struct ls_report *r)
{
	const struct ls_latmon_figures *m = r->latmon;
	char loc[512];

	fprintf(f, "LMN| latmon monitor %s: %llu records%s", m->peer,
		(unsigned long long)m->bulks, m->ended ? "" : ", no end record");
	if (m->has_hist)
		fprintf(f, ", histogram of %llu samples\n", (unsigned long long)m->hist_samples);
	else
		fprintf(f, ", no histogram\n");
	if (m->has_hist && m->hist_samples != m->stats.samples)
		fprintf(f, "LMN| its histogram holds %llu samples, its records %llu (a Zephyr latmon counts its warm-up there too)\n",
			(unsigned long long)m->hist_samples,
			(unsigned long long)m->stats.samples);
	if (ls_local_part(r, loc, sizeof(loc)))
		fprintf(f, "LOC| %s\n", loc);
}

void ls_latmon_write_plot(FILE *f, const struct ls_report *r)
{
	const struct ls_latmon_figures *m = r->latmon;
	char loc[512];

	fprintf(f, "# measured by: latmon monitor %s, pulse-out to ack-in round trip\n",
		m->peer);
	if (!m->has_hist)
		fprintf(f, "# histogram: none, the monitor's stream ended before it\n");
	if (ls_local_part(r, loc, sizeof(loc)))
		fprintf(f, "# %s\n", loc);
}

void ls_latmon_write_json(FILE *f, const struct ls_report *r)
{
	const struct ls_latmon_figures *m = r->latmon;
	const char *sep = " ";
	unsigned int i;

	fputs("  \"latmon\": {\n", f);
	ls_json_key_string(f, "    ", "monitor", m->peer, ",\n");
	ls_json_key_string(f, "    ", "figures",
			   r->params->context == LS_CTX_GPIOD ?
			   "total, timeline, overruns and histogram are the monitor's: pulse-out to ack-in; thread.0 is this board's application thread: edge to ack written"
			   : "total, timeline, overruns and histogram are the monitor's: pulse-out to ack-in; thread.N is this board's driver: pulse-in interrupt to answer",
			   ",\n");
	fprintf(f, "    \"records\": %llu,\n    \"samples\": %llu,\n    \"overruns\": %llu,\n",
		(unsigned long long)m->bulks, (unsigned long long)m->stats.samples,
		(unsigned long long)m->overruns);
	fprintf(f, "    \"ended\": %s,\n    \"histogram_complete\": %s,\n",
		m->ended ? "true" : "false", m->has_hist ? "true" : "false");
	fprintf(f, "    \"histogram_cells\": %u,\n    \"histogram_samples\": %llu,\n",
		m->cells, (unsigned long long)m->hist_samples);
	/* Its 1 us cells but the last, which total.overflow counts. */
	fputs("    \"histogram\": {", f);
	for (i = 0; m->has_hist && i + 1 < m->cells; i++) {
		if (!m->hist[i])
			continue;
		fprintf(f, "%s\"%u\": %u", sep, i, m->hist[i]);
		sep = ", ";
	}
	fputs(" }\n  },\n", f);
}
