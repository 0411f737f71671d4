// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the exporter's figures for node_exporter's textfile
 * collector: a .prom file rewritten whole every N seconds, by a
 * SCHED_OTHER thread off the measured CPUs, each time whole by
 * ls_write_file() (a new file renamed over it), so node_exporter never
 * reads half a file; a write that fails (a full disk) leaves the last
 * whole one and is said once until one succeeds again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output/output.h"
#include "serve/serve.h"

struct ls_textfile {
	struct ls_exporter *ex;
	const char *path;
	unsigned long long every_s;
	struct ls_prom_view *view;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	bool failing;			/* the last write failed, and said so */
};

/* What one write of the file writes: the view copied before it. */
static int write_view(FILE *f, const void *view)
{
	ls_prom_write(f, view, false);
	return ferror(f);
}

/**
 * ls_textfile_write() - @ex's figures into @path, whole or not at all
 * @ex: the figures
 * @path: the .prom file
 * @tmp: room for a copy of the view
 * @why: why not, on failure (the caller names @path)
 * @whylen: its size
 *
 * Through ls_write_file(): a new file renamed over @path, so that neither
 * node_exporter nor anyone who can write the directory sees or swaps half
 * a file, and no other file is ever written.
 *
 * Return: 0, or -errno (the file as before).
 */
int ls_textfile_write(struct ls_exporter *ex, const char *path, struct ls_prom_view *tmp,
		      char *why, size_t whylen)
{
	ls_exporter_copy(ex, tmp);
	return ls_write_file(path, write_view, tmp, why, whylen);
}

static void write_now(struct ls_textfile *t)
{
	char why[256];
	int ret = ls_textfile_write(t->ex, t->path, t->view, why, sizeof(why));

	if (ret && !t->failing)
		fprintf(stderr, "latscope: --textfile %s: not written: %s (the last one stays)\n",
			t->path, why);
	else if (!ret && t->failing)
		fprintf(stderr, "latscope: --textfile %s: written again\n", t->path);
	t->failing = ret;
}

static void *textfile_thread(void *arg)
{
	struct ls_textfile *t = arg;
	struct timespec at;

	/* The first write was ls_textfile_start()'s, the last is ls_textfile_stop()'s. */
	clock_gettime(CLOCK_MONOTONIC, &at);
	pthread_mutex_lock(&t->lock);
	for (;;) {
		at.tv_sec += (time_t)t->every_s;
		while (!t->stop && pthread_cond_timedwait(&t->wake, &t->lock, &at) != ETIMEDOUT)
			;
		if (t->stop)
			break;
		pthread_mutex_unlock(&t->lock);
		write_now(t);
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/**
 * ls_textfile_start() - write @ex's figures to @path every @every_s seconds
 * @ex: the figures
 * @path: the .prom file, in node_exporter's --collector.textfile.directory
 * @every_s: seconds between two writes
 * @cpus: where the thread runs: the CPUs not measured, or empty
 * @err: why not, on failure
 * @errlen: its size
 *
 * The first write is now, and must succeed: a directory that cannot be
 * written is said at once.
 *
 * Return: the writer, or NULL.
 */
struct ls_textfile *ls_textfile_start(struct ls_exporter *ex, const char *path,
				      unsigned long long every_s, const cpu_set_t *cpus,
				      char *err, size_t errlen)
{
	struct ls_textfile *t = calloc(1, sizeof(*t));
	pthread_condattr_t ca;
	char why[256];
	int ret;

	if (t)
		t->view = calloc(1, sizeof(*t->view));
	if (!t || !t->view) {
		free(t);
		ls_fail(err, errlen, "out of memory for --textfile");
		return NULL;
	}
	t->ex = ex;
	t->path = path;
	t->every_s = every_s;
	ls_warn_shared_dir(stderr, "--textfile", path);
	ret = ls_textfile_write(ex, path, t->view, why, sizeof(why));
	if (ret) {
		ls_fail(err, errlen, "--textfile %s: cannot write it: %s", path, why);
		goto fail;
	}
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wake, &ca);
	pthread_condattr_destroy(&ca);
	ret = ls_start_thread(&t->thread, textfile_thread, t, SCHED_OTHER, 0, cpus);
	if (ret) {
		ls_fail(err, errlen, "--textfile %s: no thread: %s", path, strerror(ret));
		pthread_cond_destroy(&t->wake);
		pthread_mutex_destroy(&t->lock);
		goto fail;
	}
	return t;
fail:
	free(t->view);
	free(t);
	return NULL;
}

/* Stops the writer after one last write: the file has the figures of the end. */
void ls_textfile_stop(struct ls_textfile *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	write_now(t);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t->view);
	free(t);
}
