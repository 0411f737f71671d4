/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, serve: the exporter front-end (--serve, --textfile). It
 * measures without end on the engine below (run/), through a sink of the
 * logger's seconds, and shows the figures to Prometheus over HTTP
 * (libmicrohttpd) or in node_exporter's textfile directory. A run that
 * fails (no driver, a CPU offline) is started again; the counters carry
 * over, so within one process they only grow. docs/design/exporter.md.
 */
#ifndef LATSCOPE_SERVE_H
#define LATSCOPE_SERVE_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "core/core.h"
#include "latmon/latmon.h"
#include "serve/prom.h"
#include "run/run.h"

/* --serve without a value: every address, this port (docs/design/exporter.md). */
#define LS_SERVE_PORT		19380
/* --textfile-every without a value, seconds. */
#define LS_TEXTFILE_EVERY_S	15
/* A run that failed is tried again after this many seconds. */
#define LS_SERVE_RETRY_S	2

/* The exporter's options, beside the run's struct ls_params. */
struct ls_serve_params {
	bool http;			/* --serve: over HTTP */
	const char *addr;		/* its [ADDR:]PORT, NULL: the default */
	const char *textfile;		/* --textfile: into this .prom file */
	unsigned long long textfile_s;	/* --textfile-every, seconds */
	unsigned int window_s;		/* --window: the windowed maximum, s */
	const char *buckets;		/* --buckets: its bounds in us, NULL: default */
};

/* Where --serve listens. */
struct ls_serve_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char text[80];			/* as given back: "[::]:19380" */
};

int ls_serve_parse_addr(const char *s, struct ls_serve_addr *a, char *err, size_t errlen);

/*
 * One CPU the exporter has measured: its window and what the runs before
 * the current one counted.
 */
struct ls_exporter_cpu {
	int cpu;
	struct ls_prom_series carried;	/* the runs that ended */
	struct ls_prom_series last;	/* the current run's last snapshot */
	struct ls_prom_window window;
};

/**
 * struct ls_exporter - the figures a scrape shows, between the logger
 *	(which makes them each second) and the scrapers (which copy them)
 * @lock: @view, @spare's swap, @runs and @measuring
 * @view: what a scrape copies
 * @spare: where the logger makes the next one
 * @cpu: every CPU measured since the start, @nr of them
 * @nr: entries of @cpu
 * @bounds: the buckets'
 * @window_s: the sliding window's length
 * @runs: runs that measured so far
 *
 * Only the logger (while a run goes) and the main thread (between runs)
 * change anything but what @lock guards; the scrapers only copy @view.
 */
struct ls_exporter {
	pthread_mutex_t lock;
	struct ls_prom_view *view;
	struct ls_prom_view *spare;
	struct ls_exporter_cpu cpu[LS_PROM_MAX_CPUS];
	unsigned int nr;
	struct ls_prom_bounds bounds;
	unsigned int window_s;
	__u64 runs;
};

/* exporter.c */
int ls_exporter_init(struct ls_exporter *ex, const struct ls_params *p,
		     const struct ls_serve_params *sp, const struct ls_sysinfo *sys, char *err,
		     size_t errlen);
void ls_exporter_free(struct ls_exporter *ex);
void ls_exporter_second(struct run *run, void *priv, const struct latscope_bulk *b);
void ls_exporter_cpu_second(struct run *run, void *priv, int cpu, const struct latscope_bulk *b);
void ls_exporter_run_ended(struct ls_exporter *ex, const struct ls_report *r);
void ls_exporter_copy(struct ls_exporter *ex, struct ls_prom_view *out);

/* http.c: GET /metrics, on a thread of libmicrohttpd's off the measured CPUs. */
struct ls_http;

struct ls_http *ls_http_start(struct ls_exporter *ex, const struct ls_serve_addr *a,
			      const cpu_set_t *cpus, char *err, size_t errlen);
void ls_http_stop(struct ls_http *h);

/*
 * linger.c: a socket the server closes lingers (its input read and thrown
 * away) so that the peer reads the answer before any reset. Limits: the
 * sockets at once, from one address, how long, how much input.
 */
#define LS_LINGER_MAX		32
#define LS_LINGER_PER_PEER	8
#define LS_LINGER_MS		2000
#define LS_LINGER_BYTES		(64 * 1024)

struct ls_linger;

struct ls_linger *ls_linger_open(void);
int ls_linger_fd(const struct ls_linger *l);
bool ls_linger_add(struct ls_linger *l, int fd, const struct sockaddr *peer, __u64 now_ns);
int ls_linger_run(struct ls_linger *l, __u64 now_ns);
void ls_linger_close(struct ls_linger *l);

/* textfile.c: the same figures in a .prom file, rewritten whole every N seconds. */
struct ls_textfile;

struct ls_textfile *ls_textfile_start(struct ls_exporter *ex, const char *path,
				      unsigned long long every_s, const cpu_set_t *cpus,
				      char *err, size_t errlen);
void ls_textfile_stop(struct ls_textfile *t);
int ls_textfile_write(struct ls_exporter *ex, const char *path, struct ls_prom_view *tmp,
		      char *why, size_t whylen);

/* serve.c: the front-end. */
int ls_serve(const struct ls_params *p, const struct ls_serve_params *sp,
	     const struct ls_door_params *dp, const struct ls_sysinfo *sys);

#endif /* LATSCOPE_SERVE_H */
