// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test: drives /dev/latscope through its real ABI inside the test VM.
 *
 * Each check prints "ok - NAME" or "not ok - NAME: why"; the last line is
 * "N passed, N failed" and the exit status is non-zero on any failure.
 * "abi_test demo SECONDS" instead runs one user-context measurement and
 * prints each bulk record and the totals, for `make demo`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/latscope.h>

#include "check.h"

#define DEV		"/dev/latscope"
#define PERIOD_NS	1000000ULL

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The kthread's priority for the kernel context: 0, the driver's default;
 * 50 on a kernel that lets a module set no other (probe_kthread_prio()).
 */
static uint32_t kthread_prio;

static struct latscope_setup base_setup(uint32_t context, uint32_t cpu)
{
	struct latscope_setup s = {
		.size = sizeof(s),
		.context = context,
		.period_ns = PERIOD_NS,
		.cpu = cpu,
		.priority = context == LATSCOPE_CTX_KERNEL ? kthread_prio : 0,
		.warmup_ns = 200000000ULL,
	};

	return s;
}

/* Returns errno of a SETUP with @s, 0 on success. */
static int try_setup(int fd, struct latscope_setup *s)
{
	return ioctl(fd, LATSCOPE_IOC_SETUP, s) ? errno : 0;
}

struct run {
	int fd;
	uint32_t context;
	volatile bool stop;
	/* logger */
	__u64 bulk_records, bulk_samples, bulk_overruns;
	__s64 bulk_max;
	bool logger_eof;
	bool print;
	/* responder */
	__u64 answered;
	int responder_errno;
	/* SNAPSHOT halfway through: errno, flags, whether it added up */
	int snap_errno;
	__u32 snap_flags;
	bool snap_adds_up;
	__u64 snap_samples;
	/* CLOCK_MONOTONIC just before and after the STOP */
	__u64 stop_before, stop_after;
};

static void *logger(void *arg)
{
	struct run *r = arg;
	struct latscope_bulk rec[8];
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	ssize_t n;
	int i;

	for (;;) {
		if (poll(&pfd, 1, 5000) <= 0)
			return NULL;
		n = read(r->fd, rec, sizeof(rec));
		if (n == 0) {
			r->logger_eof = true;
			return NULL;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return NULL;
		}
		for (i = 0; i < n / (ssize_t)sizeof(rec[0]); i++) {
			r->bulk_records++;
			r->bulk_samples += rec[i].samples;
			r->bulk_overruns += rec[i].overruns;
			if (rec[i].max_ns > r->bulk_max)
				r->bulk_max = rec[i].max_ns;
			if (r->print)
				printf("second %3llu: min %8.3f avg %8.3f max %8.3f us, %llu samples, %llu overruns\n",
				       rec[i].second, rec[i].min_ns / 1000.0,
				       rec[i].avg_ns / 1000.0, rec[i].max_ns / 1000.0,
				       rec[i].samples, rec[i].overruns);
		}
		fflush(stdout);
	}
}

static void *responder(void *arg)
{
	struct run *r = arg;
	struct latscope_pulse p = { 0 };

	for (;;) {
		if (ioctl(r->fd, LATSCOPE_IOC_PULSE, &p)) {
			if (errno == EINTR && !r->stop)
				continue;
			r->responder_errno = errno;
			return NULL;
		}
		p.stamp_ns = now_ns();
		r->answered++;
	}
}

static void pin_self(uint32_t cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void unpin_self(void)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static __u64 hist_total(const __u64 *cells, uint32_t n,
			   const struct latscope_stats *st)
{
	__u64 total = st->underflow + st->overflow;
	uint32_t i;

	for (i = 0; i < n; i++)
		total += cells[i];
	return total;
}

/* SNAPSHOT of the running session, histogram included. */
static void snapshot(struct run *r, const struct latscope_setup *s)
{
	struct latscope_result res = { .size = sizeof(res) };
	size_t n = s->hist_cells ? s->hist_cells : 200;
	__u64 *cells = calloc(2 * n, sizeof(*cells));

	res.histogram = (uintptr_t)cells;
	res.histogram_size = 2 * n * sizeof(*cells);
	r->snap_errno = ioctl(r->fd, LATSCOPE_IOC_SNAPSHOT, &res) ? errno : 0;
	r->snap_flags = res.flags;
	r->snap_samples = res.latency.samples;
	r->snap_adds_up = !r->snap_errno && res.latency.samples &&
			  hist_total(cells, res.hist_cells, &res.latency) == res.latency.samples &&
			  (res.hist_count == 1 ||
			   hist_total(cells + res.hist_cells, res.hist_cells, &res.irq) ==
			   res.irq.samples);
	free(cells);
}

/*
 * Waits (30 s at most) until the running session on @fd has a sample past
 * its warm-up: a condition, not a guess at how long a loaded host takes.
 */
static bool wait_measured(int fd)
{
	struct latscope_result res = { .size = sizeof(res) };
	int i;

	for (i = 0; i < 3000; i++) {
		if (!ioctl(fd, LATSCOPE_IOC_SNAPSHOT, &res) && res.latency.samples)
			return true;
		usleep(10000);
	}
	return false;
}

/* Sets up, runs @ms milliseconds and stops one session, with its threads. */
static int measure(struct run *r, struct latscope_setup *s, int ms)
{
	pthread_t log_thread, resp_thread;
	struct timespec d = { ms / 2000, (ms / 2 % 1000) * 1000000L };

	if (try_setup(r->fd, s))
		return -1;
	r->context = s->context;
	pthread_create(&log_thread, NULL, logger, r);
	if (s->context == LATSCOPE_CTX_USER)
		pthread_create(&resp_thread, NULL, responder, r);
	if (ioctl(r->fd, LATSCOPE_IOC_START))
		return -1;
	nanosleep(&d, NULL);
	snapshot(r, s);
	nanosleep(&d, NULL);
	r->stop = true;
	r->stop_before = now_ns();
	if (ioctl(r->fd, LATSCOPE_IOC_STOP))
		return -1;
	r->stop_after = now_ns();
	if (s->context == LATSCOPE_CTX_USER)
		pthread_join(resp_thread, NULL);
	pthread_join(log_thread, NULL);
	return 0;
}


static const char *const ctx_name[] = { "irq", "kernel", "user" };

static void test_context(struct tally *t, uint32_t context, uint32_t cpu)
{
	struct latscope_setup s = base_setup(context, cpu);
	struct run r = { .fd = open(DEV, O_RDWR) };
	struct latscope_result res = { .size = sizeof(res) };
	__u64 *cells, expect, lo, hi;
	char name[64];
	int ms = 2500, err;

	snprintf(name, sizeof(name), "%s: run", ctx_name[context]);
	err = measure(&r, &s, ms);
	check(t, !err, name, "errno %d", errno);
	if (err)
		goto out;

	snprintf(name, sizeof(name), "%s: SNAPSHOT mid-run adds up", ctx_name[context]);
	check(t, !r.snap_errno && (r.snap_flags & LATSCOPE_RESULT_SNAPSHOT) && r.snap_adds_up,
	      name, "errno %d, flags %#x, %llu samples", r.snap_errno, r.snap_flags,
	      r.snap_samples);

	snprintf(name, sizeof(name), "%s: small histogram buffer", ctx_name[context]);
	cells = calloc(1, 8);
	res.histogram = (uintptr_t)cells;
	res.histogram_size = 8;
	err = ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	check(t, err == ENOSPC && res.histogram_size == (__u64)res.hist_count * res.hist_cells * 8,
	      name, "errno %d, needed %llu", err, res.histogram_size);
	free(cells);

	snprintf(name, sizeof(name), "%s: result", ctx_name[context]);
	cells = calloc(1, res.histogram_size);
	res.histogram = (uintptr_t)cells;
	err = ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	check(t, !err && res.context == context && res.cpu == cpu, name, "errno %d", err);

	snprintf(name, sizeof(name), "%s: min <= avg <= max", ctx_name[context]);
	check(t, res.latency.samples &&
	      res.latency.min_ns <= res.latency.sum_ns / (__s64)res.latency.samples &&
	      res.latency.sum_ns / (__s64)res.latency.samples <= res.latency.max_ns,
	      name, "samples %llu min %lld sum %lld max %lld",
	      res.latency.samples, res.latency.min_ns, res.latency.sum_ns, res.latency.max_ns);

	/*
	 * An event per period from the warm-up's end (event 0 plus 200 ms)
	 * to the STOP, timed on the same clock as the driver's: however late
	 * a loaded host woke this thread, not a guess from the run's length.
	 */
	expect = res.start_ns + s.warmup_ns;
	lo = r.stop_before > expect ? (r.stop_before - expect) / PERIOD_NS : 0;
	hi = r.stop_after > expect ? (r.stop_after - expect) / PERIOD_NS + 1 : 1;
	snprintf(name, sizeof(name), "%s: event count", ctx_name[context]);
	check(t, res.events + 1 >= lo && res.events <= hi,
	      name, "%llu events, expected %llu to %llu", res.events, lo, hi);

	snprintf(name, sizeof(name), "%s: samples + overruns = events", ctx_name[context]);
	check(t, res.latency.samples + res.overruns <= res.events &&
	      res.latency.samples + res.overruns + 2 >= res.events, name,
	      "%llu + %llu vs %llu",
	      res.latency.samples, res.overruns, res.events);

	snprintf(name, sizeof(name), "%s: histogram adds up", ctx_name[context]);
	check(t, hist_total(cells, res.hist_cells, &res.latency) == res.latency.samples &&
	      (res.hist_count == 1 ||
	       hist_total(cells + res.hist_cells, res.hist_cells, &res.irq) == res.irq.samples),
	      name, "cells do not sum to %llu", res.latency.samples);
	free(cells);

	snprintf(name, sizeof(name), "%s: bulk stream lossless", ctx_name[context]);
	check(t, r.logger_eof && !res.bulk_dropped && r.bulk_samples == res.latency.samples &&
	      r.bulk_records >= 2 && r.bulk_max == res.latency.max_ns, name,
	      "eof %d, %llu records, %llu samples of %llu, dropped %llu",
	      r.logger_eof, r.bulk_records, r.bulk_samples, res.latency.samples, res.bulk_dropped);

	if (context != LATSCOPE_CTX_IRQ) {
		snprintf(name, sizeof(name), "%s: irq part recorded", ctx_name[context]);
		check(t, res.hist_count == 2 && res.irq.samples > 0 &&
		      res.irq.min_ns <= res.latency.min_ns, name,
		      "hist_count %u, irq samples %llu", res.hist_count, res.irq.samples);
	}
	if (context == LATSCOPE_CTX_USER) {
		check(t, r.responder_errno == ECANCELED, "user: responder told to exit",
		      "errno %d", r.responder_errno);
		printf("# user: %llu answered, %llu samples\n",
		       r.answered, res.latency.samples);
	}
	printf("# %s CPU%u: %llu samples, min %.3f avg %.3f max %.3f us, %llu overruns\n",
	       ctx_name[context], cpu, res.latency.samples, res.latency.min_ns / 1000.0,
	       res.latency.sum_ns / 1000.0 / res.latency.samples, res.latency.max_ns / 1000.0,
	       res.overruns);
out:
	close(r.fd);
}

/* The samples of a tail. */
static __u64 tail_total(const __u64 *tail)
{
	__u64 total = 0;
	unsigned int i;

	for (i = 0; i < LATSCOPE_TAIL_BUCKETS; i++)
		total += tail[i];
	return total;
}

/*
 * The logarithmic tail: a kernel-context run with a 1 us histogram puts
 * nearly every sample in it. Its buckets add up to the overflow, for the
 * latency and the irq part; the maximum is in the last non-empty bucket;
 * a small tail buffer is ENOSPC with the size needed; and a caller built
 * before the tail (a 352-byte result) gets its result and not one byte
 * past it.
 */
static void test_tail(struct tally *t, uint32_t cpu)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_KERNEL, cpu);
	struct run r = { .fd = open(DEV, O_RDWR) };
	struct latscope_result res = { .size = sizeof(res) };
	union {
		struct latscope_result res;
		unsigned char bytes[sizeof(struct latscope_result) + 64];
	} old;
	__u64 *cells = calloc(2, sizeof(*cells));
	__u64 *tail = calloc(2 * LATSCOPE_TAIL_BUCKETS, sizeof(*tail));
	unsigned int i, top = 0, spoilt = 0;
	int err;

	s.hist_cells = 1;
	err = measure(&r, &s, 1500);
	check(t, !err && cells && tail, "tail: run", "errno %d", errno);
	if (err || !cells || !tail)
		goto out;

	res.tail = (uintptr_t)tail;
	res.tail_size = 8;
	err = ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	check(t, err == ENOSPC && res.tail_size == 2 * LATSCOPE_TAIL_BUCKETS * 8,
	      "tail: small tail buffer", "errno %d, needed %llu", err, res.tail_size);

	res.histogram = (uintptr_t)cells;
	res.histogram_size = 2 * sizeof(*cells);
	res.tail_size = 2 * LATSCOPE_TAIL_BUCKETS * sizeof(*tail);
	err = ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	check(t, !err && res.size == LATSCOPE_RESULT_SIZE_VER3 &&
	      res.tail_buckets == LATSCOPE_TAIL_BUCKETS &&
	      res.tail_sub_bits == LATSCOPE_TAIL_SUB_BITS, "tail: result", "errno %d, size %u",
	      err, res.size);
	check(t, !err && res.latency.overflow > 0 &&
	      tail_total(tail) == res.latency.overflow &&
	      tail_total(tail + LATSCOPE_TAIL_BUCKETS) == res.irq.overflow &&
	      hist_total(cells, 1, &res.latency) == res.latency.samples,
	      "tail: buckets add up to the overflow, latency and irq",
	      "latency %llu of %llu, irq %llu of %llu", tail_total(tail), res.latency.overflow,
	      tail_total(tail + LATSCOPE_TAIL_BUCKETS), res.irq.overflow);
	for (i = 0; i < LATSCOPE_TAIL_BUCKETS; i++)
		if (tail[i])
			top = i;
	/* lo(i) as the uapi header gives it */
#define TAIL_LO(i) ((i) < 16 ? (__u64)(i) : (__u64)(16 + (i) % 16) << ((i) / 16 - 1))
	check(t, !err && TAIL_LO(top) <= (__u64)res.latency.max_ns &&
	      (__u64)res.latency.max_ns < TAIL_LO(top + 1),
	      "tail: the maximum is in the last non-empty bucket", "max %lld, bucket %u [%llu, %llu)",
	      res.latency.max_ns, top, TAIL_LO(top), TAIL_LO(top + 1));
#undef TAIL_LO

	memset(&old, 0xa5, sizeof(old));
	memset(&old.res, 0, LATSCOPE_RESULT_SIZE_VER0);
	old.res.size = LATSCOPE_RESULT_SIZE_VER0;
	err = ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &old) ? errno : 0;
	for (i = LATSCOPE_RESULT_SIZE_VER0; i < sizeof(old.bytes); i++)
		spoilt += old.bytes[i] != 0xa5;
	check(t, !err && !spoilt && old.res.latency.samples == res.latency.samples &&
	      old.res.latency.overflow == res.latency.overflow,
	      "tail: a caller older than the tail gets its 352 bytes, no more",
	      "errno %d, %u bytes written past them", err, spoilt);
	/* The number stays VER0's; one built with the grown size works too. */
	err = ioctl(r.fd, _IOC(_IOC_READ | _IOC_WRITE, LATSCOPE_IOC_MAGIC, 4, sizeof(res)), &res) ?
	      errno : 0;
	check(t, LATSCOPE_IOC_GET_RESULT == _IOC(_IOC_READ | _IOC_WRITE, LATSCOPE_IOC_MAGIC, 4,
						 LATSCOPE_RESULT_SIZE_VER0) && !err &&
	      tail_total(tail) == res.latency.overflow,
	      "tail: GET_RESULT's number is VER0's, and one with the size of VER1 works too",
	      "errno %d", err);
out:
	free(cells);
	free(tail);
	close(r.fd);
}

/* The sum of a record's parts: the latency, when they are all known. */
static __s64 why_parts(const struct latscope_why *w)
{
	return w->irq_ns + w->wake_ns + w->sched_ns + w->run_ns;
}

/*
 * The worst-sample recorder in each context: as many records as asked
 * (or samples), the worst first, the first one the maximum; the parts the
 * context has are known and add up to the latency; a small buffer is
 * ENOSPC with the size needed; a caller from before the recorder gets
 * its 400 bytes, no more; and no record in a run without a recorder.
 */
static void test_why(struct tally *t, uint32_t context, uint32_t cpu)
{
	const char *ctx = ctx_name[context];
	struct latscope_setup s = base_setup(context, cpu);
	struct run r = { .fd = open(DEV, O_RDWR) };
	struct latscope_result res = { .size = sizeof(res) };
	struct latscope_why *why = calloc(4, sizeof(*why));
	union {
		struct latscope_result res;
		unsigned char bytes[sizeof(struct latscope_result) + 64];
	} old;
	__u32 want = LATSCOPE_WHY_HAS_IRQ, i, sorted = 1, parts = 1, cut = 0, spoilt = 0;
	char name[96];
	int err;

	s.why_records = 4;
	/* The responder thread inherits it: its part is on the measured CPU. */
	pin_self(cpu);
	err = measure(&r, &s, 1500);
	unpin_self();
	snprintf(name, sizeof(name), "why %s: run with 4 worst samples explained", ctx);
	check(t, !err && why, name, "errno %d", errno);
	if (err || !why)
		goto out;

	res.why = (uintptr_t)why;
	res.why_size = sizeof(*why);
	err = ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	snprintf(name, sizeof(name), "why %s: small record buffer", ctx);
	check(t, err == ENOSPC && res.why_size == res.why_count * sizeof(*why) &&
	      res.why_count == 4, name, "errno %d, %u records, needed %llu", err,
	      res.why_count, res.why_size);

	res.why_size = 4 * sizeof(*why);
	err = ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	snprintf(name, sizeof(name), "why %s: 4 records, the first the maximum", ctx);
	check(t, !err && res.why_records == 4 && res.why_record_size == sizeof(*why) &&
	      res.why_count == 4 && why[0].latency_ns == res.latency.max_ns &&
	      why[0].ideal_ns == res.latency.peak_ns, name,
	      "errno %d, %u of %u records of %u bytes, first %lld ns at %llu, max %lld at %llu",
	      err, res.why_count, res.why_records, res.why_record_size, why[0].latency_ns,
	      why[0].ideal_ns, res.latency.max_ns, res.latency.peak_ns);
	if (err)
		goto out;
	snprintf(name, sizeof(name), "why %s: irqs, softirqs, switches and hrtimers seen", ctx);
	check(t, (res.why_seen & (LATSCOPE_WHY_SEEN_IRQ | LATSCOPE_WHY_SEEN_SOFTIRQ |
				  LATSCOPE_WHY_SEEN_SWITCH | LATSCOPE_WHY_SEEN_HRTIMER)) ==
	      (LATSCOPE_WHY_SEEN_IRQ | LATSCOPE_WHY_SEEN_SOFTIRQ | LATSCOPE_WHY_SEEN_SWITCH |
	       LATSCOPE_WHY_SEEN_HRTIMER), name, "seen %#x", res.why_seen);
	if (context != LATSCOPE_CTX_IRQ)
		want |= LATSCOPE_WHY_HAS_WAKE | LATSCOPE_WHY_HAS_RUN;
	for (i = 0; i < res.why_count; i++) {
		if (i && why[i].latency_ns > why[i - 1].latency_ns)
			sorted = 0;
		/*
		 * A record whose window the flight record lost (a loaded host
		 * delays the recorder, which holds the record meanwhile) says
		 * so, LATSCOPE_WHY_CUT; every other one knows its parts.
		 */
		if (why[i].flags & LATSCOPE_WHY_CUT) {
			cut++;
		} else if ((why[i].flags & want) != want ||
			   why[i].flags & LATSCOPE_WHY_ELSEWHERE ||
			   why[i].window_ns != (__u64)why[i].latency_ns ||
			   llabs(why_parts(&why[i]) - why[i].latency_ns) > 1000 ||
			   !why[i].realtime_ns) {
			parts = 0;
		}
		printf("# why %s: %lld ns: irq %lld wake %lld sched %lld run %lld, flags %#x, %u items, interrupted %d %.16s %.64s\n",
		       ctx, why[i].latency_ns, why[i].irq_ns, why[i].wake_ns, why[i].sched_ns,
		       why[i].run_ns, why[i].flags, why[i].nr_items, why[i].pid, why[i].comm,
		       why[i].where);
	}
	snprintf(name, sizeof(name), "why %s: records worst first", ctx);
	check(t, sorted, name, "out of order");
	snprintf(name, sizeof(name),
		 "why %s: the context's parts known, adding up to the latency, but in a cut record",
		 ctx);
	check(t, parts && cut < res.why_count, name, "want flags %#x; %u of %u cut", want, cut,
	      res.why_count);
	if (context == LATSCOPE_CTX_IRQ) {
		snprintf(name, sizeof(name), "why %s: the irq part is the sample", ctx);
		check(t, why[0].irq_ns == why[0].latency_ns && !why[0].wake_ns, name,
		      "irq %lld of %lld, wake %lld", why[0].irq_ns, why[0].latency_ns,
		      why[0].wake_ns);
	}

	memset(&old, 0xa5, sizeof(old));
	memset(&old.res, 0, LATSCOPE_RESULT_SIZE_VER1);
	old.res.size = LATSCOPE_RESULT_SIZE_VER1;
	err = ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &old) ? errno : 0;
	for (i = LATSCOPE_RESULT_SIZE_VER1; i < sizeof(old.bytes); i++)
		spoilt += old.bytes[i] != 0xa5;
	snprintf(name, sizeof(name), "why %s: a caller older than the recorder gets its 400 bytes",
		 ctx);
	check(t, !err && !spoilt && old.res.latency.max_ns == res.latency.max_ns, name,
	      "errno %d, %u bytes written past them", err, spoilt);

	/* The same session set up again without a recorder keeps none. */
	s.why_records = 0;
	r = (struct run){ .fd = r.fd };
	err = measure(&r, &s, 600);
	memset(why, 0, 4 * sizeof(*why));
	res = (struct latscope_result){ .size = sizeof(res), .why = (uintptr_t)why,
					.why_size = 4 * sizeof(*why) };
	err = err ? errno : ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	snprintf(name, sizeof(name), "why %s: no recorder, no record", ctx);
	check(t, !err && !res.why_count && !res.why_seen && !res.why_records && !why[0].latency_ns,
	      name, "errno %d, %u records, seen %#x", err, res.why_count, res.why_seen);
out:
	free(why);
	close(r.fd);
}

static void test_bad_setup(struct tally *t)
{
	int fd = open(DEV, O_RDWR);
	struct latscope_setup s;
	struct {
		struct latscope_setup s;
		__u64 future;
	} big;
	struct latscope_result res = { .size = sizeof(res) };
	struct pollfd pfd = { .events = POLLIN };
	struct latscope_bulk rec;
	int err, n;

	check(t, fd >= 0, "open", "errno %d", errno);
	s = base_setup(LATSCOPE_CTX_IRQ, 0);
	s.period_ns = 0;
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "setup: period 0 refused", "errno %d", err);
	s = base_setup(LATSCOPE_CTX_IRQ, 4096);
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "setup: CPU 4096 refused", "errno %d", err);
	s = base_setup(7, 0);
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "setup: context 7 refused", "errno %d", err);
	s = base_setup(LATSCOPE_CTX_IRQ, 0);
	s.flags = 0x80;
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "setup: unknown flag refused", "errno %d", err);
	s = base_setup(LATSCOPE_CTX_IRQ, 0);
	s.why_records = LATSCOPE_WHY_MAX_RECORDS + 1;
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "setup: 65 worst samples refused", "errno %d", err);
	s = base_setup(LATSCOPE_CTX_IRQ, 0);
	s.why_records = 1;
	s.why_flags = 1;
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "setup: a recorder flag refused", "errno %d", err);
	s = base_setup(LATSCOPE_CTX_IRQ, 0);
	s.size = 8;
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "setup: size 8 refused", "errno %d", err);
	big.s = base_setup(LATSCOPE_CTX_IRQ, 0);
	big.s.size = sizeof(big);
	big.future = 1;
	err = try_setup(fd, &big.s);
	check(t, err == E2BIG, "setup: unknown non-zero tail refused", "errno %d", err);
	big.future = 0;
	err = try_setup(fd, &big.s);
	check(t, err == 0, "setup: larger struct with zero tail accepted", "errno %d", err);
	/* A caller from before the GPIO part: its own number and size. */
	s = base_setup(LATSCOPE_CTX_IRQ, 0);
	s.size = LATSCOPE_SETUP_SIZE_VER0;
	err = ioctl(fd, _IOC(_IOC_WRITE, LATSCOPE_IOC_MAGIC, 1, LATSCOPE_SETUP_SIZE_VER0), &s) ?
	      errno : 0;
	check(t, err == 0, "setup: a timer-only caller's number and size (88) accepted",
	      "errno %d", err);
	err = ioctl(fd, _IOC(_IOC_READ, LATSCOPE_IOC_MAGIC, 1, sizeof(s)), &s) ? errno : 0;
	check(t, err == ENOTTY, "setup: its number with another direction is not SETUP",
	      "errno %d", err);
	err = ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, LATSCOPE_IOC_MAGIC, 7, 8), &s) ? errno : 0;
	check(t, err == ENOTTY, "an unknown number is ENOTTY", "errno %d", err);
	err = ioctl(fd, _IO(LATSCOPE_IOC_MAGIC, 0x3f)) ? errno : 0;
	check(t, err == ENOTTY, "unknown ioctl is ENOTTY", "errno %d", err);
	close(fd);

	fd = open(DEV, O_RDWR);
	pfd.fd = fd;
	err = ioctl(fd, LATSCOPE_IOC_START) ? errno : 0;
	check(t, err == EINVAL, "start before setup refused", "errno %d", err);
	err = ioctl(fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	check(t, err == EINVAL, "result before setup refused", "errno %d", err);
	err = read(fd, &rec, sizeof(rec)) < 0 ? errno : 0;
	check(t, err == EINVAL, "read before setup refused", "errno %d", err);
	n = poll(&pfd, 1, 1000);
	check(t, n == 1 && (pfd.revents & POLLERR), "poll before setup is POLLERR",
	      "poll %d, revents %#x", n, pfd.revents);
	err = read(fd, &rec, sizeof(rec) - 1) < 0 ? errno : 0;
	check(t, err == EINVAL, "read shorter than a record refused", "errno %d", err);
	close(fd);
}

static void test_info(struct tally *t)
{
	struct latscope_info info;
	char modver[64];
	int fd = open(DEV, O_RDWR), err;

	err = ioctl(fd, LATSCOPE_IOC_GET_INFO, &info) ? errno : 0;
	check(t, !err && info.abi_version == LATSCOPE_ABI_VERSION &&
	      info.setup_size == sizeof(struct latscope_setup) &&
	      info.result_size == sizeof(struct latscope_result) &&
	      info.timer_resolution_ns > 0,
	      "info", "errno %d abi %u", err, info.abi_version);
	printf("# driver %s, ABI %u, timer resolution %u ns\n", info.version,
	       info.abi_version, info.timer_resolution_ns);
	close(fd);
	/* One version: GET_INFO's is MODULE_VERSION's (scripts/version.sh). */
	fd = open("/sys/module/latscope/version", O_RDONLY);
	memset(modver, 0, sizeof(modver));
	if (fd >= 0 && read(fd, modver, sizeof(modver) - 1) > 0)
		modver[strcspn(modver, "\n")] = '\0';
	if (fd >= 0)
		close(fd);
	check(t, !err && !strncmp(modver, info.version, sizeof(info.version)),
	      "info: the version is MODULE_VERSION", "GET_INFO '%.32s', module '%s'",
	      info.version, modver);
}

/* ---- the noise source (DOC: noise) ---- */

static struct latscope_setup noise_setup(uint32_t context, uint32_t cpu, __u64 runtime)
{
	struct latscope_setup s = base_setup(context, cpu);

	s.source = LATSCOPE_SRC_NOISE;
	s.period_ns = 10 * PERIOD_NS;
	s.priority = 0;
	s.noise.runtime_ns = runtime;
	return s;
}

static int noise_report(int fd, __u64 from, __u64 to, const struct latscope_noise_gap *g,
			__u32 n)
{
	struct latscope_noise_report rep = {
		.gaps = (uintptr_t)g, .count = n, .from_ns = from, .to_ns = to,
	};

	return ioctl(fd, LATSCOPE_IOC_NOISE, &rep) ? errno : 0;
}

/* Reads the clock for @ms in reports of 10 ms, as the CLI's thread does: 0 or an errno. */
static int noise_spin(int fd, int ms)
{
	__u64 end = now_ns() + (__u64)ms * 1000000, from, t;
	int err = 0;

	while (!err && now_ns() < end) {
		from = now_ns();
		do
			t = now_ns();
		while (t - from < 10 * PERIOD_NS);
		err = noise_report(fd, from, t, NULL, 0);
	}
	return err;
}

/* The records a stopped noise session has left: their runtime, and how many. */
static __u64 noise_records(int fd, int *n)
{
	struct latscope_noise_bulk rec[8];
	__u64 runtime = 0;
	ssize_t got;
	int i;

	*n = 0;
	while ((got = read(fd, rec, sizeof(rec))) > 0) {
		if (got % sizeof(rec[0]))
			return 0;
		for (i = 0; i < got / (ssize_t)sizeof(rec[0]); i++)
			runtime += rec[i].runtime_ns;
		*n += got / sizeof(rec[0]);
	}
	return runtime;
}

static void test_noise_user(struct tally *t, uint32_t cpu, uint32_t ncpus)
{
	struct latscope_setup s = noise_setup(LATSCOPE_CTX_USER, cpu, 0);
	struct latscope_result res = { .size = sizeof(res) };
	struct latscope_pulse pulse = { 0 };
	struct latscope_noise_gap g[LATSCOPE_NOISE_MAX_GAPS + 1];
	struct latscope_bulk small;
	int fd = open(DEV, O_RDWR), err, n;
	__u64 from, to, runtime;

	check(t, !try_setup(fd, &s), "noise user: setup", "errno %d", errno);
	err = ioctl(fd, LATSCOPE_IOC_PULSE, &pulse) ? errno : 0;
	check(t, err == EINVAL, "noise user: PULSE refused", "errno %d", err);
	err = noise_report(fd, 0, 0, NULL, 0);
	check(t, err == EINVAL, "noise user: NOISE before START refused", "errno %d", err);
	check(t, !ioctl(fd, LATSCOPE_IOC_START), "noise user: start", "errno %d", errno);
	pin_self(cpu);
	/* Past the warm-up (20 periods of 10 ms), then a gap of 20 us handed in. */
	err = noise_spin(fd, 400);
	check(t, !err, "noise user: 400 ms of reports", "errno %d", err);
	from = now_ns();
	while (now_ns() < from + 30000)
		;
	g[0] = (struct latscope_noise_gap){ from + 1000, from + 21000 };
	to = now_ns();
	err = noise_report(fd, from, to, g, 1);
	check(t, !err, "noise user: a gap handed in", "errno %d", err);
	/* Hostile reports, each refused whole. */
	err = noise_report(fd, to, now_ns(), g, LATSCOPE_NOISE_MAX_GAPS + 1);
	check(t, err == EINVAL, "noise user: too many gaps refused", "errno %d", err);
	err = noise_report(fd, to, now_ns(), (void *)8, 1);
	check(t, err == EFAULT, "noise user: gaps at a bad address", "errno %d", err);
	err = noise_report(fd, from, now_ns(), NULL, 0);
	check(t, err == EINVAL, "noise user: before the last report's end refused", "errno %d", err);
	err = noise_report(fd, now_ns(), now_ns() + 1000000000ULL, NULL, 0);
	check(t, err == EINVAL, "noise user: a report from the future refused", "errno %d", err);
	from = now_ns();
	while (now_ns() < from + 2000)
		;
	g[0] = (struct latscope_noise_gap){ from, from + 1000 };
	err = noise_report(fd, from, now_ns(), g, 1);
	check(t, err == EINVAL, "noise user: a gap below the threshold refused", "errno %d", err);
	{
		struct latscope_noise_report rep = { .flags = 1, .from_ns = now_ns() };

		rep.to_ns = rep.from_ns;
		err = ioctl(fd, LATSCOPE_IOC_NOISE, &rep) ? errno : 0;
		check(t, err == EINVAL, "noise user: a flag refused", "errno %d", err);
	}
	if (ncpus > 1) {
		pin_self(cpu ? 0 : 1);
		err = noise_report(fd, now_ns(), now_ns(), NULL, 0);
		check(t, err == EXDEV, "noise user: a report from another CPU refused", "errno %d",
		      err);
	}
	unpin_self();
	check(t, !ioctl(fd, LATSCOPE_IOC_STOP), "noise user: stop", "errno %d", errno);
	err = read(fd, &small, sizeof(small)) < 0 ? errno : 0;
	check(t, err == EINVAL, "noise user: a read smaller than a noise record refused",
	      "errno %d", err);
	runtime = noise_records(fd, &n);
	check(t, !ioctl(fd, LATSCOPE_IOC_GET_RESULT, &res), "noise user: result", "errno %d", errno);
	check(t, res.size == LATSCOPE_RESULT_SIZE_VER3 && res.hist_count == 1 &&
	      res.latency.samples == 1 && res.latency.max_ns == 20000 &&
	      res.noise.noise_ns == 20000 && res.events == 1,
	      "noise user: the one gap, the only sample", "size %u, %llu samples, max %lld",
	      res.size, res.latency.samples, res.latency.max_ns);
	check(t, n > 0 && runtime == res.noise.runtime_ns && runtime >= 100 * PERIOD_NS,
	      "noise user: the records hold the runtime", "%d records, %llu of %llu ns", n,
	      runtime, res.noise.runtime_ns);
	close(fd);
}

static void test_noise_kernel(struct tally *t, uint32_t cpu)
{
	struct latscope_setup s = noise_setup(LATSCOPE_CTX_KERNEL, cpu, 2 * PERIOD_NS);
	union {
		struct latscope_result res;
		unsigned char bytes[sizeof(struct latscope_result)];
	} old;
	struct latscope_result res = { .size = sizeof(res) };
	int fd = open(DEV, O_RDWR), i, n;
	__u64 runtime;
	bool untouched = true;

	s.priority = kthread_prio;
	check(t, !try_setup(fd, &s), "noise kernel: setup", "errno %d", errno);
	check(t, !ioctl(fd, LATSCOPE_IOC_START), "noise kernel: start", "errno %d", errno);
	/* Until it has read three runtimes, 30 s at most. */
	for (i = 0; i < 3000; i++) {
		if (!ioctl(fd, LATSCOPE_IOC_SNAPSHOT, &res) && res.noise.runtime_ns >= 6 * PERIOD_NS)
			break;
		usleep(10000);
	}
	check(t, !ioctl(fd, LATSCOPE_IOC_STOP), "noise kernel: stop", "errno %d", errno);
	runtime = noise_records(fd, &n);
	check(t, !ioctl(fd, LATSCOPE_IOC_GET_RESULT, &res), "noise kernel: result", "errno %d",
	      errno);
	check(t, res.noise.runtime_ns >= 6 * PERIOD_NS && runtime == res.noise.runtime_ns &&
	      res.events == res.latency.samples &&
	      res.noise.runtime_per_period_ns == 2 * PERIOD_NS &&
	      res.noise.threshold_ns == LATSCOPE_NOISE_DEFAULT_THRESHOLD_NS,
	      "noise kernel: read, its records and result agree",
	      "runtime %llu (records %llu), %llu events, %llu samples", res.noise.runtime_ns,
	      runtime, res.events, res.latency.samples);
	/* A caller of VER2 gets nothing past it. */
	memset(&old, 0xa5, sizeof(old));
	memset(&old.res, 0, LATSCOPE_RESULT_SIZE_VER2);
	old.res.size = LATSCOPE_RESULT_SIZE_VER2;
	check(t, !ioctl(fd, LATSCOPE_IOC_GET_RESULT, &old.res), "noise kernel: VER2 result",
	      "errno %d", errno);
	for (i = LATSCOPE_RESULT_SIZE_VER2; i < (int)sizeof(old.bytes); i++)
		untouched &= old.bytes[i] == 0xa5;
	check(t, untouched, "noise kernel: nothing written past a VER2 caller's size", " ");
	close(fd);
}

/*
 * A member of the device's group (uid 1000): a noise run of its own
 * thread, not the driver's busy kernel thread, and its gaps not told
 * apart (no CAP_PERFMON): the flight record's seen bits are 0.
 */
static void test_noise_not_root(struct tally *t, uint32_t cpu)
{
	int status;
	pid_t pid;

	if (chmod(DEV, 0666)) {
		check(t, false, "noise not root: chmod 0666 " DEV, "errno %d", errno);
		return;
	}
	pid = fork();
	if (!pid) {
		struct latscope_result res = { .size = sizeof(res) };
		struct latscope_setup s;
		int fd, k, u, seen = -1;

		if (setgid(1000) || setuid(1000))
			_exit(255);
		fd = open(DEV, O_RDWR);
		s = noise_setup(LATSCOPE_CTX_KERNEL, cpu, 2 * PERIOD_NS);
		k = try_setup(fd, &s);
		s = noise_setup(LATSCOPE_CTX_USER, cpu, 0);
		u = try_setup(fd, &s);
		if (!u && !ioctl(fd, LATSCOPE_IOC_GET_RESULT, &res))
			seen = (int)res.noise.seen;
		_exit((k == EPERM ? 1 : 0) | (!u ? 2 : 0) | (!seen ? 4 : 0));
	}
	waitpid(pid, &status, 0);
	chmod(DEV, 0600);
	check(t, WIFEXITED(status) && WEXITSTATUS(status) == 7,
	      "noise not root: -k refused (EPERM), -u set up, its gaps not told apart",
	      "status %#x", status);
}

static void test_noise_setups(struct tally *t, uint32_t cpu)
{
	struct latscope_setup s;
	int fd = open(DEV, O_RDWR), err;

	s = noise_setup(LATSCOPE_CTX_IRQ, cpu, 0);
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "noise: the irq context refused", "errno %d", err);
	s = noise_setup(LATSCOPE_CTX_KERNEL, cpu, 0);
	s.noise.__reserved[4] = 1;
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "noise: a reserved field refused", "errno %d", err);
	s = base_setup(LATSCOPE_CTX_KERNEL, cpu);
	s.noise.threshold_ns = 1000;
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "noise: a timer setup with a noise block refused", "errno %d", err);
	s = noise_setup(LATSCOPE_CTX_KERNEL, cpu, 20 * PERIOD_NS);
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "noise: a runtime past the period refused", "errno %d", err);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_signal_interrupts_pulse(struct tally *t)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_USER, 0);
	struct latscope_pulse p = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };
	int fd = open(DEV, O_RDWR), err;

	/* Set up but not started: PULSE waits until the alarm. */
	try_setup(fd, &s);
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	err = ioctl(fd, LATSCOPE_IOC_PULSE, &p) ? errno : 0;
	check(t, err == EINTR, "pulse: signal gives EINTR", "errno %d", err);
	close(fd);
}

/* kill -9 of a process in the middle of a user-context run. */
static void test_kill9(struct tally *t)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_USER, 0);
	int status, fd, err;
	pid_t pid = fork();

	if (!pid) {
		struct latscope_pulse p = { 0 };

		fd = open(DEV, O_RDWR);
		if (try_setup(fd, &s) || ioctl(fd, LATSCOPE_IOC_START))
			_exit(1);
		for (;;) {
			ioctl(fd, LATSCOPE_IOC_PULSE, &p);
			p.stamp_ns = now_ns();
		}
	}
	sleep(1);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	check(t, WIFSIGNALED(status), "kill -9: responder killed", "status %#x", status);

	fd = open(DEV, O_RDWR);
	err = try_setup(fd, &s);
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_START) ? errno : 0;
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_STOP) ? errno : 0;
	check(t, !err, "kill -9: new session runs", "errno %d", err);
	close(fd);
}

static int write_file(const char *path, const char *text);

/* Writes @val to the module parameter @name: 0, or -1. */
static int set_param(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/latscope/parameters/%s", name);
	return write_file(path, val);
}

/*
 * In a child as uid 1000 (with the device made 0666 by the caller): the
 * errnos of a timer SETUP, one with a trace threshold, and a GPIO one.
 */
static int not_root_setups(int *timer, int *trace, int *gpio)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_IRQ, 0);
	int fd = open(DEV, O_RDWR);

	if (fd < 0)
		return -1;
	*timer = try_setup(fd, &s);
	s.trace_threshold_ns = 1000000000ULL;
	*trace = try_setup(fd, &s);
	s = base_setup(LATSCOPE_CTX_KERNEL, 0);
	s.source = LATSCOPE_SRC_GPIO;
	*gpio = try_setup(fd, &s);
	close(fd);
	return 0;
}

/* Runs not_root_setups() as uid 1000; its exit status packs the errnos. */
static int not_root_child(int *timer, int *trace, int *gpio)
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		int a, b, c;

		if (setgid(1000) || setuid(1000) || not_root_setups(&a, &b, &c))
			_exit(255);
		/* Three errnos < 64 in one status: 0, EPERM (1) or another. */
		_exit((a ? 1 : 0) | (b == EPERM ? 2 : b ? 4 : 0) | (c == EPERM ? 8 : c ? 16 : 0));
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -1;
	status = WEXITSTATUS(status);
	*timer = status & 1;
	*trace = status & 2 ? EPERM : status & 4 ? -1 : 0;
	*gpio = status & 8 ? EPERM : status & 16 ? -1 : 0;
	return 0;
}

static void test_not_root(struct tally *t)
{
	int status, timer, trace, gpio, ret;
	pid_t pid = fork();

	if (!pid) {
		if (setgid(1000) || setuid(1000))
			_exit(2);
		_exit(open(DEV, O_RDWR) < 0 && errno == EACCES ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	check(t, WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "non-root open refused (mode 0600)", "status %#x", status);

	/* A group that was granted the device: timer runs, not the rest. */
	if (chmod(DEV, 0666)) {
		check(t, false, "chmod 0666 " DEV, "errno %d", errno);
		return;
	}
	ret = not_root_child(&timer, &trace, &gpio);
	check(t, !ret && !timer, "granted device, not root: a timer SETUP works",
	      "ret %d timer %d", ret, timer);
	check(t, !ret && trace == EPERM,
	      "granted device, not root: a trace threshold needs CAP_SYS_ADMIN (EPERM)",
	      "ret %d errno %d", ret, trace);
	check(t, !ret && gpio == EPERM,
	      "granted device, not root: a GPIO source needs CAP_SYS_ADMIN (EPERM)",
	      "ret %d errno %d", ret, gpio);
	/* trusted_group: the device grants it all (the GPIO setup then fails on its lines). */
	ret = set_param("trusted_group", "Y") ? -1 : not_root_child(&timer, &trace, &gpio);
	check(t, !ret && !timer && !trace && gpio != EPERM,
	      "trusted_group=Y: the device alone grants the trace threshold and GPIO",
	      "ret %d timer %d trace %d gpio %d", ret, timer, trace, gpio);
	set_param("trusted_group", "N");
	chmod(DEV, 0600);
}

/* What a why_setups() child packs in its exit status per SETUP. */
enum { SETUP_OK, SETUP_EPERM, SETUP_OTHER };

static int setup_code(int e)
{
	return !e ? SETUP_OK : e == EPERM ? SETUP_EPERM : SETUP_OTHER;
}

/*
 * In a child: becomes uid and gid 1000, a member of no other group, with
 * the capabilities @caps (bits 1 << CAP_*) and no others, opens the
 * device (which group 1000 was granted, as README's Access does) and
 * tries a SETUP with the recorder, then one with a trace threshold too.
 * Returns the exit status: the first's code + 3 * the second's, or 255.
 */
static int why_setups(__u64 caps)
{
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
	struct latscope_setup s = base_setup(LATSCOPE_CTX_IRQ, 0);
	int fd, why, trace;

	/* Kept across setuid() only to be cut down to @caps. */
	if (prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L) || setgroups(0, NULL) ||
	    setgid(1000) || setuid(1000))
		return 255;
	data[0].effective = data[0].permitted = (__u32)caps;
	data[1].effective = data[1].permitted = (__u32)(caps >> 32);
	if (syscall(SYS_capset, &head, data))
		return 255;
	fd = open(DEV, O_RDWR);
	if (fd < 0)
		return 255;
	s.why_records = 4;
	why = setup_code(try_setup(fd, &s));
	s.trace_threshold_ns = 1000000000ULL;
	trace = setup_code(try_setup(fd, &s));
	close(fd);
	return why + 3 * trace;
}

/* Runs why_setups() in a child: -1, or its status. */
static int why_child(__u64 caps, int *why, int *trace)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(why_setups(caps));
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -1;
	*why = WEXITSTATUS(status) % 3;
	*trace = WEXITSTATUS(status) / 3;
	return 0;
}

/*
 * The recorder tells what other tasks and the kernel ran on the CPU: a
 * member of the device's group needs CAP_PERFMON for it (CAP_SYS_ADMIN
 * for the trace threshold), unless trusted_group is set.
 */
static void test_why_access(struct tally *t)
{
	int why, trace, ret;

	if (chown(DEV, 0, 1000) || chmod(DEV, 0660)) {
		check(t, false, "the device granted to group 1000", "errno %d", errno);
		return;
	}
	ret = why_child(0, &why, &trace);
	check(t, !ret && why == SETUP_EPERM,
	      "group member, no capability: the recorder is refused (EPERM)",
	      "ret %d code %d", ret, why);
	ret = why_child(1ULL << CAP_PERFMON, &why, &trace);
	check(t, !ret && why == SETUP_OK && trace == SETUP_EPERM,
	      "group member with CAP_PERFMON: the recorder, not the trace threshold",
	      "ret %d codes %d %d", ret, why, trace);
	ret = set_param("trusted_group", "Y") ? -1 : why_child(0, &why, &trace);
	check(t, !ret && why == SETUP_OK && trace == SETUP_OK,
	      "trusted_group=Y: the device alone grants the recorder",
	      "ret %d codes %d %d", ret, why, trace);
	set_param("trusted_group", "N");
	if (chmod(DEV, 0600) || chown(DEV, 0, 0))
		check(t, false, "the device given back to root", "errno %d", errno);
}

/*
 * max_running_per_cpu: a third session on a CPU with a limit of two is
 * refused at START (EBUSY) until one of the two ends, by STOP or by close.
 */
static void test_running_cap(struct tally *t)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_IRQ, 0);
	int fd[3], e[5], i;

	if (set_param("max_running_per_cpu", "2")) {
		check(t, false, "max_running_per_cpu: settable", "errno %d", errno);
		return;
	}
	for (i = 0; i < 3; i++) {
		fd[i] = open(DEV, O_RDWR);
		try_setup(fd[i], &s);
	}
	e[0] = ioctl(fd[0], LATSCOPE_IOC_START) ? errno : 0;
	e[1] = ioctl(fd[1], LATSCOPE_IOC_START) ? errno : 0;
	e[2] = ioctl(fd[2], LATSCOPE_IOC_START) ? errno : 0;
	ioctl(fd[0], LATSCOPE_IOC_STOP);
	e[3] = ioctl(fd[2], LATSCOPE_IOC_START) ? errno : 0;	/* the slot STOP gave back */
	close(fd[1]);						/* a running session closed */
	try_setup(fd[0], &s);
	e[4] = ioctl(fd[0], LATSCOPE_IOC_START) ? errno : 0;
	check(t, !e[0] && !e[1] && e[2] == EBUSY,
	      "max_running_per_cpu=2: a third running session on CPU0 is refused (EBUSY)",
	      "errnos %d %d %d", e[0], e[1], e[2]);
	check(t, !e[3] && !e[4], "max_running_per_cpu=2: STOP and close give the slot back",
	      "errnos %d %d", e[3], e[4]);
	close(fd[0]);
	close(fd[2]);
	set_param("max_running_per_cpu", "16");
	/* All three gone: two start again. */
	for (i = 0; i < 2; i++) {
		fd[i] = open(DEV, O_RDWR);
		try_setup(fd[i], &s);
		e[i] = ioctl(fd[i], LATSCOPE_IOC_START) ? errno : 0;
	}
	set_param("max_running_per_cpu", "1");
	fd[2] = open(DEV, O_RDWR);
	try_setup(fd[2], &s);
	e[2] = ioctl(fd[2], LATSCOPE_IOC_START) ? errno : 0;
	check(t, !e[0] && !e[1] && e[2] == EBUSY,
	      "max_running_per_cpu: the count survives its changes (2 run, limit 1: refused)",
	      "errnos %d %d %d", e[0], e[1], e[2]);
	set_param("max_running_per_cpu", "16");
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

/* The number in the small file @path, or -1. */
static long long read_number(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoll(buf) : -1;
}

#define CG	"/sys/fs/cgroup"
#define CG_T	CG "/latscope-test"

/*
 * A session's histograms are charged to its opener's memory cgroup: a
 * child in a cgroup of its own sees memory.current grow by at least the
 * two largest histograms (2 x 65536 x 8 bytes) at SETUP.
 */
static void test_memcg(struct tally *t)
{
	long long grew = -1;
	int status;
	pid_t pid;

	mkdir(CG, 0755);
	if ((mount("none", CG, "cgroup2", 0, NULL) && errno != EBUSY) ||
	    write_file(CG "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CG_T, 0755) && errno != EEXIST)) {
		check(t, false, "memcg: a cgroup of its own", "errno %d", errno);
		return;
	}
	pid = fork();
	if (!pid) {
		struct latscope_setup s = base_setup(LATSCOPE_CTX_IRQ, 0);
		char me[32];
		long long before, after;
		int fd;

		snprintf(me, sizeof(me), "%d", getpid());
		if (write_file(CG_T "/cgroup.procs", me))
			_exit(2);
		fd = open(DEV, O_RDWR);
		before = read_number(CG_T "/memory.current");
		s.hist_cells = LATSCOPE_MAX_HIST_CELLS;
		if (fd < 0 || try_setup(fd, &s))
			_exit(3);
		after = read_number(CG_T "/memory.current");
		printf("# memcg: memory.current %lld -> %lld after a SETUP of %u cells\n",
		       before, after, LATSCOPE_MAX_HIST_CELLS);
		fflush(stdout);
		_exit(before >= 0 && after - before >= 2LL * LATSCOPE_MAX_HIST_CELLS * 8 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	grew = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	check(t, grew == 0, "memcg: a session's histograms are charged to its opener's cgroup",
	      "child status %lld", grew);
	rmdir(CG_T);
}

static void test_two_sessions(struct tally *t, uint32_t ncpus)
{
	struct latscope_setup s0 = base_setup(LATSCOPE_CTX_KERNEL, 0);
	struct latscope_setup s1 = base_setup(LATSCOPE_CTX_IRQ, ncpus - 1);
	int a = open(DEV, O_RDWR), b = open(DEV, O_RDWR), err;
	struct latscope_result ra = { .size = sizeof(ra) }, rb = { .size = sizeof(rb) };

	err = try_setup(a, &s0);
	if (!err)
		err = try_setup(b, &s1);
	if (!err)
		err = ioctl(a, LATSCOPE_IOC_START) || ioctl(b, LATSCOPE_IOC_START) ? errno : 0;
	if (!err && !(wait_measured(a) && wait_measured(b)))
		err = ETIMEDOUT;
	if (!err)
		err = ioctl(a, LATSCOPE_IOC_STOP) || ioctl(b, LATSCOPE_IOC_STOP) ? errno : 0;
	if (!err)
		err = ioctl(a, LATSCOPE_IOC_GET_RESULT, &ra) ||
		      ioctl(b, LATSCOPE_IOC_GET_RESULT, &rb) ? errno : 0;
	check(t, !err && ra.latency.samples && rb.latency.samples && rb.cpu == ncpus - 1,
	      "two sessions at once", "errno %d, samples %llu/%llu",
	      err, ra.latency.samples, rb.latency.samples);
	close(a);
	close(b);
}

/* Reads a small file into @buf; returns its length or -1. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

#define TRACING "/sys/kernel/tracing/"

/* A 1 ns threshold fires at once: tracing stops with our marker last. */
static void test_trace_threshold(struct tally *t)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_IRQ, 0);
	struct latscope_result res = { .size = sizeof(res) };
	static char trace[1 << 16];
	char on[8];
	int fd = open(DEV, O_RDWR), err;

	write_file(TRACING "trace", "");
	write_file(TRACING "tracing_on", "1");
	s.warmup_ns = 0;
	s.flags = LATSCOPE_SETUP_NO_WARMUP;
	s.trace_threshold_ns = 1;
	err = try_setup(fd, &s);
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_START) ? errno : 0;
	if (!err && !wait_measured(fd))
		err = ETIMEDOUT;
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_STOP) ? errno : 0;
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	check(t, !err && (res.flags & LATSCOPE_RESULT_TRACE_FIRED) && res.trace_sample_ns > 1,
	      "trace threshold: result says it fired", "errno %d, flags %#x, sample %lld",
	      err, res.flags, res.trace_sample_ns);
	close(fd);

	if (read_file(TRACING "tracing_on", on, sizeof(on)) < 0) {
		printf("# no tracefs in this kernel: trace buffer not checked\n");
		return;
	}
	read_file(TRACING "trace", trace, sizeof(trace));
	check(t, on[0] == '0' && strstr(trace, "latscope: CPU"),
	      "trace threshold: tracing stopped at the marker",
	      "tracing_on %c, marker %s", on[0], strstr(trace, "latscope:") ? "found" : "missing");
	write_file(TRACING "tracing_on", "1");
}

/* Taking the measured CPU offline ends the session with an error. */
static void test_cpu_offline(struct tally *t, uint32_t cpu)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_KERNEL, cpu);
	struct latscope_result res = { .size = sizeof(res) };
	char path[64];
	int fd = open(DEV, O_RDWR), err, stop_err;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	err = try_setup(fd, &s);
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_START) ? errno : 0;
	if (!err && !wait_measured(fd))
		err = ETIMEDOUT;
	if (write_file(path, "0")) {
		printf("# CPU%u cannot go offline here: hotplug not checked\n", cpu);
		close(fd);
		return;
	}
	stop_err = ioctl(fd, LATSCOPE_IOC_STOP) ? errno : 0;
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	check(t, !err && stop_err == ENODEV && (res.flags & LATSCOPE_RESULT_CPU_OFFLINE) &&
	      res.events > 0, "CPU offline ends the session",
	      "errno %d, stop errno %d, flags %#x", err, stop_err, res.flags);
	err = try_setup(fd, &s);
	check(t, err == EINVAL, "CPU offline: setup on it refused", "errno %d", err);
	close(fd);
	check(t, !write_file(path, "1"), "CPU back online", "errno %d", errno);
}

#define RELEASE "/sys/class/misc/latscope/release"

/* The first character of @path, or 0. */
static char read_char(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY);

	if (fd >= 0 && read(fd, &c, 1) != 1)
		c = 0;
	if (fd >= 0)
		close(fd);
	return c;
}

/*
 * A release for rmmod: the running session ends (STOP says ESHUTDOWN, the
 * result is flagged and kept), opens are refused, and the writer waits
 * until the session's file is closed; writing 0 lets opens in again.
 */
static void test_release(struct tally *t, uint32_t cpu)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_KERNEL, cpu);
	struct latscope_result res = { .size = sizeof(res) };
	struct latscope_bulk rec;
	int fd = open(DEV, O_RDWR), err, stop_err, other, st = -1, i;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	pid_t pid;

	check(t, read_char(RELEASE) == '0', "release: 0 at first", "read '%c'",
	      read_char(RELEASE));
	err = try_setup(fd, &s);
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_START) ? errno : 0;
	if (!err && !wait_measured(fd))
		err = ETIMEDOUT;
	pid = fork();
	if (pid == 0) {
		close(fd);
		/* It waits 10 s for the close: a slow host may need more. */
		for (i = 0; i < 6; i++)
			if (!write_file(RELEASE, "1"))
				_exit(0);
		_exit(1);
	}
	/* The run ends: its stream does, each wait bounded. */
	while (!err && poll(&pfd, 1, 30000) == 1 && read(fd, &rec, sizeof(rec)) > 0)
		;
	stop_err = ioctl(fd, LATSCOPE_IOC_STOP) ? errno : 0;
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_GET_RESULT, &res) ? errno : 0;
	check(t, !err && stop_err == ESHUTDOWN && (res.flags & LATSCOPE_RESULT_RELEASED) &&
	      res.latency.samples > 0, "release ends the run, its figures kept",
	      "errno %d, stop errno %d, flags %#x, %llu samples", err, stop_err, res.flags,
	      (unsigned long long)res.latency.samples);
	other = open(DEV, O_RDWR);
	check(t, other < 0 && errno == ESHUTDOWN, "released: open refused",
	      "fd %d errno %d", other, errno);
	if (other >= 0)
		close(other);
	err = try_setup(fd, &s);
	check(t, err == ESHUTDOWN, "released: setup refused", "errno %d", err);
	close(fd);
	if (pid > 0)
		waitpid(pid, &st, 0);
	check(t, pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "release: the writer returns once the file is closed", "status %#x", st);
	check(t, read_char(RELEASE) == '1', "release: reads 1", "read '%c'", read_char(RELEASE));
	check(t, !write_file(RELEASE, "0"), "release: 0 admits again", "errno %d", errno);
	other = open(DEV, O_RDWR);
	check(t, other >= 0, "admitted: open", "errno %d", errno);
	if (other >= 0)
		close(other);
	check(t, write_file(RELEASE, "maybe") && errno == EINVAL, "release: 'maybe' refused",
	      "errno %d", errno);
}

/*
 * A kernel that exports no sched_setattr_nocheck() (5.10) lets a module
 * give its kthread SCHED_FIFO 50 only: START at the default priority says
 * EOPNOTSUPP, at 50 it runs, and the kernel-context tests use 50.
 */
static void probe_kthread_prio(struct tally *t, uint32_t cpu)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_KERNEL, cpu);
	int fd = open(DEV, O_RDWR), err;

	err = try_setup(fd, &s);
	if (!err)
		err = ioctl(fd, LATSCOPE_IOC_START) ? errno : 0;
	if (err == EOPNOTSUPP) {
		printf("# this kernel lets a module give its kthread SCHED_FIFO 50 only\n");
		s.priority = 50;
		err = try_setup(fd, &s);
		if (!err)
			err = ioctl(fd, LATSCOPE_IOC_START) ? errno : 0;
		check(t, !err, "kernel context: the default priority refused (EOPNOTSUPP), 50 runs",
		      "errno %d at 50", err);
		kthread_prio = 50;
	}
	ioctl(fd, LATSCOPE_IOC_STOP);
	close(fd);
}

static int demo(int seconds, uint32_t cpu)
{
	struct latscope_setup s = base_setup(LATSCOPE_CTX_USER, cpu);
	struct run r = { .fd = open(DEV, O_RDWR), .print = true };
	struct latscope_result res = { .size = sizeof(res) };

	if (r.fd < 0) {
		perror(DEV);
		return 1;
	}
	s.warmup_ns = 1000000000ULL;
	printf("user context, 1000 us period, CPU%u, %d s (1 s warm-up)\n", cpu, seconds);
	pin_self(cpu);
	if (measure(&r, &s, seconds * 1000) ||
	    ioctl(r.fd, LATSCOPE_IOC_GET_RESULT, &res)) {
		perror("latscope");
		return 1;
	}
	printf("total: %llu samples, min %.3f avg %.3f max %.3f us, %llu"
	       " overruns; irq part: min %.3f avg %.3f max %.3f us\n",
	       res.latency.samples, res.latency.min_ns / 1000.0,
	       res.latency.sum_ns / 1000.0 / res.latency.samples,
	       res.latency.max_ns / 1000.0, res.overruns, res.irq.min_ns / 1000.0,
	       res.irq.sum_ns / 1000.0 / res.irq.samples, res.irq.max_ns / 1000.0);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct tally t = { 0 };
	uint32_t c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "demo"))
		return demo(atoi(argv[2]), ncpus - 1);

	test_info(&t);
	probe_kthread_prio(&t, ncpus - 1);
	test_bad_setup(&t);
	for (c = LATSCOPE_CTX_IRQ; c <= LATSCOPE_CTX_USER; c++)
		test_context(&t, c, ncpus - 1);
	test_tail(&t, ncpus - 1);
	for (c = LATSCOPE_CTX_IRQ; c <= LATSCOPE_CTX_USER; c++)
		test_why(&t, c, ncpus - 1);
	test_noise_setups(&t, ncpus - 1);
	test_noise_user(&t, ncpus - 1, ncpus);
	test_noise_kernel(&t, ncpus - 1);
	test_signal_interrupts_pulse(&t);
	test_two_sessions(&t, ncpus);
	test_kill9(&t);
	test_not_root(&t);
	test_noise_not_root(&t, ncpus - 1);
	test_why_access(&t);
	test_running_cap(&t);
	test_memcg(&t);
	test_trace_threshold(&t);
	if (ncpus > 1)
		test_cpu_offline(&t, ncpus - 1);
	test_release(&t, ncpus - 1);
	printf("%d passed, %d failed\n", t.passed, t.failed);
	return t.failed ? 1 : 0;
}
