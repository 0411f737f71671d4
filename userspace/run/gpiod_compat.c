// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: gpiod_compat.h on libgpiod 1.6 (lines of a chip, the v1
 * character device), 2.x (line requests, the v2 one), or none. Event
 * buffers are taken at request time, so reading an event allocates
 * nothing on the measured path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/latscope.h>

#include "run/gpiod_compat.h"

#ifndef LS_GPIOD_API
#define LS_GPIOD_API 0
#endif

/* The most events one read takes: more than one means we fell behind. */
#define LS_GPIOD_BATCH	16

#if LS_GPIOD_API == 1

#include <gpiod.h>

struct ls_gpiod_line {
	struct gpiod_chip *chip;
	struct gpiod_line *line;
	struct gpiod_line_event buf[LS_GPIOD_BATCH];
};

void ls_gpiod_version(char *buf, size_t len)
{
	snprintf(buf, len, "libgpiod %s", gpiod_version_string());
}

/* Line @offset of @dev: input with @edge events, or output at @value. */
static struct ls_gpiod_line *request(const char *dev, unsigned int offset, bool input,
				     unsigned int edge, int value, const char *consumer)
{
	int type = !input ? GPIOD_LINE_REQUEST_DIRECTION_OUTPUT :
		   edge == LATSCOPE_EDGE_FALLING ? GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE :
		   edge == LATSCOPE_EDGE_BOTH ? GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES :
		   GPIOD_LINE_REQUEST_EVENT_RISING_EDGE;
	struct gpiod_line_request_config cfg = { consumer, type, 0 };
	struct ls_gpiod_line *l = calloc(1, sizeof(*l));
	int e;

	if (!l)
		return NULL;
	l->chip = gpiod_chip_open(dev);
	if (!l->chip)
		goto fail;
	l->line = gpiod_chip_get_line(l->chip, offset);
	if (!l->line || gpiod_line_request(l->line, &cfg, value))
		goto fail;
	return l;
fail:
	e = errno;
	if (l->chip)
		gpiod_chip_close(l->chip);
	free(l);
	errno = e;
	return NULL;
}

int ls_gpiod_fd(struct ls_gpiod_line *l)
{
	return gpiod_line_event_get_fd(l->line);
}

int ls_gpiod_read(struct ls_gpiod_line *l, struct ls_gpiod_event *ev, int max)
{
	int n, i;

	if (max > LS_GPIOD_BATCH)
		max = LS_GPIOD_BATCH;
	n = gpiod_line_event_read_fd_multiple(ls_gpiod_fd(l), l->buf, (unsigned int)max);
	for (i = 0; i < n; i++) {
		ev[i].ts_ns = (uint64_t)l->buf[i].ts.tv_sec * 1000000000ULL +
			      (uint64_t)l->buf[i].ts.tv_nsec;
		ev[i].rising = l->buf[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
	}
	return n;
}

int ls_gpiod_set(struct ls_gpiod_line *l, int value)
{
	return gpiod_line_set_value(l->line, value);
}

void ls_gpiod_release(struct ls_gpiod_line *l)
{
	if (!l)
		return;
	gpiod_line_release(l->line);
	gpiod_chip_close(l->chip);
	free(l);
}

#elif LS_GPIOD_API == 2

#include <gpiod.h>

struct ls_gpiod_line {
	struct gpiod_chip *chip;
	struct gpiod_line_request *req;
	struct gpiod_edge_event_buffer *buf;
	unsigned int offset;
};

void ls_gpiod_version(char *buf, size_t len)
{
	snprintf(buf, len, "libgpiod %s", gpiod_api_version());
}

/* Frees @l and what it holds, any part of which may be missing. */
static void line_free(struct ls_gpiod_line *l)
{
	if (l->req)
		gpiod_line_request_release(l->req);
	gpiod_edge_event_buffer_free(l->buf);
	if (l->chip)
		gpiod_chip_close(l->chip);
	free(l);
}

/* Settings for one line: input with @edge and monotonic stamps, or output at @value. */
static struct gpiod_line_settings *settings(bool input, unsigned int edge, int value)
{
	struct gpiod_line_settings *s = gpiod_line_settings_new();

	if (!s)
		return NULL;
	if (!input) {
		gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT);
		gpiod_line_settings_set_output_value(s, value ? GPIOD_LINE_VALUE_ACTIVE :
						     GPIOD_LINE_VALUE_INACTIVE);
		return s;
	}
	gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_INPUT);
	gpiod_line_settings_set_edge_detection(s, edge == LATSCOPE_EDGE_FALLING ?
					       GPIOD_LINE_EDGE_FALLING :
					       edge == LATSCOPE_EDGE_BOTH ? GPIOD_LINE_EDGE_BOTH :
					       GPIOD_LINE_EDGE_RISING);
	gpiod_line_settings_set_event_clock(s, GPIOD_LINE_CLOCK_MONOTONIC);
	return s;
}

static struct ls_gpiod_line *request(const char *dev, unsigned int offset, bool input,
				     unsigned int edge, int value, const char *consumer)
{
	struct ls_gpiod_line *l = calloc(1, sizeof(*l));
	struct gpiod_line_settings *s = NULL;
	struct gpiod_line_config *lc = NULL;
	struct gpiod_request_config *rc = NULL;
	int e;

	if (!l)
		return NULL;
	l->offset = offset;
	l->chip = gpiod_chip_open(dev);
	if (!l->chip)
		goto fail;
	s = settings(input, edge, value);
	lc = gpiod_line_config_new();
	rc = gpiod_request_config_new();
	if (!s || !lc || !rc || gpiod_line_config_add_line_settings(lc, &offset, 1, s))
		goto fail;
	gpiod_request_config_set_consumer(rc, consumer);
	if (input) {
		gpiod_request_config_set_event_buffer_size(rc, LS_GPIOD_BATCH);
		l->buf = gpiod_edge_event_buffer_new(LS_GPIOD_BATCH);
		if (!l->buf)
			goto fail;
	}
	l->req = gpiod_chip_request_lines(l->chip, rc, lc);
	if (!l->req)
		goto fail;
	gpiod_line_settings_free(s);
	gpiod_line_config_free(lc);
	gpiod_request_config_free(rc);
	return l;
fail:
	e = errno;
	gpiod_line_settings_free(s);
	gpiod_line_config_free(lc);
	gpiod_request_config_free(rc);
	line_free(l);
	errno = e;
	return NULL;
}

int ls_gpiod_fd(struct ls_gpiod_line *l)
{
	return gpiod_line_request_get_fd(l->req);
}

int ls_gpiod_read(struct ls_gpiod_line *l, struct ls_gpiod_event *ev, int max)
{
	struct gpiod_edge_event *e;
	int n, i;

	if (max > LS_GPIOD_BATCH)
		max = LS_GPIOD_BATCH;
	n = gpiod_line_request_read_edge_events(l->req, l->buf, (size_t)max);
	for (i = 0; i < n; i++) {
		e = gpiod_edge_event_buffer_get_event(l->buf, (unsigned long)i);
		ev[i].ts_ns = gpiod_edge_event_get_timestamp_ns(e);
		ev[i].rising = gpiod_edge_event_get_event_type(e) ==
			       GPIOD_EDGE_EVENT_RISING_EDGE;
	}
	return n;
}

int ls_gpiod_set(struct ls_gpiod_line *l, int value)
{
	return gpiod_line_request_set_value(l->req, l->offset, value ?
					    GPIOD_LINE_VALUE_ACTIVE :
					    GPIOD_LINE_VALUE_INACTIVE);
}

void ls_gpiod_release(struct ls_gpiod_line *l)
{
	if (l)
		line_free(l);
}

#endif

#if LS_GPIOD_API == 1 || LS_GPIOD_API == 2

struct ls_gpiod_line *ls_gpiod_request_events(const char *dev, unsigned int offset,
					      unsigned int edge, const char *consumer)
{
	return request(dev, offset, true, edge, 0, consumer);
}

struct ls_gpiod_line *ls_gpiod_request_output(const char *dev, unsigned int offset,
					      int value, const char *consumer)
{
	return request(dev, offset, false, 0, value, consumer);
}

#else /* no libgpiod */

void ls_gpiod_version(char *buf, size_t len)
{
	snprintf(buf, len, "no libgpiod");
}

struct ls_gpiod_line *ls_gpiod_request_events(const char *dev, unsigned int offset,
					      unsigned int edge, const char *consumer)
{
	(void)dev;
	(void)offset;
	(void)edge;
	(void)consumer;
	errno = ENOSYS;
	return NULL;
}

struct ls_gpiod_line *ls_gpiod_request_output(const char *dev, unsigned int offset,
					      int value, const char *consumer)
{
	(void)dev;
	(void)offset;
	(void)value;
	(void)consumer;
	errno = ENOSYS;
	return NULL;
}

int ls_gpiod_fd(struct ls_gpiod_line *l)
{
	(void)l;
	return -1;
}

int ls_gpiod_read(struct ls_gpiod_line *l, struct ls_gpiod_event *ev, int max)
{
	(void)l;
	(void)ev;
	(void)max;
	errno = ENOSYS;
	return -1;
}

int ls_gpiod_set(struct ls_gpiod_line *l, int value)
{
	(void)l;
	(void)value;
	errno = ENOSYS;
	return -1;
}

void ls_gpiod_release(struct ls_gpiod_line *l)
{
	(void)l;
}

#endif
