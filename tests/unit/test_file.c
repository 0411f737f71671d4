// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/output/file.c, the one way latscope creates a
 * file: the umask read without being set, the mode under a umask, a
 * symlink at the target replaced and never followed, a temporary that
 * another user swaps for a symlink to a root file (done here by the
 * content writer itself, at the moment a racer would), a writer that
 * fails, and which directories are "shared". The unprivileged racer
 * against the whole CLI is tests/files/run.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/output.h"
#include "unit.h"

#define VICTIM_TEXT	"root's secret\n"

static int write_text(FILE *f, const void *text)
{
	return fputs(text, f) < 0;
}

static int write_fails(FILE *f, const void *text)
{
	fputs(text, f);
	errno = ENOSPC;
	return -1;
}

/* What a racer does: the writer's temporary in @dir swapped for a symlink to the victim. */
struct swap {
	const char *dir;
	const char *victim;
	int swapped;
};

static int write_and_swap(FILE *f, const void *arg)
{
	const struct swap *s = arg;
	char path[600];
	struct dirent *e;
	DIR *d = opendir(s->dir);

	fputs("measured\n", f);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, ".out.", 5)) {
			snprintf(path, sizeof(path), "%s/%s", s->dir, e->d_name);
			if (!unlink(path) && !symlink(s->victim, path))
				((struct swap *)s)->swapped++;
		}
	if (d)
		closedir(d);
	return 0;
}

static bool has_text(const char *path, const char *want)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return !strcmp(buf, want);
}

/* Names in @dir that start with ".out." (the writer's temporaries), -1 if unreadable. */
static int temporaries(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, ".out.", 5);
	closedir(d);
	return n;
}

static void test_read_umask(const char *dir)
{
	char path[512];

	put_file(dir, "status-new", "Name:\tlatscope\nUmask:\t0027\nState:\tR (running)\n");
	snprintf(path, sizeof(path), "%s/status-new", dir);
	check(ls_read_umask(path) == 027, "umask: read from the Umask: line", "%o",
	      (unsigned int)ls_read_umask(path));
	put_file(dir, "status-old", "Name:\tlatscope\nState:\tR (running)\n");
	snprintf(path, sizeof(path), "%s/status-old", dir);
	check(ls_read_umask(path) == 077, "umask: 077 without a Umask: line (before Linux 4.7)",
	      "%o", (unsigned int)ls_read_umask(path));
	snprintf(path, sizeof(path), "%s/no-such-status", dir);
	check(ls_read_umask(path) == 077, "umask: 077 without /proc", "%o",
	      (unsigned int)ls_read_umask(path));
	umask(027);
	check(ls_read_umask("/proc/self/status") == 027, "umask: this process's", "%o",
	      (unsigned int)ls_read_umask("/proc/self/status"));
}

/* @path's permission bits, -1 if it is not there. */
static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

static void test_write_modes(const char *dir, const char *out)
{
	char err[512] = "";
	int ret;

	umask(027);
	ret = ls_write_file(out, write_text, "one\n", err, sizeof(err));
	check(!ret, "file: written", "%s", err);
	check(mode_of(out) == 0640 && has_text(out, "one\n"),
	      "file: mode 0640 under umask 027, its content", "%o", mode_of(out));
	check(umask(027) == 027, "file: the umask left as it was", "changed");
	umask(0);
	ret = ls_write_file(out, write_text, "two\n", err, sizeof(err));
	umask(022);
	check(!ret && mode_of(out) == 0666 && has_text(out, "two\n"),
	      "file: rewritten whole, mode 0666 under umask 0", "%o: %s", mode_of(out), err);
	check(temporaries(dir) == 0, "file: no temporary left", "%d", temporaries(dir));
}

static void test_write_races(const char *dir, const char *out, const char *victim)
{
	struct swap s = { .dir = dir, .victim = victim };
	char err[512] = "";
	struct stat st;
	int ret;

	/* A symlink at the target: replaced, never followed. */
	unlink(out);
	check(!symlink(victim, out), "file: a symlink at the target", "%s", strerror(errno));
	ret = ls_write_file(out, write_text, "three\n", err, sizeof(err));
	check(!ret && !lstat(out, &st) && S_ISREG(st.st_mode) && has_text(out, "three\n"),
	      "file: a symlink at the target is replaced by the file", "%s", err);
	check(has_text(victim, VICTIM_TEXT) && mode_of(victim) == 0600,
	      "file: the symlink's target untouched", "mode %o", mode_of(victim));

	/* The temporary swapped for a symlink while it is written. */
	umask(0);
	err[0] = '\0';
	ret = ls_write_file(out, write_and_swap, &s, err, sizeof(err));
	umask(022);
	check(ret == -EPERM && s.swapped == 1, "file: a swapped temporary is not renamed",
	      "returned %d, swapped %d", ret, s.swapped);
	check_str(err, "another user replaced its temporary file", "file: a swapped temporary said");
	check(has_text(victim, VICTIM_TEXT) && mode_of(victim) == 0600,
	      "file: the victim of a swapped temporary untouched (content, mode 0600)", "mode %o",
	      mode_of(victim));
	check(has_text(out, "three\n"), "file: the target as before a swapped write", "changed");
	check(temporaries(dir) == 1, "file: the racer's symlink left as it is",
	      "%d names", temporaries(dir));
}

static void test_write_fails(const char *dir, const char *out)
{
	char err[512] = "", path[600];
	int ret;

	ret = ls_write_file(out, write_fails, "half", err, sizeof(err));
	check(ret == -ENOSPC && !strcmp(err, strerror(ENOSPC)), "file: a writer that fails: -errno, said",
	      "%d: %s", ret, err);
	check(has_text(out, "three\n") && temporaries(dir) == 1,
	      "file: a failed write leaves the file and no temporary of its own", "%d names",
	      temporaries(dir));
	snprintf(path, sizeof(path), "%s/no/such/dir/x.json", dir);
	err[0] = '\0';
	check(ls_write_file(path, write_text, "x", err, sizeof(err)) == -ENOENT &&
	      strstr(err, "/no/such/dir: "), "file: a missing directory said, named", "%s", err);
	snprintf(path, sizeof(path), "%s/", dir);
	check(ls_write_file(path, write_text, "x", err, sizeof(err)) == -EISDIR,
	      "file: a name ending in / refused", "%s", err);
}

static void test_shared_dirs(const char *dir)
{
	static const struct {
		mode_t mode;
		bool shared;
	} cases[] = {
		{ 0755, false }, { 0700, false }, { 0775, true }, { 0757, true },
		{ 0777, true }, { 01777, false }, { 01775, false },
	};
	char sub[512], path[600];
	mode_t mode = 0;
	size_t i;

	snprintf(sub, sizeof(sub), "%s/shared", dir);
	snprintf(path, sizeof(path), "%s/m.prom", sub);
	mkdir(sub, 0700);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		chmod(sub, cases[i].mode);
		check(ls_shared_dir(path, &mode) == cases[i].shared,
		      "file: a directory of this mode is shared", "%04o: want %d",
		      (unsigned int)cases[i].mode, cases[i].shared);
	}
	chmod(sub, 0700);
	rmdir(sub);
}

void test_file(const char *dir)
{
	char sub[512], out[600], victim[600];
	mode_t old = umask(022);

	snprintf(sub, sizeof(sub), "%s/files", dir);
	snprintf(out, sizeof(out), "%s/out", sub);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	mkdir(sub, 0755);
	put_file(dir, "victim", VICTIM_TEXT);
	chmod(victim, 0600);
	test_read_umask(dir);
	test_write_modes(sub, out);
	test_write_races(sub, out, victim);
	test_write_fails(sub, out);
	test_shared_dirs(dir);
	umask(old);
}
