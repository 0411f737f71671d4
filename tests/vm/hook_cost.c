// SPDX-License-Identifier: GPL-2.0
/*
 * hook_cost: what hooking the recorder's tracepoints at each SETUP costs,
 * inside the test VM (tests/vm/snapshot_cost.sh; the figures are in
 * docs/measurements/snapshot-cost.md). A SETUP with why_records hooks the
 * tracepoints if no other session holds them (live patching of kernel
 * code, IPIs to every CPU), and the close that lets the last one go
 * unhooks them and waits for an RCU grace period.
 *
 *   hook_cost setups N     N cycles of open, SETUP with the recorder on
 *                          CPU0, close; prints the median and the largest
 *                          cycle in us
 *   hook_cost loop SECS    such cycles on CPU0 without a pause for SECS
 *   hook_cost hold SECS    a session with the recorder on CPU0, set up
 *                          ("held" printed) and held open for SECS: the
 *                          tracepoints stay hooked meanwhile
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/latscope.h>

#define DEV	"/dev/latscope"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Opens the device and sets a session up with the recorder on CPU0: its fd, or -1. */
static int setup_why(void)
{
	struct latscope_setup s = {
		.size = sizeof(s),
		.context = LATSCOPE_CTX_IRQ,
		.period_ns = 1000000,
		.cpu = 0,
		.why_records = 1,
	};
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "hook_cost: %s: %s\n", DEV, strerror(errno));
		return -1;
	}
	if (ioctl(fd, LATSCOPE_IOC_SETUP, &s)) {
		fprintf(stderr, "hook_cost: SETUP: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* One cycle of open, SETUP, close: its time in ns, or 0 if it failed. */
static uint64_t cycle(void)
{
	uint64_t t0 = now_ns();
	int fd = setup_why();

	if (fd < 0)
		return 0;
	close(fd);
	return now_ns() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int setups(int n)
{
	uint64_t *t = calloc((size_t)n, sizeof(*t));
	int i;

	if (!t)
		return 1;
	for (i = 0; i < n; i++) {
		t[i] = cycle();
		if (!t[i]) {
			free(t);
			return 1;
		}
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_u64);
	printf("setup+close: %d cycles, median %.1f us, max %.1f us\n", n,
	       t[n / 2] / 1e3, t[n - 1] / 1e3);
	free(t);
	return 0;
}

static int loop(int secs)
{
	uint64_t end = now_ns() + (uint64_t)secs * 1000000000ULL;
	unsigned long n = 0;

	while (now_ns() < end) {
		if (!cycle())
			return 1;
		n++;
	}
	printf("setup+close: %lu cycles in %d s\n", n, secs);
	return 0;
}

static int hold(int secs)
{
	int fd = setup_why();

	if (fd < 0)
		return 1;
	printf("held\n");
	sleep((unsigned int)secs);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	cpu_set_t cpu0;
	int n;

	if (argc != 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: hook_cost setups N | loop SECS | hold SECS\n");
		return 2;
	}
	/* Off the measured CPU (CPU1). */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "setups"))
		return setups(n);
	if (!strcmp(argv[1], "loop"))
		return loop(n);
	if (!strcmp(argv[1], "hold"))
		return hold(n);
	fprintf(stderr, "hook_cost: no mode '%s'\n", argv[1]);
	return 2;
}
