// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: output files. Checked before the run starts (never
 * overwritten without --force, the directory must be writable, a warning
 * if others can write it too), then written whole by ls_write_file()
 * (file.c), so a full disk or a crash never leaves half a file where a
 * good one was.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/output.h"

int ls_check_output(const char *path, bool force, char *err, size_t errlen)
{
	struct stat st;
	char dir[4096];

	if (!path || !strcmp(path, "-"))
		return 0;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a directory: give a file name in it (%s/run.json)",
			 path, path);
		return -EISDIR;
	}
	if (!access(path, F_OK) && !force) {
		snprintf(err, errlen, "%s exists: remove it or pass --force", path);
		return -EEXIST;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if (access(dirname(dir), W_OK)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	ls_warn_shared_dir(stderr, "output file", path);
	return 0;
}

/*
 * What one file holds: a report and its writer, or what a front-end
 * above (the cost suite) writes, with its own writer.
 */
struct content {
	int (*report)(FILE *f, const struct ls_report *r);
	const struct ls_report *r;
	int (*write)(FILE *f, const void *ctx);
	const void *ctx;
};

static int write_content(FILE *f, const void *arg)
{
	const struct content *c = arg;

	return c->report ? c->report(f, c->r) : c->write(f, c->ctx);
}

/* Writes @c to @path whole (ls_write_file()); "-": stdout. */
static int write_whole(const char *path, const struct content *c, char *err, size_t errlen)
{
	char why[256];
	int ret;

	if (!strcmp(path, "-")) {
		ret = write_content(stdout, c);
		fflush(stdout);
		return ret;
	}

	if (!ls_write_file(path, write_content, c, why, sizeof(why)))
		return 0;
	snprintf(err, errlen, "cannot write %s: %s", path, why);
	return -1;
}

int ls_write_output(const char *path, int (*write)(FILE *, const struct ls_report *),
		    const struct ls_report *r, char *err, size_t errlen)
{
	const struct content c = { .report = write, .r = r };

	return write_whole(path, &c, err, errlen);
}

int ls_write_other(const char *path, int (*write)(FILE *f, const void *ctx),
		   const void *ctx, char *err, size_t errlen)
{
	const struct content c = { .write = write, .ctx = ctx };

	return write_whole(path, &c, err, errlen);
}

/*
 * @path could not be written (@err says why): its content goes to standard
 * output between marker lines instead, so that what was measured is not
 * lost.
 */
static void print_instead(const char *path, const struct content *c, const char *err)
{
	fprintf(stderr, "latscope: %s; it follows on standard output instead\n", err);
	printf("=== latscope: %s could not be written, its content follows ===\n", path);
	write_content(stdout, c);
	printf("=== latscope: end of %s ===\n", path);
	fflush(stdout);
}

/*
 * As ls_write_other_rescued(), to a file @path that the messages name
 * @shown (a survey writes through /proc/self/fd and says its directory).
 */
int ls_write_other_rescued_as(const char *path, const char *shown,
			      int (*write)(FILE *f, const void *ctx), const void *ctx)
{
	const struct content c = { .write = write, .ctx = ctx };
	char why[256], err[512];

	if (!ls_write_file(path, write_content, &c, why, sizeof(why)))
		return 0;
	snprintf(err, sizeof(err), "cannot write %s: %s", shown, why);
	print_instead(shown, &c, err);
	return -1;
}

int ls_write_other_rescued(const char *path, int (*write)(FILE *f, const void *ctx),
			   const void *ctx)
{
	const struct content c = { .write = write, .ctx = ctx };
	char err[512];

	if (!path || !write_whole(path, &c, err, sizeof(err)))
		return 0;
	print_instead(path, &c, err);
	return -1;
}

/*
 * Writes the plot and JSON files. With @rescue, one that cannot be written
 * (full disk, removed directory) is printed on standard output instead,
 * between marker lines, so that what was measured is not lost; without
 * (a checkpoint), the error is only reported.
 */
int ls_write_files(const struct ls_report *r, bool rescue)
{
	const struct ls_params *p = r->params;
	const struct {
		const char *path;
		int (*write)(FILE *f, const struct ls_report *r);
	} out[] = {
		{ p->plot_path, ls_write_plot },
		{ p->json_path, ls_write_json },
	};
	struct content c = { .r = r };
	char err[512];
	size_t i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(out); i++) {
		if (!out[i].path ||
		    !ls_write_output(out[i].path, out[i].write, r, err, sizeof(err)))
			continue;
		if (!rescue) {
			fprintf(stderr, "latscope: checkpoint: %s; the run goes on\n", err);
			ret = -1;
			continue;
		}
		c.report = out[i].write;
		print_instead(out[i].path, &c, err);
		ret = -1;
	}
	return ret;
}
