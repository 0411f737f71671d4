// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the one way latscope creates a file (docs/design/cli.md,
 * "Files latscope creates"). latscope runs as root, often in directories
 * others can write (a textfile collector's, a shared results folder), so
 * it never opens an existing name for writing and never changes a file by
 * its name: the content goes to a temporary file that this call created
 * (O_CREAT|O_EXCL|O_NOFOLLOW, 0600, an unpredictable name in the target's
 * directory), gets its mode by fchmod() on the descriptor, is fsync()ed,
 * and is rename()d over the target, which replaces a symlink there rather
 * than following it. Whoever swaps names in that directory can change
 * which file ends up at the target's name, never a file latscope did not
 * create.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output/output.h"

/* Names tried before giving up: each is 64 random bits, a clash is someone's doing. */
#define TEMP_TRIES	16

/**
 * ls_read_umask() - the process's umask, without changing it
 * @status: /proc/self/status (a test gives another file)
 *
 * umask() can only be read by setting it, which is process-wide: another
 * thread (the exporter's) would create files with the mask set meanwhile.
 * Linux 4.7 and later show it on the "Umask:" line instead.
 *
 * Return: the umask; 077 if @status has none (no /proc, an older kernel),
 * so that a file is never more open than the user asked (0600, as
 * mkstemp() makes them).
 */
mode_t ls_read_umask(const char *status)
{
	FILE *f = fopen(status, "re");
	mode_t mask = 077;
	unsigned int v;
	char line[256];

	if (!f)
		return mask;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &v) == 1) {
			mask = (mode_t)(v & 0777);
			break;
		}
	fclose(f);
	return mask;
}

/*
 * 64 bits no other user can guess; the clock if the kernel has no entropy
 * yet (at boot): a guessed name only costs a retry, O_EXCL never opens it.
 */
static unsigned long long unpredictable(void)
{
	unsigned long long r;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((unsigned long long)ts.tv_nsec << 32) ^ (unsigned long long)ts.tv_sec ^
	       ((unsigned long long)getpid() << 16);
}

/* A new file ".BASE.<16 hex>" in @dirfd, 0600, its name in @name: its descriptor, or -errno. */
static int create_temp(int dirfd, const char *base, char *name, size_t len)
{
	int i, fd;

	for (i = 0; i < TEMP_TRIES; i++) {
		if ((size_t)snprintf(name, len, ".%s.%016llx", base, unpredictable()) >= len)
			return -ENAMETOOLONG;
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Whether @name in @dirfd is still @own, the file created (not swapped for another). */
static bool still_ours(int dirfd, const char *name, const struct stat *own)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && st.st_dev == own->st_dev &&
	       st.st_ino == own->st_ino;
}

/* @path's directory (".": none given) into @dir, its last part into @base. */
static int split_path(const char *path, char *dir, size_t dirlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return -EISDIR;
	if (!slash) {
		snprintf(dir, dirlen, ".");
		return 0;
	}
	if ((size_t)(slash - path) >= dirlen)
		return -ENAMETOOLONG;
	/* "/x": the root directory. */
	snprintf(dir, dirlen, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return 0;
}

/*
 * The temporary @name in @dirfd, open as @fd (closed here): its mode,
 * @write's content, then renamed to @base. On failure, the temporary is
 * gone and @said says why, if errno does not.
 */
static int fill_and_rename(int dirfd, const char *name, int fd, const char *base,
			   int (*write)(FILE *f, const void *arg), const void *arg,
			   const char **said)
{
	struct stat own = { 0 };
	FILE *f = NULL;
	int ret = 0;

	if (!fstat(fd, &own))
		f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out;
	}
	/* On the descriptor: a path may by now name another file. */
	if (fchmod(fd, 0666 & ~ls_read_umask("/proc/self/status")))
		ret = -errno;
	errno = 0;
	if (!ret && (write(f, arg) || fflush(f) || ferror(f) || fsync(fd)))
		ret = -(errno ? errno : EIO);
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && !still_ours(dirfd, name, &own)) {
		*said = "another user replaced its temporary file";
		return -EPERM;
	}
	if (!ret && renameat(dirfd, name, dirfd, base))
		ret = -errno;
out:
	/* Only our own temporary: what another user put at its name stays theirs. */
	if (ret && still_ours(dirfd, name, &own))
		unlinkat(dirfd, name, 0);
	return ret;
}

/**
 * ls_write_file() - @path written whole by @write, or left as it was
 * @path: the file (its directory must exist)
 * @write: writes the content to its FILE *; non-zero if it failed
 * @arg: what @write writes
 * @why: why not, on failure, for a line that names @path ("cannot write
 *	PATH: WHY", the caller's)
 * @whylen: its size
 *
 * The file is new, written whole, and its mode is 0666 less the umask, as
 * open() would make it; whatever was at @path (a file, a symlink) is
 * replaced, and no other file is opened, truncated or chmod()ed.
 * Overwriting is the caller's choice (ls_check_output()).
 *
 * Return: 0, or -errno.
 */
int ls_write_file(const char *path, int (*write)(FILE *f, const void *arg), const void *arg,
		  char *why, size_t whylen)
{
	char dir[PATH_MAX], name[NAME_MAX + 1];
	const char *base, *said = NULL;
	int dirfd, fd, ret;

	ret = split_path(path, dir, sizeof(dir), &base);
	if (ret) {
		ls_fail(why, whylen, "%s", strerror(-ret));
		return ret;
	}
	/* Created, checked and renamed in one directory, whatever its path turns into. */
	dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		ret = -errno;
		ls_fail(why, whylen, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	fd = create_temp(dirfd, base, name, sizeof(name));
	if (fd < 0) {
		ls_fail(why, whylen, "no temporary file beside it: %s", strerror(-fd));
		close(dirfd);
		return fd;
	}
	ret = fill_and_rename(dirfd, name, fd, base, write, arg, &said);
	if (ret)
		ls_fail(why, whylen, "%s", said ? said : strerror(-ret));
	close(dirfd);
	return ret;
}

/**
 * ls_shared_dir() - whether others can create and remove names in @path's directory
 * @path: a file latscope is to write
 * @mode: the directory's mode, if so
 *
 * Group- or world-writable and not sticky: another user can replace the
 * file latscope wrote, or anything it is about to. A sticky directory
 * (/tmp) lets each user remove only their own names, so it does not
 * count; nor does a directory's owner, who holds it anyway.
 *
 * Return: true if so.
 */
bool ls_shared_dir(const char *path, mode_t *mode)
{
	char dir[PATH_MAX];
	const char *base;
	struct stat st;

	if (split_path(path, dir, sizeof(dir), &base) || stat(dir, &st) || !S_ISDIR(st.st_mode))
		return false;
	*mode = st.st_mode & 07777;
	return (st.st_mode & 0022) && !(st.st_mode & S_ISVTX);
}

/* One line on @out if @path's directory is shared (ls_shared_dir()); @what names the option. */
void ls_warn_shared_dir(FILE *out, const char *what, const char *path)
{
	mode_t mode;

	if (ls_shared_dir(path, &mode))
		fprintf(out, "latscope: warning: %s %s: its directory is writable by others (mode %04o, not sticky): they can replace what latscope writes there; use one only root can write\n",
			what, path, (unsigned int)mode);
}
