/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI: the few libgpiod calls the application's responder
 * makes, the same for libgpiod 1.6 (Debian 12) and 2.x (Debian 13). The
 * Makefile picks the generation by pkg-config and defines LS_GPIOD_API
 * (1 or 2; 0: built without libgpiod, every request fails with ENOSYS).
 * Each call sets errno as the library did, so callers name the failure.
 */
#ifndef LATSCOPE_GPIOD_COMPAT_H
#define LATSCOPE_GPIOD_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One requested line, with its chip. */
struct ls_gpiod_line;

struct ls_gpiod_event {
	uint64_t ts_ns;			/* the kernel's stamp, CLOCK_MONOTONIC */
	bool rising;
};

/* "libgpiod 2.3", or "no libgpiod", into @buf */
void ls_gpiod_version(char *buf, size_t len);

/*
 * Requests line @offset of the chip at @dev for edge events (@edge: a
 * LATSCOPE_EDGE_*) or as an output at @value, under @consumer. NULL with
 * errno set on failure.
 */
struct ls_gpiod_line *ls_gpiod_request_events(const char *dev, unsigned int offset,
					      unsigned int edge, const char *consumer);
struct ls_gpiod_line *ls_gpiod_request_output(const char *dev, unsigned int offset,
					      int value, const char *consumer);

/* The file descriptor to poll() for events. */
int ls_gpiod_fd(struct ls_gpiod_line *l);

/*
 * Reads the events waiting (poll() said so) into @ev, at most @max:
 * their count, or -1 with errno.
 */
int ls_gpiod_read(struct ls_gpiod_line *l, struct ls_gpiod_event *ev, int max);

/* Drives an output line to @value: 0, or -1 with errno. */
int ls_gpiod_set(struct ls_gpiod_line *l, int value);

/* Releases the line and closes its chip; NULL is fine. */
void ls_gpiod_release(struct ls_gpiod_line *l);

#endif /* LATSCOPE_GPIOD_COMPAT_H */
