// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI, cost suite: the workloads, one row each. Each is a fixed
 * amount of work (--cost-scale makes it smaller or larger, the same for
 * every run), and each run checks from the work's own output that it was
 * done: the N-queens count, hackbench's time line, stress-ng's bogo ops,
 * the file's size, iperf3's receiver line.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cost/cost.h"

#define QUEENS_N		12	/* 14200 solutions */
#define IPERF_PORT		"5299"	/* loopback only */

/* The work at 100 %, by --cost-scale, at least one unit. */
static unsigned long long scaled(const struct ls_cost_ctx *c, unsigned long long at100)
{
	unsigned long long n = at100 * c->scale / 100;

	return n ? n : 1;
}

static int missing(const char *tool, const char *package, char *why, size_t whylen)
{
	if (ls_in_path(tool))
		return 0;
	ls_fail(why, whylen, "%s not found (Debian: apt install %s)", tool, package);
	return -1;
}

/* ---- N-queens, one thread and one per CPU ---- */

static int queens_prepare(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *what,
			  size_t whatlen, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	s->amount = scaled(c, s->wl->at100);
	snprintf(what, whatlen, "N-queens %d counted %llu times, one thread", QUEENS_N,
		 s->amount);
	return 0;
}

/* Counts the board @amount times: how many counts came out right. */
static unsigned long long queens_count(unsigned long long amount)
{
	unsigned long long i, right = 0;

	for (i = 0; i < amount; i++)
		right += ls_queens(QUEENS_N) == ls_queens_known(QUEENS_N);
	return right;
}

static int queens_run(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *check,
		      size_t checklen, char *err, size_t errlen)
{
	unsigned long long right = queens_count(s->amount);

	(void)c;
	if (right != s->amount) {
		ls_fail(err, errlen, "N-queens %d: %llu of %llu counts wrong", QUEENS_N,
			s->amount - right, s->amount);
		return -1;
	}
	snprintf(check, checklen, "%llu solutions each time", ls_queens_known(QUEENS_N));
	return 0;
}

static int queens_all_prepare(const struct ls_cost_ctx *c, struct ls_wl_state *s,
			      char *what, size_t whatlen, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	s->amount = scaled(c, s->wl->at100);
	snprintf(what, whatlen, "N-queens %d counted %llu times by each of %d threads, one per CPU",
		 QUEENS_N, s->amount, c->ncpus);
	return 0;
}

struct queens_thread {
	pthread_t t;
	unsigned long long amount, right;
};

static void *queens_thread(void *arg)
{
	struct queens_thread *q = arg;

	q->right = queens_count(q->amount);
	return NULL;
}

static int queens_all_run(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *check,
			  size_t checklen, char *err, size_t errlen)
{
	struct queens_thread q[64];
	int n = c->ncpus < 64 ? c->ncpus : 64, i, started = 0, ret = 0;

	for (i = 0; i < n; i++) {
		q[i].amount = s->amount;
		q[i].right = 0;
		if (pthread_create(&q[i].t, NULL, queens_thread, &q[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(q[i].t, NULL);
		if (q[i].right != s->amount)
			ret = -1;
	}
	if (started < n) {
		ls_fail(err, errlen, "cannot start thread %d of %d", started + 1, n);
		return -1;
	}
	if (ret) {
		ls_fail(err, errlen, "N-queens %d: a thread counted wrong", QUEENS_N);
		return -1;
	}
	snprintf(check, checklen, "%llu solutions each time, in every thread",
		 ls_queens_known(QUEENS_N));
	return 0;
}

/* ---- hackbench (rt-tests) ---- */

static int hackbench_prepare(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *what,
			     size_t whatlen, char *why, size_t whylen)
{
	s->amount = scaled(c, s->wl->at100);
	snprintf(what, whatlen, "hackbench -g 10 -l %llu (10 groups of 20 processes)",
		 s->amount);
	return missing("hackbench", "rt-tests", why, whylen);
}

static int hackbench_run(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *check,
			 size_t checklen, char *err, size_t errlen)
{
	char loops[32], out[4096];
	char *const argv[] = { "hackbench", "-g", "10", "-l", loops, NULL };

	snprintf(loops, sizeof(loops), "%llu", s->amount);
	if (ls_cmd_run(argv, c->mask, out, sizeof(out), err, errlen))
		return -1;
	if (!strstr(out, "Time:")) {
		ls_fail(err, errlen, "hackbench printed no Time: line: %.100s", ls_last_line(out));
		return -1;
	}
	snprintf(check, checklen, "hackbench: %.60s", ls_last_line(out));
	return 0;
}

/* ---- context switches and forks (stress-ng, a fixed op count) ---- */

/* The bogo ops stress-ng's --metrics-brief line gives @stressor, or 0. */
static unsigned long long bogo_ops(const char *out, const char *stressor)
{
	char key[48];
	const char *at;

	snprintf(key, sizeof(key), "] %s ", stressor);
	for (at = strstr(out, key); at; at = strstr(at + 1, key)) {
		unsigned long long ops;

		if (sscanf(at + strlen(key), " %llu", &ops) == 1)
			return ops;
	}
	return 0;
}

/* --STRESSOR 1 --STRESSOR-ops N, as the row's arg and amount say. */
static int stress_ng_prepare(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *what,
			     size_t whatlen, char *why, size_t whylen)
{
	const char *stressor = s->wl->arg;

	s->amount = scaled(c, s->wl->at100);
	snprintf(what, whatlen, "stress-ng --%s 1 --%s-ops %llu", stressor, stressor, s->amount);
	return missing("stress-ng", "stress-ng", why, whylen);
}

static int stress_ng_run(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *check,
			 size_t checklen, char *err, size_t errlen)
{
	const char *stressor = s->wl->arg;
	char opt[32], optops[40], ops[32], out[8192];
	char *const argv[] = { "stress-ng", opt, "1", optops, ops, "--metrics-brief", NULL };
	unsigned long long done;

	snprintf(opt, sizeof(opt), "--%s", stressor);
	snprintf(optops, sizeof(optops), "--%s-ops", stressor);
	snprintf(ops, sizeof(ops), "%llu", s->amount);
	if (ls_cmd_run(argv, c->mask, out, sizeof(out), err, errlen))
		return -1;
	done = bogo_ops(out, stressor);
	if (done < s->amount) {
		ls_fail(err, errlen, "stress-ng --%s: %llu bogo ops of %llu in its metrics",
			stressor, done, s->amount);
		return -1;
	}
	snprintf(check, checklen, "%llu %s bogo ops", done, stressor);
	return 0;
}

/* ---- file writes, each made durable with fsync() ---- */

static int fsync_prepare(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *what,
			 size_t whatlen, char *why, size_t whylen)
{
	s->amount = scaled(c, s->wl->at100);
	snprintf(s->path, sizeof(s->path), "%s/latscope-cost.XXXXXX", c->dir);
	s->fd = mkstemp(s->path);
	if (s->fd < 0) {
		ls_fail(why, whylen, "cannot create a file in %s: %s", c->dir, strerror(errno));
		s->path[0] = '\0';
		return -1;
	}
	snprintf(what, whatlen, "%llu writes of 4 KiB to %s, each followed by fsync()",
		 s->amount, c->dir);
	return 0;
}

static int fsync_run(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *check,
		     size_t checklen, char *err, size_t errlen)
{
	static const char block[4096] = { 'l' };
	unsigned long long i;
	struct stat st;

	(void)c;
	if (ftruncate(s->fd, 0))
		goto fail;
	for (i = 0; i < s->amount; i++)
		if (pwrite(s->fd, block, sizeof(block), (off_t)(i * sizeof(block))) !=
		    (ssize_t)sizeof(block) || fsync(s->fd))
			goto fail;
	if (fstat(s->fd, &st) || (unsigned long long)st.st_size != s->amount * sizeof(block)) {
		ls_fail(err, errlen, "%s: %lld bytes, not %llu", s->path, (long long)st.st_size,
			s->amount * (unsigned long long)sizeof(block));
		return -1;
	}
	snprintf(check, checklen, "%lld bytes written and synced", (long long)st.st_size);
	return 0;
fail:
	ls_fail(err, errlen, "%s: %s", s->path, strerror(errno ? errno : EIO));
	return -1;
}

static void fsync_finish(struct ls_wl_state *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->path[0])
		unlink(s->path);
}

/* ---- loopback network throughput (iperf3) ---- */

static int iperf_prepare(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *what,
			 size_t whatlen, char *why, size_t whylen)
{
	char *const argv[] = { "iperf3", "-s", "-B", "127.0.0.1", "-p", IPERF_PORT,
			       "--forceflush", NULL };
	char out[1024];
	int i, ret;

	s->amount = scaled(c, s->wl->at100);
	snprintf(what, whatlen, "iperf3 -n %lluM over loopback (127.0.0.1:%s)", s->amount,
		 IPERF_PORT);
	if (missing("iperf3", "iperf3", why, whylen))
		return -1;
	ret = ls_cmd_start(&s->server, argv, c->mask);
	if (ret) {
		ls_fail(why, whylen, "cannot run iperf3 -s: %s", strerror(-ret));
		return -1;
	}
	/* Listening, as it says, or gone (the port taken): 10 s at most. */
	for (i = 0; i < 1000; i++) {
		ls_cmd_output(&s->server, out, sizeof(out));
		if (strstr(out, "listening"))
			return 0;
		if (!ls_cmd_wait(&s->server, 10))
			break;
	}
	ls_cmd_output(&s->server, out, sizeof(out));
	ls_fail(why, whylen, "iperf3 -s on port %s did not listen: %.100s", IPERF_PORT,
		ls_last_line(out));
	ls_cmd_close(&s->server);
	return -1;
}

/* The last place @what is in @text, or NULL. */
static const char *last_of(const char *text, const char *what)
{
	const char *at = NULL, *p;

	for (p = strstr(text, what); p; p = strstr(p + 1, what))
		at = p;
	return at;
}

/*
 * iperf3 -s listens again only once its last test is over, after its
 * client has exited: the next client waits for "Server listening" past
 * the last "Accepted connection" (10 s at most), or is refused. Looked
 * for each millisecond: the wait is in the batch's time, as the server's
 * turnaround is, the same plain and measured.
 */
static int iperf_ready(struct ls_wl_state *s, char *err, size_t errlen)
{
	char out[4096];
	const char *listening, *accepted;
	int i;

	for (i = 0; i < 10000; i++) {
		ls_cmd_output(&s->server, out, sizeof(out));
		listening = last_of(out, "listening");
		accepted = last_of(out, "Accepted connection");
		if (listening && (!accepted || listening > accepted))
			return 0;
		if (!ls_cmd_wait(&s->server, 0))
			break;
		usleep(1000);
	}
	ls_fail(err, errlen, "iperf3 -s did not listen again: %.100s", ls_last_line(out));
	return -1;
}

static int iperf_run(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *check,
		     size_t checklen, char *err, size_t errlen)
{
	char bytes[32], out[4096];
	char *const argv[] = { "iperf3", "-c", "127.0.0.1", "-p", IPERF_PORT, "-n", bytes,
			 "-f", "m", NULL };
	const char *rx;

	snprintf(bytes, sizeof(bytes), "%lluM", s->amount);
	if (iperf_ready(s, err, errlen) || ls_cmd_run(argv, c->mask, out, sizeof(out), err, errlen))
		return -1;
	rx = strstr(out, "receiver");
	if (!rx) {
		ls_fail(err, errlen, "iperf3 printed no receiver line: %.100s", ls_last_line(out));
		return -1;
	}
	while (rx > out && rx[-1] != '\n')
		rx--;
	snprintf(check, checklen, "iperf3: %.*s", (int)strcspn(rx, "\n"), rx);
	return 0;
}

static void iperf_finish(struct ls_wl_state *s)
{
	ls_cmd_stop(&s->server, SIGTERM, 2000);
	ls_cmd_close(&s->server);
}

const struct ls_workload ls_workloads[] = {
	{ .name = "queens-1", .prepare = queens_prepare, .run = queens_run, .at100 = 20 },
	{ .name = "queens-all", .prepare = queens_all_prepare, .run = queens_all_run,
	  .at100 = 20 },
	{ .name = "hackbench", .prepare = hackbench_prepare, .run = hackbench_run, .at100 = 500 },
	{ .name = "switch", .prepare = stress_ng_prepare, .run = stress_ng_run, .arg = "switch",
	  .at100 = 100000 },
	{ .name = "fork", .prepare = stress_ng_prepare, .run = stress_ng_run, .arg = "fork",
	  .at100 = 2000 },
	{ .name = "fsync", .prepare = fsync_prepare, .run = fsync_run, .finish = fsync_finish,
	  .at100 = 1000 },
	{ .name = "iperf3", .prepare = iperf_prepare, .run = iperf_run, .finish = iperf_finish,
	  .at100 = 1000 },
};

const int ls_nr_workloads = ARRAY_SIZE(ls_workloads);

const struct ls_workload *ls_workload(const char *name)
{
	int i;

	for (i = 0; i < ls_nr_workloads; i++)
		if (!strcmp(ls_workloads[i].name, name))
			return &ls_workloads[i];
	return NULL;
}

void ls_workload_names(char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < ls_nr_workloads && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? ", " : "", ls_workloads[i].name);
}
