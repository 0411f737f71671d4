// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the setup verdict's factors of the measured CPUs: their
 * governor, isolation, tick and RCU callbacks, SMT siblings, the IRQs and
 * RT threads that may run on them, and a Raspberry Pi's firmware
 * throttling.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "setup/setup.h"

/* How many things a value names before "and N more". */
#define NAMED_MAX	4

/* Whether every measured CPU is in @set. */
static bool covers(const struct ls_setup_ctx *c, const cpu_set_t *set)
{
	cpu_set_t both;

	CPU_AND(&both, &c->cpus, set);
	return CPU_EQUAL(&both, &c->cpus);
}

static bool touches(const struct ls_setup_ctx *c, const cpu_set_t *set)
{
	cpu_set_t both;

	CPU_AND(&both, &c->cpus, set);
	return CPU_COUNT(&both) > 0;
}

/* A CPU list file under the root: 0, or -1 (and an empty @set) if absent or bad. */
static int read_cpus(const struct ls_setup_ctx *c, cpu_set_t *set, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int read_cpus(const struct ls_setup_ctx *c, cpu_set_t *set, const char *fmt, ...)
{
	char path[256], buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	CPU_ZERO(set);
	if (ls_setup_read(c, buf, sizeof(buf), "%s", path) || ls_parse_cpu_list(buf, set)) {
		CPU_ZERO(set);
		return -1;
	}
	return 0;
}

void ls_setup_governor(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char gov[64], fix[200] = "";
	bool any = false;
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &c->cpus) ||
		    ls_setup_read(c, gov, sizeof(gov),
				  "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu))
			continue;
		any = true;
		ls_setup_append(f->value, "%s%s on CPU%d", f->value[0] ? ", " : "", gov, cpu);
		if (strcmp(gov, "performance") && !fix[0])
			snprintf(fix, sizeof(fix),
				 "echo performance > /sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor (each measured CPU; --apply-setup does it for the run)",
				 cpu);
	}
	if (!any)
		snprintf(f->value, sizeof(f->value), "no cpufreq: the clock does not change");
	f->apply = fix[0] ? LS_APPLY_GOVERNOR : 0;
	ls_setup_verdict(f, fix[0] ? LS_VERDICT_COSTS : LS_VERDICT_OK, fix);
}

void ls_setup_isolation(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char cpus[256], list[256], measured[256];
	cpu_set_t iso;

	ls_setup_cpus_text(&c->cpus, cpus, sizeof(cpus));
	read_cpus(c, &iso, "/sys/devices/system/cpu/isolated");
	ls_format_cpu_list(&iso, list, sizeof(list));
	ls_format_cpu_list(&c->cpus, measured, sizeof(measured));
	snprintf(f->value, sizeof(f->value), "%.100s %s (isolated: %.100s)", cpus,
		 covers(c, &iso) ? "isolated" : "not isolated", list[0] ? list : "none");
	snprintf(f->fix, sizeof(f->fix),
		 "isolcpus=%.100s on the kernel command line (with nohz_full and rcu_nocbs), and measure there",
		 measured);
	f->verdict = covers(c, &iso) ? LS_VERDICT_OK : LS_VERDICT_COSTS;
	if (f->verdict == LS_VERDICT_OK)
		f->fix[0] = '\0';
}

void ls_setup_nohz_full(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char list[256], fix[320];
	cpu_set_t set;

	read_cpus(c, &set, "/sys/devices/system/cpu/nohz_full");
	ls_format_cpu_list(&set, list, sizeof(list));
	snprintf(f->value, sizeof(f->value), "%s (nohz_full: %.100s)",
		 covers(c, &set) ? "the measured CPUs' tick stops" :
		 "the tick interrupts the measured CPUs", list[0] ? list : "none");
	ls_format_cpu_list(&c->cpus, list, sizeof(list));
	snprintf(fix, sizeof(fix), "nohz_full=%.100s on the kernel command line%s", list,
		 ls_setup_config(c, "CONFIG_NO_HZ_FULL") || !c->config ? "" :
		 ", a kernel with CONFIG_NO_HZ_FULL");
	ls_setup_verdict(f, covers(c, &set) ? LS_VERDICT_OK : LS_VERDICT_COSTS, fix);
}

void ls_setup_rcu_nocbs(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char val[256], list[256], fix[320];
	cpu_set_t nocbs, nohz;

	/* nohz_full CPUs are rcu_nocbs too; a bare rcu_nocbs (5.17+) is all. */
	read_cpus(c, &nohz, "/sys/devices/system/cpu/nohz_full");
	CPU_ZERO(&nocbs);
	if (ls_setup_cmdline(c, "rcu_nocbs", val, sizeof(val))) {
		if (!val[0] || !strcmp(val, "all"))
			read_cpus(c, &nocbs, "/sys/devices/system/cpu/possible");
		else if (ls_parse_cpu_list(val, &nocbs))
			CPU_ZERO(&nocbs);
	}
	CPU_OR(&nocbs, &nocbs, &nohz);
	ls_format_cpu_list(&nocbs, list, sizeof(list));
	snprintf(f->value, sizeof(f->value), "%s (offloaded: %.100s)",
		 covers(c, &nocbs) ? "run elsewhere" : "run on the measured CPUs",
		 list[0] ? list : "none");
	ls_format_cpu_list(&c->cpus, list, sizeof(list));
	snprintf(fix, sizeof(fix), "rcu_nocbs=%.100s on the kernel command line", list);
	ls_setup_verdict(f, covers(c, &nocbs) ? LS_VERDICT_OK : LS_VERDICT_COSTS, fix);
}

void ls_setup_smt(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	cpu_set_t sib, online;
	int cpu, s;

	read_cpus(c, &online, "/sys/devices/system/cpu/online");
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &c->cpus) ||
		    read_cpus(c, &sib, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			      cpu))
			continue;
		for (s = 0; s < CPU_SETSIZE; s++)
			if (s != cpu && CPU_ISSET(s, &sib) && CPU_ISSET(s, &online)) {
				if (!f->value[0])
					snprintf(f->fix, sizeof(f->fix),
						 "nosmt on the kernel command line, or echo 0 > /sys/devices/system/cpu/cpu%d/online",
						 s);
				ls_setup_append(f->value, "%sCPU%d shares its core with CPU%d (online)",
						f->value[0] ? ", " : "", cpu, s);
			}
	}
	if (f->value[0]) {
		f->verdict = LS_VERDICT_COSTS;
		return;
	}
	snprintf(f->value, sizeof(f->value), "no online sibling");
	ls_setup_verdict(f, LS_VERDICT_OK, "");
}

/* An IRQ's handlers, the directories of /proc/irq/N: "eth0, eth0-rx"; "" none. */
static void irq_actions(const struct ls_setup_ctx *c, const char *irq, char *buf, size_t len)
{
	char path[512];
	struct dirent *d;
	size_t at = 0;
	DIR *dir;

	buf[0] = '\0';
	ls_setup_path(c, path, sizeof(path), "/proc/irq/%s", irq);
	dir = opendir(path);
	while (dir && (d = readdir(dir)) && at < len)
		if (d->d_type == DT_DIR && d->d_name[0] != '.')
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
						 d->d_name);
	if (dir)
		closedir(dir);
}

/*
 * Whose handlers always run where they are: the per-CPU timers (the
 * measuring one among them), IPIs, latscope's own GPIO lines.
 */
static bool irq_stays(const char *actions)
{
	return !strncmp(actions, "latscope", 8) || !strcmp(actions, "arch_timer") ||
	       !strcmp(actions, "arch_mem_timer") || !strncmp(actions, "IPI", 3);
}

/*
 * Calls @fn for each IRQ with a handler that is or may be on a measured
 * CPU, but for those that stay on their CPU, with where it is (enum
 * ls_irq_where). Returns how many, or -1 if /proc/irq cannot be read.
 */
int ls_setup_irqs_on(const struct ls_setup_ctx *c, ls_setup_irq_fn *fn, void *priv)
{
	char path[512], actions[160];
	cpu_set_t allowed, effective;
	enum ls_irq_where where;
	struct dirent *d;
	int n = 0, irq;
	DIR *dir;

	ls_setup_path(c, path, sizeof(path), "/proc/irq");
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		irq = atoi(d->d_name);
		irq_actions(c, d->d_name, actions, sizeof(actions));
		if (!actions[0] || irq_stays(actions))
			continue;
		read_cpus(c, &allowed, "/proc/irq/%d/smp_affinity_list", irq);
		read_cpus(c, &effective, "/proc/irq/%d/effective_affinity_list", irq);
		/* The kernel may move it to any CPU it allows: those count. */
		if (touches(c, &allowed))
			where = !CPU_COUNT(&effective) || touches(c, &effective) ?
				LS_IRQ_LANDS : LS_IRQ_MAY_LAND;
		else if (touches(c, &effective))
			where = CPU_COUNT(&allowed) ? LS_IRQ_MOVING : LS_IRQ_LANDS;
		else
			continue;
		n++;
		fn(priv, irq, actions, where);
	}
	closedir(dir);
	return n;
}

struct irq_names {
	struct ls_setup_factor *f;
	int costs;
	char moving[200];
	int nr_moving;
};

static void name_irq(void *priv, int irq, const char *actions, enum ls_irq_where where)
{
	struct irq_names *names = priv;

	if (where == LS_IRQ_MOVING) {
		if (names->nr_moving++ < NAMED_MAX)
			ls_setup_append(names->moving, "%s%d (%s)", names->nr_moving > 1 ? ", " : "",
					irq, actions);
		return;
	}
	if (names->costs++ < NAMED_MAX)
		ls_setup_append(names->f->value, "%s%d (%s)", names->costs > 1 ? ", " : "", irq,
				actions);
}

/*
 * IRQs allowed on a measured CPU cost, wherever they land now: the
 * kernel may move them there. Those allowed elsewhere but still landing
 * there were moved (x86's IO-APIC moves an IRQ at its next interrupt):
 * named, not counted.
 */
void ls_setup_irqs(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	struct irq_names names = { .f = f };
	char list[256];
	int n = ls_setup_irqs_on(c, name_irq, &names);

	if (n < 0) {
		snprintf(f->value, sizeof(f->value), "/proc/irq cannot be read");
		return;
	}
	if (names.costs > NAMED_MAX)
		ls_setup_append(f->value, " and %d more", names.costs - NAMED_MAX);
	if (names.nr_moving > NAMED_MAX)
		ls_setup_append(names.moving, " and %d more", names.nr_moving - NAMED_MAX);
	if (names.nr_moving)
		ls_setup_append(f->value, "%s%s moved, takes effect at its next interrupt",
				names.costs ? "; " : "", names.moving);
	if (!names.costs) {
		if (!n)
			snprintf(f->value, sizeof(f->value), "none but the CPUs' own");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	ls_format_cpu_list(&c->cpus, list, sizeof(list));
	snprintf(f->fix, sizeof(f->fix),
		 "irqaffinity=<the other CPUs> on the kernel command line (with isolcpus=managed_irq,%.100s), or --apply-setup for the run",
		 list);
	f->apply = LS_APPLY_IRQS;
	f->verdict = LS_VERDICT_COSTS;
}

/* Fields of /proc/PID/task/TID/stat past "(comm)": 3 is the state. */
#define STAT_RT_PRIORITY	40
#define STAT_POLICY		41

/* A thread's comm, RT priority and policy: 0, or -1. */
static int thread_stat(const struct ls_setup_ctx *c, const char *pid, const char *tid,
		       char *comm, size_t len, int *prio, int *policy)
{
	char buf[1024], *open, *close, *s;
	int field = 3;

	if (ls_setup_read(c, buf, sizeof(buf), "/proc/%s/task/%s/stat", pid, tid))
		return -1;
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return -1;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	for (s = close + 2; *s && field < STAT_POLICY; field++)
		s += strcspn(s, " ") + (s[strcspn(s, " ")] ? 1 : 0);
	if (field != STAT_POLICY || !*s)
		return -1;
	*policy = atoi(s);
	/* Back one field for the priority. */
	while (s > close + 2 && s[-1] == ' ')
		s--;
	while (s > close + 2 && s[-1] != ' ')
		s--;
	*prio = atoi(s);
	return 0;
}

/* A thread's allowed CPUs, from its status file. */
static int thread_cpus(const struct ls_setup_ctx *c, const char *pid, const char *tid,
		       cpu_set_t *set)
{
	char path[512], line[1100];
	int ret = -1;
	FILE *f;

	ls_setup_path(c, path, sizeof(path), "/proc/%s/task/%s/status", pid, tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			line[strcspn(line, "\n")] = '\0';
			ret = ls_parse_cpu_list(line + 18 + strspn(line + 18, " \t"), set);
			break;
		}
	if (f)
		fclose(f);
	return ret;
}

/* Per-CPU stoppers: SCHED_FIFO 99 in /proc, but the stop class, rarely awake. */
static bool thread_expected(const char *comm)
{
	return !strncmp(comm, "migration/", 10) || !strncmp(comm, "idle_inject/", 12);
}

/* Each thread of process @pid at or above the responder's priority on its CPUs. */
static void rt_threads_of(const struct ls_setup_ctx *c, const char *pid, unsigned int *n,
			  struct ls_setup_factor *f)
{
	char path[512], comm[64];
	int prio, policy;
	struct dirent *d;
	cpu_set_t set;
	DIR *dir;

	ls_setup_path(c, path, sizeof(path), "/proc/%s/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]) ||
		    thread_stat(c, pid, d->d_name, comm, sizeof(comm), &prio, &policy) ||
		    (policy != SCHED_FIFO && policy != SCHED_RR) || prio < c->priority ||
		    thread_expected(comm) || thread_cpus(c, pid, d->d_name, &set) ||
		    !touches(c, &set))
			continue;
		if ((*n)++ < NAMED_MAX)
			ls_setup_append(f->value, "%s%s (%s %d, pid %s)", *n > 1 ? ", " : "", comm,
					policy == SCHED_FIFO ? "FIFO" : "RR", prio, d->d_name);
	}
	if (dir)
		closedir(dir);
}

void ls_setup_rt_threads(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char path[512], self[16];
	unsigned int n = 0;
	struct dirent *d;
	DIR *dir;

	if (!c->priority) {
		snprintf(f->value, sizeof(f->value), "the irq context has no responder thread");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	snprintf(self, sizeof(self), "%d", c->self);
	ls_setup_path(c, path, sizeof(path), "/proc");
	dir = opendir(path);
	while (dir && (d = readdir(dir)))
		if (isdigit((unsigned char)d->d_name[0]) && strcmp(d->d_name, self))
			rt_threads_of(c, d->d_name, &n, f);
	if (dir)
		closedir(dir);
	if (!n) {
		snprintf(f->value, sizeof(f->value), "none at FIFO/RR %d or above", c->priority);
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	if (n > NAMED_MAX)
		ls_setup_append(f->value, " and %u more", n - NAMED_MAX);
	snprintf(f->fix, sizeof(f->fix),
		 "measure above them (-P), lower them (chrt -f -p PRIO PID), or keep them off the measured CPUs (taskset -p)");
	f->verdict = LS_VERDICT_COSTS;
}

void ls_setup_throttling(const struct ls_setup_ctx *c, struct ls_setup_factor *f)
{
	char sysfs[512], now[128], since[128], err[256];
	struct ls_heat_sample s;
	struct ls_heat_src h;

	ls_setup_path(c, sysfs, sizeof(sysfs), "/sys");
	if (strlen(sysfs) > 64 || ls_heat_find(&h, sysfs, 0, LS_ZONE_NONE, err, sizeof(err)) ||
	    !h.throttle[0]) {
		snprintf(f->value, sizeof(f->value), "no firmware flags (not a Raspberry Pi)");
		ls_setup_verdict(f, LS_VERDICT_OK, "");
		return;
	}
	ls_heat_read(&h, &s);
	ls_throttle_names(s.throttle & 0xf, now, sizeof(now));
	ls_throttle_names((s.throttle >> LS_THROTTLE_SINCE) & 0xf, since, sizeof(since));
	snprintf(f->value, sizeof(f->value), "now: %s; since boot: %s", now, since);
	ls_setup_verdict(f, s.throttle & 0xf000f ? LS_VERDICT_COSTS : LS_VERDICT_OK,
			 "a supply that holds 5 V (3 A; 5 A on a Pi 5) and cooling; reboot to clear the since-boot flags");
}
