// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: hunts /dev/latscope for lifetime, locking and user-copy bugs on the
 * debug kernel of the GPIO test VM (KASAN, kmemleak, lockdep, hung-task
 * detector: tests/vm/init fails the stage on any report they make).
 *
 *   fuzz [-s SEED] [-t SECONDS] [-g GPIO_CHIP_LABEL]
 *
 * Phases, each bounded in time:
 *  stall   every user-copy site stalled in a userfaultfd page that is never
 *          served; meanwhile SETUP on the same file, a CPU going offline
 *          and back, and another open() must each finish (regression test
 *          of a read() that held a lock across its user copy);
 *  result  GET_RESULT and SNAPSHOT from two threads while a third loops
 *          SETUP/START/STOP on the same file with histograms of changing
 *          size: each histogram must add up to its sample count, each
 *          tail to its overflow
 *          (regression test of a histogram copied out after its lock was
 *          dropped, from memory a SETUP had freed);
 *  chaos   for SECONDS: random ioctl numbers, sizes and fields, bad and
 *          read-only buffers, on shared and separate files from several
 *          threads; children killed mid-run; CPU 1 taken offline and back;
 *          rmmod attempts while a file is open; the device released for
 *          rmmod (its wait cut short) and admitted again; and, beside
 *          them, whole runs whose bulk records must add up to their
 *          result.
 * The result and chaos phases go on past their time (SLOW_HOST_SECS at
 * most) until each kind of work they check was done once, so a slow host
 * makes them longer, not failed.
 *
 * Prints "ok - ..." / "not ok - ...", the figures, and "fuzz: N passed,
 * N failed"; exits non-zero on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/latscope.h>

#include "check.h"

#define DEV		"/dev/latscope"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define RELEASE		"/sys/class/misc/latscope/release"
#define MAX_HIST	((size_t)LATSCOPE_MAX_HIST_CELLS * 2)
#define MAX_TAIL	((size_t)LATSCOPE_TAIL_BUCKETS * 2)
#define MS		1000000ULL
/* A wait that a fixed driver never needs: past it, something is stuck. */
#define STUCK_SECS	8
/*
 * How long past its time a phase may go on until each of its workers has
 * done its part once: what it checks was done, not done in so many
 * seconds, which would measure the host.
 */
#define SLOW_HOST_SECS	60

struct figures {
	atomic_ulong ioctls;		/* all ioctl calls made */
	atomic_ulong random_cmds;	/* of which with a random number */
	atomic_ulong results;		/* histograms checked to add up */
	atomic_ulong bad_results;	/* ... that did not */
	atomic_ulong reads;		/* bulk records read */
	atomic_ulong runs;		/* whole runs whose bulks were summed */
	atomic_ulong bad_runs;		/* ... that did not add up */
	atomic_ulong kills;		/* children killed mid-run */
	atomic_ulong hotplugs;		/* CPU 1 offline/online cycles */
	atomic_ulong rmmods;		/* rmmod attempts refused */
	atomic_ulong rmmod_wrong;	/* ... that succeeded or failed oddly */
	atomic_ulong releases;		/* releases of the device, then admitted */
	atomic_ulong release_wrong;	/* ... that failed oddly */
};

struct fuzz {
	uint64_t seed;
	int secs;
	const char *chip;	/* gpio-sim label for GPIO setups, or NULL */
	int ncpus;
	bool hotplug;		/* CPU 1 can go offline */
	atomic_bool stop;	/* the current phase ends */
	int shared_fd;		/* the file several threads share */
	char *bad_ro;		/* a read-only page */
	char *bad_none;		/* an inaccessible page */
	struct figures fig;
	unsigned long results_before;	/* fig.results when the result phase began */
	struct tally tally;
};

/* xorshift64*: one state per thread, from the seed and the thread's index. */
static uint64_t rnd(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 2685821657736338717ULL;
}

static uint64_t rnd_below(uint64_t *st, uint64_t n)
{
	return n ? rnd(st) % n : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };

	nanosleep(&ts, NULL);
}

static int xioctl(struct fuzz *f, int fd, unsigned long cmd, void *arg)
{
	atomic_fetch_add(&f->fig.ioctls, 1);
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/*
 * Histogram cells + underflow + overflow = samples, and tail = overflow,
 * for each histogram.
 */
static bool hist_adds_up(const struct latscope_result *res, const uint64_t *cells,
			 const uint64_t *tail)
{
	const struct latscope_stats *st[2] = { &res->latency, &res->irq };
	uint64_t sum, in_tail;
	uint32_t h, i;

	if (res->hist_count < 1 || res->hist_count > 2 ||
	    res->hist_cells > LATSCOPE_MAX_HIST_CELLS ||
	    res->tail_buckets != LATSCOPE_TAIL_BUCKETS)
		return false;
	for (h = 0; h < res->hist_count; h++) {
		sum = st[h]->underflow + st[h]->overflow;
		for (i = 0; i < res->hist_cells; i++)
			sum += cells[(size_t)h * res->hist_cells + i];
		for (i = 0, in_tail = 0; i < LATSCOPE_TAIL_BUCKETS; i++)
			in_tail += tail[(size_t)h * LATSCOPE_TAIL_BUCKETS + i];
		if (sum != st[h]->samples || in_tail != st[h]->overflow)
			return false;
		if (st[h]->samples && st[h]->min_ns > st[h]->max_ns)
			return false;
	}
	return true;
}

/* A GET_RESULT or SNAPSHOT argument: @cells and @tail have room for all. */
static struct latscope_result result_arg(uint64_t *cells, uint64_t *tail)
{
	struct latscope_result res = {
		.size = sizeof(res),
		.histogram = (uintptr_t)cells,
		.histogram_size = MAX_HIST * sizeof(*cells),
		.tail = (uintptr_t)tail,
		.tail_size = MAX_TAIL * sizeof(*tail),
	};

	return res;
}

/*
 * GET_RESULT or SNAPSHOT into @cells (room for every histogram); a result
 * that came back whole is checked. Returns the ioctl's errno.
 */
static int result_checked(struct fuzz *f, int fd, bool snapshot, uint64_t *cells)
{
	uint64_t tail[MAX_TAIL];
	struct latscope_result res = result_arg(cells, tail);
	int err;

	err = xioctl(f, fd, snapshot ? LATSCOPE_IOC_SNAPSHOT : LATSCOPE_IOC_GET_RESULT, &res);
	if (err)
		return err;
	atomic_fetch_add(&f->fig.results, 1);
	if (!hist_adds_up(&res, cells, tail)) {
		if (atomic_fetch_add(&f->fig.bad_results, 1) < 3)
			printf("# %s: %llu samples, hist_cells %u, histogram or tail does not add up\n",
			       snapshot ? "SNAPSHOT" : "GET_RESULT",
			       (unsigned long long)res.latency.samples, res.hist_cells);
	}
	return 0;
}

static struct latscope_setup timer_setup(uint32_t context, uint32_t cpu,
					 uint64_t period, uint32_t cells)
{
	struct latscope_setup s = {
		.size = sizeof(s),
		.context = context,
		.period_ns = period,
		.cpu = cpu,
		.hist_cells = cells,
		.flags = LATSCOPE_SETUP_NO_WARMUP,
	};

	return s;
}

/* ---- stall: every user copy stalled in a page nobody serves ---- */

struct stalled {
	int fd;
	unsigned long cmd;	/* 0: read() */
	void *arg;
	atomic_bool done;
};

static void *stalled_fn(void *data)
{
	struct stalled *st = data;

	if (st->cmd)
		ioctl(st->fd, st->cmd, st->arg);
	else
		(void)!read(st->fd, st->arg, sizeof(struct latscope_bulk));
	atomic_store(&st->done, true);
	return NULL;
}

struct timed {
	struct fuzz *f;
	int fd;
	int what;		/* 0 SETUP, 1 hotplug, 2 open */
	int err;
	atomic_bool done;
};

/* Writes the one character @val to the file @path: 0, or the errno. */
static int write_char(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, 1) != 1)
		err = errno;
	close(fd);
	return err;
}

static int write_online(const char *val)
{
	return write_char(CPU1_ONLINE, val);
}

static void *timed_fn(void *data)
{
	struct timed *t = data;
	struct latscope_setup s = timer_setup(LATSCOPE_CTX_IRQ, 0, MS, 100);
	int fd;

	switch (t->what) {
	case 0:
		t->err = xioctl(t->f, t->fd, LATSCOPE_IOC_SETUP, &s);
		break;
	case 1:
		t->err = write_online("0");
		if (!t->err)
			t->err = write_online("1");
		break;
	default:
		fd = open(DEV, O_RDWR);
		t->err = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
	}
	atomic_store(&t->done, true);
	return NULL;
}

/* Waits up to @secs for @flag; returns whether it was set. */
static bool wait_flag(atomic_bool *flag, int secs)
{
	uint64_t end = now_ns() + secs * 1000000000ULL;

	while (!atomic_load(flag)) {
		if (now_ns() > end)
			return false;
		sleep_ns(10 * MS);
	}
	return true;
}

/* Reads fault messages until @want distinct pages faulted, for @secs at most. */
static int wait_faults(int uffd, int want, int secs)
{
	struct uffd_msg msg;
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	uint64_t end = now_ns() + secs * 1000000000ULL, seen[16];
	int n = 0, i;

	while (n < want && now_ns() < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		for (i = 0; i < n && seen[i] != (msg.arg.pagefault.address & ~4095ULL); i++)
			;
		if (i == n && n < 16)
			seen[n++] = msg.arg.pagefault.address & ~4095ULL;
	}
	return n;
}

static int uffd_open(void *area, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)area, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (uffd < 0)
		return -1;
	if (ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		close(uffd);
		return -1;
	}
	return uffd;
}

static const char *const stall_names[] = {
	"read()", "GET_RESULT's histogram", "SNAPSHOT's histogram",
	"SETUP's argument", "PULSE's argument", "GET_INFO's argument",
};

static void stall_phase(struct fuzz *f)
{
	static const char *const timed_names[] = {
		"SETUP on the same file", "CPU 1 offline and online", "open() of another file",
	};
	size_t page = sysconf(_SC_PAGESIZE), n = sizeof(stall_names) / sizeof(*stall_names);
	struct latscope_setup s = timer_setup(LATSCOPE_CTX_IRQ, 0, MS, 200);
	struct latscope_result *res[2];
	struct stalled st[6] = {};
	struct timed tm[3] = {};
	pthread_t st_t[6], tm_t[3];
	char name[96];
	int fd, uffd, faults;
	char *area;
	size_t i;

	fd = open(DEV, O_RDWR | O_NONBLOCK);
	area = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || area == MAP_FAILED) {
		check(&f->tally, false, "stall: set-up", "open or mmap: %s", strerror(errno));
		return;
	}
	/* A stopped session with a bulk record to read and a result to get. */
	if (xioctl(f, fd, LATSCOPE_IOC_SETUP, &s) || xioctl(f, fd, LATSCOPE_IOC_START, NULL)) {
		check(&f->tally, false, "stall: set-up", "SETUP/START: %s", strerror(errno));
		close(fd);
		return;
	}
	sleep_ns(300 * MS);
	xioctl(f, fd, LATSCOPE_IOC_STOP, NULL);
	/* The result arguments sit in normal memory, their histograms in the area. */
	for (i = 0; i < 2; i++) {
		res[i] = calloc(1, sizeof(*res[i]));
		res[i]->size = sizeof(*res[i]);
		res[i]->histogram = (uintptr_t)(area + (i + 1) * page);
		res[i]->histogram_size = 200 * sizeof(uint64_t);
	}
	uffd = uffd_open(area, n * page);
	check(&f->tally, uffd >= 0, "stall: userfaultfd registered", "%s", strerror(errno));
	if (uffd < 0) {
		close(fd);
		return;
	}
	{
		static const unsigned long cmds[] = {
			0, LATSCOPE_IOC_GET_RESULT, LATSCOPE_IOC_SNAPSHOT,
			LATSCOPE_IOC_SETUP, LATSCOPE_IOC_PULSE, LATSCOPE_IOC_GET_INFO,
		};
		void *args[] = { area, res[0], res[1], area + 3 * page, area + 4 * page,
				 area + 5 * page };

		for (i = 0; i < n; i++) {
			st[i].fd = fd;
			st[i].cmd = cmds[i];
			st[i].arg = args[i];
		}
	}
	for (i = 0; i < n; i++)
		pthread_create(&st_t[i], NULL, stalled_fn, &st[i]);
	faults = wait_faults(uffd, n, 20);
	check(&f->tally, faults == (int)n,
	      "stall: every user-copy site is stalled in a page fault",
	      "%d of %zu faulted", faults, n);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "stall: %s waits for its page", stall_names[i]);
		check(&f->tally, !atomic_load(&st[i].done), name, "returned without it");
	}
	/*
	 * One after the other: a SETUP stuck behind a stalled copy would hold
	 * the session lock the CPU-offline hook waits for, which would hold
	 * the lock open() waits for. Each must finish all the same.
	 */
	for (i = 0; i < 3; i++) {
		if (i == 1 && !f->hotplug)
			continue;
		tm[i] = (struct timed){ .f = f, .fd = fd, .what = i };
		pthread_create(&tm_t[i], NULL, timed_fn, &tm[i]);
		snprintf(name, sizeof(name), "stall: %s finishes meanwhile", timed_names[i]);
		if (wait_flag(&tm[i].done, STUCK_SECS))
			check(&f->tally, !tm[i].err, name, "%s", strerror(tm[i].err));
		else
			check(&f->tally, false, name, "still blocked after %d s", STUCK_SECS);
	}
	/* Closing the userfaultfd lets every stalled copy fault its page in. */
	close(uffd);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "stall: %s returns once its page is there",
			 stall_names[i]);
		check(&f->tally, wait_flag(&st[i].done, STUCK_SECS), name,
		      "still stalled %d s after the userfaultfd was closed", STUCK_SECS);
	}
	for (i = 0; i < 3; i++)
		if ((i != 1 || f->hotplug) && wait_flag(&tm[i].done, STUCK_SECS))
			pthread_join(tm_t[i], NULL);
	for (i = 0; i < n; i++)
		if (atomic_load(&st[i].done))
			pthread_join(st_t[i], NULL);
	if (f->hotplug)
		write_online("1");
	close(fd);
	munmap(area, n * page);
	free(res[0]);
	free(res[1]);
}

/* ---- result: histograms read while SETUP frees and START rewrites them ---- */

struct worker {
	struct fuzz *f;
	uint64_t rng;
	int index;
	pthread_t thread;
};

/* SETUP (histogram of a new size), START, a moment, STOP, on the shared file. */
static void *cycler_fn(void *data)
{
	struct worker *w = data;
	struct fuzz *f = w->f;
	struct latscope_setup s;

	while (!atomic_load(&f->stop)) {
		s = timer_setup(LATSCOPE_CTX_IRQ + rnd_below(&w->rng, 2), 0,
				(1 + rnd_below(&w->rng, 4)) * 250000ULL,
				1 + rnd_below(&w->rng, 4096));
		if (xioctl(f, f->shared_fd, LATSCOPE_IOC_SETUP, &s))
			continue;
		xioctl(f, f->shared_fd, LATSCOPE_IOC_START, NULL);
		sleep_ns(rnd_below(&w->rng, 3 * MS));
		xioctl(f, f->shared_fd, LATSCOPE_IOC_STOP, NULL);
	}
	return NULL;
}

static void *getter_fn(void *data)
{
	struct worker *w = data;
	uint64_t *cells = malloc(MAX_HIST * sizeof(*cells));

	while (cells && !atomic_load(&w->f->stop))
		result_checked(w->f, w->f->shared_fd, w->index & 1, cells);
	free(cells);
	return NULL;
}

static void run_workers(struct fuzz *f, struct worker *w, int n,
			void *(*const fn[])(void *), int secs,
			bool (*done)(struct fuzz *f));

/* What the result phase checks was done: a result was checked. */
static bool result_done(struct fuzz *f)
{
	return atomic_load(&f->fig.results) > f->results_before;
}

static void result_phase(struct fuzz *f)
{
	static void *(*const fn[])(void *) = { cycler_fn, getter_fn, getter_fn };
	struct worker w[3];

	f->results_before = atomic_load(&f->fig.results);
	f->shared_fd = open(DEV, O_RDWR);
	if (f->shared_fd < 0) {
		check(&f->tally, false, "result: open", "%s", strerror(errno));
		return;
	}
	run_workers(f, w, 3, fn, 10, result_done);
	close(f->shared_fd);
	check(&f->tally, result_done(f),
	      "result: GET_RESULT and SNAPSHOT got results while SETUP/START/STOP looped",
	      "none in %d s", 10 + SLOW_HOST_SECS);
	check(&f->tally, !atomic_load(&f->fig.bad_results),
	      "result: every histogram adds up to its sample count",
	      "%lu did not", atomic_load(&f->fig.bad_results));
}

/* ---- chaos ---- */

/* One of the values a field's checks care about, or anything. */
static uint64_t pick(uint64_t *rng, const uint64_t *vals, size_t n)
{
	return rnd_below(rng, 8) ? vals[rnd_below(rng, n)] : rnd(rng);
}

#define PICK(rng, ...) \
	pick(rng, (const uint64_t[]){ __VA_ARGS__ }, \
	     sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static void random_line(struct fuzz *f, uint64_t *rng, struct latscope_gpio_line *l)
{
	if (!rnd_below(rng, 4))
		return;
	snprintf(l->chip, sizeof(l->chip), "%s",
		 f->chip && rnd_below(rng, 4) ? f->chip : "no-such-chip");
	if (!rnd_below(rng, 16))
		memset(l->chip, 'x', sizeof(l->chip));
	l->offset = PICK(rng, 0, 1, 2, 3, 4, 5, 6, 7, 8, 65535);
	l->__reserved = !rnd_below(rng, 16);
}

/* A SETUP mostly valid, sometimes off in one or several fields. */
static void random_setup(struct fuzz *f, uint64_t *rng, struct latscope_setup *s)
{
	memset(s, 0, sizeof(*s));
	s->size = PICK(rng, sizeof(*s), sizeof(*s), sizeof(*s), LATSCOPE_SETUP_SIZE_VER0,
		       0, 87, sizeof(*s) + 8, 4096, 4097);
	s->context = PICK(rng, 0, 1, 2, 0, 1, 2, 3);
	/* Short periods are rare: TCG has two CPUs to share among them. */
	s->period_ns = PICK(rng, 250000, 1000000, 2000000, 10000000, 0, 9999,
			    LATSCOPE_MIN_PERIOD_NS, LATSCOPE_MAX_PERIOD_NS + 1);
	s->cpu = PICK(rng, 0, 1, 0, 1, 2, 63, 4096);
	s->priority = PICK(rng, 0, 1, 50, 99, 100);
	s->hist_cells = PICK(rng, 0, 1, 200, 4096, LATSCOPE_MAX_HIST_CELLS,
			     LATSCOPE_MAX_HIST_CELLS + 1);
	s->hist_cell_ns = PICK(rng, 0, 1, 1000, 100000, LATSCOPE_MAX_CELL_NS,
			       LATSCOPE_MAX_CELL_NS + 1ULL);
	s->flags = PICK(rng, LATSCOPE_SETUP_NO_WARMUP, LATSCOPE_SETUP_NO_WARMUP, 0, 2);
	if (!(s->flags & LATSCOPE_SETUP_NO_WARMUP))
		s->warmup_ns = PICK(rng, 0, 1000000, 100000000, LATSCOPE_MAX_WARMUP_NS + 1);
	if (!rnd_below(rng, 32))
		s->trace_threshold_ns = PICK(rng, 1ULL << 63, 1000000000000ULL);
	/* The worst-sample recorder: its probes hooked and unhooked in the mix. */
	s->why_records = PICK(rng, 0, 0, 0, 1, 8, LATSCOPE_WHY_MAX_RECORDS,
			      LATSCOPE_WHY_MAX_RECORDS + 1);
	if (!rnd_below(rng, 32))
		s->why_flags = 1;
	if (!rnd_below(rng, 32))
		s->__reserved[rnd_below(rng, 3)] = 1;
	s->source = PICK(rng, LATSCOPE_SRC_TIMER, LATSCOPE_SRC_TIMER, LATSCOPE_SRC_GPIO, 2);
	if (s->source != LATSCOPE_SRC_GPIO && rnd_below(rng, 16))
		return;
	s->gpio.mode = PICK(rng, LATSCOPE_GPIO_REMOTE, LATSCOPE_GPIO_LOOPBACK,
			    LATSCOPE_GPIO_MONITOR, 0, 3);
	s->gpio.edge = PICK(rng, 1, 2, 3, 0, 4);
	s->gpio.flags = PICK(rng, 0, 0, 0, LATSCOPE_GPIO_FROM_DT, LATSCOPE_GPIO_ACK_PULSE,
			     LATSCOPE_GPIO_PULSE_LOW, 8);
	s->gpio.irq_thread_priority = PICK(rng, 0, 0, 1, 99, 100);
	/* A monitor times in hard irq, with no ack-out: mostly so. */
	if (s->gpio.mode == LATSCOPE_GPIO_MONITOR && rnd_below(rng, 4))
		s->context = LATSCOPE_CTX_IRQ;
	random_line(f, rng, &s->gpio.pulse_in);
	if (s->gpio.mode != LATSCOPE_GPIO_MONITOR || !rnd_below(rng, 8))
		random_line(f, rng, &s->gpio.ack_out);
	if (s->gpio.mode != LATSCOPE_GPIO_REMOTE || !rnd_below(rng, 8))
		random_line(f, rng, &s->gpio.pulse_out);
	if (!rnd_below(rng, 32))
		s->gpio.__reserved[1] = 1;
}

/* A user address: mostly good, sometimes unmapped, read-only or wild. */
static void *random_ptr(struct fuzz *f, uint64_t *rng, void *good)
{
	switch (rnd_below(rng, 12)) {
	case 0:
		return NULL;
	case 1:
		return f->bad_none;
	case 2:
		return f->bad_ro;
	case 3:
		return (void *)0xffff888000000000ULL;	/* kernel memory */
	case 4:
		return (char *)good + 1;		/* misaligned */
	default:
		return good;
	}
}

static unsigned long random_cmd(uint64_t *rng)
{
	static const unsigned long real[] = {
		LATSCOPE_IOC_GET_INFO, LATSCOPE_IOC_SETUP, LATSCOPE_IOC_START,
		LATSCOPE_IOC_STOP, LATSCOPE_IOC_GET_RESULT, LATSCOPE_IOC_PULSE,
		LATSCOPE_IOC_SNAPSHOT,
	};

	if (rnd_below(rng, 2))
		return real[rnd_below(rng, sizeof(real) / sizeof(*real))];
	return _IOC(rnd_below(rng, 4), rnd_below(rng, 4) ? LATSCOPE_IOC_MAGIC : rnd_below(rng, 256),
		    rnd_below(rng, 16), rnd_below(rng, 512));
}

/* One random operation on @fd (which it may close and reopen). */
static void random_op(struct fuzz *f, uint64_t *rng, int *fd, uint64_t *buf,
		      size_t words)
{
	struct latscope_result *res = (void *)buf;
	struct latscope_setup s;
	struct pollfd pfd;
	unsigned long cmd;

	switch (rnd_below(rng, 12)) {
	case 0:
		random_setup(f, rng, &s);
		xioctl(f, *fd, LATSCOPE_IOC_SETUP, random_ptr(f, rng, &s));
		break;
	case 1:
		xioctl(f, *fd, LATSCOPE_IOC_START, NULL);
		break;
	case 2:
		xioctl(f, *fd, LATSCOPE_IOC_STOP, NULL);
		break;
	case 3:
	case 4:
		result_checked(f, *fd, rnd_below(rng, 2), buf + 64);
		break;
	case 5:
		memset(res, 0, sizeof(*res));
		res->size = PICK(rng, sizeof(*res), 0, 100, 4096, LATSCOPE_RESULT_SIZE_VER1);
		res->histogram = (uintptr_t)random_ptr(f, rng, buf + 64);
		res->histogram_size = PICK(rng, 0, 8, 1600, MAX_HIST * 8);
		/* The recorder's records too, never past @buf's @words. */
		res->why = (uintptr_t)random_ptr(f, rng, buf + 64);
		res->why_size = PICK(rng, 0, 8, sizeof(struct latscope_why),
				     LATSCOPE_WHY_MAX_RECORDS * sizeof(struct latscope_why));
		if (res->why_size > (words - 64) * sizeof(*buf))
			res->why_size = (words - 64) * sizeof(*buf);
		xioctl(f, *fd, rnd_below(rng, 2) ? LATSCOPE_IOC_SNAPSHOT : LATSCOPE_IOC_GET_RESULT,
		       random_ptr(f, rng, res));
		break;
	case 6:
		buf[0] = rnd_below(rng, 2) ? now_ns() : rnd(rng);
		xioctl(f, *fd, LATSCOPE_IOC_PULSE, random_ptr(f, rng, buf));
		break;
	case 7:
		cmd = random_cmd(rng);
		atomic_fetch_add(&f->fig.random_cmds, 1);
		if (cmd != LATSCOPE_IOC_PULSE)	/* blocks: case 6 covers it */
			xioctl(f, *fd, cmd, random_ptr(f, rng, buf));
		break;
	case 8:
	case 9: {
		ssize_t got;

		got = read(*fd, random_ptr(f, rng, buf), PICK(rng, 48, 48 * 8, 1, 47, 4096));
		if (got > 0)
			atomic_fetch_add(&f->fig.reads, got / 48);
		break;
	}
	case 10:
		pfd = (struct pollfd){ .fd = *fd, .events = POLLIN };
		poll(&pfd, 1, rnd_below(rng, 20));
		break;
	default:
		if (rnd_below(rng, 4))
			break;
		if (*fd != f->shared_fd) {
			close(*fd);
			*fd = open(DEV, O_RDWR | (rnd_below(rng, 2) ? O_NONBLOCK : 0));
		} else if (!rnd_below(rng, 8)) {
			/*
			 * The shared file is closed under the threads using it:
			 * dup2() puts a new one in its place at once, and the old
			 * one is released when the last call on it returns.
			 */
			int nfd = open(DEV, O_RDWR);

			if (nfd >= 0) {
				dup2(nfd, *fd);
				close(nfd);
			}
		}
	}
}

static void *random_fn(void *data)
{
	struct worker *w = data;
	struct fuzz *f = w->f;
	uint64_t *buf = calloc(MAX_HIST + 64, sizeof(*buf));
	/* Even workers share one file, odd ones have their own. */
	int fd = w->index & 1 ? open(DEV, O_RDWR) : f->shared_fd;

	while (buf && fd >= 0 && !atomic_load(&f->stop))
		random_op(f, &w->rng, &fd, buf, MAX_HIST + 64);
	if (fd >= 0 && fd != f->shared_fd)
		close(fd);
	free(buf);
	return NULL;
}

/* The user-context responder of a verified run: PULSE until the stop. */
static void *responder_fn(void *data)
{
	int fd = *(int *)data;
	struct latscope_pulse p = {};

	while (!ioctl(fd, LATSCOPE_IOC_PULSE, &p) || errno == EINTR)
		p.stamp_ns = now_ns();
	return NULL;
}

/*
 * A whole run whose bulk records are read as they come: their samples add
 * up to the result's, unless the ring dropped some or a hotplug ended the
 * run (then its flush still sends the last one).
 */
static void verified_run(struct fuzz *f, uint64_t *rng, uint64_t *cells)
{
	struct latscope_setup s = timer_setup(rnd_below(rng, 3), rnd_below(rng, f->ncpus),
					      MS, 1 + rnd_below(rng, 1000));
	uint64_t tail[MAX_TAIL];
	struct latscope_result res = result_arg(cells, tail);
	struct latscope_bulk rec[8];
	uint64_t sum = 0, end = now_ns() + (200 + rnd_below(rng, 1300)) * MS;
	struct pollfd pfd;
	pthread_t resp;
	ssize_t got;
	int fd = open(DEV, O_RDWR), i;

	if (fd < 0 || xioctl(f, fd, LATSCOPE_IOC_SETUP, &s) ||
	    xioctl(f, fd, LATSCOPE_IOC_START, NULL)) {
		if (fd >= 0)
			close(fd);
		return;		/* CPU 1 offline: nothing to verify */
	}
	if (s.context == LATSCOPE_CTX_USER)
		pthread_create(&resp, NULL, responder_fn, &fd);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	for (;;) {
		if (now_ns() >= end)
			xioctl(f, fd, LATSCOPE_IOC_STOP, NULL);
		poll(&pfd, 1, 100);
		got = read(fd, rec, sizeof(rec));
		if (got == 0)
			break;
		for (i = 0; i < got / (ssize_t)sizeof(*rec); i++)
			sum += rec[i].samples;
		if (got > 0)
			atomic_fetch_add(&f->fig.reads, got / sizeof(*rec));
	}
	if (s.context == LATSCOPE_CTX_USER)
		pthread_join(resp, NULL);
	if (!xioctl(f, fd, LATSCOPE_IOC_GET_RESULT, &res) && !res.bulk_dropped) {
		atomic_fetch_add(&f->fig.runs, 1);
		if (sum != res.latency.samples || !hist_adds_up(&res, cells, tail)) {
			atomic_fetch_add(&f->fig.bad_runs, 1);
			printf("# run: context %u, bulk records sum to %llu samples, result %llu\n",
			       s.context, (unsigned long long)sum,
			       (unsigned long long)res.latency.samples);
		}
	}
	close(fd);
}

static void *verifier_fn(void *data)
{
	struct worker *w = data;
	uint64_t *cells = malloc(MAX_HIST * sizeof(*cells));

	while (cells && !atomic_load(&w->f->stop))
		verified_run(w->f, &w->rng, cells);
	free(cells);
	return NULL;
}

/* A child runs a session its own way and is killed in the middle. */
static void child_run(struct fuzz *f, uint64_t seed)
{
	uint64_t rng = seed | 1, buf[64 + 400] = {};
	struct latscope_pulse p = {};
	struct latscope_setup s = timer_setup(rnd_below(&rng, 3), rnd_below(&rng, f->ncpus),
					      MS, 200);
	int fd = open(DEV, O_RDWR), fd2 = open(DEV, O_RDWR);

	if (fd < 0 || ioctl(fd, LATSCOPE_IOC_SETUP, &s) || ioctl(fd, LATSCOPE_IOC_START, NULL))
		_exit(0);
	for (;;) {
		if (s.context == LATSCOPE_CTX_USER && rnd_below(&rng, 2)) {
			ioctl(fd, LATSCOPE_IOC_PULSE, &p);
			p.stamp_ns = now_ns();
		} else if (rnd_below(&rng, 2)) {
			(void)!read(fd, buf, sizeof(struct latscope_bulk));
		} else if (fd2 >= 0) {
			random_op(f, &rng, &fd2, buf, sizeof(buf) / sizeof(buf[0]));
		}
	}
}

static void *killer_fn(void *data)
{
	struct worker *w = data;
	pid_t pid;

	while (!atomic_load(&w->f->stop)) {
		pid = fork();
		if (pid == 0)
			child_run(w->f, rnd(&w->rng));
		if (pid < 0)
			break;
		sleep_ns(rnd_below(&w->rng, 300 * MS));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		atomic_fetch_add(&w->f->fig.kills, 1);
	}
	return NULL;
}

static void *hotplug_fn(void *data)
{
	struct worker *w = data;

	while (!atomic_load(&w->f->stop)) {
		sleep_ns(rnd_below(&w->rng, 200 * MS));
		if (write_online("0"))
			continue;
		sleep_ns(rnd_below(&w->rng, 200 * MS));
		while (write_online("1") && !atomic_load(&w->f->stop))
			sleep_ns(10 * MS);
		atomic_fetch_add(&w->f->fig.hotplugs, 1);
	}
	return NULL;
}

/* rmmod while a file is open (the main thread holds one): always refused. */
static void *rmmod_fn(void *data)
{
	struct worker *w = data;

	while (!atomic_load(&w->f->stop)) {
		if (syscall(SYS_delete_module, "latscope", O_NONBLOCK) == 0 ||
		    (errno != EWOULDBLOCK && errno != EBUSY))
			atomic_fetch_add(&w->f->fig.rmmod_wrong, 1);
		else
			atomic_fetch_add(&w->f->fig.rmmods, 1);
		sleep_ns(50 * MS);
	}
	return NULL;
}

struct interrupter {
	pthread_t target;
	uint64_t after_ns;
};

static void *interrupter_fn(void *data)
{
	struct interrupter *it = data;

	sleep_ns(it->after_ns);
	pthread_kill(it->target, SIGUSR1);
	return NULL;
}

static int write_release(const char *val)
{
	return write_char(RELEASE, val);
}

/*
 * The device released for rmmod under everything else, then admitted
 * again: its wait for the files to close (the main thread keeps one open,
 * so it cannot end well) cut short by a signal after a random moment,
 * or by its own 10 s bound.
 */
static void *release_fn(void *data)
{
	struct worker *w = data;
	struct interrupter it = { .target = pthread_self() };
	pthread_t t;
	int err;

	while (!atomic_load(&w->f->stop)) {
		sleep_ns(rnd_below(&w->rng, 500 * MS));
		it.after_ns = rnd_below(&w->rng, 300 * MS);
		pthread_create(&t, NULL, interrupter_fn, &it);
		err = write_release("1");
		pthread_join(t, NULL);
		if (err != EINTR && err != EBUSY)
			atomic_fetch_add(&w->f->fig.release_wrong, 1);
		if (write_release("0"))
			atomic_fetch_add(&w->f->fig.release_wrong, 1);
		else
			atomic_fetch_add(&w->f->fig.releases, 1);
	}
	return NULL;
}

static void on_sigusr1(int sig)
{
	(void)sig;	/* only interrupts a blocking call */
}

/*
 * Runs @n workers for @secs, and on until @done(@f) says that what the
 * phase checks was done (SLOW_HOST_SECS more at most), then stops them:
 * SIGUSR1 interrupts the blocking calls (read, PULSE) that would
 * otherwise wait for a run nobody starts any more.
 */
static void run_workers(struct fuzz *f, struct worker *w, int n,
			void *(*const fn[])(void *), int secs,
			bool (*done)(struct fuzz *f))
{
	uint64_t end;
	int i;

	atomic_store(&f->stop, false);
	for (i = 0; i < n; i++) {
		w[i] = (struct worker){ .f = f, .rng = f->seed * 31 + i + 1, .index = i };
		pthread_create(&w[i].thread, NULL, fn[i], &w[i]);
	}
	sleep_ns(secs * 1000000000ULL);
	end = now_ns() + SLOW_HOST_SECS * 1000000000ULL;
	while (!done(f) && now_ns() < end)
		sleep_ns(10 * MS);
	atomic_store(&f->stop, true);
	for (i = 0; i < n; i++) {
		end = now_ns() + 30 * 1000000000ULL;
		while (pthread_tryjoin_np(w[i].thread, NULL) == EBUSY) {
			if (now_ns() > end) {
				check(&f->tally, false, "workers stop",
				      "worker %d stuck for 30 s", i);
				_exit(1);
			}
			pthread_kill(w[i].thread, SIGUSR1);
			sleep_ns(10 * MS);
		}
	}
}

/*
 * What the chaos phase checks was done: a whole run verified, a child
 * killed, rmmod refused, the device released and admitted, and CPU 1
 * taken offline and back if it can be.
 */
static bool chaos_done(struct fuzz *f)
{
	return atomic_load(&f->fig.runs) && atomic_load(&f->fig.kills) &&
	       atomic_load(&f->fig.rmmods) && atomic_load(&f->fig.releases) &&
	       (!f->hotplug || atomic_load(&f->fig.hotplugs));
}

static void chaos_phase(struct fuzz *f)
{
	static void *(*const fn[])(void *) = {
		random_fn, random_fn, random_fn, random_fn, random_fn,
		verifier_fn, killer_fn, rmmod_fn, release_fn, hotplug_fn,
	};
	int n = f->hotplug ? 10 : 9;
	unsigned long bad = atomic_load(&f->fig.bad_results);
	struct worker w[10];

	f->shared_fd = open(DEV, O_RDWR);
	if (f->shared_fd < 0) {
		check(&f->tally, false, "chaos: open", "%s", strerror(errno));
		return;
	}
	run_workers(f, w, n, fn, f->secs, chaos_done);
	close(f->shared_fd);
	if (f->hotplug)
		write_online("1");
	write_release("0");
	check(&f->tally, atomic_load(&f->fig.releases) > 0 && !atomic_load(&f->fig.release_wrong),
	      "chaos: the device released and admitted again",
	      "%lu released, %lu odd", atomic_load(&f->fig.releases),
	      atomic_load(&f->fig.release_wrong));
	check(&f->tally, atomic_load(&f->fig.runs) > 0, "chaos: whole runs were verified",
	      "none in %d s", f->secs + SLOW_HOST_SECS);
	check(&f->tally, !atomic_load(&f->fig.bad_runs),
	      "chaos: bulk records add up to each run's result",
	      "%lu runs did not", atomic_load(&f->fig.bad_runs));
	bad = atomic_load(&f->fig.bad_results) - bad;
	check(&f->tally, !bad, "chaos: every histogram adds up", "%lu did not", bad);
	check(&f->tally, atomic_load(&f->fig.rmmods) > 0 && !atomic_load(&f->fig.rmmod_wrong),
	      "chaos: rmmod is refused while a file is open",
	      "%lu refused, %lu not", atomic_load(&f->fig.rmmods),
	      atomic_load(&f->fig.rmmod_wrong));
	check(&f->tally, atomic_load(&f->fig.kills) > 0,
	      "chaos: children were killed mid-run", "none in %d s", f->secs + SLOW_HOST_SECS);
	if (f->hotplug)
		check(&f->tally, atomic_load(&f->fig.hotplugs) > 0,
		      "chaos: CPU 1 went offline and back", "not in %d s",
		      f->secs + SLOW_HOST_SECS);
}

static int usage(const char *arg)
{
	fprintf(stderr, "fuzz: bad argument '%s'; usage: fuzz [-s SEED] [-t SECONDS] [-g CHIP]\n",
		arg);
	return 2;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	struct fuzz f = { .seed = now_ns(), .secs = 60 };
	long page = sysconf(_SC_PAGESIZE);
	char *end;
	int opt, keeper;

	while ((opt = getopt(argc, argv, "s:t:g:")) != -1) {
		switch (opt) {
		case 's':
			f.seed = strtoull(optarg, &end, 0);
			if (*end || !f.seed)
				return usage(optarg);
			break;
		case 't':
			f.secs = strtol(optarg, &end, 10);
			if (*end || f.secs < 1 || f.secs > 86400)
				return usage(optarg);
			break;
		case 'g':
			f.chip = optarg;
			break;
		default:
			return usage(argv[optind - 1]);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: calls return EINTR */
	signal(SIGPIPE, SIG_IGN);
	f.ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	f.hotplug = f.ncpus > 1 && access(CPU1_ONLINE, W_OK) == 0;
	f.bad_none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f.bad_ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("# fuzz: seed %llu, %d s of chaos, %d CPUs, hotplug %s, GPIO chip %s\n",
	       (unsigned long long)f.seed, f.secs, f.ncpus, f.hotplug ? "on" : "off",
	       f.chip ? f.chip : "none");
	/* Held open throughout: rmmod must be refused, whatever else happens. */
	keeper = open(DEV, O_RDWR);
	if (keeper < 0) {
		check(&f.tally, false, "open " DEV, "%s", strerror(errno));
		return 1;
	}
	stall_phase(&f);
	result_phase(&f);
	chaos_phase(&f);
	close(keeper);
	printf("# fuzz figures: seed %llu, %lu ioctls (%lu with a random number), %lu histograms checked, %lu bulk records read, %lu runs verified, %lu children killed, %lu hotplug cycles, %lu rmmod attempts refused, %lu releases\n",
	       (unsigned long long)f.seed, atomic_load(&f.fig.ioctls),
	       atomic_load(&f.fig.random_cmds), atomic_load(&f.fig.results),
	       atomic_load(&f.fig.reads), atomic_load(&f.fig.runs),
	       atomic_load(&f.fig.kills), atomic_load(&f.fig.hotplugs),
	       atomic_load(&f.fig.rmmods), atomic_load(&f.fig.releases));
	printf("fuzz: %d passed, %d failed\n", f.tally.passed, f.tally.failed);
	return f.tally.failed ? 1 : 0;
}
