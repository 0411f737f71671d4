// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of heat and clock: core/heat.c against a fake sysfs tree
 * (files in the test's directory), the timeline's heat with a throttling
 * flag set mid-run, and what output/heat_print.c prints of it (the JSON
 * is parsed back by tests/unit/run.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/output.h"
#include "unit.h"

/* A board: an ACPI zone 0, the CPU's zone 2, CPU1's clock, a Pi's flags. */
static void board(const char *sys, const char *throttle_dir)
{
	char rel[256];

	put_file(sys, "class/thermal/thermal_zone0/type", "acpitz\n");
	put_file(sys, "class/thermal/thermal_zone0/temp", "27800\n");
	put_file(sys, "class/thermal/thermal_zone2/type", "cpu-thermal\n");
	put_file(sys, "class/thermal/thermal_zone2/temp", "51234\n");
	put_file(sys, "class/thermal/thermal_zone10/type", "soc-thermal\n");
	put_file(sys, "class/thermal/thermal_zone10/temp", "notanumber\n");
	put_file(sys, "devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "1500000\n");
	snprintf(rel, sizeof(rel), "%s/get_throttled", throttle_dir);
	put_file(sys, rel, "0\n");
}

/* One second: its latency, then its heat read from the tree, as the sinks do. */
static void tick(struct ls_timeline *t, const struct ls_heat_src *h, __u64 s)
{
	struct ls_heat_sample hs;

	second(t, s, 1000, 0, 1000, 2000, 3000);
	ls_heat_read(h, &hs);
	ls_timeline_heat(t, s, &hs);
}

static void test_heat_find(const char *dir)
{
	struct ls_heat_src h;
	char sys[256], path[512], err[256] = "";
	int ret;

	snprintf(sys, sizeof(sys), "%s/sys", dir);
	board(sys, "devices/platform/soc/soc:firmware");

	ret = ls_heat_find(&h, sys, 1, LS_ZONE_AUTO, err, sizeof(err));
	check(!ret && !strcmp(h.zone, "thermal_zone2") && !strcmp(h.zone_type, "cpu-thermal"),
	      "heat: by default the CPU's zone, not the ACPI one", "%d %s (%s) %s", ret, h.zone,
	      h.zone_type, err);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", sys);
	check_str(h.freq, path, "heat: the measured CPU's scaling_cur_freq");
	snprintf(path, sizeof(path), "%s/devices/platform/soc/soc:firmware/get_throttled", sys);
	check_str(h.throttle, path, "heat: a Pi's get_throttled");

	ret = ls_heat_find(&h, sys, 1, 0, err, sizeof(err));
	check(!ret && !strcmp(h.zone_type, "acpitz"), "heat: --thermal-zone 0", "%d %s", ret,
	      h.zone_type);
	ret = ls_heat_find(&h, sys, 0, LS_ZONE_NONE, err, sizeof(err));
	check(!ret && !h.temp[0] && !h.freq[0], "heat: --thermal-zone none, CPU0 without cpufreq",
	      "%d '%s' '%s'", ret, h.temp, h.freq);
	ret = ls_heat_find(&h, sys, 1, 10, err, sizeof(err));
	check(ret == -1 && strstr(err, "--thermal-zone 10") && strstr(err, "zones here: 0 2 10"),
	      "heat: a zone that does not read is refused, the zones named", "%d %s", ret, err);
	ret = ls_heat_find(&h, sys, 1, 7, err, sizeof(err));
	check(ret == -1 && strstr(err, "thermal_zone7/temp"), "heat: a zone that is not there",
	      "%d %s", ret, err);
	snprintf(path, sizeof(path), "%s/nowhere", dir);
	ret = ls_heat_find(&h, path, 1, LS_ZONE_AUTO, err, sizeof(err));
	check(ret == -1 && strstr(err, "nowhere") && strstr(err, "LATSCOPE_SYSFS"),
	      "heat: a sysfs root that is not there", "%d %s", ret, err);

	/* A board with nothing (a VM): every figure absent, no error. */
	snprintf(path, sizeof(path), "%s/empty", dir);
	mkdir(path, 0755);
	ret = ls_heat_find(&h, path, 1, LS_ZONE_AUTO, err, sizeof(err));
	check(!ret && !h.temp[0] && !h.freq[0] && !h.throttle[0], "heat: a board with none",
	      "%d", ret);

	/* A Pi 5's firmware node sits elsewhere under platform/. */
	snprintf(sys, sizeof(sys), "%s/sys5", dir);
	board(sys, "devices/platform/axi/soc:firmware");
	ret = ls_heat_find(&h, sys, 1, LS_ZONE_AUTO, err, sizeof(err));
	check(!ret && strstr(h.throttle, "/axi/soc:firmware/get_throttled"),
	      "heat: get_throttled found under another platform node", "'%s'", h.throttle);
}

/* A run of 6 s whose board throttles from its fourth second on. */
static void test_heat_timeline(const char *dir)
{
	static struct ls_timeline t;
	const struct ls_heat_total *tot = &t.heat;
	struct ls_heat_src h;
	char sys[256], err[256];
	const char *fw = "devices/platform/soc/soc:firmware/get_throttled";
	__u64 s;

	snprintf(sys, sizeof(sys), "%s/sys", dir);
	check(!ls_heat_find(&h, sys, 1, LS_ZONE_AUTO, err, sizeof(err)), "heat: the tree", "%s",
	      err);
	ls_timeline_init(&t);
	put_file(sys, fw, "10000\n");	/* under-voltage before the run, not now */
	tick(&t, &h, 0);
	put_file(sys, "class/thermal/thermal_zone2/temp", "60500\n");
	tick(&t, &h, 1);
	tick(&t, &h, 2);
	put_file(sys, fw, "50005\n");	/* under-voltage and throttled now */
	put_file(sys, "devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "600000\n");
	tick(&t, &h, 3);
	put_file(sys, fw, "50000\n");	/* over; nothing new since */
	tick(&t, &h, 4);
	put_file(sys, fw, "70000\n");	/* capped and back between two samples */
	tick(&t, &h, 5);

	check(tot->seconds == 6 && tot->heat == (LS_HEAT_TEMP | LS_HEAT_FREQ | LS_HEAT_THROTTLE),
	      "heat: six samples of all three", "%llu samples, %#x", tot->seconds, tot->heat);
	check(tot->temp_min_mc == 51234 && tot->temp_max_mc == 60500 &&
	      tot->freq_min_khz == 600000 && tot->freq_max_khz == 1500000,
	      "heat: the run's ranges", "%d-%d m°C, %u-%u kHz", tot->temp_min_mc,
	      tot->temp_max_mc, tot->freq_min_khz, tot->freq_max_khz);
	check(tot->before == 0x1 && tot->throttled == 0x7 && tot->throttled_s == 2,
	      "heat: throttling before the run and during it, mid-run and between samples",
	      "before %#x, during %#x in %llu s", tot->before, tot->throttled, tot->throttled_s);
	check(t.n == 6 && t.pt[0].throttled == 0 && t.pt[3].throttled == 0x5 &&
	      t.pt[4].throttled == 0 && t.pt[5].throttled == 0x2 && t.pt[3].freq_khz == 600000 &&
	      t.pt[1].temp_mc == 60500, "heat: each second's point",
	      "%u points; throttled %#x %#x %#x", t.n, t.pt[3].throttled, t.pt[4].throttled,
	      t.pt[5].throttled);

	/* Widening keeps the hottest, the slowest, and every flag. */
	for (s = 6; t.bucket_s < 4; s++)
		second(&t, s, 1, 0, 1, 1, 1);
	check(t.bucket_s >= 4 && t.pt[0].temp_mc == 60500 && t.pt[0].freq_khz == 600000 &&
	      t.pt[0].throttled == 0x5 && t.pt[1].throttled == 0x2,
	      "heat: merged points", "bucket %u: %d m°C, %u kHz, %#x %#x", t.bucket_s,
	      t.pt[0].temp_mc, t.pt[0].freq_khz, t.pt[0].throttled, t.pt[1].throttled);
}

/* What a run that throttled prints, and what one without any figure does. */
static void test_heat_print(const char *dir)
{
	static struct ls_timeline t;
	struct ls_heat_sample s = { .has_temp = true, .has_freq = true, .has_throttle = true,
				    .temp_mc = 45000, .freq_khz = 1500000 };
	struct ls_heat_src h = { .cpu = 3, .zone = "thermal_zone0", .zone_type = "cpu-thermal",
				 .throttle = "/sys/x/get_throttled" };
	struct ls_report r = { .timeline = &t, .heat = &h };
	char *buf = NULL, path[512];
	size_t len = 0;
	FILE *f;

	ls_timeline_init(&t);
	ls_timeline_heat(&t, 0, &s);
	s.temp_mc = 71500;
	s.throttle = 0x80008;		/* soft temperature limit now */
	ls_timeline_heat(&t, 1, &s);
	f = open_memstream(&buf, &len);
	ls_heat_print_summary(f, &r);
	ls_heat_write_plot(f, &r);
	fclose(f);
	check_str(buf,
		  "HOT| thermal_zone0 (cpu-thermal) 45.0 to 71.5 C, CPU3 at 1500 to 1500 MHz, throttling flags read\n"
		  "HOT| THROTTLED during the run: soft temperature limit (in 1 of 2 s): these figures are of a slowed board\n"
		  "# heat: thermal_zone0 (cpu-thermal) 45.0 to 71.5 C, CPU3 at 1500 to 1500 MHz, throttling flags read\n"
		  "# throttled during the run: soft temperature limit (in 1 of 2 s)\n",
		  "heat: HOT| lines and the plot header of a throttled run");
	free(buf);

	snprintf(path, sizeof(path), "%s/heat.json", dir);
	f = fopen(path, "w");
	if (f) {
		fputs("{\n", f);
		ls_heat_write_json(f, &r);
		fputs("  \"end\": 0\n}\n", f);
		fclose(f);
	}
	check(f != NULL, "heat: heat.json written", "%s", path);

	/* Nothing read (a VM): no HOT| line, the plot says so. */
	ls_timeline_init(&t);
	s = (struct ls_heat_sample){ 0 };
	ls_timeline_heat(&t, 0, &s);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ls_heat_print_summary(f, &r);
	ls_heat_write_plot(f, &r);
	fclose(f);
	check_str(buf, "# heat: none read (no thermal zone, no cpufreq, no throttling flags)\n",
		  "heat: a board without any figure");
	free(buf);

	/* What was left unread not to interrupt a measured CPU: in the JSON too. */
	snprintf(h.spared, sizeof(h.spared), "CPU3's clock");
	buf = NULL;
	f = open_memstream(&buf, &len);
	ls_heat_write_json(f, &r);
	fclose(f);
	check(buf && strstr(buf, "\n    \"spared\": \"CPU3's clock\",\n"),
	      "heat: what was spared, in the JSON", "%s", buf ? buf : "");
	free(buf);
}

/*
 * What ls_heat_spare() leaves unread: the clock on x86 before 5.18 (an
 * IPI a read), not on 5.18 or on arm64; an x86_pkg_temp zone whose
 * package's first CPU (0 here, of 0-3) is measured, not when CPU2 is.
 */
static void test_heat_spare(const char *dir)
{
	struct ls_heat_src h;
	char sys[256], err[256] = "";
	cpu_set_t cpu0, cpu2;

	snprintf(sys, sizeof(sys), "%s/spare", dir);
	put_file(sys, "class/thermal/thermal_zone0/type", "x86_pkg_temp\n");
	put_file(sys, "class/thermal/thermal_zone0/temp", "45000\n");
	for (int c = 0; c < 4; c++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
		put_file(sys, rel, "2000000\n");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/package_cpus_list", c);
		put_file(sys, rel, "0-3\n");
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	CPU_ZERO(&cpu2);
	CPU_SET(2, &cpu2);

	check(!ls_heat_find(&h, sys, 2, LS_ZONE_AUTO, err, sizeof(err)) && h.freq[0] && h.temp[0],
	      "heat spare: the tree", "%s", err);
	ls_heat_spare(&h, sys, &cpu2, "5.10.0-28-amd64", "x86_64");
	check(!h.freq[0] && h.temp[0] &&
	      !strcmp(h.spared, "CPU2's clock (on x86 before Linux 5.18 each read of scaling_cur_freq is an IPI to that CPU)"),
	      "heat spare: 5.10 on x86: the clock left unread, said; the zone kept (CPU2)", "%s",
	      h.spared);
	ls_heat_find(&h, sys, 2, LS_ZONE_AUTO, err, sizeof(err));
	ls_heat_spare(&h, sys, &cpu2, "5.18.0", "x86_64");
	check(h.freq[0] && h.temp[0] && !h.spared[0], "heat spare: 5.18 on x86: all read", "%s",
	      h.spared);
	ls_heat_find(&h, sys, 2, LS_ZONE_AUTO, err, sizeof(err));
	ls_heat_spare(&h, sys, &cpu2, "5.10.0-28-arm64", "aarch64");
	check(h.freq[0] && !h.spared[0], "heat spare: 5.10 on arm64: the clock read", "%s",
	      h.spared);
	ls_heat_find(&h, sys, 0, LS_ZONE_AUTO, err, sizeof(err));
	ls_heat_spare(&h, sys, &cpu0, "6.12.0", "x86_64");
	check(h.freq[0] && !h.temp[0] &&
	      !strcmp(h.spared, "thermal_zone0 (x86_pkg_temp: its read runs on CPU0, measured, through an IPI)"),
	      "heat spare: CPU0 measured: x86_pkg_temp left unread, said", "%s", h.spared);
	ls_heat_find(&h, sys, 0, LS_ZONE_AUTO, err, sizeof(err));
	ls_heat_spare(&h, sys, &cpu0, "5.4.0", "x86_64");
	check(!h.freq[0] && !h.temp[0] && strstr(h.spared, "clock") &&
	      strstr(h.spared, "; thermal_zone0"), "heat spare: both, both said", "%s", h.spared);
}

void test_heat(const char *dir)
{
	test_heat_find(dir);
	test_heat_spare(dir);
	test_heat_timeline(dir);
	test_heat_print(dir);
}
