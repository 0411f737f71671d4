// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the setup verdict's frame: the table of factors, and what
 * their checks share: paths under the root, the kernel's config (from
 * /proc/config.gz, else /boot/config-RELEASE) and the kernel command
 * line.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/core.h"
#include "setup/setup.h"

/* The checks, in the order --check-setup prints them. */
static const struct {
	const char *name, *title;
	ls_setup_check_fn *check;
} factors[] = {
	{ "preemption", "preemption model", ls_setup_preemption },
	{ "debug", "kernel debug options", ls_setup_debug },
	{ "tracing", "tracers", ls_setup_tracing },
	{ "isolation", "isolated CPUs", ls_setup_isolation },
	{ "nohz_full", "tickless CPUs (nohz_full)", ls_setup_nohz_full },
	{ "rcu_nocbs", "RCU callbacks (rcu_nocbs)", ls_setup_rcu_nocbs },
	{ "irqs", "IRQs on the measured CPUs", ls_setup_irqs },
	{ "rt_threads", "RT threads at the responder's priority", ls_setup_rt_threads },
	{ "governor", "cpufreq governor", ls_setup_governor },
	{ "smt", "SMT siblings", ls_setup_smt },
	{ "rt_runtime", "RT throttling", ls_setup_rt_runtime },
	{ "timer_migration", "timer migration", ls_setup_timer_migration },
	{ "thp", "transparent huge pages", ls_setup_thp },
	{ "watchdog", "lockup watchdogs", ls_setup_watchdog },
	{ "console", "console output", ls_setup_console },
	{ "clock", "clocksource", ls_setup_clock },
	{ "gpu", "GPU driver", ls_setup_gpu },
	{ "throttling", "firmware throttling", ls_setup_throttling },
};

/* Reads @fd to its end, NUL-ended; NULL if nothing or past 4 MiB. */
static char *read_all(int fd)
{
	size_t size = 0, cap = 1 << 18;
	char *text = malloc(cap), *more;
	ssize_t n;

	while (text && (n = read(fd, text + size, cap - size - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		size += (size_t)n;
		if (size + 1 < cap)
			continue;
		more = cap < (4u << 20) ? realloc(text, cap * 2) : NULL;
		if (!more)
			break;
		text = more;
		cap *= 2;
	}
	if (text && n == 0 && size) {
		text[size] = '\0';
		return text;
	}
	free(text);
	return NULL;
}

/*
 * The kernel's config: /proc/config.gz through gzip (present on every
 * system latscope runs on, busybox's included; no library to link
 * statically for each architecture), else a plain file.
 */
static char *read_config(const char *path, bool gz)
{
	char *const argv[] = { "gzip", "-dc", (char *)path, NULL };
	posix_spawn_file_actions_t fa;
	char *text = NULL;
	int pipefd[2], fd;
	pid_t pid;

	if (!gz) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		text = read_all(fd);
		close(fd);
		return text;
	}
	if (access(path, R_OK) || pipe2(pipefd, O_CLOEXEC))
		return NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (!posix_spawnp(&pid, "gzip", &fa, NULL, argv, environ)) {
		close(pipefd[1]);
		text = read_all(pipefd[0]);
		while (waitpid(pid, &fd, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(fd) || WEXITSTATUS(fd)) {
			free(text);
			text = NULL;
		}
	} else {
		close(pipefd[1]);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[0]);
	return text;
}

static void load_config(struct ls_setup_ctx *c)
{
	char path[512], release[128];

	ls_setup_path(c, path, sizeof(path), "/proc/config.gz");
	c->config = read_config(path, true);
	if (!c->config && !ls_setup_read(c, release, sizeof(release),
					 "/proc/sys/kernel/osrelease")) {
		ls_setup_path(c, path, sizeof(path), "/boot/config-%s", release);
		c->config = read_config(path, false);
	}
	if (c->config)
		snprintf(c->config_from, sizeof(c->config_from), "%s",
			 path + strlen(c->root));
}

/*
 * Checks every factor of this board for a run on @cpus whose responder
 * runs at SCHED_FIFO @priority (0: none), reading under @root ("" or
 * NULL: this system's files). @s->applied is kept.
 */
void ls_setup_check(struct ls_setup *s, const char *root, const cpu_set_t *cpus,
		    int priority)
{
	struct ls_setup_ctx c;
	unsigned int i;

	ls_setup_ctx_init(&c, root, cpus, priority);
	load_config(&c);
	s->n = 0;
	s->costs = 0;
	for (i = 0; i < ARRAY_SIZE(factors) && i < LS_SETUP_MAX; i++) {
		struct ls_setup_factor *f = &s->f[s->n++];

		memset(f, 0, sizeof(*f));
		f->name = factors[i].name;
		f->title = factors[i].title;
		f->verdict = LS_VERDICT_UNKNOWN;
		factors[i].check(&c, f);
		if (f->verdict == LS_VERDICT_COSTS)
			s->costs++;
	}
	free(c.config);
}
