// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: what a run says of heat and clock (core/heat.c's samples,
 * totalled in the timeline): a HOT| line in the summary, a header line in
 * the plot file, a "heat" object in the JSON. A board with none of them
 * (a VM) prints no HOT| line, and its JSON says null.
 */
#include <stdio.h>
#include <string.h>

#include "output/output.h"

/* The run's heat figures, or NULL when nothing was read. */
static const struct ls_heat_total *heat_of(const struct ls_report *r)
{
	if (!r->heat || !r->timeline || !r->timeline->heat.seconds || !r->timeline->heat.heat)
		return NULL;
	return &r->timeline->heat;
}

/* "thermal_zone0 (cpu-thermal) 45.0-61.2 C, CPU1 600-1500 MHz", what was read. */
static void describe(char *buf, size_t len, const struct ls_report *r,
		     const struct ls_heat_total *h)
{
	int at = 0;

	buf[0] = '\0';
	if (h->heat & LS_HEAT_TEMP)
		at += snprintf(buf, len, "%s (%s) %.1f to %.1f C", r->heat->zone,
			       r->heat->zone_type, h->temp_min_mc / 1000.0,
			       h->temp_max_mc / 1000.0);
	if ((h->heat & LS_HEAT_FREQ) && at < (int)len)
		at += snprintf(buf + at, len - at, "%sCPU%d at %u to %u MHz", at ? ", " : "",
			       r->heat->cpu, h->freq_min_khz / 1000, h->freq_max_khz / 1000);
	if ((h->heat & LS_HEAT_THROTTLE) && at < (int)len)
		snprintf(buf + at, len - at, "%sthrottling flags read", at ? ", " : "");
}

void ls_heat_print_summary(FILE *f, const struct ls_report *r)
{
	const struct ls_heat_total *h = heat_of(r);
	char line[384], names[128];

	if (r->heat && r->heat->spared[0])
		fprintf(f, "HOT| not read, not to interrupt a measured CPU: %s\n", r->heat->spared);
	if (!h)
		return;
	describe(line, sizeof(line), r, h);
	fprintf(f, "HOT| %s\n", line);
	if (h->throttled) {
		ls_throttle_names(h->throttled, names, sizeof(names));
		fprintf(f, "HOT| THROTTLED during the run: %s (in %llu of %llu s): these figures are of a slowed board\n",
			names, h->throttled_s, h->seconds);
	}
	if (h->before) {
		ls_throttle_names(h->before, names, sizeof(names));
		fprintf(f, "HOT| before the run, since boot: %s\n", names);
	}
}

void ls_heat_write_plot(FILE *f, const struct ls_report *r)
{
	const struct ls_heat_total *h = heat_of(r);
	char line[384], names[128];

	if (r->heat && r->heat->spared[0])
		fprintf(f, "# heat: not read, not to interrupt a measured CPU: %s\n",
			r->heat->spared);
	if (!h) {
		fprintf(f, "# heat: none read (no thermal zone, no cpufreq, no throttling flags)\n");
		return;
	}
	describe(line, sizeof(line), r, h);
	fprintf(f, "# heat: %s\n", line);
	if (h->heat & LS_HEAT_THROTTLE) {
		ls_throttle_names(h->throttled, names, sizeof(names));
		fprintf(f, "# throttled during the run: %s", names);
		if (h->throttled)
			fprintf(f, " (in %llu of %llu s)", h->throttled_s, h->seconds);
		fputc('\n', f);
	}
}

/* A list of the flags' names, as JSON. */
static void json_flags(FILE *f, unsigned int flags)
{
	int i, n = 0;

	fputc('[', f);
	for (i = 0; i < LS_THROTTLE_BITS; i++)
		if (flags & (1u << i))
			fprintf(f, "%s\"%s\"", n++ ? ", " : "", ls_throttle_name(i));
	fputc(']', f);
}

/*
 * Heat as a JSON object: where each figure was read and its range; null
 * where the board has none. Temperatures in °C, clocks in MHz. @in is
 * the indent of its keys.
 */
void ls_heat_json_value(FILE *f, const struct ls_heat_src *src, const struct ls_heat_total *h,
			const char *in)
{
	fprintf(f, "{\n%s\"samples\": %llu,\n%s\"spared\": ", in, h->seconds, in);
	/* What was left unread not to interrupt a measured CPU (ls_heat_spare()). */
	ls_json_string_or_null(f, src->spared);
	fprintf(f, ",\n%s\"temperature\": ", in);
	if (h->heat & LS_HEAT_TEMP) {
		fputs("{ ", f);
		ls_json_key_string(f, "", "zone", src->zone, ", ");
		ls_json_key_string(f, "", "type", src->zone_type, ", ");
		fprintf(f, "\"min_c\": %.1f, \"max_c\": %.1f },\n", h->temp_min_mc / 1000.0,
			h->temp_max_mc / 1000.0);
	} else {
		fputs("null,\n", f);
	}
	fprintf(f, "%s\"clock\": ", in);
	if (h->heat & LS_HEAT_FREQ)
		fprintf(f, "{ \"cpu\": %d, \"min_mhz\": %.3f, \"max_mhz\": %.3f },\n", src->cpu,
			h->freq_min_khz / 1000.0, h->freq_max_khz / 1000.0);
	else
		fputs("null,\n", f);
	fprintf(f, "%s\"throttling\": ", in);
	if (h->heat & LS_HEAT_THROTTLE) {
		fputs("{ ", f);
		ls_json_key_string(f, "", "source", src->throttle, ", ");
		fputs("\"during_run\": ", f);
		json_flags(f, h->throttled);
		fprintf(f, ", \"seconds\": %llu, \"before_run\": ", h->throttled_s);
		json_flags(f, h->before);
		fputs(" }\n", f);
	} else {
		fputs("null\n", f);
	}
	fprintf(f, "%.*s}", (int)(strlen(in) >= 2 ? strlen(in) - 2 : 0), in);
}

/* "heat" of a run: its heat figures, or null where nothing was set up. */
void ls_heat_write_json(FILE *f, const struct ls_report *r)
{
	if (!r->heat || !r->timeline) {
		fputs("  \"heat\": null,\n", f);
		return;
	}
	fputs("  \"heat\": ", f);
	ls_heat_json_value(f, r->heat, &r->timeline->heat, "    ");
	fputs(",\n", f);
}
