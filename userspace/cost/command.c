// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI, cost suite: the programs it runs (workloads, an iperf3
 * server, the measuring latscope), each with its standard output and
 * error in a memfd, so that nothing is left on disk and a test reads what
 * it printed. The child gets the signal mask of before the suite: a
 * Ctrl-C on the terminal reaches it as it reaches the suite.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cost/cost.h"

int ls_cmd_start(struct ls_cmd *c, char *const argv[], const sigset_t *mask)
{
	return ls_cmd_start_at(c, argv, mask, -1);
}

/* As ls_cmd_start(), the child in the directory @dirfd (-1: this one's). */
int ls_cmd_start_at(struct ls_cmd *c, char *const argv[], const sigset_t *mask, int dirfd)
{
	c->pid = -1;
	c->status = -1;
	c->fd = memfd_create("latscope-cost", MFD_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		close(c->fd);
		c->fd = -1;
		return -e;
	}
	if (!c->pid) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (dirfd >= 0 && fchdir(dirfd)) {
			dprintf(c->fd, "cannot run %s: %s\n", argv[0], strerror(errno));
			_exit(127);
		}
		sigprocmask(SIG_SETMASK, mask, NULL);
		signal(SIGPIPE, SIG_DFL);	/* latscope ignores it; exec keeps that */
		if (null >= 0)
			dup2(null, 0);
		dup2(c->fd, 1);
		dup2(c->fd, 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return 0;
}

/* Waits for @c to end, at most @timeout_ms (-1: no bound): 0, or -1 if it still runs. */
int ls_cmd_wait(struct ls_cmd *c, int timeout_ms)
{
	int waited = 0;

	if (c->pid <= 0)
		return 0;
	for (;;) {
		pid_t r = waitpid(c->pid, &c->status, timeout_ms < 0 ? 0 : WNOHANG);

		if (r == c->pid || (r < 0 && errno != EINTR)) {
			c->pid = 0;
			return 0;
		}
		if (timeout_ms >= 0 && waited >= timeout_ms)
			return -1;
		if (timeout_ms >= 0) {
			usleep(10000);
			waited += 10;
		}
	}
}

/* Ends @c: @sig, then SIGKILL if it is still there @grace_ms later. */
void ls_cmd_stop(struct ls_cmd *c, int sig, int grace_ms)
{
	if (c->pid > 0) {
		kill(c->pid, sig);
		if (ls_cmd_wait(c, grace_ms)) {
			kill(c->pid, SIGKILL);
			ls_cmd_wait(c, -1);
		}
	}
}

/* What @c printed so far: its last @len - 1 bytes at most, NUL-ended. */
void ls_cmd_output(const struct ls_cmd *c, char *buf, size_t len)
{
	off_t end = c->fd >= 0 ? lseek(c->fd, 0, SEEK_END) : -1;
	off_t from = end > (off_t)len - 1 ? end - ((off_t)len - 1) : 0;
	ssize_t n = end > 0 ? pread(c->fd, buf, (size_t)(end - from), from) : 0;

	buf[n > 0 ? n : 0] = '\0';
}

void ls_cmd_close(struct ls_cmd *c)
{
	ls_cmd_stop(c, SIGKILL, 0);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Runs @argv to its end: 0 if it exited 0, else -1 with why in @err. */
int ls_cmd_run(char *const argv[], const sigset_t *mask, char *out, size_t outlen,
	       char *err, size_t errlen)
{
	struct ls_cmd c;
	int ret = ls_cmd_start(&c, argv, mask);

	out[0] = '\0';
	if (ret) {
		ls_fail(err, errlen, "cannot run %s: %s", argv[0], strerror(-ret));
		return -1;
	}
	ls_cmd_wait(&c, -1);
	ls_cmd_output(&c, out, outlen);
	ls_cmd_close(&c);
	if (WIFEXITED(c.status) && !WEXITSTATUS(c.status))
		return 0;
	if (WIFEXITED(c.status))
		ls_fail(err, errlen, "%s exited %d: %.120s", argv[0], WEXITSTATUS(c.status),
			ls_last_line(out));
	else
		ls_fail(err, errlen, "%s was killed by signal %d", argv[0],
			WIFSIGNALED(c.status) ? WTERMSIG(c.status) : 0);
	return -1;
}

/* The last line of @text; its trailing newlines are cut off @text. */
const char *ls_last_line(char *text)
{
	size_t n = strlen(text);
	char *nl;

	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	nl = strrchr(text, '\n');
	return nl ? nl + 1 : text;
}
