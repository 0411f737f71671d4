// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: what the system looked like during the run (kernel,
 * preemption model, clocksource, cpufreq governor, isolated CPUs), and the
 * default CPU to measure on.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/core.h"

void ls_sysinfo_read(struct ls_sysinfo *si, int first_cpu)
{
	char path[128], rt[8];
	struct utsname u;

	memset(si, 0, sizeof(*si));
	if (!uname(&u)) {
		snprintf(si->sysname, sizeof(si->sysname), "%s", u.sysname);
		snprintf(si->nodename, sizeof(si->nodename), "%s", u.nodename);
		snprintf(si->release, sizeof(si->release), "%s", u.release);
		snprintf(si->version, sizeof(si->version), "%s", u.version);
		snprintf(si->machine, sizeof(si->machine), "%s", u.machine);
	}
	ls_read_line("/proc/version", si->proc_version, sizeof(si->proc_version));
	ls_read_line("/proc/cmdline", si->proc_cmdline, sizeof(si->proc_cmdline));
	ls_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		     si->clocksource, sizeof(si->clocksource));
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", first_cpu);
	ls_read_line(path, si->governor, sizeof(si->governor));
	if (!si->governor[0])
		snprintf(si->governor, sizeof(si->governor), "none");

	/* /sys/kernel/realtime exists (and reads 1) on PREEMPT_RT kernels. */
	ls_read_line("/sys/kernel/realtime", rt, sizeof(rt));
	si->realtime = rt[0] == '1' || strstr(si->version, "PREEMPT_RT");
	snprintf(si->preemption, sizeof(si->preemption), "%s",
		 si->realtime ? "PREEMPT_RT" :
		 strstr(si->version, "PREEMPT_DYNAMIC") ? "PREEMPT_DYNAMIC" :
		 strstr(si->version, "PREEMPT") ? "PREEMPT" : "none");

	ls_read_line("/sys/devices/system/cpu/isolated", path, sizeof(path));
	if (path[0] && ls_parse_cpu_list(path, &si->isolated))
		CPU_ZERO(&si->isolated);
}

/* The first isolated CPU, else the last online one. */
int ls_default_cpu(const cpu_set_t *isolated)
{
	cpu_set_t online;
	char buf[256];
	int c, last = 0;

	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, isolated))
			return c;
	ls_read_line("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (ls_parse_cpu_list(buf, &online))
		return 0;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &online))
			last = c;
	return last;
}
