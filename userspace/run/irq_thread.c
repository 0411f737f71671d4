// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the thread that delivers a line's interrupt, from user
 * space. gpiolib's character device names a line's interrupt after the
 * request's consumer label, so /proc/irq/N/<label> exists for it, and
 * request_threaded_irq() runs its thread as kernel thread
 * "irq/N-<label>" (cut to 15 characters on kernels without full kthread
 * names). The thread's scheduling is read, raised for a run and given
 * back. All paths start at a /proc root the caller names, so tests can
 * build one.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/engine.h"

#define PF_KTHREAD_FLAG		0x00200000	/* include/linux/sched.h's PF_KTHREAD */

/* The irqs that have an action named @label: their numbers, at most @max; their count. */
int ls_irqs_named(const char *proc, const char *label, int *irqs, int max)
{
	char path[512], *end;
	struct dirent *d;
	DIR *dir;
	int n = 0;
	long v;

	snprintf(path, sizeof(path), "%s/irq", proc);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		v = strtol(d->d_name, &end, 10);
		if (*end || end == d->d_name || v < 0 || v > 1 << 30)
			continue;
		snprintf(path, sizeof(path), "%s/irq/%ld/%s", proc, v, label);
		if (access(path, F_OK))
			continue;
		if (n < max)
			irqs[n] = (int)v;
		n++;
	}
	if (dir)
		closedir(dir);
	return n;
}

/* Reads the first line of @path into @buf, without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *line;

	if (!f)
		return -1;
	line = fgets(buf, (int)len, f);
	fclose(f);
	if (!line)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Whether task @pid is a kernel thread, by the flags of its stat line. */
static bool is_kthread(const char *proc, const char *pid)
{
	char path[512], line[1024], *p;
	unsigned long flags;
	int i;

	snprintf(path, sizeof(path), "%s/%s/stat", proc, pid);
	if (read_line(path, line, sizeof(line)))
		return false;
	/* "pid (comm) state ppid pgrp session tty tpgid flags": comm may hold ')'. */
	p = strrchr(line, ')');
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD_FLAG;
}

/*
 * Whether @comm names the thread of irq @irq for @label: "irq/N-label"
 * (or the secondary "irq/N-s-label"), whole or cut short at 15
 * characters, as /proc shows a kernel thread's name.
 */
bool ls_irq_comm_matches(const char *comm, int irq, const char *label)
{
	char full[2][96];
	size_t n = strlen(comm);
	int i;

	snprintf(full[0], sizeof(full[0]), "irq/%d-%s", irq, label);
	snprintf(full[1], sizeof(full[1]), "irq/%d-s-%s", irq, label);
	for (i = 0; i < 2; i++)
		if (!strcmp(comm, full[i]) || (n == 15 && !strncmp(comm, full[i], n)))
			return true;
	return false;
}

/*
 * Finds the thread of irq @irq, named for @label, into @t (pid 0: the
 * irq has none, it is handled in hard irq or in its parent's thread).
 * Reads its scheduling too. Returns 0, or -1 if two threads match.
 */
int ls_irq_thread_find(const char *proc, int irq, const char *label,
		       struct ls_irq_thread *t)
{
	char path[512], comm[64];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	memset(t, 0, sizeof(*t));
	t->irq = irq;
	dir = opendir(proc);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/comm", proc, d->d_name);
		if (read_line(path, comm, sizeof(comm)) ||
		    !ls_irq_comm_matches(comm, irq, label) || !is_kthread(proc, d->d_name))
			continue;
		if (found++)
			continue;
		t->pid = atoi(d->d_name);
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	}
	if (dir)
		closedir(dir);
	if (found > 1) {
		t->pid = 0;
		t->ambiguous = true;
		return -1;
	}
	return 0;
}

/* Reads the thread's policy and priority now; 0, or -1 with errno. */
int ls_irq_thread_sched(int pid, int *policy, int *prio)
{
	struct sched_param sp;

	*policy = sched_getscheduler(pid);
	if (*policy < 0 || sched_getparam(pid, &sp))
		return -1;
	*prio = sp.sched_priority;
	return 0;
}

/* Runs @t's thread at SCHED_FIFO @prio, keeping what it had; 0 or -1 with errno. */
int ls_irq_thread_raise(struct ls_irq_thread *t, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (!t->pid) {
		errno = ESRCH;
		return -1;
	}
	if (ls_irq_thread_sched(t->pid, &t->old_policy, &t->old_prio) ||
	    sched_setscheduler(t->pid, SCHED_FIFO, &sp))
		return -1;
	t->raised = true;
	t->was_raised = true;
	return 0;
}

/*
 * Gives @t's thread its scheduling back, and checks it took; 0, or -1
 * with errno (ESRCH: the thread is gone, with its irq, and its pid may be
 * another task's by now, which is left alone).
 */
int ls_irq_thread_restore(struct ls_irq_thread *t)
{
	struct sched_param sp = { .sched_priority = t->old_prio };
	char path[64], comm[64];
	int policy, prio;

	if (!t->raised)
		return 0;
	t->raised = false;
	snprintf(path, sizeof(path), "/proc/%d/comm", t->pid);
	if (read_line(path, comm, sizeof(comm)) || strcmp(comm, t->comm)) {
		errno = ESRCH;
		return -1;
	}
	if (sched_setscheduler(t->pid, t->old_policy, &sp) ||
	    ls_irq_thread_sched(t->pid, &policy, &prio))
		return -1;
	if (policy != t->old_policy || prio != t->old_prio) {
		errno = EAGAIN;
		return -1;
	}
	t->restored = true;
	return 0;
}
