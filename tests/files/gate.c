// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD library for tests/files/run.sh, beside the fake device:
 * it makes the racer's window certain and watches the umask.
 *
 * - fsync() of a file in GATE_DIR waits (10 s at most) until the racer
 *   has swapped that file's name for a symlink: the file unlinked and a
 *   symlink at its name. A writer that then uses the name (chmod, rename)
 *   meets the racer's symlink every time, not once in a while.
 * - umask() is logged: latscope must read the umask, never set it
 *   (process-wide: another thread would create files with the mask set
 *   meanwhile).
 * Each event is a line in GATE_LOG: "swapped PATH", "not swapped PATH"
 * (the wait timed out), "mask set to OCTAL" (a umask() call).
 *
 * Build: cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -o gate.so gate.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void gate_log(const char *fmt, const char *what, unsigned int mode)
{
	const char *log = getenv("GATE_LOG");
	char line[PATH_MAX + 64];
	int fd, n;

	if (!log)
		return;
	if (what)
		n = snprintf(line, sizeof(line), fmt, what);
	else
		n = snprintf(line, sizeof(line), fmt, mode);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		n = -1;
	close(fd);
}

/* Whether @fd's file is gone from its name and a symlink took that name. */
static int swapped(int fd, const char *name)
{
	struct stat st, at;

	return !fstat(fd, &st) && st.st_nlink == 0 && !lstat(name, &at) && S_ISLNK(at.st_mode);
}

int fsync(int fd)
{
	static int (*real)(int);
	const char *dir = getenv("GATE_DIR");
	char proc[64], name[PATH_MAX];
	ssize_t n;
	int i;

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = dir && dir[0] ? readlink(proc, name, sizeof(name) - 1) : -1;
	if (n > 0 && !strncmp(name, dir, strlen(dir)) && name[strlen(dir)] == '/') {
		name[n] = '\0';
		/* The kernel's name for an unlinked file. */
		if (n > 10 && !strcmp(name + n - 10, " (deleted)"))
			name[n - 10] = '\0';
		for (i = 0; i < 10000 && !swapped(fd, name); i++)
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		gate_log(swapped(fd, name) ? "swapped %s\n" : "not swapped %s\n", name, 0);
	}
	return real(fd);
}

mode_t umask(mode_t mask)
{
	static mode_t (*real)(mode_t);

	if (!real)
		real = (mode_t (*)(mode_t))dlsym(RTLD_NEXT, "umask");
	gate_log("mask set to %o\n", NULL, (unsigned int)mask);
	return real(mask);
}
