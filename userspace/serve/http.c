// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the exporter's HTTP side, on libmicrohttpd. One thread of
 * ours, SCHED_OTHER, on the CPUs the run does not measure, runs the
 * library's event loop (epoll) and answers GET /metrics with a copy of the
 * published view, in OpenMetrics if the scraper's Accept header asks for
 * it. The library parses the requests: a malformed one gets its 400.
 *
 * A peer must not blind it (docs/design/exporter.md, "The door"): an
 * address holds at most LS_HTTP_PER_IP connections (the library closes
 * the others as it accepts them), and each request must be answered
 * within LS_HTTP_DEADLINE_S of its connection's start or of the previous
 * answer on it, however slowly it trickles in: past that, the connection
 * is shut down. The library's own timeout counts inactivity only, so a
 * byte every few seconds would hold a connection for ever. Built without
 * libmicrohttpd, --serve is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "serve/serve.h"

#ifdef LS_HAVE_MHD
#include <microhttpd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

/* Connections at once, at most: fewer if the descriptor limit says so. */
#define LS_HTTP_CONNECTIONS	512
/* Descriptors kept for the rest of the process (the device, files). */
#define LS_HTTP_FD_SPARE	128
/* Connections from one address at once. */
#define LS_HTTP_PER_IP		8
/* A request is answered within this of the connection's start (or of the last answer). */
#define LS_HTTP_DEADLINE_S	5
/*
 * A connection's memory for the request and the answer's headers (the
 * answer's body is the scrape's own buffer): locked by the run's
 * mlockall(), so small. A 20 kB URL gets its 414.
 */
#define LS_HTTP_CONN_MEMORY	(8 * 1024)

static const char text_type[] = "text/plain; version=0.0.4; charset=utf-8";
static const char om_type[] = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/*
 * One TCP connection, on the list of those waiting for an answer while
 * @queued, by deadline (which is the order they start or get an answer).
 */
struct ls_http_conn {
	struct ls_http_conn *prev, *next;
	int fd;
	bool queued;
	bool cut;			/* shut down by its deadline: no lingering */
	__u64 deadline_ns;
};

struct ls_http {
	struct MHD_Daemon *daemon;
	struct ls_exporter *ex;
	struct ls_prom_view *view;	/* the scrape's copy: one thread answers */
	__u64 scrapes;			/* answered: the loop's thread only */
	pthread_t thread;
	int stop_fd;			/* an eventfd: written to stop the loop */
	/* Connections waiting for an answer, earliest deadline first: the loop's thread only. */
	struct ls_http_conn *head, *tail;
	struct ls_linger *linger;	/* the closed ones, still read (linger.c) */
};

/* @c off the waiting list. */
static void conn_unqueue(struct ls_http *h, struct ls_http_conn *c)
{
	if (!c->queued)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		h->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		h->tail = c->prev;
	c->prev = NULL;
	c->next = NULL;
	c->queued = false;
}

/* @c at the list's end, its deadline from now: the latest there is. */
static void conn_queue(struct ls_http *h, struct ls_http_conn *c)
{
	conn_unqueue(h, c);
	c->deadline_ns = ls_now_ns() + LS_HTTP_DEADLINE_S * 1000000000ULL;
	c->prev = h->tail;
	if (h->tail)
		h->tail->next = c;
	else
		h->head = c;
	h->tail = c;
	c->queued = true;
}

/*
 * A connection the library closes (its socket still open, its answer
 * sent): it lingers unless its deadline cut it, so that a peer still
 * sending reads the answer (linger.c).
 */
static void conn_closed(struct ls_http *h, struct MHD_Connection *conn, struct ls_http_conn *c)
{
	const union MHD_ConnectionInfo *info;

	if (!c->cut && c->fd >= 0) {
		info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (info && info->client_addr)
			ls_linger_add(h->linger, c->fd, info->client_addr, ls_now_ns());
	}
	conn_unqueue(h, c);
	free(c);
}

/* A connection starts (its deadline runs) or is closed (forgotten). */
static void conn_notify(void *cls, struct MHD_Connection *conn, void **ctx,
			enum MHD_ConnectionNotificationCode what)
{
	const union MHD_ConnectionInfo *info;
	struct ls_http *h = cls;
	struct ls_http_conn *c;

	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (*ctx)
			conn_closed(h, conn, *ctx);
		*ctx = NULL;
		return;
	}
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	c = calloc(1, sizeof(*c));
	if (!c) {
		/* No deadline can be kept for it: not served. */
		if (info)
			shutdown(info->connect_fd, SHUT_RDWR);
		return;
	}
	c->fd = info ? info->connect_fd : -1;
	conn_queue(h, c);
	*ctx = c;
}

/* A request answered: the next one on the connection has its own deadline. */
static void request_done(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode why)
{
	const union MHD_ConnectionInfo *info;
	struct ls_http *h = cls;

	(void)state;
	(void)why;
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (info && info->socket_context)
		conn_queue(h, info->socket_context);
}

/*
 * Shuts down the connections past their deadline: the library sees the
 * end of its stream and closes each (conn_notify() forgets it). Return:
 * the milliseconds until the next deadline, or -1 for none.
 */
static int cut_late(struct ls_http *h)
{
	__u64 now = ls_now_ns();
	struct ls_http_conn *c;

	while ((c = h->head) && c->deadline_ns <= now) {
		if (c->fd >= 0)
			shutdown(c->fd, SHUT_RDWR);
		c->cut = true;
		conn_unqueue(h, c);
	}
	if (!c)
		return -1;
	return (int)((c->deadline_ns - now + 999999) / 1000000);
}

/* A short answer that is no scrape: @status, one line of text. */
static enum MHD_Result say(struct MHD_Connection *conn, unsigned int status, const char *text,
			   const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Whether the scraper asks for OpenMetrics, as Prometheus's Accept header does. */
static bool wants_openmetrics(struct MHD_Connection *conn)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);

	return accept && strstr(accept, "application/openmetrics-text");
}

static enum MHD_Result scrape(struct ls_http *h, struct MHD_Connection *conn)
{
	bool om = wants_openmetrics(conn);
	struct MHD_Response *r;
	enum MHD_Result ret;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ls_exporter_copy(h->ex, h->view);
	h->view->http = true;
	h->view->scrapes = h->scrapes++;
	f = open_memstream(&buf, &len);
	if (!f)
		return say(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", NULL);
	ls_prom_write(f, h->view, om);
	if (fclose(f)) {
		free(buf);
		return say(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", NULL);
	}
	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, om ? om_type : text_type);
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	static int seen;
	bool head = !strcmp(method, MHD_HTTP_METHOD_HEAD);

	(void)version;
	(void)upload;
	/* The first call only has the headers: answer on the second, body read. */
	if (!*state) {
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* a body is not wanted: dropped */
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && !head)
		return say(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n", "GET, HEAD");
	if (!strcmp(url, "/metrics"))
		return scrape(cls, conn);
	if (!strcmp(url, "/"))
		return say(conn, MHD_HTTP_OK, "latscope exporter: the metrics are at /metrics\n",
			   NULL);
	return say(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", NULL);
}

/* The sooner of two waits in milliseconds, -1 for none. */
static int sooner(int a, int b)
{
	if (a < 0)
		return b;
	return b < 0 || a < b ? a : b;
}

/*
 * The loop: wait for the library's sockets (its epoll set), the lingering
 * ones, its timeout, the next deadline or the stop; then let it work, cut
 * the late and drain the lingering.
 */
static void *serve_loop(void *arg)
{
	struct ls_http *h = arg;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon,
							       MHD_DAEMON_INFO_EPOLL_FD);
	struct epoll_event ev = { .events = EPOLLIN }, got[3];
	int ep = epoll_create1(EPOLL_CLOEXEC), wait_ms = -1;
	MHD_UNSIGNED_LONG_LONG lib_ms;

	ev.data.fd = info ? info->epoll_fd : -1;
	if (ep < 0 || !info || epoll_ctl(ep, EPOLL_CTL_ADD, info->epoll_fd, &ev))
		goto fail;
	ev.data.fd = h->stop_fd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, h->stop_fd, &ev))
		goto fail;
	ev.data.fd = ls_linger_fd(h->linger);
	if (epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev))
		goto fail;
	for (;;) {
		int i, n;

		if (MHD_get_timeout(h->daemon, &lib_ms) == MHD_YES &&
		    (wait_ms < 0 || lib_ms < (MHD_UNSIGNED_LONG_LONG)wait_ms))
			wait_ms = lib_ms > 60000 ? 60000 : (int)lib_ms;
		n = epoll_wait(ep, got, ARRAY_SIZE(got), wait_ms);
		if (n < 0 && errno != EINTR)
			goto fail;
		for (i = 0; i < n; i++)
			if (got[i].data.fd == h->stop_fd)
				goto out;
		MHD_run(h->daemon);
		wait_ms = sooner(cut_late(h), ls_linger_run(h->linger, ls_now_ns()));
	}
fail:
	/* Only a lack of memory or descriptors gets here: said, and the run goes on. */
	fprintf(stderr, "latscope: the HTTP server stopped: %s\n", strerror(errno));
	fflush(stderr);
out:
	if (ep >= 0)
		close(ep);
	return NULL;
}

/*
 * Connections at once: LS_HTTP_CONNECTIONS, or what the descriptor limit
 * leaves beside the spare and the lingering sockets.
 */
static unsigned int connection_limit(void)
{
	const rlim_t spare = LS_HTTP_FD_SPARE + LS_LINGER_MAX;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= LS_HTTP_CONNECTIONS + spare)
		return LS_HTTP_CONNECTIONS;
	if (rl.rlim_cur < LS_HTTP_PER_IP + spare)
		return LS_HTTP_PER_IP;
	return (unsigned int)(rl.rlim_cur - spare);
}

/*
 * The library's daemon, in the mode where our thread runs its loop. No
 * MHD_USE_ERROR_LOG: it says every connection a scraper drops.
 */
static struct MHD_Daemon *start_daemon(struct ls_http *h, const struct ls_serve_addr *a)
{
	unsigned int flags = MHD_USE_EPOLL;
	const struct sockaddr *sa = (const struct sockaddr *)&a->ss;
	in_port_t port;

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		flags |= IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr) ? MHD_USE_DUAL_STACK :
								   MHD_USE_IPv6;
		port = ntohs(s6->sin6_port);
	} else {
		port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
	}
	return MHD_start_daemon(flags, port, NULL, NULL, answer, h,
				MHD_OPTION_SOCK_ADDR, sa,
				MHD_OPTION_CONNECTION_LIMIT, connection_limit(),
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)LS_HTTP_PER_IP,
				/* Inactivity: the deadline (cut_late()) covers it too. */
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)LS_HTTP_DEADLINE_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)LS_HTTP_CONN_MEMORY,
				MHD_OPTION_NOTIFY_CONNECTION, conn_notify, h,
				MHD_OPTION_NOTIFY_COMPLETED, request_done, h,
				MHD_OPTION_END);
}

/**
 * ls_http_start() - serve @ex's figures at @a
 * @ex: the figures
 * @a: where to listen
 * @cpus: where the loop's thread runs: the CPUs not measured, or
 *	empty for anywhere
 * @err: why not, on failure
 * @errlen: its size
 *
 * Return: the server, or NULL.
 */
struct ls_http *ls_http_start(struct ls_exporter *ex, const struct ls_serve_addr *a,
			      const cpu_set_t *cpus, char *err, size_t errlen)
{
	struct ls_http *h = calloc(1, sizeof(*h));

	if (h)
		h->view = calloc(1, sizeof(*h->view));
	if (!h || !h->view) {
		free(h);
		ls_fail(err, errlen, "out of memory for the HTTP server");
		return NULL;
	}
	h->ex = ex;
	h->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->stop_fd < 0) {
		ls_fail(err, errlen, "--serve %s: no eventfd: %s", a->text, strerror(errno));
		goto fail;
	}
	h->linger = ls_linger_open();
	if (!h->linger) {
		ls_fail(err, errlen, "--serve %s: no epoll set: %s", a->text, strerror(errno));
		goto fail;
	}
	errno = 0;
	h->daemon = start_daemon(h, a);
	if (!h->daemon) {
		ls_fail(err, errlen, "--serve %s: cannot listen there: %s", a->text,
			strerror(errno ? errno : EADDRINUSE));
		goto fail;
	}
	errno = ls_start_thread(&h->thread, serve_loop, h, SCHED_OTHER, 0, cpus);
	if (errno) {
		ls_fail(err, errlen, "--serve %s: no thread: %s", a->text, strerror(errno));
		MHD_stop_daemon(h->daemon);
		goto fail;
	}
	return h;
fail:
	ls_linger_close(h->linger);
	if (h->stop_fd >= 0)
		close(h->stop_fd);
	free(h->view);
	free(h);
	return NULL;
}

void ls_http_stop(struct ls_http *h)
{
	__u64 one = 1;

	if (!h)
		return;
	if (write(h->stop_fd, &one, sizeof(one)) != sizeof(one))
		perror("latscope: stopping the HTTP server");
	pthread_join(h->thread, NULL);
	/* Closes the connections left: conn_notify() frees each. */
	MHD_stop_daemon(h->daemon);
	ls_linger_close(h->linger);
	close(h->stop_fd);
	free(h->view);
	free(h);
}

#else /* !LS_HAVE_MHD */

struct ls_http *ls_http_start(struct ls_exporter *ex, const struct ls_serve_addr *a,
			      const cpu_set_t *cpus, char *err, size_t errlen)
{
	(void)ex;
	(void)cpus;
	ls_fail(err, errlen,
		"--serve %s: this latscope was built without libmicrohttpd (apt install libmicrohttpd-dev, then make); --textfile works without it",
		a->text);
	return NULL;
}

void ls_http_stop(struct ls_http *h)
{
	(void)h;
}

#endif /* LS_HAVE_MHD */
