// SPDX-License-Identifier: GPL-2.0
/*
 * fakedev: a fake /dev/latscope for whole runs of the CLI without the
 * kernel module, as an LD_PRELOAD library. scripts/cli-diff.sh runs two
 * latscope binaries with it on the same command lines and compares what
 * each printed and wrote, byte for byte: everything it answers is
 * deterministic, and so are the clocks the CLI reads.
 *
 * Build (scripts/cli-diff.sh does, from the top of the tree):
 *	cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -I driver/include/uapi
 *	-o fakedev.so tests/fakedev/<this file> -ldl
 * Use:   LD_PRELOAD=./fakedev.so latscope -T 1
 *
 * What it emulates (driver/include/uapi/linux/latscope.h):
 * - open()/open64()/openat() (and their _2 fortify forms) of
 *   "/dev/latscope": one session per open, whose file descriptor is the
 *   read end of a pipe, so that poll() and read() work natively; the
 *   write end is the fake's. close() of it ends the session.
 * - GET_INFO: ABI LATSCOPE_ABI_VERSION, this header's structure sizes,
 *   version "fakedev", timer resolution 1 ns.
 * - SETUP: the timer source; the driver's size rule (EINVAL, E2BIG), its
 *   range checks, its defaults (priority 90, 200 cells of 1 us, 1 s of
 *   warm-up). The GPIO source is refused with ENODEV (no chip here).
 * - START: writes FAKEDEV_SECONDS (default 3, at most 1000) struct
 *   latscope_bulk records into the stream at once, one per second past
 *   the warm-up, of a fixed pattern (fake_second()); the stream stays
 *   open until STOP.
 * - PULSE (user context): delivers no event. It blocks until STOP (or
 *   close), then fails with ECANCELED as the driver's does at the stop;
 *   EBUSY for a second waiter, EINVAL outside the user context.
 * - STOP: closes the write end: the reader gets the records left, then
 *   EOF. EINVAL if the session was not started.
 * - GET_RESULT (EBUSY while running) and SNAPSHOT: statistics, histograms
 *   (two for the kernel and user contexts) and tails made of the same
 *   samples as the records; the trace threshold fires on the first second
 *   whose max is above it. SNAPSHOT holds the seconds past the warm-up so
 *   far on the fake clock, GET_RESULT all of them. ENOSPC and the size
 *   rule as the driver's.
 * - Any other ioctl on the fake fd: ENOTTY. Everything else goes to libc.
 *
 * Not emulated: events (PULSE returns none, the responder's stamps are
 * not used), the GPIO source, timing of the records (all at START, not one
 * a second), a CPU going offline, bulk_dropped, EINTR, EAGAIN of SNAPSHOT,
 * read() before SETUP (a pipe blocks where the driver says EINVAL).
 *
 * Clocks: time(), clock_gettime() of CLOCK_REALTIME and CLOCK_MONOTONIC
 * (and their _COARSE/_RAW forms) advance in whole seconds only: the whole
 * seconds since the first START (0 before it), on top of FAKEDEV_EPOCH
 * (default 1700000000) and of 1000 s. The CLI's waits are relative
 * (alarm(), sigtimedwait()) and still take real time; what it measures is
 * read off these clocks, so a -T 1 run stops at 2 s (warm-up included),
 * exactly, however loaded the machine (within a second). The result's
 * start_ns is this monotonic clock at START. FAKEDEV_CLOCK=real leaves
 * the clocks alone.
 *
 * For the comparison: FAKEDEV_TRACE=FILE appends one line per call on
 * the fake device (open with its flags, GET_INFO, SETUP with its fields,
 * START, STOP, GET_RESULT, SNAPSHOT, close), but PULSE, a responder's,
 * whose calls the close line counts; sessions numbered in open order; FAKEDEV_AT_STOP="FILE..." copies each FILE that
 * exists at the first STOP to FILE.at-stop (what a --checkpoint wrote).
 */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/latscope.h>

#define DEVICE		"/dev/latscope"
#define MAX_SESSIONS	256
#define MAX_SECONDS	1000	/* 48 KB of records: within a pipe's 64 KiB */
#define NSEC		1000000000ULL
#define MONO_BASE_NS	(1000 * NSEC)

enum state { S_IDLE, S_READY, S_RUNNING, S_STOPPED };

struct session {
	bool used;
	bool closed;		/* close()d while a PULSE waited */
	int fd;			/* the read end: the caller's */
	int wfd;		/* the write end, -1 once stopped */
	int index;		/* in open order, for the trace */
	enum state state;
	struct latscope_setup setup;
	__u64 start_ns;
	bool pulse_waiting;
	unsigned int pulses;
};

static struct session sessions[MAX_SESSIONS];
static int opened;
static bool saved_at_stop;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

/* The real monotonic time of the first START, 0 before it. */
static atomic_ullong t0_real;

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_open_2)(const char *, int);
static int (*real_open64_2)(const char *, int);
static int (*real_openat_2)(int, const char *, int);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_clock_gettime)(clockid_t, struct timespec *);

static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void *next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "fakedev: no %s in libc\n", name);
		abort();
	}
	return p;
}

static void resolve(void)
{
	real_open = next_sym("open");
	real_open64 = next_sym("open64");
	real_openat = next_sym("openat");
	real_close = next_sym("close");
	real_ioctl = next_sym("ioctl");
	real_clock_gettime = next_sym("clock_gettime");
	real_open_2 = dlsym(RTLD_NEXT, "__open_2");
	real_open64_2 = dlsym(RTLD_NEXT, "__open64_2");
	real_openat_2 = dlsym(RTLD_NEXT, "__openat_2");
}

/* libc's @name, looked up once (maybe before main(): other constructors). */
#define REAL(name)	(pthread_once(&resolved, resolve), real_##name)

static unsigned long long env_ull(const char *name, unsigned long long def,
				  unsigned long long max)
{
	const char *s = getenv(name);
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max) {
		fprintf(stderr, "fakedev: %s=%s: not a number up to %llu\n", name, s, max);
		abort();
	}
	return v;
}

/* ---- clocks ---- */

static bool fake_clock(void)
{
	const char *s = getenv("FAKEDEV_CLOCK");

	return !s || strcmp(s, "real");
}

static __u64 real_mono_ns(void)
{
	struct timespec ts;

	REAL(clock_gettime)(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC + (__u64)ts.tv_nsec;
}

/* Whole seconds since the first START, in ns; 0 before it. */
static __u64 elapsed_ns(void)
{
	__u64 t0 = (__u64)atomic_load(&t0_real);

	if (!t0)
		return 0;
	return (real_mono_ns() - t0) / NSEC * NSEC;
}

static __u64 fake_mono_ns(void)
{
	return MONO_BASE_NS + elapsed_ns();
}

static __u64 fake_real_ns(void)
{
	return env_ull("FAKEDEV_EPOCH", 1700000000ULL, 1ULL << 40) * NSEC + elapsed_ns();
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	__u64 ns;

	if (!fake_clock())
		return REAL(clock_gettime)(id, ts);
	switch (id) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		ns = fake_real_ns();
		break;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_MONOTONIC_RAW:
		ns = fake_mono_ns();
		break;
	default:
		return REAL(clock_gettime)(id, ts);
	}
	ts->tv_sec = (time_t)(ns / NSEC);
	ts->tv_nsec = (long)(ns % NSEC);
	return 0;
}

time_t time(time_t *t)
{
	struct timespec ts;
	time_t now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec;
	if (t)
		*t = now;
	return now;
}

/* ---- the trace and the copies at the stop ---- */

static void trace(const struct session *s, const char *fmt, ...)
{
	const char *path = getenv("FAKEDEV_TRACE");
	char line[512];
	va_list ap;
	int fd, n, m;

	if (!path || !*path)
		return;
	/* Room for the newline: a longer line is cut. */
	n = snprintf(line, sizeof(line), "s%d ", s->index);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - 1 - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n = (int)strlen(line);
	line[n++] = '\n';
	fd = REAL(open)(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		fprintf(stderr, "fakedev: cannot write %s\n", path);
	REAL(close)(fd);
}

static void copy_file(const char *from)
{
	char to[4200], buf[8192];
	ssize_t n;
	int in, out;

	in = REAL(open)(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return;
	snprintf(to, sizeof(to), "%s.at-stop", from);
	out = REAL(open)(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (out >= 0)
		REAL(close)(out);
	REAL(close)(in);
}

static void save_at_stop(void)
{
	const char *list = getenv("FAKEDEV_AT_STOP");
	char names[4096], *name, *save;

	if (saved_at_stop || !list)
		return;
	saved_at_stop = true;
	snprintf(names, sizeof(names), "%s", list);
	for (name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save))
		copy_file(name);
}

/* ---- the measurement: one fixed pattern ---- */

/* One value and how many samples of a second have it. */
struct part {
	__s64 v;
	__u64 n;
};

/*
 * The samples of second @sec past the warm-up of session @s: of the
 * context's latency, or with @irq of the irq part. Up to three values:
 * the min and the max once each, the rest at a middle value; every fifth
 * second, from the third, has a negative min (an early answer). Each CPU
 * is a few ns apart. Returns how many parts; *@overruns the periods
 * missed (2 in second 1).
 */
static int fake_second(const struct session *s, __u64 sec, bool irq, struct part p[3],
		       __u64 *overruns)
{
	__u64 per_s = NSEC / s->setup.period_ns, k;
	__s64 cpu = s->setup.cpu, r = (__s64)(sec % 5), lo, mid, hi;

	*overruns = sec == 1 && per_s >= 10 ? 2 : 0;
	k = per_s - *overruns;
	if (irq) {
		lo = 700 + 50 * r + 3 * cpu;
		mid = 1100 + 60 * r + 5 * cpu;
		hi = 4000 + 9000 * r + 3 * cpu;
	} else {
		lo = r == 2 ? -400 - 7 * cpu : 1500 + 100 * r + 7 * cpu;
		mid = 3000 + 250 * r + 11 * cpu;
		hi = 12000 + 30000 * r + 13 * cpu;
	}
	if (k == 1) {
		p[0] = (struct part){ mid, 1 };
		return 1;
	}
	p[0] = (struct part){ lo, 1 };
	p[1] = (struct part){ hi, 1 };
	if (k == 2)
		return 2;
	p[2] = (struct part){ mid, k - 2 };
	return 3;
}

static struct latscope_bulk fake_bulk(const struct session *s, __u64 sec)
{
	struct latscope_bulk b = { .second = sec };
	struct part p[3];
	__s64 sum = 0;
	int i, n = fake_second(s, sec, false, p, &b.overruns);

	for (i = 0; i < n; i++) {
		if (!b.samples || p[i].v < b.min_ns)
			b.min_ns = p[i].v;
		if (!b.samples || p[i].v > b.max_ns)
			b.max_ns = p[i].v;
		b.samples += p[i].n;
		sum += p[i].v * (__s64)p[i].n;
	}
	b.avg_ns = sum / (__s64)b.samples;
	return b;
}

static __u64 seconds_total(void)
{
	return env_ull("FAKEDEV_SECONDS", 3, MAX_SECONDS);
}

/*
 * Adds the samples of the first @secs seconds to @st, @cells (NULL: not
 * kept) and @tail.
 */
static void fake_stats(const struct session *s, __u64 secs, bool irq, struct latscope_stats *st,
		       __u64 *cells, __u64 *tail)
{
	const struct latscope_setup *su = &s->setup;
	__s64 span = (__s64)su->hist_cells * su->hist_cell_ns;
	__uint128_t sq = 0;
	struct part p[3];
	__u64 sec, o;
	int i, n;

	memset(st, 0, sizeof(*st));
	for (sec = 0; sec < secs; sec++) {
		n = fake_second(s, sec, irq, p, &o);
		for (i = 0; i < n; i++) {
			__s64 v = p[i].v;
			__u64 a = (__u64)(v < 0 ? -v : v);

			if (!st->samples || v < st->min_ns)
				st->min_ns = v;
			if (!st->samples || v > st->max_ns) {
				st->max_ns = v;
				st->peak_ns = s->start_ns + su->warmup_ns + sec * NSEC +
					      (irq ? 125000 : 250000);
			}
			st->samples += p[i].n;
			st->sum_ns += v * (__s64)p[i].n;
			sq += (__uint128_t)(a * a) * p[i].n;
			if (v < 0) {
				st->underflow += p[i].n;
			} else if (v >= span) {
				st->overflow += p[i].n;
				if (tail)
					tail[latscope_tail_index((__u64)v)] += p[i].n;
			} else if (cells) {
				cells[v / su->hist_cell_ns] += p[i].n;
			}
		}
	}
	st->sum_sq_lo = (__u64)sq;
	st->sum_sq_hi = (__u64)(sq >> 64);
}

/* ---- the sessions ---- */

static struct session *find(int fd)
{
	int i;

	for (i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i].used && !sessions[i].closed && sessions[i].fd == fd)
			return &sessions[i];
	return NULL;
}

static int fake_open(int flags)
{
	struct session *s = NULL;
	int p[2], i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_SESSIONS && !s; i++)
		if (!sessions[i].used)
			s = &sessions[i];
	if (!s) {
		pthread_mutex_unlock(&lock);
		errno = EMFILE;
		return -1;
	}
	if (pipe2(p, O_CLOEXEC)) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	if (!(flags & O_CLOEXEC))
		fcntl(p[0], F_SETFD, 0);
	if (flags & O_NONBLOCK)
		fcntl(p[0], F_SETFL, O_NONBLOCK);
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->fd = p[0];
	s->wfd = p[1];
	s->index = opened++;
	s->state = S_IDLE;
	trace(s, "open flags=%#x", (unsigned int)flags);
	pthread_mutex_unlock(&lock);
	return p[0];
}

static bool is_device(const char *path)
{
	return path && !strcmp(path, DEVICE);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return flags & (O_CREAT | O_TMPFILE) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (is_device(path))
		return fake_open(flags);
	return REAL(open)(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (is_device(path))
		return fake_open(flags);
	return REAL(open64)(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (is_device(path))
		return fake_open(flags);
	return REAL(openat)(dirfd, path, flags, mode);
}

int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
	if (is_device(path))
		return fake_open(flags);
	return real_open_2 ? real_open_2(path, flags) : REAL(open)(path, flags);
}

int __open64_2(const char *path, int flags);
int __open64_2(const char *path, int flags)
{
	if (is_device(path))
		return fake_open(flags);
	return real_open64_2 ? real_open64_2(path, flags) : REAL(open64)(path, flags);
}

int __openat_2(int dirfd, const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags)
{
	if (is_device(path))
		return fake_open(flags);
	return real_openat_2 ? real_openat_2(dirfd, path, flags) : REAL(openat)(dirfd, path, flags);
}

/* Ends the stream: the reader gets what is left, then EOF. */
static void end_stream(struct session *s)
{
	if (s->wfd >= 0)
		REAL(close)(s->wfd);
	s->wfd = -1;
}

int close(int fd)
{
	struct session *s;
	int ret;

	pthread_mutex_lock(&lock);
	s = find(fd);
	if (!s) {
		pthread_mutex_unlock(&lock);
		return REAL(close)(fd);
	}
	trace(s, "close pulses=%u", s->pulses);
	end_stream(s);
	ret = REAL(close)(fd);
	s->state = S_STOPPED;
	s->closed = true;
	if (!s->pulse_waiting)
		s->used = false;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	return ret;
}

static int ioc_info(void *arg)
{
	struct latscope_info info = {
		.abi_version = LATSCOPE_ABI_VERSION,
		.setup_size = sizeof(struct latscope_setup),
		.result_size = sizeof(struct latscope_result),
		.max_hist_cells = LATSCOPE_MAX_HIST_CELLS,
		.version = "fakedev",
		.timer_resolution_ns = 1,
	};

	memcpy(arg, &info, sizeof(info));
	return 0;
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

static int ioc_setup(struct session *s, const void *arg)
{
	struct latscope_setup su = { 0 };
	__u32 size;
	int p[2];

	memcpy(&size, arg, sizeof(size));
	if (size < LATSCOPE_SETUP_SIZE_VER0)
		return -EINVAL;
	if (size > 4096)
		return -E2BIG;
	memcpy(&su, arg, size < sizeof(su) ? size : sizeof(su));
	if (size > sizeof(su) && !all_zero((const char *)arg + sizeof(su), size - sizeof(su)))
		return -E2BIG;
	trace(s, "SETUP size=%u context=%u source=%u period_ns=%llu cpu=%u priority=%u hist_cells=%u hist_cell_ns=%u warmup_ns=%llu trace_threshold_ns=%llu flags=%#x gpio=%s",
	      size, su.context, su.source, (unsigned long long)su.period_ns, su.cpu, su.priority,
	      su.hist_cells, su.hist_cell_ns, (unsigned long long)su.warmup_ns,
	      (unsigned long long)su.trace_threshold_ns, su.flags,
	      all_zero(&su.gpio, sizeof(su.gpio)) ? "none" : "set");
	if (s->state == S_RUNNING)
		return -EBUSY;
	if (su.source == LATSCOPE_SRC_GPIO)
		return -ENODEV;
	if (su.source != LATSCOPE_SRC_TIMER || su.context > LATSCOPE_CTX_USER ||
	    su.period_ns < LATSCOPE_MIN_PERIOD_NS || su.period_ns > LATSCOPE_MAX_PERIOD_NS ||
	    su.cpu >= CPU_SETSIZE || su.priority > LATSCOPE_MAX_PRIORITY ||
	    su.hist_cells > LATSCOPE_MAX_HIST_CELLS || su.hist_cell_ns > LATSCOPE_MAX_CELL_NS ||
	    su.warmup_ns > LATSCOPE_MAX_WARMUP_NS || (su.flags & ~LATSCOPE_SETUP_FLAGS_MASK) ||
	    ((su.flags & LATSCOPE_SETUP_NO_WARMUP) && su.warmup_ns) ||
	    !all_zero(su.__reserved, sizeof(su.__reserved)) ||
	    !all_zero(&su.gpio, sizeof(su.gpio)))
		return -EINVAL;
	su.size = sizeof(su);
	if (!su.priority)
		su.priority = LATSCOPE_DEFAULT_PRIORITY;
	if (!su.hist_cells)
		su.hist_cells = LATSCOPE_DEFAULT_HIST_CELLS;
	if (!su.hist_cell_ns)
		su.hist_cell_ns = LATSCOPE_DEFAULT_CELL_NS;
	if (!su.warmup_ns && !(su.flags & LATSCOPE_SETUP_NO_WARMUP))
		su.warmup_ns = LATSCOPE_DEFAULT_WARMUP_NS;
	/* A stopped session's stream ended: a new one on the same fd. */
	if (s->state == S_STOPPED) {
		if (pipe2(p, O_CLOEXEC))
			return -errno;
		if (dup3(p[0], s->fd, O_CLOEXEC) < 0) {
			REAL(close)(p[0]);
			REAL(close)(p[1]);
			return -errno;
		}
		REAL(close)(p[0]);
		s->wfd = p[1];
	}
	s->setup = su;
	s->state = S_READY;
	return 0;
}

static int ioc_start(struct session *s)
{
	unsigned long long none = 0;
	__u64 sec, n = seconds_total();

	trace(s, "START");
	if (s->state != S_READY)
		return -EINVAL;
	atomic_compare_exchange_strong(&t0_real, &none, real_mono_ns());
	s->start_ns = fake_mono_ns();
	s->state = S_RUNNING;
	for (sec = 0; sec < n; sec++) {
		struct latscope_bulk b = fake_bulk(s, sec);

		if (write(s->wfd, &b, sizeof(b)) != (ssize_t)sizeof(b))
			return -EIO;
	}
	return 0;
}

static int ioc_stop(struct session *s)
{
	trace(s, "STOP");
	if (s->state == S_IDLE || s->state == S_READY)
		return -EINVAL;
	save_at_stop();
	s->state = S_STOPPED;
	end_stream(s);
	pthread_cond_broadcast(&cond);
	return 0;
}

/* PULSE: no event ever comes; ECANCELED once the session stopped. */
static int ioc_pulse(struct session *s)
{
	int ret;

	s->pulses++;
	if (s->pulse_waiting)
		return -EBUSY;
	if (s->state == S_IDLE || s->setup.context != LATSCOPE_CTX_USER)
		return -EINVAL;
	s->pulse_waiting = true;
	while (s->state != S_STOPPED)
		pthread_cond_wait(&cond, &lock);
	s->pulse_waiting = false;
	ret = -ECANCELED;
	if (s->closed)
		s->used = false;
	return ret;
}

static int ioc_result(struct session *s, void *arg, bool snapshot)
{
	const size_t tail_offset = offsetof(struct latscope_result, tail);
	struct latscope_result in, res = { 0 };
	const struct latscope_setup *su = &s->setup;
	size_t size, hist_bytes, tail_bytes;
	__u64 secs = seconds_total(), *cells = NULL, *tail = NULL, now, past;
	unsigned int count, i;
	int ret = 0;

	memset(&in, 0, sizeof(in));
	memcpy(&in, arg, offsetof(struct latscope_result, context));
	size = in.size;
	if (size >= tail_offset + 2 * sizeof(__u64))
		memcpy(&in.tail, (char *)arg + tail_offset, 2 * sizeof(__u64));
	trace(s, "%s size=%zu histogram=%s histogram_size=%llu tail=%s tail_size=%llu",
	      snapshot ? "SNAPSHOT" : "GET_RESULT", size, in.histogram ? "set" : "0",
	      (unsigned long long)in.histogram_size, in.tail ? "set" : "0",
	      (unsigned long long)in.tail_size);
	if (size < offsetof(struct latscope_result, __reserved))
		return -EINVAL;
	if (s->state == S_IDLE)
		return -EINVAL;
	if (s->state == S_RUNNING && !snapshot)
		return -EBUSY;
	if (s->state == S_READY) {
		secs = 0;
	} else if (snapshot && s->state == S_RUNNING) {
		now = fake_mono_ns();
		past = now > s->start_ns + su->warmup_ns ? now - s->start_ns - su->warmup_ns : 0;
		if (past / NSEC < secs)
			secs = past / NSEC;
	}
	count = su->context == LATSCOPE_CTX_IRQ ? 1 : 2;
	hist_bytes = (size_t)count * su->hist_cells * sizeof(__u64);
	tail_bytes = (size_t)count * LATSCOPE_TAIL_BUCKETS * sizeof(__u64);
	cells = calloc((size_t)count * (su->hist_cells + LATSCOPE_TAIL_BUCKETS), sizeof(__u64));
	if (!cells)
		return -ENOMEM;
	tail = cells + (size_t)count * su->hist_cells;

	res.size = sizeof(res);
	res.context = su->context;
	res.cpu = su->cpu;
	res.period_ns = su->period_ns;
	res.hist_cells = su->hist_cells;
	res.hist_cell_ns = su->hist_cell_ns;
	res.hist_count = count;
	res.tail_buckets = LATSCOPE_TAIL_BUCKETS;
	res.tail_sub_bits = LATSCOPE_TAIL_SUB_BITS;
	res.priority = su->priority;
	res.warmup_ns = su->warmup_ns;
	res.start_ns = s->start_ns;
	if (snapshot)
		res.flags |= LATSCOPE_RESULT_SNAPSHOT;
	fake_stats(s, secs, false, &res.latency, cells, tail);
	if (count > 1)
		fake_stats(s, secs, true, &res.irq, cells + su->hist_cells,
			   tail + LATSCOPE_TAIL_BUCKETS);
	res.events = res.latency.samples;
	for (i = 0; i < secs; i++) {
		struct latscope_bulk b = fake_bulk(s, i);

		res.overruns += b.overruns;
		if (su->trace_threshold_ns && !(res.flags & LATSCOPE_RESULT_TRACE_FIRED) &&
		    b.max_ns > (__s64)su->trace_threshold_ns) {
			res.flags |= LATSCOPE_RESULT_TRACE_FIRED;
			res.trace_sample_ns = b.max_ns;
		}
	}

	res.histogram = in.histogram;
	res.histogram_size = hist_bytes;
	res.tail = size >= tail_offset + 2 * sizeof(__u64) ? in.tail : 0;
	res.tail_size = tail_bytes;
	if ((res.histogram && in.histogram_size < hist_bytes) ||
	    (res.tail && in.tail_size < tail_bytes)) {
		ret = -ENOSPC;
	} else {
		if (res.histogram)
			memcpy((void *)(uintptr_t)res.histogram, cells, hist_bytes);
		if (res.tail)
			memcpy((void *)(uintptr_t)res.tail, tail, tail_bytes);
	}
	memcpy(arg, &res, size < sizeof(res) ? size : sizeof(res));
	free(cells);
	return ret;
}

/* An ioctl number without its size bits: the driver takes any size. */
#define UNSIZED(cmd)	((cmd) & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT))

int ioctl(int fd, unsigned long req, ...)
{
	struct session *s;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	pthread_mutex_lock(&lock);
	s = find(fd);
	if (!s) {
		pthread_mutex_unlock(&lock);
		return REAL(ioctl)(fd, req, arg);
	}
	if (UNSIZED(req) == UNSIZED(LATSCOPE_IOC_SETUP)) {
		ret = ioc_setup(s, arg);
	} else if (UNSIZED(req) == UNSIZED(LATSCOPE_IOC_GET_RESULT)) {
		ret = ioc_result(s, arg, false);
	} else if (UNSIZED(req) == UNSIZED(LATSCOPE_IOC_SNAPSHOT)) {
		ret = ioc_result(s, arg, true);
	} else if (req == LATSCOPE_IOC_GET_INFO) {
		trace(s, "GET_INFO");
		ret = ioc_info(arg);
	} else if (req == LATSCOPE_IOC_START) {
		ret = ioc_start(s);
	} else if (req == LATSCOPE_IOC_STOP) {
		ret = ioc_stop(s);
	} else if (req == LATSCOPE_IOC_PULSE) {
		ret = ioc_pulse(s);
	} else {
		ret = -ENOTTY;
	}
	pthread_mutex_unlock(&lock);
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}
