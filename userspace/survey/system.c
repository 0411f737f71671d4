// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI, survey: the board's description, system.txt, one "key:
 * value" line each: what a design review asks first and a run's JSON does
 * not hold (the board's model and firmware, the CPU's model and
 * microcode, the modules loaded), beside what it does (kernel, command
 * line, clocksource). Read from /proc and /sys under a root prefix
 * (LATSCOPE_ROOT: the tests' tree); a fact not found reads "unknown".
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "survey/survey.h"

/* @root + @path's first line into @buf: "unknown" if there is none, "none" if it is empty. */
static const char *line_of(const char *root, const char *path, char *buf, size_t len)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root ? root : "", path);
	f = fopen(full, "r");
	snprintf(buf, len, "%s", f ? "none" : "unknown");
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

/* The value of /proc/cpuinfo's first line whose key is one of @keys, or "unknown". */
static const char *cpu_field(const char *root, const char *const *keys, char *buf, size_t len)
{
	char full[4096], line[512];
	size_t k, n, key;
	FILE *f;

	snprintf(buf, len, "unknown");
	snprintf(full, sizeof(full), "%s/proc/cpuinfo", root ? root : "");
	f = fopen(full, "r");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		/* The key: before the colon, less the tabs and spaces before it. */
		for (key = (size_t)(colon - line); key && (line[key - 1] == ' ' ||
							   line[key - 1] == '\t'); key--)
			;
		for (k = 0; keys[k]; k++) {
			n = strlen(keys[k]);
			if (n != key || strncmp(line, keys[k], n))
				continue;
			colon += 1 + strspn(colon + 1, " \t");
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(buf, len, "%s", colon[0] ? colon : "unknown");
			fclose(f);
			return buf;
		}
	}
	fclose(f);
	return buf;
}

/* The names of /proc/modules, comma-separated, and how many. */
static void module_names(const char *root, char *buf, size_t len, int *count)
{
	char full[4096], line[512];
	size_t used = 0;
	FILE *f;

	*count = 0;
	snprintf(buf, len, "unknown");
	snprintf(full, sizeof(full), "%s%s", root ? root : "", "/proc/modules");
	f = fopen(full, "r");
	if (!f)
		return;
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, " \t\n");

		if (!n)
			continue;
		if (used + n + 3 < len)
			used += snprintf(buf + used, len - used, "%s%.*s", *count ? ", " : "",
					 (int)n, line);
		(*count)++;
	}
	fclose(f);
}

/**
 * ls_survey_system() - the board's description, as system.txt holds it
 * @f: where to
 * @root: the root prefix of /proc and /sys (LATSCOPE_ROOT), NULL: /
 *
 * Return: 0, or -1 if @f failed.
 */
int ls_survey_system(FILE *f, const char *root)
{
	static const char *const cpu_keys[] = { "model name", "Model", "Hardware", "cpu model",
						NULL };
	static const char *const microcode_keys[] = { "microcode", NULL };
	char a[512], b[512], c[512], mods[8192];
	struct utsname u;
	int nmods;

	fprintf(f, "board: %s %s\n",
		line_of(root, "/sys/devices/virtual/dmi/id/sys_vendor", a, sizeof(a)),
		line_of(root, "/sys/devices/virtual/dmi/id/product_name", b, sizeof(b)));
	/* A device tree board's model: one NUL-ended line. */
	fprintf(f, "device tree model: %s\n",
		line_of(root, "/proc/device-tree/model", a, sizeof(a)));
	fprintf(f, "firmware: %s %s (%s)\n",
		line_of(root, "/sys/devices/virtual/dmi/id/bios_vendor", a, sizeof(a)),
		line_of(root, "/sys/devices/virtual/dmi/id/bios_version", b, sizeof(b)),
		line_of(root, "/sys/devices/virtual/dmi/id/bios_date", c, sizeof(c)));
	fprintf(f, "cpu: %s\n", cpu_field(root, cpu_keys, a, sizeof(a)));
	fprintf(f, "microcode: %s\n", cpu_field(root, microcode_keys, a, sizeof(a)));
	fprintf(f, "cpus online: %s\n",
		line_of(root, "/sys/devices/system/cpu/online", a, sizeof(a)));
	fprintf(f, "cpus isolated: %s\n", line_of(root, "/sys/devices/system/cpu/isolated", a,
						  sizeof(a)));
	if (!uname(&u))
		fprintf(f, "kernel: %s %s %s\n", u.release, u.version, u.machine);
	fprintf(f, "command line: %s\n", line_of(root, "/proc/cmdline", a, sizeof(a)));
	fprintf(f, "clocksource: %s\n",
		line_of(root, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
			a, sizeof(a)));
	fprintf(f, "latscope: %s, driver %s\n", LS_VERSION,
		line_of(root, "/sys/module/latscope/version", a, sizeof(a)));
	module_names(root, mods, sizeof(mods), &nmods);
	fprintf(f, "modules (%d): %s\n", nmods, mods);
	return ferror(f) ? -1 : 0;
}
