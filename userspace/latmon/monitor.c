// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: a latmon monitor (--monitor), so that a Linux board can
 * measure another one as Zephyr's latmon does. It serves the latmon
 * protocol on TCP (one client at a time: the listening socket is closed
 * while a client is served, so a second one is refused), announces its
 * IPv4 address by UDP every 5 s while idle, and runs one measurement per
 * client request: the driver's GPIO monitor mode pulses pulse-out and
 * times the answer on ack-in. Each second of the run is sent as a data
 * record (and printed as an RTD line); the client's stop (or its
 * disappearance, or Ctrl-C here) ends the run; then the end record and
 * the histogram go out, and the monitor's own summary and files are
 * written. Its threads run SCHED_OTHER off the measured CPU.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "latmon/latmon.h"
#include "output/output.h"

#define LS_ANNOUNCE_S		5	/* as Zephyr's latmon, while idle */
#define LS_REQUEST_WAIT_S	10	/* for the first request of a client */
#define LS_SEND_TIMEOUT_S	5	/* a client that stops reading is gone */

/* Sends it all, or -1 (a vanished client, a full socket for 5 s). */
static int send_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;
	ssize_t n;

	while (len) {
		n = send(fd, b, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static __s32 clamp32(__s64 v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (__s32)v;
}

static __u32 clampu32(__u64 v)
{
	return v > UINT32_MAX ? UINT32_MAX : (__u32)v;
}

/*
 * One second of the run as a data record: from the logger thread. A
 * second with overruns but no sample is not a record (samples 0 would end
 * the stream): its overruns go with the next one.
 */
static void peer_second(struct run *run, void *priv, const struct latscope_bulk *b)
{
	struct ls_monitor_peer *peer = priv;
	__s64 sub = (__s64)run->p->subtract_us * 1000;
	unsigned char buf[LS_LATMON_DATA_SIZE];
	struct ls_latmon_data d;

	peer->overruns += b->overruns;
	if (!b->samples || atomic_load(&peer->gone))
		return;
	d.sum_ns = (b->avg_ns - sub) * (__s64)b->samples;
	d.min_ns = clamp32(b->min_ns - sub);
	d.max_ns = clamp32(b->max_ns - sub);
	d.overruns = clampu32(peer->overruns);
	d.samples = clampu32(b->samples);
	peer->overruns = 0;
	ls_latmon_data_pack(&d, buf);
	if (send_all(peer->fd, buf, sizeof(buf))) {
		atomic_store(&peer->gone, true);
		ls_request_stop(run, LS_EXIT_OK);
	}
}

/*
 * Reads one request of @peer into @req, waiting @timeout_ms (-1: for
 * ever). Returns 1 for a request, 2 if @wake became readable first (the
 * run ends, Ctrl-C), 0 for a client that closed before sending a byte, -1
 * for anything else (said in @peer->why).
 */
static int read_request(struct ls_monitor_peer *peer, int wake, int timeout_ms,
			struct ls_latmon_request *req)
{
	struct pollfd pfd[2] = { { .fd = peer->fd, .events = POLLIN },
				 { .fd = wake, .events = POLLIN } };
	unsigned char buf[LS_LATMON_REQUEST_SIZE];
	size_t got = 0;
	ssize_t n;
	int ret;

	while (got < sizeof(buf)) {
		ret = poll(pfd, 2, timeout_ms);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0) {
			snprintf(peer->why, sizeof(peer->why), "no request within %d s",
				 timeout_ms / 1000);
			return -1;
		}
		if (pfd[1].revents)
			return 2;
		n = recv(peer->fd, buf + got, sizeof(buf) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!got && !n)
				return 0;
			snprintf(peer->why, sizeof(peer->why), "closed after %zu of %d request bytes%s%s",
				 got, LS_LATMON_REQUEST_SIZE, n ? ": " : "", n ? strerror(errno) : "");
			return -1;
		}
		got += (size_t)n;
	}
	return ls_latmon_request_unpack(buf, req, peer->why, sizeof(peer->why)) ? -1 : 1;
}

/* The client's side of a run: its stop, its next request, or its end. */
static void *peer_fn(void *arg)
{
	struct run *run = arg;
	struct ls_monitor_peer *peer = run->plug->link->priv;
	struct ls_latmon_request req;
	int ret;

	ret = read_request(peer, peer->wake[0], -1, &req);
	if (ret == 2)
		return NULL;	/* the run ended here: Ctrl-C, or its device */
	if (ret == 1 && req.period_us) {
		peer->next = req;	/* a new measurement: this one ends first */
		peer->has_next = true;
	}
	if (ret == 1)
		peer->stop_asked = true;
	else
		atomic_store(&peer->gone, true);
	if (ret < 0)
		fprintf(stderr, "latscope: client %s: %s\n", peer->name, peer->why);
	ls_request_stop(run, LS_EXIT_OK);
	return NULL;
}

static int peer_start(struct run *run, void *priv, char *err, size_t errlen)
{
	struct ls_monitor_peer *peer = priv;
	char byte;

	while (read(peer->wake[0], &byte, 1) == 1)
		;	/* a wake-up the last run's thread did not need */
	if (ls_start_thread(&peer->thread, peer_fn, run, SCHED_OTHER, 0, &run->others)) {
		ls_fail(err, errlen, "cannot start the thread that reads the latmon client");
		return -1;
	}
	peer->has_thread = true;
	return 0;
}

/* Once the run stopped: the client's thread ends. */
static void peer_stopped(struct run *run, void *priv)
{
	struct ls_monitor_peer *peer = priv;
	const char byte = 1;

	(void)run;
	if (!peer->has_thread)
		return;
	if (write(peer->wake[1], &byte, 1) != 1)
		shutdown(peer->fd, SHUT_RD);
	pthread_join(peer->thread, NULL);
	peer->has_thread = false;
}

/* The run's link to its client: it reads the client while the run goes on. */
static const struct ls_link_ops peer_link_ops = {
	.start = peer_start,
	.stopped = peer_stopped,
};

/*
 * The end of a stream: the end record, then @cells counts of 1 us from
 * @r, the last one holding every sample past the others (any below zero
 * go to the first). With --subtract S the driver's cells start S cells
 * earlier: cell i is the driver's i + S, and the S before fall below zero
 * (into the first). @cells 0 (or no @r): no histogram.
 */
static int send_trailer(struct ls_monitor_peer *peer, const struct ls_report *r,
			unsigned int cells)
{
	unsigned char end[LS_LATMON_DATA_SIZE] = { 0 };
	unsigned char *buf;
	unsigned int i;
	__u32 *hist;
	__u64 last;
	int ret = -1;

	if (send_all(peer->fd, end, sizeof(end)))
		return -1;
	if (!cells || !r)
		return 0;
	hist = calloc(cells, sizeof(*hist));
	buf = malloc((size_t)cells * 4);
	if (hist && buf) {
		/* The driver's cells are cells - 1 + S (1 + S if cells is 1). */
		unsigned int s = r->params->subtract_us;
		__u64 below = r->total.underflow;

		last = r->total.overflow;
		for (i = 0; i < r->params->hist_cells; i++) {
			if (i < s)
				below += r->total_cells[i];
			else if (i - s + 1 < cells)
				hist[i - s] = clampu32(r->total_cells[i]);
			else
				last += r->total_cells[i];
		}
		hist[cells - 1] = clampu32(last);
		hist[0] = clampu32((__u64)hist[0] + below);
		ls_latmon_cells_pack(hist, cells, buf);
		ret = send_all(peer->fd, buf, (size_t)cells * 4);
	}
	free(hist);
	free(buf);
	return ret;
}

/*
 * One measurement for the client: the run with the request's period and
 * histogram, its records streamed, then the trailer, the summary and the
 * files. Returns 1 if Ctrl-C (SIGTERM, SIGHUP) ended it: the monitor ends.
 */
static int measure(const struct ls_params *base, const struct ls_sysinfo *sys,
		   struct ls_monitor_peer *peer, const struct ls_latmon_request *req)
{
	/* Each second: kept, streamed to the client, then printed and checked. */
	const struct ls_sink sinks[] = {
		{ ls_timeline_second, NULL }, { peer_second, peer }, { ls_console_second, NULL },
	};
	const struct ls_link link = { &peer_link_ops, peer };
	const struct ls_plug plug = { sinks, 3, &link };
	struct ls_report r = { 0 };
	struct ls_params p = *base;
	char err[512] = "";
	int ret;

	p.period_us = req->period_us;
	/*
	 * The last latmon cell is what the driver's histogram overflows;
	 * --subtract S shifts the cells sent by S: the driver keeps S more.
	 */
	p.hist_cells = (req->cells > 1 ? req->cells - 1 : 1) + p.subtract_us;
	p.timeout_s = 0;
	r.params = &p;
	r.sys = sys;
	peer->stop_asked = false;
	peer->has_next = false;
	atomic_store(&peer->gone, false);
	peer->overruns = 0;
	if (p.verbosity > 0)
		fprintf(stderr, "client %s asks for a %u us period and %u histogram cells%s\n",
			peer->name, req->period_us, req->cells,
			p.subtract_us ? "; it gets the round trips less --subtract" : "");
	ret = ls_run(&p, &r, &plug, err, sizeof(err));
	if (ret == LS_EXIT_SETUP) {
		/* Nothing ran: the client's stream ends at once. */
		fprintf(stderr, "latscope: %s\n", err);
		send_trailer(peer, NULL, 0);
		ls_report_free(&r);
		return 0;
	}
	if (err[0])
		fprintf(stderr, "latscope: %s\n", err);
	if (!atomic_load(&peer->gone) && send_trailer(peer, &r, req->cells))
		atomic_store(&peer->gone, true);
	if (atomic_load(&peer->gone))
		fprintf(stderr, "latscope: client %s vanished: its run stopped, the lines are free\n",
			peer->name);
	ls_print_summary(stdout, &r);
	fflush(stdout);
	ls_write_files(&r, true);
	ls_report_free(&r);
	return !atomic_load(&peer->gone) && !peer->stop_asked;
}

/* Serves one client until it leaves. Returns 1 if the monitor must end. */
static int serve_client(const struct ls_params *p, const struct ls_sysinfo *sys,
			struct ls_monitor_peer *peer)
{
	struct ls_latmon_request req;
	int ret;

	ret = read_request(peer, peer->sigfd, LS_REQUEST_WAIT_S * 1000, &req);
	for (;;) {
		if (ret == 2)
			return 1;
		if (ret == 0) {
			if (p->verbosity > 0)
				fprintf(stderr, "client %s left\n", peer->name);
			return 0;
		}
		if (ret < 0) {
			fprintf(stderr, "latscope: client %s: %s: closing the connection\n",
				peer->name, peer->why);
			/* A latmus that waits for the stream's end gets it. */
			send_trailer(peer, NULL, 0);
			return 0;
		}
		if (!req.period_us) {
			/* A stop with nothing running: an empty stream, as latmon. */
			if (send_trailer(peer, NULL, 0))
				return 0;
		} else {
			if (measure(p, sys, peer, &req))
				return 1;
			if (atomic_load(&peer->gone))
				return 0;
			if (peer->has_next) {
				req = peer->next;
				continue;
			}
		}
		ret = read_request(peer, peer->sigfd, -1, &req);
	}
}

/* The address a client is told: --listen's, else the first up IPv4 one. */
static void announced_address(const struct ls_params *p, char *buf, size_t len)
{
	struct ifaddrs *ifa, *i;

	snprintf(buf, len, "%s", p->listen_addr[0] && strcmp(p->listen_addr, "0.0.0.0") ?
		 p->listen_addr : "127.0.0.1");
	if ((p->listen_addr[0] && strcmp(p->listen_addr, "0.0.0.0")) || getifaddrs(&ifa))
		return;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK)) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf,
				  (socklen_t)len);
			break;
		}
	freeifaddrs(ifa);
}

static int listen_on(const struct ls_params *p, char *err, size_t errlen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(ls_latmon_port(p)) };
	int fd, on = 1;

	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (p->listen_addr[0])
		inet_pton(AF_INET, p->listen_addr, &sin.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 1)) {
		ls_fail(err, errlen, "--monitor: cannot listen on %s port %u: %s",
			p->listen_addr[0] ? p->listen_addr : "any address", ls_latmon_port(p),
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The UDP announcement, every LS_ANNOUNCE_S while idle; says once if it fails. */
static void send_announcement(const struct ls_params *p, int fd, const char *addr, bool *warned)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(ls_latmon_port(p)) };

	to.sin_addr.s_addr = htonl(INADDR_BROADCAST);
	if (p->announce_to[0])
		inet_pton(AF_INET, p->announce_to, &to.sin_addr);
	if (sendto(fd, addr, strlen(addr), 0, (struct sockaddr *)&to, sizeof(to)) < 0 &&
	    !*warned) {
		fprintf(stderr, "latscope: cannot announce %s to %s port %u: %s (clients can still connect by address)\n",
			addr, p->announce_to[0] ? p->announce_to : "255.255.255.255",
			ls_latmon_port(p), strerror(errno));
		*warned = true;
	}
}

/* A client's connection: no more send waits than LS_SEND_TIMEOUT_S. */
static void take_client(struct ls_monitor_peer *peer, int fd, const struct sockaddr_in *from)
{
	struct timeval tv = { .tv_sec = LS_SEND_TIMEOUT_S };
	char a[INET_ADDRSTRLEN];

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	inet_ntop(AF_INET, &from->sin_addr, a, sizeof(a));
	snprintf(peer->name, sizeof(peer->name), "%s:%u", a, ntohs(from->sin_port));
	peer->fd = fd;
}

/* Does the chips' check before the first client: a wrong line is said now. */
static int check_lines(const struct ls_params *p, char *err, size_t errlen)
{
	struct latscope_setup setup = { 0 };

	return ls_source_of(p)->setup(p, &setup, err, errlen);
}

/*
 * --monitor: serves clients one after the other until Ctrl-C, SIGTERM
 * or SIGHUP. Returns the exit status: LS_EXIT_SETUP if it cannot start.
 */
int ls_monitor_serve(const struct ls_params *p, const struct ls_sysinfo *sys)
{
	struct ls_monitor_peer peer = { .fd = -1, .wake = { -1, -1 }, .sigfd = -1 };
	int lfd = -1, ufd = -1, ret = LS_EXIT_SETUP, n, done = 0;
	struct pollfd pfd[2];
	char err[512] = "", addr[sizeof(p->listen_addr)];
	struct sockaddr_in from;
	socklen_t flen;
	bool warned = false;
	__u64 next = 0, now;
	sigset_t set, old;

	ls_block_signals(&set, &old);
	peer.sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (peer.sigfd < 0 || pipe2(peer.wake, O_CLOEXEC | O_NONBLOCK)) {
		fprintf(stderr, "latscope: --monitor: %s\n", strerror(errno));
		goto out;
	}
	if (check_lines(p, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		goto out;
	}
	announced_address(p, addr, sizeof(addr));
	if (strcmp(p->announce_to, "none")) {
		ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		n = 1;
		if (ufd >= 0)
			setsockopt(ufd, SOL_SOCKET, SO_BROADCAST, &n, sizeof(n));
	}
	while (!done) {
		lfd = listen_on(p, err, sizeof(err));
		if (lfd < 0) {
			fprintf(stderr, "latscope: %s\n", err);
			goto out;
		}
		if (p->verbosity > 0)
			fprintf(stderr, "latmon monitor: waiting for a client on %s port %u%s%s\n",
				p->listen_addr[0] ? p->listen_addr : "any address",
				ls_latmon_port(p), ufd >= 0 ? ", announcing " : "",
				ufd >= 0 ? addr : "");
		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = peer.sigfd, .events = POLLIN };
		for (;;) {
			now = ls_now_ns();
			if (ufd >= 0 && now >= next) {
				send_announcement(p, ufd, addr, &warned);
				next = now + LS_ANNOUNCE_S * 1000000000ULL;
			}
			n = poll(pfd, 2, ufd >= 0 ? (int)((next - now) / 1000000) + 1 : -1);
			if (n < 0 && errno != EINTR)
				break;
			if (n > 0 && pfd[1].revents) {
				done = 1;
				break;
			}
			if (n > 0 && pfd[0].revents)
				break;
		}
		if (done)
			break;
		flen = sizeof(from);
		n = accept4(lfd, (struct sockaddr *)&from, &flen, SOCK_CLOEXEC);
		/* Busy: a second client is refused until this one leaves. */
		close(lfd);
		lfd = -1;
		if (n < 0)
			continue;
		take_client(&peer, n, &from);
		if (p->verbosity > 0)
			fprintf(stderr, "client %s connected\n", peer.name);
		done = serve_client(p, sys, &peer);
		close(peer.fd);
		peer.fd = -1;
		next = 0;
	}
	ret = LS_EXIT_OK;
out:
	if (lfd >= 0)
		close(lfd);
	if (ufd >= 0)
		close(ufd);
	if (peer.sigfd >= 0)
		close(peer.sigfd);
	if (peer.wake[0] >= 0)
		close(peer.wake[0]);
	if (peer.wake[1] >= 0)
		close(peer.wake[1]);
	ls_unblock_signals(&set, &old);
	return ret;
}
