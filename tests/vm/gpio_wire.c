// SPDX-License-Identifier: GPL-2.0
/*
 * Wires for gpio-sim that miss no level: follows the gpio:gpio_value
 * trace events (each level a driver sets on an output line, even a pulse
 * a few microseconds wide) and replays each on the "pull" of the line it
 * is wired to, which makes gpio-sim raise that input's interrupt. Its own
 * delay is the trace pipe's: a functional wire, not a latency figure.
 *
 * usage: gpio_wire SIM_DIR BASE OUT:IN [OUT:IN...]
 *   SIM_DIR is /sys/devices/platform/gpio-sim.N/gpiochipM, BASE the
 *   chip's first global GPIO number; each OUT:IN pair wires offset OUT
 *   to offset IN. The event must be enabled; runs until killed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WIRES	8

int main(int argc, char **argv)
{
	int out[MAX_WIRES], pull[MAX_WIRES], nr = 0, i, base;
	char line[512], path[512];
	unsigned int gpio, value;
	const char *ev;
	FILE *pipe;

	if (argc < 4 || argc - 3 > MAX_WIRES) {
		fprintf(stderr, "usage: gpio_wire SIM_DIR BASE OUT:IN [OUT:IN...]\n");
		return 2;
	}
	base = atoi(argv[2]);
	for (i = 3; i < argc; i++, nr++) {
		int in;

		if (sscanf(argv[i], "%d:%d", &out[nr], &in) != 2) {
			fprintf(stderr, "gpio_wire: '%s' is not OUT:IN\n", argv[i]);
			return 2;
		}
		snprintf(path, sizeof(path), "%s/sim_gpio%d/pull", argv[1], in);
		pull[nr] = open(path, O_WRONLY);
		if (pull[nr] < 0) {
			perror(path);
			return 1;
		}
	}
	pipe = fopen("/sys/kernel/tracing/trace_pipe", "r");
	if (!pipe) {
		perror("trace_pipe");
		return 1;
	}
	setvbuf(pipe, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), pipe)) {
		ev = strstr(line, "gpio_value: ");
		if (!ev || sscanf(ev, "gpio_value: %u set %u", &gpio, &value) != 2)
			continue;
		for (i = 0; i < nr; i++) {
			const char *v = value ? "pull-up" : "pull-down";

			if ((int)gpio - base != out[i])
				continue;
			if (pwrite(pull[i], v, strlen(v), 0) < 0)
				return 1;
		}
	}
	return 0;
}
