// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the exporter's HTTP side, on libmicrohttpd. One thread of
 * the library's own (epoll), SCHED_OTHER, on the CPUs the run does not
 * measure, answers GET /metrics with a copy of the published view, in
 * OpenMetrics if the scraper's Accept header asks for it. The library
 * parses the requests: a malformed one gets its 400, a connection that
 * hangs is closed after LS_HTTP_TIMEOUT_S, and at most LS_HTTP_CONNECTIONS
 * are open at once. Built without libmicrohttpd, --serve is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "serve/serve.h"

#ifdef LS_HAVE_MHD
#include <microhttpd.h>

#define LS_HTTP_CONNECTIONS	64
#define LS_HTTP_TIMEOUT_S	10
/* Its thread's stack: locked by the run's mlockall() like the others. */
#define LS_HTTP_STACK		(256 * 1024)

static const char text_type[] = "text/plain; version=0.0.4; charset=utf-8";
static const char om_type[] = "application/openmetrics-text; version=1.0.0; charset=utf-8";

struct ls_http {
	struct MHD_Daemon *daemon;
	struct ls_exporter *ex;
	struct ls_prom_view *view;	/* the scrape's copy: one thread answers */
	__u64 scrapes;			/* answered: the library's thread only */
	const struct ls_serve_addr *addr;
	char err[256];
};

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

/* Started on a thread of the run's others: the library's thread inherits them. */
static void *start_daemon(void *arg)
{
	struct ls_http *h = arg;
	/* No MHD_USE_ERROR_LOG: it says every connection a scraper drops. */
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
	const struct sockaddr *sa = (const struct sockaddr *)&h->addr->ss;
	in_port_t port;

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		flags |= IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr) ? MHD_USE_DUAL_STACK :
								   MHD_USE_IPv6;
		port = ntohs(s6->sin6_port);
	} else {
		port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
	}
	h->daemon = MHD_start_daemon(flags, port, NULL, NULL, answer, h,
				     MHD_OPTION_SOCK_ADDR, sa,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)LS_HTTP_CONNECTIONS,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)LS_HTTP_TIMEOUT_S,
				     MHD_OPTION_THREAD_STACK_SIZE, (size_t)LS_HTTP_STACK,
				     MHD_OPTION_END);
	if (!h->daemon)
		snprintf(h->err, sizeof(h->err), "%s", strerror(errno ? errno : EADDRINUSE));
	return NULL;
}

/**
 * ls_http_start() - serve @ex's figures at @a
 * @ex: the figures
 * @a: where to listen
 * @cpus: where the library's thread runs: the CPUs not measured, or
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
	pthread_t t;

	if (h)
		h->view = calloc(1, sizeof(*h->view));
	if (!h || !h->view) {
		free(h);
		ls_fail(err, errlen, "out of memory for the HTTP server");
		return NULL;
	}
	h->ex = ex;
	h->addr = a;
	errno = ls_start_thread(&t, start_daemon, h, SCHED_OTHER, 0, cpus);
	if (errno)
		snprintf(h->err, sizeof(h->err), "no thread: %s", strerror(errno));
	else
		pthread_join(t, NULL);
	if (!h->daemon) {
		ls_fail(err, errlen, "--serve %s: cannot listen there: %s", a->text, h->err);
		free(h->view);
		free(h);
		return NULL;
	}
	return h;
}

void ls_http_stop(struct ls_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);
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
