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
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/core.h"
#include "core/setup.h"

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

const char *ls_verdict_name(enum ls_verdict v)
{
	switch (v) {
	case LS_VERDICT_OK:
		return "ok";
	case LS_VERDICT_COSTS:
		return "costs latency";
	default:
		return "unknown";
	}
}

static int vpath(const struct ls_setup_ctx *c, char *buf, size_t len,
		 const char *fmt, va_list ap)
{
	size_t n = (size_t)snprintf(buf, len, "%s", c->root);

	if (n >= len)
		return -1;
	n += (size_t)vsnprintf(buf + n, len - n, fmt, ap);
	return n < len ? 0 : -1;
}

/* A path under the root: 0, or -1 if it does not fit. */
int ls_setup_path(const struct ls_setup_ctx *c, char *buf, size_t len,
		  const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(c, buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

/* The first line of a file under the root: 0; -1 and "" if unreadable. */
int ls_setup_read(const struct ls_setup_ctx *c, char *buf, size_t len,
		  const char *fmt, ...)
{
	char path[512];
	va_list ap;
	int ret;

	buf[0] = '\0';
	va_start(ap, fmt);
	ret = vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	return ret ? -1 : ls_read_line(path, buf, len);
}

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
	char *argv[] = { "gzip", "-dc", (char *)path, NULL };
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

/* CONFIG_X's value ("y", "m", "1000"), as a pointer into the text; NULL if unset. */
const char *ls_setup_config(const struct ls_setup_ctx *c, const char *opt)
{
	size_t len = strlen(opt);
	const char *s;

	for (s = c->config; s && (s = strstr(s, opt)); s += len)
		if ((s == c->config || s[-1] == '\n') && s[len] == '=')
			return s + len + 1;
	return NULL;
}

/*
 * Whether the kernel command line has @key ("isolcpus", "nosmt"), and
 * its value (after '=', up to the next blank; "" for none) into @val.
 */
bool ls_setup_cmdline(const struct ls_setup_ctx *c, const char *key, char *val,
		      size_t len)
{
	size_t klen = strlen(key);
	char line[4096];
	const char *s;

	if (ls_setup_read(c, line, sizeof(line), "/proc/cmdline"))
		return false;
	for (s = line; *s; s += strcspn(s, " "), s += strspn(s, " ")) {
		if (strncmp(s, key, klen) || (s[klen] && s[klen] != ' ' && s[klen] != '='))
			continue;
		if (val)
			snprintf(val, len, "%.*s", s[klen] == '=' ? (int)strcspn(s + klen + 1, " ") : 0,
				 s[klen] == '=' ? s + klen + 1 : "");
		return true;
	}
	return false;
}

/* "CPU1" or "CPUs 1-3": for the values and fixes. */
void ls_setup_cpus_text(const cpu_set_t *set, char *buf, size_t len)
{
	char list[256];

	ls_format_cpu_list(set, list, sizeof(list));
	snprintf(buf, len, "CPU%s%s", CPU_COUNT(set) > 1 ? "s " : "", list);
}

/* A context for the checks of a run on @cpus (see ls_setup_check()); no config read. */
void ls_setup_ctx_init(struct ls_setup_ctx *c, const char *root, const cpu_set_t *cpus,
		       int priority)
{
	memset(c, 0, sizeof(*c));
	c->root = root ? root : "";
	c->cpus = *cpus;
	c->priority = priority;
	c->self = (int)getpid();
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
