// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: --apply-setup: what the setup verdict found costing
 * latency and can be changed safely at run time (the measured CPUs'
 * governor, IRQs off them, RT throttling) is changed for the run, each
 * old value in the undo journal first (journal.c), and written back
 * when the run ends, however it ends (main() holds the signals meanwhile,
 * the journal's handler takes the fatal ones). Nothing the kernel's
 * command line or build decides is touched.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "setup/setup.h"

/* ls_setup_change(), the file named for a failure. */
static int change(struct ls_setup_undo *u, const struct ls_setup_ctx *c, const char *rel,
		  const char *value, char *old, size_t len)
{
	snprintf(u->failed, sizeof(u->failed), "%s/%s", c->root, rel);
	return ls_setup_change(u, rel, value, old, len);
}

static int apply_governor(struct ls_setup_undo *u, const struct ls_setup_ctx *c,
			  char *done, size_t len)
{
	char rel[128], old[64];
	int cpu, ret;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &c->cpus) ||
		    ls_setup_read(c, old, sizeof(old),
				  "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu) ||
		    !strcmp(old, "performance"))
			continue;
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
			 cpu);
		ret = change(u, c, rel, "performance", old, sizeof(old));
		if (ret)
			return ret;
		snprintf(done + strlen(done), len - strlen(done),
			 "%sgovernor performance on CPU%d (was %s)", done[0] ? "; " : "", cpu, old);
	}
	return 0;
}

struct irq_move {
	struct ls_setup_undo *u;
	const struct ls_setup_ctx *c;
	const char *to;			/* the CPU list they go to */
	int moved, stuck;
};

/* Each IRQ the kernel allows on a measured CPU, wherever it lands now. */
static void move_irq(void *priv, int irq, const char *actions, enum ls_irq_where where)
{
	struct irq_move *m = priv;
	char rel[64], old[256];

	(void)actions;
	if (where == LS_IRQ_MOVING)
		return;	/* moved already */
	snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irq);
	if (change(m->u, m->c, rel, m->to, old, sizeof(old)))
		m->stuck++;	/* per-CPU or managed: the kernel keeps it (EIO) */
	else
		m->moved++;
}

static int apply_irqs(struct ls_setup_undo *u, const struct ls_setup_ctx *c,
		      char *done, size_t len, char *err, size_t errlen)
{
	char online[256], to[256];
	struct irq_move m = { u, c, to, 0, 0 };
	cpu_set_t set;
	int cpu;

	if (ls_setup_read(c, online, sizeof(online), "/sys/devices/system/cpu/online") ||
	    ls_parse_cpu_list(online, &set)) {
		ls_fail(err, errlen, "--apply-setup: the online CPUs cannot be read");
		return -1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &c->cpus))
			CPU_CLR(cpu, &set);
	if (!CPU_COUNT(&set)) {
		snprintf(done + strlen(done), len - strlen(done),
			 "%sIRQs left (every online CPU is measured)", done[0] ? "; " : "");
		return 0;
	}
	ls_format_cpu_list(&set, to, sizeof(to));
	if (ls_setup_irqs_on(c, move_irq, &m) < 0) {
		ls_fail(err, errlen, "--apply-setup: /proc/irq cannot be read");
		return -1;
	}
	snprintf(done + strlen(done), len - strlen(done), "%s%d IRQs moved to CPU%s",
		 done[0] ? "; " : "", m.moved, to);
	if (m.stuck)
		snprintf(done + strlen(done), len - strlen(done),
			 " (%d the kernel keeps where they are)", m.stuck);
	return 0;
}

static int apply_rt_runtime(struct ls_setup_undo *u, const struct ls_setup_ctx *c,
			    char *done, size_t len)
{
	char old[32];
	int ret;

	ret = change(u, c, "proc/sys/kernel/sched_rt_runtime_us", "-1", old, sizeof(old));
	if (!ret)
		snprintf(done + strlen(done), len - strlen(done), "%sRT throttling off (was %s us)",
			 done[0] ? "; " : "", old);
	return ret;
}

/*
 * Changes what @s found costing that --apply-setup may change, for a run
 * on @cpus, reading and writing under @root; the old values go into the
 * journal @u opens, and what was done, in words, into @s->applied. 0, or
 * -1 with a message (what was changed before the failure is in @u:
 * restore it; another run's lock refuses before any change).
 */
int ls_setup_apply(struct ls_setup_undo *u, struct ls_setup *s, const char *root,
		   const cpu_set_t *cpus, char *err, size_t errlen)
{
	char *done = s->applied;
	size_t len = sizeof(s->applied);
	struct ls_setup_ctx c;
	unsigned int i, want = 0;
	int ret = 0;

	ls_setup_ctx_init(&c, root, cpus, 0);
	done[0] = '\0';
	if (ls_setup_journal_open(u, root, err, errlen))
		return -1;
	for (i = 0; i < s->n; i++)
		if (s->f[i].verdict == LS_VERDICT_COSTS)
			want |= s->f[i].apply;
	if (want & LS_APPLY_GOVERNOR)
		ret = apply_governor(u, &c, done, len);
	if (!ret && (want & LS_APPLY_RT_RUNTIME))
		ret = apply_rt_runtime(u, &c, done, len);
	if (ret) {
		ls_fail(err, errlen, "--apply-setup: cannot write %.200s: %s%s", u->failed,
			strerror(-ret), geteuid() ? " (run as root)" : "");
		return -1;
	}
	if ((want & LS_APPLY_IRQS) && apply_irqs(u, &c, done, len, err, errlen))
		return -1;
	if (!done[0])
		snprintf(done, len, "nothing to change");
	return 0;
}

