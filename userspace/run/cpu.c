// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: where each part of a run runs. The measured CPUs (each
 * checked online), the CPUs left for the logger and the load, the threads
 * started on them, and the C-state hold (/dev/cpu_dma_latency at 0) that
 * keeps every CPU out of deep idle states while the run lasts.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "run/engine.h"

/* Which CPUs to measure, each checked online. */
int ls_pick_cpus(const struct ls_params *p, const struct ls_sysinfo *si,
		 cpu_set_t *set, char *err, size_t errlen)
{
	cpu_set_t online;
	char buf[256];
	int c;

	if (ls_read_line("/sys/devices/system/cpu/online", buf, sizeof(buf)) ||
	    ls_parse_cpu_list(buf, &online)) {
		ls_fail(err, errlen, "cannot read the online CPUs from /sys/devices/system/cpu/online");
		return -1;
	}
	if (p->cpus_all) {
		*set = online;
	} else if (CPU_COUNT(&p->cpus)) {
		*set = p->cpus;
	} else {
		CPU_ZERO(set);
		CPU_SET(ls_default_cpu(&si->isolated), set);
	}
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, set) && !CPU_ISSET(c, &online)) {
			ls_format_cpu_list(&online, buf, sizeof(buf));
			ls_fail(err, errlen, "CPU%d is not online (online: %s)", c, buf);
			return -1;
		}
	}
	return 0;
}

/*
 * The logger and the load stay off the @measured CPUs when there are
 * others: @others are those (empty if none), @load the load's CPUs,
 * @others or else every CPU this process may use.
 */
void ls_cpus_off(const cpu_set_t *measured, cpu_set_t *others, cpu_set_t *load)
{
	int c;

	CPU_ZERO(others);
	if (!sched_getaffinity(0, sizeof(*others), others))
		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, measured))
				CPU_CLR(c, others);
	*load = *others;
	if (!CPU_COUNT(load) && sched_getaffinity(0, sizeof(*load), load))
		CPU_ZERO(load);
}

/* Holds deep C-states off for as long as *@fd stays open; false if it cannot. */
bool ls_hold_c_states(int *fd)
{
	__s32 zero = 0;

	*fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (*fd < 0)
		return false;
	if (write(*fd, &zero, sizeof(zero)) != sizeof(zero)) {
		close(*fd);
		*fd = -1;
		return false;
	}
	return true;
}

/* A thread at @policy and @prio, on @cpus unless NULL or empty. */
int ls_start_thread(pthread_t *t, void *(*fn)(void *), void *arg, int policy,
		    int prio, const cpu_set_t *cpus)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t attr;
	int ret;

	pthread_attr_init(&attr);
	/* mlockall() pins every stack: keep them small. */
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, policy);
	pthread_attr_setschedparam(&attr, &sp);
	if (cpus && CPU_COUNT(cpus))
		pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	ret = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return ret;
}
