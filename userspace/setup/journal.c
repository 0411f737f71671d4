// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: --apply-setup's undo journal and its lock. Before the
 * first change, ROOT/run/latscope/setup.journal is created (O_EXCL,
 * O_NOFOLLOW, 0600, fsync'd) under an flock on ROOT/run/latscope/
 * setup.lock that the run holds until every value is back: one
 * --apply-setup at a time on a system; a second is refused and told whose
 * pid holds it (docs/design/setup.md). Each change adds a line (the file
 * under the root, its old value), fsync'd before the file is written.
 * The values are written back from the journal, then it is removed: at
 * the run's end, from a fatal signal's handler (async-signal-safe calls
 * only), or by the next latscope (or --restore-setup) that finds it with
 * its lock free: its owner died without restoring (SIGKILL, a power cut).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "setup/setup.h"

#define JOURNAL		"setup.journal"
#define LOCK		"setup.lock"
#define VALUE_MAX	256

/*
 * The journal the fatal signals' handler restores, armed from its
 * creation to its removal: a signal handler has no other way to it.
 * ls_setup_restore() disarms it, which is also the test's reset.
 */
enum { IDLE, ARMED, RESTORING, RESTORED };

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

static struct {
	atomic_int state;
	int rootfd, dirfd, fd;
	pid_t owner;
	struct sigaction old[ARRAY_SIZE(fatal_signals)];
} live = { .rootfd = -1, .dirfd = -1, .fd = -1 };

/* ---- what a journal may hold: checked on every restore ---- */

/* Whether @s is @prefix, a number, then @suffix. */
static bool number_between(const char *s, const char *prefix, const char *suffix)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n))
		return false;
	s += n;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		s++;
	return !strcmp(s, suffix);
}

/* The files --apply-setup changes, relative to the root: no other is written back. */
static bool journal_path_ok(const char *rel)
{
	return !strcmp(rel, "proc/sys/kernel/sched_rt_runtime_us") ||
	       number_between(rel, "proc/irq/", "/smp_affinity_list") ||
	       number_between(rel, "sys/devices/system/cpu/cpu", "/cpufreq/scaling_governor");
}

/* A governor's name, a CPU list or a number: nothing a line could hide. */
static bool journal_value_ok(const char *v)
{
	size_t n = 0;

	for (; v[n]; n++)
		if (!((v[n] >= 'a' && v[n] <= 'z') || (v[n] >= 'A' && v[n] <= 'Z') ||
		      (v[n] >= '0' && v[n] <= '9') || v[n] == '_' || v[n] == ',' || v[n] == '-'))
			return false;
	return n > 0 && n < VALUE_MAX;
}

/* ---- async-signal-safe: the journal's lines, a file's write ---- */

typedef void journal_entry_fn(void *priv, const char *rel, const char *old);

/* "PID START" into @owner. */
static void parse_owner(const char *s, long long owner[2])
{
	char *end;

	owner[0] = strtoll(s, &end, 10);
	owner[1] = strtoll(end, NULL, 10);
}

/*
 * Calls @fn for each change of the journal @fd (from its start, with
 * pread: the writer's offset is left alone), and sets @owner, unless
 * NULL, from its "owner PID START" line. Async-signal-safe without
 * @owner: the fatal signals' handler uses it so. Each file appears once
 * in a journal, so the order of the writes back does not matter.
 */
static void journal_each(int fd, journal_entry_fn *fn, void *priv, long long owner[2])
{
	char buf[1024], line[640];
	size_t at = 0;
	off_t off = 0;
	ssize_t n, i;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		off += n;
		for (i = 0; i < n; i++) {
			char *sp;

			if (buf[i] != '\n') {
				if (at < sizeof(line) - 1)
					line[at++] = buf[i];
				continue;
			}
			line[at] = '\0';
			at = 0;
			sp = strchr(line, ' ');
			if (!sp || line[0] == '#')
				continue;
			*sp = '\0';
			if (!strcmp(line, "owner")) {
				if (owner)
					parse_owner(sp + 1, owner);
			} else if (journal_path_ok(line) && journal_value_ok(sp + 1)) {
				fn(priv, line, sp + 1);
			}
		}
	}
}

/* @value into @rel under @rootfd: 0 or -errno. */
static int write_at(int rootfd, const char *rel, const char *value)
{
	size_t len = strlen(value);
	int fd = openat(rootfd, rel, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	n = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	if (close(fd) && !n)
		n = -errno;
	return (int)n;
}

struct quiet {
	int rootfd, failed;
};

static void restore_entry_quietly(void *priv, const char *rel, const char *old)
{
	struct quiet *q = priv;

	if (write_at(q->rootfd, rel, old))
		q->failed++;
}

static void skip_entry(void *priv, const char *rel, const char *old)
{
	(void)priv;
	(void)rel;
	(void)old;
}

/* "latscope: SIG 11: ..." without stdio. */
static void say_raw(int sig)
{
	char msg[160] = "latscope: fatal signal ", num[12];
	int i = (int)sizeof(num), n = sig;

	num[--i] = '\0';
	do
		num[--i] = (char)('0' + n % 10);
	while ((n /= 10) && i > 0);
	strcat(msg, num + i);
	strcat(msg, ": --apply-setup's changes set back from its journal\n");
	(void)!write(STDERR_FILENO, msg, strlen(msg));
}

/*
 * A fatal signal (SEGV, BUS, ABRT, FPE, ILL): the journal is restored
 * and removed by the first thread here, the others wait for it, then the
 * signal is raised again at its default action (the core dump).
 */
static void fatal_signal(int sig)
{
	int armed = ARMED;
	struct timespec ms = { 0, 1000000 };
	struct quiet q = { live.rootfd, 0 };
	int i;

	if (getpid() == live.owner &&
	    atomic_compare_exchange_strong(&live.state, &armed, RESTORING)) {
		journal_each(live.fd, restore_entry_quietly, &q, NULL);
		if (!q.failed)
			unlinkat(live.dirfd, JOURNAL, 0);	/* else the next latscope tries */
		atomic_store(&live.state, RESTORED);
		say_raw(sig);
	}
	/* Another thread restores: up to 5 s for it. */
	for (i = 0; i < 5000 && atomic_load(&live.state) == RESTORING; i++)
		nanosleep(&ms, NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- the journal's directory and lock ---- */

/* ROOT/run/latscope, made with @create: its fd, or -1 (errno) if absent or unsafe. */
static int open_dir(int rootfd, bool create)
{
	struct stat st;
	int fd;

	if (create) {
		if (mkdirat(rootfd, "run", 0755) && errno != EEXIST)
			return -1;
		if (mkdirat(rootfd, "run/latscope", 0700) && errno != EEXIST)
			return -1;
	}
	fd = openat(rootfd, "run/latscope", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Written by us only: no one else may plant a journal to write back. */
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* setup.lock in @dirfd, created if need be: its fd, or -1. */
/*
 * Takes the system-wide lock on @fd: true if taken, or if this kernel
 * has no file locking (CONFIG_FILE_LOCKING=n: flock() fails with ENOSYS
 * or EINVAL), where the journal, created O_EXCL and naming a live owner,
 * keeps runs apart instead. False if another latscope holds it.
 */
static bool lock_or_unsupported(int fd)
{
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return true;
	return errno != EWOULDBLOCK && errno != EINTR;
}

static int open_lock(int dirfd)
{
	int fd = openat(dirfd, LOCK, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0) {
		if (!fchmod(fd, 0600))
			return fd;
		close(fd);
		return -1;
	}
	if (errno != EEXIST)
		return -1;
	return openat(dirfd, LOCK, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
}

/* A process's start time (field 22 of /proc/PID/stat), -1 if it is gone. */
static long long start_time(pid_t pid)
{
	char path[64], buf[1024], *s;
	long long t = -1;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (ls_read_line(path, buf, sizeof(buf)))
		return -1;
	s = strrchr(buf, ')');
	if (!s)
		return -1;
	for (i = 2; s && i < 22; i++)
		s = strchr(s + 1, ' ');
	if (s)
		t = strtoll(s + 1, NULL, 10);
	return t;
}

/* ---- putting back a journal found on the way in ---- */

struct found {
	int rootfd;
	char said[400];
	int irqs, failed;
};

/* What a journal's change was, in words: "governor schedutil on CPU1". */
static void entry_words(const char *rel, const char *old, char *buf, size_t len)
{
	int n;

	if (sscanf(rel, "proc/irq/%d/", &n) == 1)
		snprintf(buf, len, "IRQ %d on CPU%s", n, old);
	else if (sscanf(rel, "sys/devices/system/cpu/cpu%d/", &n) == 1)
		snprintf(buf, len, "governor %s on CPU%d", old, n);
	else
		snprintf(buf, len, "RT throttling %s us", old);
}

static void restore_found(void *priv, const char *rel, const char *old)
{
	struct found *f = priv;
	char words[128];
	int ret = write_at(f->rootfd, rel, old);

	entry_words(rel, old, words, sizeof(words));
	if (ret) {
		fprintf(stderr, "latscope: %s could not be set back (%s): %s\n", rel, words,
			strerror(-ret));
		f->failed++;
		return;
	}
	if (!strncmp(rel, "proc/irq/", 9) && f->irqs++ >= 4)
		return;	/* the first four named, the others counted */
	ls_setup_append(f->said, "%s%s", f->said[0] ? ", " : "", words);
}

/*
 * Writes back the journal in @dirfd whose owner is gone, with its lock
 * held, and removes it. Says so in one line; @asked (--restore-setup)
 * says it on stdout. 0, or -1 if a value could not be set back (the
 * journal is kept, for another try).
 */
static int restore_stale(int rootfd, int dirfd, bool asked)
{
	struct found f = { .rootfd = rootfd };
	long long owner[2] = { 0, 0 };
	int fd = openat(dirfd, JOURNAL, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	/* Its lock is free: its owner is gone, unless it is alive and lost it. */
	journal_each(fd, skip_entry, NULL, owner);
	if (owner[0] > 0 && start_time((pid_t)owner[0]) == owner[1]) {
		close(fd);
		errno = EBUSY;
		return -1;
	}
	journal_each(fd, restore_found, &f, owner);
	close(fd);
	if (f.irqs > 4)
		ls_setup_append(f.said, " and %d more IRQs", f.irqs - 4);
	fprintf(asked ? stdout : stderr,
		"latscope: --apply-setup of pid %lld ended without setting back its changes: set back %s\n",
		owner[0], f.said[0] ? f.said : "nothing (none was made)");
	fflush(asked ? stdout : stderr);
	if (f.failed)
		return -1;
	unlinkat(dirfd, JOURNAL, 0);
	fsync(dirfd);
	return 0;
}

/* Whose journal it is: "pid N", for a refusal. */
static void journal_owner(int dirfd, char *buf, size_t len)
{
	long long owner[2] = { 0, 0 };
	int fd = openat(dirfd, JOURNAL, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		journal_each(fd, skip_entry, NULL, owner);
		close(fd);
	}
	if (owner[0] > 0)
		snprintf(buf, len, "pid %lld", owner[0]);
	else
		snprintf(buf, len, "a latscope starting");
}

static int open_root(const char *root)
{
	return open(root && root[0] ? root : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/*
 * A journal left under @root (NULL: /) by a latscope that died with its
 * changes made is written back, and said in one line. Every run calls
 * it; --restore-setup with @asked, which also says when there is none,
 * or who still holds it. 0, or -1 with a message in @err.
 */
int ls_setup_restore_left(const char *root, bool asked, char *err, size_t errlen)
{
	int rootfd = open_root(root), dirfd = -1, lockfd = -1, ret = 0;
	bool held;
	char who[64];

	if (rootfd >= 0)
		dirfd = open_dir(rootfd, false);
	if (dirfd < 0 || faccessat(dirfd, JOURNAL, F_OK, AT_SYMLINK_NOFOLLOW)) {
		if (asked && errno != ENOENT) {
			ls_fail(err, errlen, "--restore-setup: %s/run/latscope: %s",
				root ? root : "", strerror(errno));
			ret = -1;
		} else if (asked) {
			printf("latscope: no --apply-setup journal: nothing to set back\n");
		}
		goto out;
	}
	lockfd = open_lock(dirfd);
	held = lockfd < 0 || !lock_or_unsupported(lockfd);
	/* EBUSY: its owner runs (a kernel without file locking gets here). */
	if (!held && restore_stale(rootfd, dirfd, asked)) {
		held = errno == EBUSY;
		if (!held) {
			ls_fail(err, errlen, "%s/run/latscope/" JOURNAL " is kept: set those values back by hand, then remove it",
				root ? root : "");
			ret = -1;
		}
	}
	if (held && asked) {
		journal_owner(dirfd, who, sizeof(who));
		ls_fail(err, errlen,
			"--restore-setup: %s still runs with --apply-setup and sets its changes back when it ends",
			who);
		ret = -1;
	}
out:
	if (lockfd >= 0)
		close(lockfd);	/* the lock goes with it */
	if (dirfd >= 0)
		close(dirfd);
	if (rootfd >= 0)
		close(rootfd);
	return ret;
}

/* ---- the run's own journal ---- */

static void arm(struct ls_setup_undo *u)
{
	struct sigaction sa;
	size_t i;

	live.rootfd = u->rootfd;
	live.dirfd = u->dirfd;
	live.fd = u->fd;
	live.owner = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fatal_signal;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &sa, &live.old[i]);
	atomic_store(&live.state, ARMED);
}

static void disarm(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &live.old[i], NULL);
	atomic_store(&live.state, IDLE);
	live.fd = -1;
	live.dirfd = -1;
	live.rootfd = -1;
}

static int append(int fd, const char *line)
{
	size_t len = strlen(line);
	ssize_t n = write(fd, line, len);

	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	return fsync(fd) ? -errno : 0;
}

/*
 * Takes the system's --apply-setup lock and creates the journal under
 * @root, before any change: 0, or -1 with the reason in @err (another
 * run holds it, and its pid; the directory cannot be made safe). A
 * journal left by a dead owner is written back first.
 */
/* Another run has the setup changed: says whose, into @err. */
static void say_held(int dirfd, char *err, size_t errlen)
{
	char who[64];

	journal_owner(dirfd, who, sizeof(who));
	ls_fail(err, errlen, "--apply-setup: another latscope (%s) has the system's setup changed: one --apply-setup at a time; wait for it to end, or run without --apply-setup",
		who);
}

int ls_setup_journal_open(struct ls_setup_undo *u, const char *root, char *err,
			  size_t errlen)
{
	const char *r = root ? root : "";
	char line[128];

	memset(u, 0, sizeof(*u));
	u->dirfd = -1;
	u->lockfd = -1;
	u->fd = -1;
	u->open = true;
	u->rootfd = open_root(root);
	if (u->rootfd >= 0)
		u->dirfd = open_dir(u->rootfd, true);
	if (u->dirfd < 0) {
		ls_fail(err, errlen, "--apply-setup: %s/run/latscope: %s%s", r, strerror(errno),
			geteuid() ? " (run as root)" : " (it must be a directory only root may write)");
		goto fail;
	}
	u->lockfd = open_lock(u->dirfd);
	if (u->lockfd < 0) {
		ls_fail(err, errlen, "--apply-setup: %s/run/latscope/" LOCK ": %s", r,
			strerror(errno));
		goto fail;
	}
	if (!lock_or_unsupported(u->lockfd)) {
		say_held(u->dirfd, err, errlen);
		goto fail;
	}
	if (restore_stale(u->rootfd, u->dirfd, false)) {
		/* EBUSY: its owner runs (a kernel without file locking gets here). */
		if (errno == EBUSY)
			say_held(u->dirfd, err, errlen);
		else
			ls_fail(err, errlen, "--apply-setup: %s/run/latscope/" JOURNAL " could not be set back: fix those values, then remove it",
				r);
		goto fail;
	}
	u->fd = openat(u->dirfd, JOURNAL,
		       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* Without file locking, another run made its journal meanwhile. */
	if (u->fd < 0 && errno == EEXIST) {
		say_held(u->dirfd, err, errlen);
		goto fail;
	}
	snprintf(line, sizeof(line),
		 "# latscope --apply-setup: each file under the root, its value before the run\nowner %d %lld\n",
		 (int)getpid(), start_time(getpid()));
	if (u->fd < 0 || fchmod(u->fd, 0600) || append(u->fd, line) || fsync(u->dirfd)) {
		ls_fail(err, errlen, "--apply-setup: %s/run/latscope/" JOURNAL ": %s", r,
			strerror(errno));
		if (u->fd >= 0)
			unlinkat(u->dirfd, JOURNAL, 0);
		goto fail;
	}
	arm(u);
	return 0;
fail:
	ls_setup_journal_close(u);
	return -1;
}

/* The first line of @rel under the journal's root, into @buf: 0 or -errno. */
static int read_at(int rootfd, const char *rel, char *buf, size_t len)
{
	int fd = openat(rootfd, rel, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * Sets @rel (a file under the root) to @value, its old value (into @old)
 * on disk in the journal first. 0, also when it already was @value;
 * -errno, the journal as before (-EINVAL: a value it does not keep).
 */
int ls_setup_change(struct ls_setup_undo *u, const char *rel, const char *value, char *old,
		    size_t len)
{
	char line[600];
	off_t at;
	int ret = read_at(u->rootfd, rel, old, len);

	if (ret)
		return ret;
	if (!strcmp(old, value))
		return 0;
	if (!journal_path_ok(rel) || !journal_value_ok(old))
		return -EINVAL;
	at = lseek(u->fd, 0, SEEK_END);
	snprintf(line, sizeof(line), "%s %s\n", rel, old);
	ret = at < 0 ? -errno : append(u->fd, line);
	if (!ret)
		ret = write_at(u->rootfd, rel, value);
	if (ret && at >= 0 && !ftruncate(u->fd, at))
		fsync(u->fd);	/* not changed: nothing to write back */
	return ret;
}

static void restore_entry(void *priv, const char *rel, const char *old)
{
	struct ls_setup_undo *u = priv;
	int ret = write_at(u->rootfd, rel, old);

	if (ret) {
		fprintf(stderr, "latscope: --apply-setup: %s could not be set back to %s: %s\n",
			rel, old, strerror(-ret));
		u->failed_back++;
	}
}

/*
 * Writes back every value the journal holds, removes it if all went
 * back, and gives the lock up. A journal not fully set back is kept for
 * the next latscope (or --restore-setup).
 */
void ls_setup_restore(struct ls_setup_undo *u)
{
	int armed = ARMED;

	if (u->open && atomic_compare_exchange_strong(&live.state, &armed, RESTORING)) {
		journal_each(u->fd, restore_entry, u, NULL);
		if (!u->failed_back) {
			unlinkat(u->dirfd, JOURNAL, 0);
			fsync(u->dirfd);
		}
		disarm();
	}
	ls_setup_journal_close(u);
}

/* Closes what ls_setup_journal_open() opened; the lock goes with its file. */
void ls_setup_journal_close(struct ls_setup_undo *u)
{
	int *fds[] = { &u->fd, &u->lockfd, &u->dirfd, &u->rootfd };
	size_t i;

	if (!u->open)
		return;
	u->open = false;
	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}
