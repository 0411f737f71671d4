// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest user-context responder, for make bench (tests/vm/bench.sh):
 * one thread, SCHED_FIFO 90 on CPU1, mlockall, C-states held off, that
 * wakes every 1 ms for SECS seconds after a 1 s warm-up and stamps each
 * wake-up with clock_gettime(CLOCK_MONOTONIC), in one of two ways:
 *   pulse  from latscope's PULSE (/dev/latscope, the user context, the
 *          timer source): the driver's path without the CLI around it
 *   sleep  from clock_nanosleep(TIMER_ABSTIME): the same loop on the
 *          path cyclictest takes
 * so that latscope's CLI, its driver and cyclictest can be told apart.
 * Prints cyclictest's summary lines (# Min/Avg/Max Latencies, in whole
 * us) and its histogram (1 us cells up to 60 ms, the ones not empty),
 * which scripts/bench.py reads as it reads cyclictest's, and the average
 * to the ns ("# avg: 17.123 us"), which it prefers.
 * Usage: bench_loop pulse|sleep SECS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/latscope.h>

#define PERIOD_NS	1000000ULL
#define WARMUP_NS	1000000000ULL
#define CELLS		60000

static unsigned long long cells[CELLS];

struct figures {
	unsigned long long n, overflows;
	long long min, max, sum;
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void add(struct figures *f, long long lat)
{
	if (!f->n || lat < f->min)
		f->min = lat;
	if (!f->n || lat > f->max)
		f->max = lat;
	f->n++;
	f->sum += lat;
	if (lat >= 0 && lat / 1000 < CELLS)
		cells[lat / 1000]++;
	else
		f->overflows++;
}

static int sleep_loop(unsigned long long secs, struct figures *f)
{
	unsigned long long next = now_ns() + PERIOD_NS;
	unsigned long long warm = next + WARMUP_NS, end = warm + secs * 1000000000ULL;

	for (; next < end; next += PERIOD_NS) {
		struct timespec ts = { next / 1000000000ULL, next % 1000000000ULL };
		int err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		long long lat = (long long)(now_ns() - next);

		if (err) {
			fprintf(stderr, "bench_loop: clock_nanosleep: %s\n", strerror(err));
			return 1;
		}
		if (next >= warm)
			add(f, lat);
	}
	return 0;
}

static int pulse_loop(unsigned long long secs, struct figures *f)
{
	struct latscope_setup s = {
		.size = sizeof(s),
		.context = LATSCOPE_CTX_USER,
		.period_ns = PERIOD_NS,
		.cpu = 1,
		.warmup_ns = WARMUP_NS,
	};
	struct latscope_pulse p = { 0 };
	unsigned long long warm, end;
	int fd = open("/dev/latscope", O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, LATSCOPE_IOC_SETUP, &s) || ioctl(fd, LATSCOPE_IOC_START)) {
		perror("bench_loop: /dev/latscope");
		return 1;
	}
	warm = now_ns() + WARMUP_NS;
	end = warm + secs * 1000000000ULL;
	for (;;) {
		if (ioctl(fd, LATSCOPE_IOC_PULSE, &p)) {
			perror("bench_loop: PULSE");
			return 1;
		}
		p.stamp_ns = now_ns();
		if (p.ideal_ns >= end)
			break;
		if (p.ideal_ns >= warm)
			add(f, (long long)(p.stamp_ns - p.ideal_ns));
	}
	ioctl(fd, LATSCOPE_IOC_STOP);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 90 };
	struct figures f = { 0 };
	unsigned long long secs;
	__s32 zero = 0;
	cpu_set_t set;
	int dma, ret;
	char *end;

	if (argc != 3 || (strcmp(argv[1], "pulse") && strcmp(argv[1], "sleep"))) {
		fprintf(stderr, "usage: bench_loop pulse|sleep SECS\n");
		return 2;
	}
	secs = strtoull(argv[2], &end, 10);
	if (*end || !secs || secs > 86400) {
		fprintf(stderr, "bench_loop: SECS must be 1 to 86400, not '%s'\n", argv[2]);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) || sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("bench_loop: mlockall, CPU1 or SCHED_FIFO 90");
		return 1;
	}
	dma = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (dma < 0 || write(dma, &zero, sizeof(zero)) != sizeof(zero)) {
		perror("bench_loop: /dev/cpu_dma_latency");
		return 1;
	}
	ret = strcmp(argv[1], "sleep") ? pulse_loop(secs, &f) : sleep_loop(secs, &f);
	if (ret)
		return ret;
	if (!f.n) {
		fprintf(stderr, "bench_loop: no sample\n");
		return 1;
	}
	for (unsigned int i = 0; i < CELLS; i++)
		if (cells[i])
			printf("%06u %06llu\n", i, cells[i]);
	printf("# Min Latencies: %05lld\n", f.min / 1000);
	printf("# Avg Latencies: %05lld\n", f.sum / 1000 / (long long)f.n);
	printf("# Max Latencies: %05lld\n", f.max / 1000);
	printf("# Histogram Overflows: %05llu\n", f.overflows);
	printf("# %s: %llu samples\n", argv[1], f.n);
	printf("# avg: %.3f us\n", f.sum / 1e3 / f.n);
	return 0;
}
