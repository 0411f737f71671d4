// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the extreme-value estimate of a run (docs/design/evt.md).
 * The statistics are SciPy's, in latscope-evt (Python): the run's JSON,
 * as --json would write it, goes to its standard input through a memory
 * file, and its two lines come back: the EVT| line and the estimate as
 * one JSON object, which the run's JSON then carries as "evt". Without
 * latscope-evt or SciPy, or if it fails or takes too long, the run has no
 * estimate and says why on the EVT| line; nothing else changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/output.h"
#include "run/run.h"

/* How long latscope-evt may take before it is killed (SciPy's import included). */
#define EVT_TIMEOUT_MS		30000
#define EVT_OUT_MAX		(64 * 1024)

/* The report as JSON in a memory file, rewound: its descriptor, or -1. */
static int json_file(const struct ls_report *r)
{
	int fd = memfd_create("latscope-evt-input", MFD_CLOEXEC), copy;
	FILE *f;
	int bad;

	if (fd < 0)
		return -1;
	copy = dup(fd);
	f = copy >= 0 ? fdopen(copy, "w") : NULL;
	if (!f) {
		if (copy >= 0)
			close(copy);
		close(fd);
		return -1;
	}
	bad = ls_write_json(f, r);
	bad |= fclose(f);
	if (bad || lseek(fd, 0, SEEK_SET)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The child's output until it closes it, at most @max - 1 bytes: its length, or -1. */
static ssize_t read_out(int fd, char *buf, size_t max)
{
	__u64 deadline = ls_now_ns() + EVT_TIMEOUT_MS * 1000000ULL;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t at = 0;
	ssize_t n;

	for (;;) {
		int wait_ms = ls_ms_until(deadline);

		if (wait_ms <= 0)
			return -1;
		n = poll(&pfd, 1, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		n = read(fd, buf + at, max - 1 - at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		at += (size_t)n;
		if (at == max - 1)
			return -1;
	}
	buf[at] = '\0';
	return n < 0 ? -1 : (ssize_t)at;
}

/* Runs latscope-evt on @in: its exit status, -1 if killed, -2 if not started. */
static int run_evt(const char *prog, int in, char *out, size_t max)
{
	char *const argv[] = { (char *)prog, "--cli", "-", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int pipefd[2], status = -1;
	sigset_t none, pipe_sig;
	ssize_t got = -1;
	pid_t pid;
	int ret;

	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	/* Not the signals the run holds: Ctrl-C reaches it as any program. */
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);	/* latscope ignores it; exec keeps that */
	posix_spawnattr_setsigdefault(&attr, &pipe_sig);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	ret = posix_spawnp(&pid, prog, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (ret) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return -2;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	got = read_out(pipefd[0], out, max);
	close(pipefd[0]);
	if (got < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return got < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * The estimate of @r: fills r->evt_line, and r->evt_json (freed by
 * ls_report_free()) when latscope-evt gave one. Runs shorter than
 * LS_EVT_MIN_SECONDS get neither: too few per-second maxima to fit.
 */
void ls_evt_estimate(struct ls_report *r)
{
	char prog[4200], *out, *json;
	int in, status;

	free(r->evt_json);
	r->evt_json = NULL;
	r->evt_line[0] = '\0';
	if (!r->timeline || !r->total.samples || r->duration_s < LS_EVT_MIN_SECONDS)
		return;
	ls_companion("LATSCOPE_EVT", "latscope-evt", prog, sizeof(prog));
	out = malloc(EVT_OUT_MAX);
	in = out ? json_file(r) : -1;
	if (in < 0) {
		snprintf(r->evt_line, sizeof(r->evt_line), "EVT| no estimate: %s",
			 strerror(errno ? errno : ENOMEM));
		free(out);
		return;
	}
	status = run_evt(prog, in, out, EVT_OUT_MAX);
	close(in);
	json = out ? strchr(out, '\n') : NULL;
	if (status || strncmp(out, "EVT| ", 5) || !json || json[1] != '{') {
		snprintf(r->evt_line, sizeof(r->evt_line), "EVT| no estimate: %.160s %s", prog,
			 status == -2 ? "was not found" :
			 status == -1 ? "took too long, killed" :
			 "failed (it needs python3-scipy; its message is above)");
		free(out);
		return;
	}
	*json++ = '\0';
	json[strcspn(json, "\n")] = '\0';
	snprintf(r->evt_line, sizeof(r->evt_line), "%s", out);
	r->evt_json = strdup(json);
	free(out);
}
