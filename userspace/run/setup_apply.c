// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: --apply-setup: what the setup verdict found costing
 * latency and can be changed safely at run time (the measured CPUs'
 * governor, IRQs off them, RT throttling) is changed for the run, each
 * old value kept, and written back when the run ends, however it ends
 * (main() holds the signals meanwhile). Nothing the kernel's command line
 * or build decides is touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/run.h"

struct ls_undo_write {
	char path[320];
	char old[512];
};

static int write_file(const char *path, const char *value)
{
	size_t len = strlen(value);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	n = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	if (close(fd) && !n)
		n = -errno;
	return (int)n;
}

/* Writes @value to @path, its old value kept in @u first: 0 or -errno. */
static int change(struct ls_setup_undo *u, const char *path, const char *value)
{
	struct ls_undo_write *w;
	int ret;

	if (u->n == u->cap) {
		unsigned int cap = u->cap ? u->cap * 2 : 16;
		struct ls_undo_write *more = realloc(u->w, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		u->w = more;
		u->cap = cap;
	}
	w = &u->w[u->n];
	snprintf(w->path, sizeof(w->path), "%s", path);
	snprintf(u->failed, sizeof(u->failed), "%s", path);
	if (ls_read_line(path, w->old, sizeof(w->old)))
		return -ENOENT;
	if (!strcmp(w->old, value))
		return 0;
	ret = write_file(path, value);
	if (!ret)
		u->n++;
	return ret;
}

static int apply_governor(struct ls_setup_undo *u, const struct ls_setup_ctx *c,
			  char *done, size_t len)
{
	char path[320], old[64];
	int cpu, ret;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &c->cpus) ||
		    ls_setup_path(c, path, sizeof(path),
				  "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu) ||
		    ls_read_line(path, old, sizeof(old)) || !strcmp(old, "performance"))
			continue;
		ret = change(u, path, "performance");
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

static void move_irq(void *priv, int irq, const char *actions)
{
	struct irq_move *m = priv;
	char path[320];

	(void)actions;
	if (ls_setup_path(m->c, path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq) ||
	    change(m->u, path, m->to))
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
	char path[320], old[32];
	int ret;

	if (ls_setup_path(c, path, sizeof(path), "/proc/sys/kernel/sched_rt_runtime_us") ||
	    ls_read_line(path, old, sizeof(old)))
		return -ENOENT;
	ret = change(u, path, "-1");
	if (!ret)
		snprintf(done + strlen(done), len - strlen(done), "%sRT throttling off (was %s us)",
			 done[0] ? "; " : "", old);
	return ret;
}

/*
 * Changes what @s found costing that --apply-setup may change, for a run
 * on @cpus, reading and writing under @root; the old values go into @u
 * and what was done, in words, into @s->applied. 0, or -1 with a message
 * (what was changed before the failure is in @u: restore it).
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

/* Writes back every old value, the last changed first; says what it could not. */
void ls_setup_restore(struct ls_setup_undo *u)
{
	int ret;

	while (u->n) {
		struct ls_undo_write *w = &u->w[--u->n];

		ret = write_file(w->path, w->old);
		if (ret)
			fprintf(stderr, "latscope: --apply-setup: %s could not be set back to %s: %s\n",
				w->path, w->old, strerror(-ret));
	}
	free(u->w);
	u->w = NULL;
	u->cap = 0;
}
