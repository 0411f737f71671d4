// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the load a run is measured under (--stress, --stress-cmd).
 * Each command of a preset runs as "/bin/sh -c CMD" in a process group of
 * its own, at SCHED_OTHER, on the CPUs that are not measured (all of them
 * when every CPU is measured), with the CLI's signal mask and dispositions
 * reset. latscope is the child subreaper of everything the load starts, so
 * that stopping it can find every descendant, even one that changed its
 * process group or lost its parent: SIGTERM to each group, a grace
 * period, then SIGKILL to whatever is left, until nothing is.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/engine.h"

/* The tools a preset runs, and how each tells its version. */
struct ls_tool {
	const char *name;
	const char *version_cmd;
	const char *package;		/* Debian's */
};

static const struct ls_tool ls_tools[] = {
	{ "hackbench", "hackbench --help", "rt-tests" },
	{ "dd", "dd --version", "coreutils" },
	{ "stress-ng", "stress-ng --version", "stress-ng" },
	{ "ping", "ping -V", "iputils-ping" },
	{ "find", "find --version", "findutils" },
};

/*
 * stress-ng stressors left out: vforkmany (the "stays responsive"),
 * and those that leave SCHED_OTHER or move themselves to other CPUs.
 */
#define LS_SNG_EXCLUDE "vforkmany,cyclic,schedpolicy,softlockup,affinity,race-sched,llc-affinity"

/*
 * The presets. %N in a command is the number of CPUs the load runs on.
 * Commands loop forever: the run stops them.
 */
static const struct ls_preset ls_presets[] = {
	{ "none", { NULL }, { NULL } },
	{ "grinder", {
		"while :; do hackbench >/dev/null 2>&1 || sleep 1; done",
		"dd if=/dev/zero of=/dev/null bs=128M",
	  }, { "hackbench", "dd" } },
	{ "neighbour", {
		"while :; do stress-ng --sequential %N --class cpu-cache --timeout 10s --oomable --exclude "
		LS_SNG_EXCLUDE " --clone-max 64 --vm-bytes 10%% --quiet;"
		" stress-ng --sequential %N --class scheduler --timeout 10s --oomable --exclude "
		LS_SNG_EXCLUDE " --clone-max 64 --vm-bytes 10%% --quiet; done",
	  }, { "stress-ng" } },
	{ "classic", {
		"while :; do i=0; while [ $i -lt %N ]; do (n=0; while [ $n -lt 20000 ]; do n=$((n + 1)); done) & i=$((i + 1)); done; wait; done",
		"while :; do dd if=/dev/zero of=/dev/null bs=1M count=1024 2>/dev/null; done",
		"ping -f -q 127.0.0.1 >/dev/null",
		"while :; do hackbench -g 4 -l 100 >/dev/null 2>&1 || sleep 1; done",
		"while :; do find / -xdev >/dev/null 2>&1; done",
	  }, { "dd", "ping", "hackbench", "find" } },
};

const struct ls_preset *ls_stress_preset(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ls_presets); i++)
		if (!strcmp(ls_presets[i].name, name))
			return &ls_presets[i];
	return NULL;
}

/* "none, grinder, neighbour, classic" */
void ls_stress_names(char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(ls_presets) && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "", ls_presets[i].name);
}

static const struct ls_tool *find_tool(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ls_tools); i++)
		if (!strcmp(ls_tools[i].name, name))
			return &ls_tools[i];
	return NULL;
}

/* The first line @cmd prints, or "unknown". */
static void tool_version(const char *cmd, char *buf, size_t len)
{
	char line[256] = "";
	FILE *f = popen(cmd, "r");
	const char *src;
	size_t n;

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		while (fgetc(f) != EOF)
			;
		pclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	/* A version line longer than @buf is kept as far as it fits. */
	src = line[0] ? line : "unknown";
	n = strnlen(src, len - 1);
	memcpy(buf, src, n);
	buf[n] = '\0';
}

/* Writes @tmpl with %N replaced by @ncpus. */
static void expand(const char *tmpl, int ncpus, char *buf, size_t len)
{
	size_t n = 0;

	for (; *tmpl && n + 1 < len; tmpl++) {
		if (tmpl[0] == '%' && tmpl[1] == 'N') {
			n += snprintf(buf + n, len - n, "%d", ncpus);
			tmpl++;
		} else if (tmpl[0] == '%' && tmpl[1] == '%') {
			buf[n++] = '%';
			tmpl++;
		} else {
			buf[n++] = *tmpl;
		}
	}
	buf[n < len ? n : len - 1] = '\0';
}

/*
 * Fills @st from --stress / --stress-cmd: the commands, for a load on
 * @ncpus CPUs, and the versions of the tools they need. Fails, naming
 * the tool and its package, if one is not installed.
 */
int ls_stress_prepare(const struct ls_params *p, int ncpus, struct ls_stress *st,
		      char *err, size_t errlen)
{
	const struct ls_preset *pr;
	int i;

	memset(st, 0, sizeof(*st));
	if (p->stress_cmd) {
		snprintf(st->name, sizeof(st->name), "custom");
		snprintf(st->cmd[0], sizeof(st->cmd[0]), "%s", p->stress_cmd);
		st->ncmds = 1;
		return 0;
	}
	pr = ls_stress_preset(p->stress ? p->stress : "none");
	if (!pr) {
		snprintf(err, errlen, "no stress preset '%s'", p->stress);
		return -1;
	}
	snprintf(st->name, sizeof(st->name), "%s", pr->name);
	for (i = 0; i < LS_STRESS_MAX && pr->tools[i]; i++) {
		const struct ls_tool *t = find_tool(pr->tools[i]);

		if (!ls_in_path(t->name)) {
			snprintf(err, errlen, "--stress %s needs %s, which is not in PATH: install %s",
				 pr->name, t->name, t->package);
			return -1;
		}
		snprintf(st->tool[i], sizeof(st->tool[i]), "%s", t->name);
		tool_version(t->version_cmd, st->version[i], sizeof(st->version[i]));
		st->ntools++;
	}
	for (i = 0; i < LS_STRESS_MAX && pr->cmds[i]; i++)
		expand(pr->cmds[i], ncpus, st->cmd[st->ncmds++], sizeof(st->cmd[0]));
	return 0;
}

/* In the child: a plain SCHED_OTHER process on @cpus, then the command. */
static void exec_load(const char *cmd, const cpu_set_t *cpus)
{
	struct sched_param sp = { .sched_priority = 0 };
	sigset_t none;
	int sig;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sched_setscheduler(0, SCHED_OTHER, &sp);
	if (CPU_COUNT(cpus))
		sched_setaffinity(0, sizeof(*cpus), cpus);
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);	/* latscope ignores it; an ignored one survives exec */
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

/* Starts every command of @st on @cpus (empty: wherever). */
int ls_stress_start(struct ls_stress *st, const cpu_set_t *cpus, char *err,
		    size_t errlen)
{
	int i;

	if (st->ncmds)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (i = 0; i < st->ncmds; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			snprintf(err, errlen, "cannot start the load '%s': %s", st->cmd[i],
				 strerror(errno));
			ls_stress_stop(st);
			return -1;
		}
		if (!pid)
			exec_load(st->cmd[i], cpus);
		setpgid(pid, pid);
		st->pid[i] = pid;
		st->running++;
	}
	return 0;
}

/* Reaps what has ended; returns how many of our own commands still run. */
static int reap(struct ls_stress *st)
{
	int i, status, alive = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < st->ncmds; i++)
			if (st->pid[i] == pid) {
				st->pid[i] = 0;
				st->status[i] = status;
			}
	for (i = 0; i < st->ncmds; i++)
		alive += st->pid[i] != 0;
	return alive;
}

/* Sends @sig to every descendant of this process; returns how many. */
static int signal_descendants(int sig)
{
	pid_t self = getpid(), pids[4096], ppids[4096];
	int n = 0, found = 0, i, j;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	while (dir && n < 4096 && (d = readdir(dir))) {
		char path[300], buf[512], *paren;
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		paren = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		if (paren) {
			pids[n] = atoi(d->d_name);
			/* pid (comm) state ppid ... */
			ppids[n] = atoi(paren + 4);
			n++;
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
	for (i = 0; i < n; i++) {
		pid_t up = ppids[i];
		int depth;

		/* Walk up at most 64 generations looking for ourselves. */
		for (depth = 0; up > 1 && up != self && depth < 64; depth++) {
			for (j = 0; j < n && pids[j] != up; j++)
				;
			up = j < n ? ppids[j] : 0;
		}
		if (up == self && pids[i] != self) {
			kill(pids[i], sig);
			found++;
		}
	}
	return found;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Stops the load and waits until nothing of it is left. Safe to call
 * twice, and on a load never started.
 */
void ls_stress_stop(struct ls_stress *st)
{
	int i, round;

	if (!st->running)
		return;
	for (i = 0; i < st->ncmds; i++)
		if (st->pid[i]) {
			st->alive_at_stop++;
			kill(-st->pid[i], SIGTERM);
		}
	for (round = 0; round < 20 && reap(st); round++)
		sleep_ms(50);
	/* Whatever is left, in its group or not: killed, until none is. */
	for (round = 0; round < 200; round++) {
		for (i = 0; i < st->ncmds; i++)
			if (st->pid[i])
				kill(-st->pid[i], SIGKILL);
		if (!signal_descendants(SIGKILL))
			break;
		sleep_ms(10);
		reap(st);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	reap(st);
	st->running = 0;
}
