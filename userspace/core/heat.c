// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: heat and clock, read once a second beside the latency: a
 * thermal zone's temperature, the measured CPU's clock as cpufreq last set
 * it, and a Raspberry Pi's throttling flags as its firmware reports them.
 * Where each file is, is found once (ls_heat_find()) under a sysfs root
 * that tests replace with a tree of their own; a board without one of
 * them just has no such figure.
 *
 * What a read costs: scaling_cur_freq is a value the kernel keeps (not
 * cpuinfo_cur_freq, which may ask the CPU itself), except on x86 before
 * Linux 5.18, where it asks the CPU through an IPI (arch_freq_get_on_cpu()
 * and its smp_call_function_single()); a zone's temp runs its driver (a
 * register on most SoCs, an MSR read on the package's first CPU for
 * x86_pkg_temp, through an IPI from any other, firmware for ACPI zones);
 * get_throttled asks the Pi's firmware through its mailbox. The logger
 * reads them, off the measured CPUs; ls_heat_spare() drops what would
 * still interrupt one; --thermal-zone none leaves the temperature out.
 */
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"

/* A whole number in a sysfs file, in @base; -1 if there is none. */
static int read_number(const char *path, int base, long long *out)
{
	char buf[64], *end;

	if (ls_read_line(path, buf, sizeof(buf)) || !buf[0])
		return -1;
	*out = strtoll(buf, &end, base);
	return *end ? -1 : 0;
}

/* Zone @n's temp file into @h if it reads as a number: 0, or -1. */
static int use_zone(struct ls_heat_src *h, const char *sysfs, int n)
{
	char path[sizeof(h->temp)], type[32] = "";
	long long v;

	snprintf(path, sizeof(path), "%s/class/thermal/thermal_zone%d/type", sysfs, n);
	ls_read_line(path, type, sizeof(type));
	snprintf(path, sizeof(path), "%s/class/thermal/thermal_zone%d/temp", sysfs, n);
	if (read_number(path, 10, &v))
		return -1;
	snprintf(h->temp, sizeof(h->temp), "%s", path);
	snprintf(h->zone, sizeof(h->zone), "thermal_zone%d", n);
	snprintf(h->zone_type, sizeof(h->zone_type), "%s", type[0] ? type : "unknown");
	return 0;
}

/* The zones under @sysfs, by number: how many were put in @zones. */
static int list_zones(const char *sysfs, int *zones, int max)
{
	char path[256];
	struct dirent *d;
	DIR *dir;
	int n = 0, z;

	snprintf(path, sizeof(path), "%s/class/thermal", sysfs);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max) {
		char *end;

		if (strncmp(d->d_name, "thermal_zone", 12) || !d->d_name[12])
			continue;
		z = (int)strtol(d->d_name + 12, &end, 10);
		if (!*end && z >= 0)
			zones[n++] = z;
	}
	closedir(dir);
	/* readdir()'s order is the file system's: sort, a handful at most. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && zones[j - 1] > zones[j]; j--) {
			z = zones[j];
			zones[j] = zones[j - 1];
			zones[j - 1] = z;
		}
	return n;
}

/*
 * By default, the first zone whose type names the CPU or the SoC
 * ("cpu-thermal" on a Pi), else the lowest-numbered one that reads.
 */
static void find_zone(struct ls_heat_src *h, const char *sysfs)
{
	int zones[64], n = list_zones(sysfs, zones, 64), i, first = -1;

	for (i = 0; i < n; i++) {
		if (use_zone(h, sysfs, zones[i]))
			continue;
		if (strstr(h->zone_type, "cpu") || strstr(h->zone_type, "soc"))
			return;
		if (first < 0)
			first = zones[i];
	}
	if (first >= 0)
		use_zone(h, sysfs, first);
}

/* The firmware's get_throttled, where a Raspberry Pi kernel puts it. */
static void find_throttle(struct ls_heat_src *h, const char *sysfs)
{
	static const char *const where[] = {
		"devices/platform/soc/soc:firmware/get_throttled",
		"devices/platform/*/soc:firmware/get_throttled",
		"devices/platform/*firmware*/get_throttled",
	};
	char pattern[256];
	long long v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s/%s", sysfs, where[i]);
		if (glob(pattern, 0, NULL, &g))
			continue;
		if (g.gl_pathc && strlen(g.gl_pathv[0]) < sizeof(h->throttle) &&
		    !read_number(g.gl_pathv[0], 16, &v))
			snprintf(h->throttle, sizeof(h->throttle), "%s", g.gl_pathv[0]);
		globfree(&g);
		if (h->throttle[0])
			return;
	}
}

int ls_heat_find(struct ls_heat_src *h, const char *sysfs, int cpu, int zone,
		 char *err, size_t errlen)
{
	char path[256];
	struct stat st;
	long long v;

	memset(h, 0, sizeof(*h));
	h->cpu = cpu;
	if (strlen(sysfs) > 64 || stat(sysfs, &st) || !S_ISDIR(st.st_mode)) {
		ls_fail(err, errlen, "sysfs root '%.64s': not a directory (LATSCOPE_SYSFS)", sysfs);
		return -1;
	}
	if (zone >= 0 && use_zone(h, sysfs, zone)) {
		int zones[16], n = list_zones(sysfs, zones, 16), i, at;

		at = snprintf(path, sizeof(path), "%s", n ? "" : "none");
		for (i = 0; i < n && at < (int)sizeof(path) - 12; i++)
			at += snprintf(path + at, sizeof(path) - at, "%s%d", i ? " " : "",
				       zones[i]);
		ls_fail(err, errlen,
			"--thermal-zone %d: %s/class/thermal/thermal_zone%d/temp cannot be read (zones here: %s)",
			zone, sysfs, zone, path);
		return -1;
	}
	if (zone == LS_ZONE_AUTO)
		find_zone(h, sysfs);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
		 sysfs, cpu);
	if (!read_number(path, 10, &v))
		snprintf(h->freq, sizeof(h->freq), "%s", path);
	find_throttle(h, sysfs);
	return 0;
}

/* The first CPU of @cpu's package (its package_cpus_list, or core_siblings_list), or -1. */
static int package_first(const char *sysfs, int cpu)
{
	static const char *const lists[] = { "package_cpus_list", "core_siblings_list" };
	char path[256], buf[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s", sysfs,
			 cpu, lists[i]);
		if (!ls_read_line(path, buf, sizeof(buf)) && buf[0] >= '0' && buf[0] <= '9')
			return atoi(buf);
	}
	return -1;
}

/* Whether @release (uname's) is older than @major.@minor; unknown: false. */
static bool older_than(const char *release, int major, int minor)
{
	int a, b;

	if (sscanf(release, "%d.%d", &a, &b) != 2)
		return false;
	return a < major || (a == major && b < minor);
}

/**
 * ls_heat_spare() - leave unread what would interrupt a measured CPU
 * @h: as ls_heat_find() found it; what is dropped is said in @h->spared
 * @sysfs: the sysfs root, for the CPUs' packages
 * @measured: the CPUs the run measures
 * @release: the kernel's release (uname -r)
 * @machine: its machine (uname -m)
 *
 * The clock on x86 before Linux 5.18: each read of scaling_cur_freq sends
 * the CPU an IPI. An x86_pkg_temp zone whose package's first CPU is
 * measured: its read runs there, through an IPI. sysfs does not say
 * which package a zone is, so on several packages the zone is left
 * unread when any package's first CPU is measured: a lost temperature
 * costs nothing, an IPI costs the measurement.
 */
void ls_heat_spare(struct ls_heat_src *h, const char *sysfs, const cpu_set_t *measured,
		   const char *release, const char *machine)
{
	bool x86 = strstr(machine, "86");
	int at = 0, c, first;

	h->spared[0] = '\0';
	if (h->freq[0] && x86 && older_than(release, 5, 18)) {
		h->freq[0] = '\0';
		at = snprintf(h->spared, sizeof(h->spared),
			      "CPU%d's clock (on x86 before Linux 5.18 each read of scaling_cur_freq is an IPI to that CPU)",
			      h->cpu);
	}
	if (!h->temp[0] || strcmp(h->zone_type, "x86_pkg_temp"))
		return;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, measured))
			continue;
		first = package_first(sysfs, c);
		if (first < 0 || !CPU_ISSET(first, measured))
			continue;
		h->temp[0] = '\0';
		snprintf(h->spared + at, sizeof(h->spared) - at,
			 "%s%s (x86_pkg_temp: its read runs on CPU%d, measured, through an IPI)",
			 at ? "; " : "", h->zone, first);
		return;
	}
}

void ls_heat_read(const struct ls_heat_src *h, struct ls_heat_sample *s)
{
	long long v;

	memset(s, 0, sizeof(*s));
	if (h->temp[0] && !read_number(h->temp, 10, &v) && v > -300000 && v < 1000000) {
		s->has_temp = true;
		s->temp_mc = (int)v;
	}
	if (h->freq[0] && !read_number(h->freq, 10, &v) && v > 0 && v < 100000000) {
		s->has_freq = true;
		s->freq_khz = (unsigned int)v;
	}
	if (h->throttle[0] && !read_number(h->throttle, 16, &v) && v >= 0 && v <= 0xffffffffLL) {
		s->has_throttle = true;
		s->throttle = (unsigned int)v;
	}
}

/* The flags' meanings, bits 0-3 (now) or 16-19 (since boot) shifted down. */
static const char *const throttle_names[LS_THROTTLE_BITS] = {
	"under-voltage", "ARM frequency capped", "throttled", "soft temperature limit",
};

void ls_throttle_names(unsigned int flags, char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < LS_THROTTLE_BITS && at < len; i++)
		if (flags & (1u << i))
			at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
				       throttle_names[i]);
	if (!at)
		snprintf(buf, len, "none");
}

const char *ls_throttle_name(int bit)
{
	return bit >= 0 && bit < LS_THROTTLE_BITS ? throttle_names[bit] : "?";
}
