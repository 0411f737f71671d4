// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: output files. Checked before the run starts (never
 * overwritten without --force, the directory must be writable), then
 * written whole through a temporary file and rename(), so a full disk or a
 * crash never leaves half a file where a good one was.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latscope.h"

int ls_check_output(const char *path, bool force, char *err, size_t errlen)
{
	char dir[4096];

	if (!path || !strcmp(path, "-"))
		return 0;
	if (!access(path, F_OK) && !force) {
		snprintf(err, errlen, "%s exists: remove it or pass --force", path);
		return -EEXIST;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if (access(dirname(dir), W_OK)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

/* mkstemp() makes 0600 files: give it the mode open() would have. */
static int chmod_as_created(const char *path)
{
	mode_t mask = umask(0);

	umask(mask);
	return chmod(path, 0666 & ~mask);
}

int ls_write_output(const char *path, int (*write)(FILE *, const struct ls_report *),
		    const struct ls_report *r, char *err, size_t errlen)
{
	char tmp[4200];
	FILE *f;
	int fd, ret;

	if (!strcmp(path, "-")) {
		ret = write(stdout, r);
		fflush(stdout);
		return ret;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	ret = write(f, r);
	if (fflush(f) || fsync(fd))
		ret = -1;
	if (fclose(f))
		ret = -1;
	if (!ret && chmod_as_created(tmp))
		ret = -1;
	if (ret || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		return -1;
	}
	return 0;
}
