// SPDX-License-Identifier: GPL-2.0
/*
 * The loopback wire, for gpio-sim: copies the level the driver drives on
 * one simulated line (its sysfs "value") to the pull of another (its
 * "pull"), which is what makes gpio-sim raise the input's interrupt.
 * Polls every 50 us, so it adds its own delay: a functional test of the
 * loopback path, not a latency figure.
 *
 * usage: gpio_loop SIM_DIR OUT_OFFSET IN_OFFSET
 *   SIM_DIR is /sys/devices/platform/gpio-sim.N/gpiochipM
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int open_attr(const char *dir, const char *line, const char *attr, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/sim_gpio%s/%s", dir, line, attr);
	fd = open(path, flags);
	if (fd < 0)
		perror(path);
	return fd;
}

int main(int argc, char **argv)
{
	const struct timespec tick = { .tv_nsec = 50000 };
	int value, pull;
	char now = 0, last = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: gpio_loop SIM_DIR OUT_OFFSET IN_OFFSET\n");
		return 2;
	}
	value = open_attr(argv[1], argv[2], "value", O_RDONLY);
	pull = open_attr(argv[1], argv[3], "pull", O_WRONLY);
	if (value < 0 || pull < 0)
		return 1;
	for (;;) {
		if (pread(value, &now, 1, 0) != 1)
			return 1;
		if (now != last) {
			const char *v = now == '1' ? "pull-up" : "pull-down";

			if (pwrite(pull, v, strlen(v), 0) < 0)
				return 1;
			last = now;
		}
		nanosleep(&tick, NULL);
	}
}
