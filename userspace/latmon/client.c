// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the latmon client (-z HOST), as latmus is one. Connects
 * to a latmon monitor (found by name, address, or its UDP announcement),
 * asks it to pulse pulse-in at the period, and logs each of its data
 * records as one second of the run while the driver's responder answers
 * on ack-out. At the end it sends the zero request and reads the trailing
 * record, the end record and the histogram, which become the run's
 * totals. A SCHED_OTHER thread off the measured CPUs does the reading;
 * the monitor is unresponsive after LS_LATMON_TIMEOUT_S without a byte,
 * and lost if it has not ended LS_LATMON_TIMEOUT_S after the stop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "latmon/latmon.h"
#include "latmon/resolve.h"

#define LS_LATMON_TIMEOUT_S	5	/* as latmus: silent that long, it is gone */
#define LS_LATMON_DISCOVER_S	15	/* three announcements of a monitor */

/* Connects @fd to @sa within LS_LATMON_TIMEOUT_S: 0 or -errno. */
static int connect_within(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int flags = fcntl(fd, F_GETFL), e = 0, n;
	socklen_t elen = sizeof(e);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK))
		return -errno;
	if (connect(fd, sa, len) && errno != EINPROGRESS)
		return -errno;
	do
		n = poll(&pfd, 1, LS_LATMON_TIMEOUT_S * 1000);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!n)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen))
		return -errno;
	if (!e && fcntl(fd, F_SETFL, flags))
		return -errno;
	return -e;
}

/* Why a connection failed, as the user can act on it. */
static void connect_error(const char *host, unsigned int port, int e, char *err,
			  size_t errlen)
{
	const char *why;

	switch (e) {
	case ECONNREFUSED:
		ls_fail(err, errlen,
			"latmon monitor %s port %u: connection refused: is a latmon monitor listening there (or already busy with another client)?",
			host, port);
		return;
	case ETIMEDOUT:
		why = "no answer within 5 s";
		break;
	case ENETUNREACH:
	case EHOSTUNREACH:
		why = "no route to it";
		break;
	default:
		why = strerror(e);
		break;
	}
	ls_fail(err, errlen, "latmon monitor %s port %u: %s", host, port, why);
}

/* Resolves @host and connects to the first address that answers. */
static int connect_host(const char *host, unsigned int port, int *fdp, char *peer,
			size_t peerlen, char *err, size_t errlen)
{
	struct ls_addr addrs[LS_RESOLVE_MAX];
	char addr[INET6_ADDRSTRLEN];
	int e = ENOENT, n, i, fd;

	n = ls_resolve(host, port, addrs, err, errlen);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&addrs[i].ss;

		fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			e = errno;
			continue;
		}
		e = -connect_within(fd, sa, addrs[i].len);
		if (!e) {
			const void *a = sa->sa_family == AF_INET6 ?
				(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr :
				(const void *)&((const struct sockaddr_in *)sa)->sin_addr;

			inet_ntop(sa->sa_family, a, addr, sizeof(addr));
			snprintf(peer, peerlen, "%s:%u", addr, port);
			*fdp = fd;
			return 0;
		}
		close(fd);
	}
	connect_error(host, port, e, err, errlen);
	return -1;
}

/*
 * "broadcast": waits up to LS_LATMON_DISCOVER_S for a monitor's UDP
 * announcement on @port (its IPv4 address in ASCII) and copies the
 * address of its sender into @host, as latmus does: a datagram cannot
 * send the client to a third host. Datagrams that are not an address are
 * skipped; one that names another host than its sender is said.
 */
static int discover(unsigned int port, int verbosity, char *host, size_t hostlen,
		    char *err, size_t errlen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct pollfd pfd = { .events = POLLIN };
	__u64 end = ls_now_ns() + LS_LATMON_DISCOVER_S * 1000000000ULL, now;
	char buf[64], from[INET_ADDRSTRLEN];
	struct sockaddr_in src;
	struct in_addr a;
	socklen_t slen;
	int on = 1, n;
	ssize_t len;

	pfd.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (pfd.fd < 0 || setsockopt(pfd.fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	    bind(pfd.fd, (struct sockaddr *)&sin, sizeof(sin))) {
		ls_fail(err, errlen, "-z broadcast: cannot listen on UDP port %u: %s", port,
			strerror(errno));
		if (pfd.fd >= 0)
			close(pfd.fd);
		return -1;
	}
	if (verbosity > 0)
		fprintf(stderr, "waiting up to %d s for a latmon monitor to announce itself on UDP port %u...\n",
			LS_LATMON_DISCOVER_S, port);
	while ((now = ls_now_ns()) < end) {
		n = poll(&pfd, 1, ls_ms_until(end));
		if (n <= 0) {
			if (n < 0 && errno != EINTR)
				break;
			continue;
		}
		slen = sizeof(src);
		len = recvfrom(pfd.fd, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&src, &slen);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		inet_ntop(AF_INET, &src.sin_addr, from, sizeof(from));
		if ((size_t)len != strlen(buf) || inet_pton(AF_INET, buf, &a) != 1) {
			fprintf(stderr, "latscope: ignored a %zd-byte datagram from %s: not an IPv4 address\n",
				len, from);
			continue;
		}
		snprintf(host, hostlen, "%s", from);
		if (a.s_addr != src.sin_addr.s_addr)
			fprintf(stderr, "latscope: the announcement from %s names %s: taking its sender, %s\n",
				from, buf, from);
		if (verbosity > 0)
			fprintf(stderr, "latmon monitor %s announced itself\n", host);
		close(pfd.fd);
		return 0;
	}
	close(pfd.fd);
	ls_fail(err, errlen, "-z broadcast: no latmon monitor announced itself on UDP port %u within %d s",
		port, LS_LATMON_DISCOVER_S);
	return -1;
}

/*
 * Finds and connects to the monitor, before any session is opened: a
 * monitor that cannot be reached costs nothing to undo. @fig is the
 * report's, with its histogram allocated.
 */
static int client_connect(struct run *run, struct ls_latmon_conn *c,
			  struct ls_latmon_figures *fig, char *err, size_t errlen)
{
	const struct ls_params *p = run->p;
	char found[INET_ADDRSTRLEN];
	const char *host = p->latmon_host;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->wake[0] = -1;
	c->wake[1] = -1;
	c->fig = fig;
	if (!strcmp(host, "broadcast")) {
		if (discover(ls_latmon_port(p), p->verbosity, found, sizeof(found), err, errlen))
			return -1;
		host = found;
	}
	if (connect_host(host, ls_latmon_port(p), &c->fd, fig->peer, sizeof(fig->peer), err,
			 errlen))
		return -1;
	if (pipe2(c->wake, O_CLOEXEC)) {
		ls_fail(err, errlen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	if (p->verbosity > 0)
		fprintf(stderr, "connected to the latmon monitor at %s\n", fig->peer);
	return 0;
}

static int send_request(struct ls_latmon_conn *c, __u32 period_us, __u32 cells)
{
	const struct ls_latmon_request req = { period_us, cells };
	unsigned char buf[LS_LATMON_REQUEST_SIZE];

	ls_latmon_request_pack(&req, buf);
	return send(c->fd, buf, sizeof(buf), MSG_NOSIGNAL) == (ssize_t)sizeof(buf) ? 0 : -1;
}

__attribute__((format(printf, 2, 3)))
static int lost(struct ls_latmon_conn *c, const char *fmt, ...)
{
	int n = snprintf(c->err, sizeof(c->err), "latmon monitor %s: ", c->fig->peer);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
	va_end(ap);
	c->exit_code = LS_EXIT_MONITOR_LOST;
	return -1;
}

/* Sends the zero request, once; from then on the monitor has a deadline. */
static int send_stop(struct ls_latmon_conn *c)
{
	if (c->stop_sent)
		return 0;
	c->stop_sent = true;
	c->stop_deadline_ns = ls_now_ns() + LS_LATMON_TIMEOUT_S * 1000000000ULL;
	return send_request(c, 0, 0);
}

/*
 * Reads @len bytes of @what. Each wait lasts LS_LATMON_TIMEOUT_S at
 * most; meanwhile a byte on the wake pipe sends the zero request, once.
 * After it, whatever comes, the stream must end by the stop's deadline.
 */
static int read_full(struct ls_latmon_conn *c, void *buf, size_t len, const char *what)
{
	struct pollfd pfd[2] = { { .fd = c->fd, .events = POLLIN },
				 { .fd = c->wake[0], .events = POLLIN } };
	int ret, wait_ms = LS_LATMON_TIMEOUT_S * 1000;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		pfd[1].fd = c->stop_sent ? -1 : c->wake[0];
		if (c->stop_sent) {
			wait_ms = ls_ms_until(c->stop_deadline_ns);
			if (!wait_ms)
				return lost(c, "not ended %d s after the stop request (still sending %s): it ignores the stop",
					    LS_LATMON_TIMEOUT_S, what);
		}
		ret = poll(pfd, 2, wait_ms);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return lost(c, "poll: %s", strerror(errno));
		if (!ret && c->stop_sent)
			continue;	/* the deadline, above */
		if (!ret)
			return lost(c, "silent for %d s while %s was due: unresponsive",
				    LS_LATMON_TIMEOUT_S, what);
		if (pfd[1].revents) {
			if (send_stop(c))
				return lost(c, "cannot send the stop request: %s", strerror(errno));
			continue;
		}
		n = recv(c->fd, (char *)buf + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lost(c, "%s: %s", what, strerror(errno));
		if (!n && !got && !c->fig->bulks && !c->stop_sent)
			return lost(c, "closed the connection before its first record: busy with another client, or not serving this one (--allow)");
		if (!n)
			return got ? lost(c, "closed the connection %zu bytes into %s (of %zu)",
					  got, what, len) :
				     lost(c, "closed the connection while %s was due", what);
		got += (size_t)n;
	}
	return 0;
}

/*
 * Takes @d into @s if every sum the run keeps still fits in 64 bits:
 * samples, overruns, the latencies (the run's total), and each timeline
 * point, which adds up consecutive seconds. Each record passed its own
 * check (ls_latmon_data_unpack()), yet records of -9.2e18, +9.2e18 and
 * +9.2e18 ns add up to 9.2e18 while the last two, one point of the
 * timeline once its buckets widen, do not fit. Consecutive seconds sum to
 * the difference of two prefix sums: the new prefix must be within 64
 * bits of the least and of the most before it. Returns 0, or -1 with why
 * in @why and @s unchanged.
 */
int ls_latmon_sums_add(struct ls_latmon_sums *s, const struct ls_latmon_data *d, char *why,
		       size_t len)
{
	__s64 second = d->samples ? d->sum_ns / (__s64)d->samples * (__s64)d->samples : 0;
	struct ls_latmon_sums n = *s;
	__s64 diff;

	n.records++;
	if (__builtin_add_overflow(s->samples, d->samples, &n.samples) ||
	    __builtin_add_overflow(s->overruns, d->overruns, &n.overruns)) {
		ls_fail(why, len, "its samples or overruns overflow 64 bits");
		return -1;
	}
	if (__builtin_add_overflow(s->sum_ns, d->sum_ns, &n.sum_ns) ||
	    __builtin_add_overflow(s->seconds_ns, second, &n.seconds_ns)) {
		ls_fail(why, len, "the sum of the latencies overflows 64 bits");
		return -1;
	}
	if (__builtin_sub_overflow(n.seconds_ns, s->least_ns, &diff)) {
		ls_fail(why, len, "the latencies of records %llu to %llu add up past 64 bits",
			(unsigned long long)s->least_at + 1, (unsigned long long)n.records);
		return -1;
	}
	if (__builtin_sub_overflow(n.seconds_ns, s->most_ns, &diff)) {
		ls_fail(why, len, "the latencies of records %llu to %llu add up past 64 bits",
			(unsigned long long)s->most_at + 1, (unsigned long long)n.records);
		return -1;
	}
	if (n.seconds_ns < n.least_ns) {
		n.least_ns = n.seconds_ns;
		n.least_at = n.records;
	}
	if (n.seconds_ns > n.most_ns) {
		n.most_ns = n.seconds_ns;
		n.most_at = n.records;
	}
	*s = n;
	return 0;
}

/* Adds a data record, its sums checked, to the figures and logs it as one second. */
static int take_bulk(struct run *run, struct ls_latmon_conn *c, const struct ls_latmon_data *d,
		     char *why, size_t len)
{
	struct ls_latmon_figures *f = c->fig;
	struct latscope_bulk b = {
		.second = f->bulks,
		.samples = d->samples,
		.overruns = d->overruns,
		.min_ns = d->min_ns,
		.avg_ns = d->sum_ns / (__s64)d->samples,
		.max_ns = d->max_ns,
	};

	if (ls_latmon_sums_add(&c->sums, d, why, len))
		return -1;
	if (!f->stats.samples || d->max_ns > f->stats.max_ns)
		f->peak_bulk = f->bulks;
	ls_merge_extremes(&f->stats.min_ns, &f->stats.max_ns, !f->stats.samples,
			  d->min_ns, d->max_ns);
	f->stats.samples = c->sums.samples;
	f->stats.sum_ns = c->sums.sum_ns;
	f->overruns = c->sums.overruns;
	f->bulks++;
	ls_run_second(run, &b);
	return 0;
}

/* The records up to the end one, then the histogram. */
static int read_stream(struct run *run, struct ls_latmon_conn *c)
{
	struct ls_latmon_figures *f = c->fig;
	unsigned char rec[LS_LATMON_DATA_SIZE];
	struct ls_latmon_data d;
	unsigned char *raw;
	char why[200];
	__u32 i;
	int ret;

	for (;;) {
		if (read_full(c, rec, sizeof(rec), "a data record"))
			return -1;
		if (ls_latmon_data_unpack(rec, &d, why, sizeof(why)))
			return lost(c, "bad frame after %llu records: %s",
				    (unsigned long long)f->bulks, why);
		if (!d.samples)
			break;
		if (take_bulk(run, c, &d, why, sizeof(why)))
			return lost(c, "bad frame after %llu records: %s",
				    (unsigned long long)f->bulks, why);
	}
	f->ended = true;
	raw = malloc((size_t)f->cells * 4);
	if (!raw)
		return lost(c, "out of memory for its %u-cell histogram", f->cells);
	ret = read_full(c, raw, (size_t)f->cells * 4, "the histogram");
	if (!ret) {
		ls_latmon_cells_unpack(raw, f->cells, f->hist);
		for (i = 0; i < f->cells; i++)
			f->hist_samples += f->hist[i];
		f->has_hist = true;
	}
	free(raw);
	if (!ret && !c->stop_sent)
		return lost(c, "ended the measurement by itself after %llu records",
			    (unsigned long long)f->bulks);
	return ret;
}

static void *client_fn(void *arg)
{
	struct run *run = arg;
	struct ls_latmon_conn *c = run->plug->link->priv;

	if (read_stream(run, c) && !atomic_load(&run->stopping))
		ls_request_stop(run, LS_EXIT_MONITOR_LOST);
	/* A monitor that failed still gets the stop, so it stops pulsing. */
	send_stop(c);
	/* And hears no more of us: a monitor that ignores the stop is let go. */
	shutdown(c->fd, SHUT_RDWR);
	return NULL;
}

/* Asks the monitor to start, once the responder is ready, and reads it. */
static int client_start(struct run *run, void *priv, char *err, size_t errlen)
{
	struct ls_latmon_conn *c = priv;

	if (send_request(c, run->p->period_us, c->fig->cells)) {
		ls_fail(err, errlen, "latmon monitor %s: cannot send the request: %s",
			c->fig->peer, strerror(errno));
		return -1;
	}
	if (ls_start_thread(&c->thread, client_fn, run, SCHED_OTHER, 0, &run->others)) {
		ls_fail(err, errlen, "cannot start the latmon client thread");
		return -1;
	}
	c->has_thread = true;
	return 0;
}

/*
 * Stops the monitor before the responder: the zero request, then its
 * trailing records and histogram, LS_LATMON_TIMEOUT_S at most per wait.
 * Returns @ret, or LS_EXIT_MONITOR_LOST if the monitor failed.
 */
static int client_stop(struct run *run, void *priv, int ret)
{
	struct ls_latmon_conn *c = priv;
	const char byte = 1;

	(void)run;
	if (!c->has_thread)
		return ret;
	if (write(c->wake[1], &byte, 1) != 1)
		shutdown(c->fd, SHUT_RDWR);	/* the reader sees the end now */
	pthread_join(c->thread, NULL);
	c->has_thread = false;
	if (!c->exit_code)
		return ret;
	fprintf(stderr, "latscope: %s\n", c->err);
	return ret == LS_EXIT_OK || ret == LS_EXIT_MONITOR_LOST ? c->exit_code : ret;
}

static void client_close(struct run *run, void *priv)
{
	struct ls_latmon_conn *c = priv;

	(void)run;
	if (c->fd >= 0)
		close(c->fd);
	if (c->wake[0] >= 0)
		close(c->wake[0]);
	if (c->wake[1] >= 0)
		close(c->wake[1]);
	c->fd = -1;
	c->wake[0] = -1;
	c->wake[1] = -1;
}

/*
 * The monitor's figures become the run's totals: its bulks' extremes,
 * sum and overruns, its histogram (the last cell, past hist_cells, is
 * the overflow). It sends no sum of squares: the stddev is unknown.
 */
static void client_collect(struct run *run, void *priv, struct ls_report *r)
{
	const struct ls_latmon_figures *f = r->latmon;
	unsigned int n = r->params->hist_cells, i;

	(void)run;
	(void)priv;
	memset(&r->total, 0, sizeof(r->total));
	memset(&r->total_irq, 0, sizeof(r->total_irq));
	memset(r->total_cells, 0, n * sizeof(*r->total_cells));
	r->has_tail = false;
	r->total.samples = f->stats.samples;
	r->total.min_ns = f->stats.min_ns;
	r->total.max_ns = f->stats.max_ns;
	r->total.sum_ns = f->stats.sum_ns;
	if (f->has_hist) {
		for (i = 0; i < n; i++)
			r->total_cells[i] = f->hist[i];
		r->total.overflow = f->hist[n];
	}
	r->total_overruns = f->overruns;
	r->peak_s = f->peak_bulk;
}

/* The link's open: a monitor not reached is LS_EXIT_MONITOR. */
static int client_open(struct run *run, void *priv, struct ls_report *r, char *err,
		       size_t errlen)
{
	return client_connect(run, priv, r->latmon, err, errlen) ? LS_EXIT_MONITOR : 0;
}

/* The run's link to the monitor at -z HOST; its state: a struct ls_latmon_conn. */
const struct ls_link_ops ls_latmon_client_ops = {
	.open = client_open,
	.start = client_start,
	.stop = client_stop,
	.collect = client_collect,
	.close = client_close,
};
