// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: a latmon monitor (--monitor), so that a Linux board can
 * measure another one as Zephyr's latmon does. It serves the latmon
 * protocol on TCP (one client at a time, door.c: a newcomer is held a
 * few seconds in case the client is leaving, others refused), announces its
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
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "latmon/latmon.h"
#include "output/output.h"

#define LS_ANNOUNCE_S		5	/* as Zephyr's latmon, while idle */
#define LS_REQUEST_WAIT_S	10	/* for a client's first request, and after a run */
#define LS_REQUEST_REST_S	5	/* for the rest of a request once it began */

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

/* What read_request() found. */
enum {
	REQ_BAD = -1,		/* a bad or cut request, an error: in @peer->why */
	REQ_CLOSED = 0,		/* the client closed before a byte */
	REQ_OK = 1,
	REQ_WAKE = 2,		/* @wake first: the run ends, or Ctrl-C */
	REQ_IDLE = 3,		/* no byte within the wait */
};

/*
 * Reads one request of @peer into @req, waiting @wait_s for its first
 * byte (0: for ever) and LS_REQUEST_REST_S more for the rest: deadlines,
 * not per-poll() waits, so a client that trickles a byte at a time is
 * bounded too. Returns a REQ_* value.
 */
static int read_request(struct ls_monitor_peer *peer, int wake, unsigned long long wait_s,
			struct ls_latmon_request *req)
{
	struct pollfd pfd[2] = { { .fd = peer->fd, .events = POLLIN },
				 { .fd = wake, .events = POLLIN } };
	unsigned char buf[LS_LATMON_REQUEST_SIZE];
	__u64 deadline = wait_s ? ls_now_ns() + wait_s * 1000000000ULL : 0, rest;
	size_t got = 0;
	ssize_t n;
	int ret;

	while (got < sizeof(buf)) {
		ret = poll(pfd, 2, deadline ? ls_ms_until(deadline) : -1);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			snprintf(peer->why, sizeof(peer->why), "poll: %s", strerror(errno));
			return REQ_BAD;
		}
		if (!ret && !got) {
			snprintf(peer->why, sizeof(peer->why), "no request within %llu s", wait_s);
			return REQ_IDLE;
		}
		if (!ret) {
			snprintf(peer->why, sizeof(peer->why),
				 "%zu of %d request bytes, the rest not within %d s", got,
				 LS_LATMON_REQUEST_SIZE, LS_REQUEST_REST_S);
			return REQ_BAD;
		}
		if (pfd[1].revents)
			return REQ_WAKE;
		n = recv(peer->fd, buf + got, sizeof(buf) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!got && !n)
				return REQ_CLOSED;
			snprintf(peer->why, sizeof(peer->why), "closed after %zu of %d request bytes%s%s",
				 got, LS_LATMON_REQUEST_SIZE, n ? ": " : "", n ? strerror(errno) : "");
			return REQ_BAD;
		}
		if (!got) {
			rest = ls_now_ns() + LS_REQUEST_REST_S * 1000000000ULL;
			if (!deadline || rest < deadline)
				deadline = rest;
		}
		got += (size_t)n;
	}
	return ls_latmon_request_unpack(buf, req, peer->why, sizeof(peer->why)) ? REQ_BAD : REQ_OK;
}

/* The client's side of a run: its stop, its next request, or its end. */
static void *peer_fn(void *arg)
{
	struct run *run = arg;
	struct ls_monitor_peer *peer = run->plug->link->priv;
	struct ls_latmon_request req;
	int ret;

	/* The client may say nothing until its stop: --max-run bounds that. */
	ret = read_request(peer, peer->wake[0],		/* + 1: the warm-up */
			   peer->max_run_s ? peer->max_run_s + 1 : 0, &req);
	if (ret == REQ_WAKE)
		return NULL;	/* the run ended here: Ctrl-C, or its device */
	if (ret == REQ_IDLE) {
		peer->overran = true;
		fprintf(stderr, "latscope: client %s: its run reached --max-run (%llu s): ending it\n",
			peer->name, peer->max_run_s);
		ls_request_stop(run, LS_EXIT_OK);
		return NULL;
	}
	if (ret == REQ_OK && req.period_us) {
		peer->next = req;	/* a new measurement: this one ends first */
		peer->has_next = true;
	}
	if (ret == REQ_OK)
		peer->stop_asked = true;
	else
		atomic_store(&peer->gone, true);
	if (ret == REQ_BAD)
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
 * The name of run @n's file for @path: the first run's is @path, run n's
 * has "-n" before the extension of its last component (mon.json,
 * mon-2.json, ...), the first such name free unless --force: no client's
 * run replaces another's result. "-" (stdout) and none stay as they are.
 */
static const char *run_path(const char *path, unsigned int n, bool force, char *buf,
			    size_t len)
{
	const char *base, *dot;
	int stem;

	if (!path || !strcmp(path, "-") || n < 2)
		return path;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	stem = (int)(dot && dot != base ? dot - path : (ptrdiff_t)strlen(path));
	snprintf(buf, len, "%.*s-%u%s", stem, path, n, path + stem);
	return force || access(buf, F_OK) ? buf : NULL;
}

/*
 * Run @n's names for -g and --json, both free (or --force): the first n
 * from @n that has them; after 10000 taken ones, @n's, taken or not.
 */
static unsigned int run_paths(const struct ls_params *base, struct ls_params *p,
			      unsigned int n, char (*buf)[PATH_MAX])
{
	unsigned int i;

	for (i = 0; i < 10000; i++) {
		p->plot_path = run_path(base->plot_path, n + i, base->force, buf[0], PATH_MAX);
		p->json_path = run_path(base->json_path, n + i, base->force, buf[1], PATH_MAX);
		if ((p->plot_path || !base->plot_path) && (p->json_path || !base->json_path))
			return n + i;
	}
	p->plot_path = run_path(base->plot_path, n, true, buf[0], PATH_MAX);
	p->json_path = run_path(base->json_path, n, true, buf[1], PATH_MAX);
	return n;
}

/*
 * One measurement for the client: the run with the request's period and
 * histogram, its records streamed, then the trailer, the summary and the
 * files. Returns 1 if Ctrl-C (SIGTERM, SIGHUP) ended it: the monitor ends.
 */
static int measure(const struct ls_params *base, const struct ls_sysinfo *sys,
		   struct ls_monitor_peer *peer, const struct ls_latmon_request *req,
		   const struct ls_monitor_watch *watch)
{
	/*
	 * Each second: kept, streamed to the client, watched, then printed
	 * and checked; a watcher's sink takes the third place, the console
	 * goes fourth.
	 */
	struct ls_sink sinks[] = {
		{ .second = ls_timeline_second }, { .second = peer_second, .priv = peer },
		{ .second = ls_console_second }, { .second = ls_console_second },
	};
	const struct ls_link link = { &peer_link_ops, peer };
	struct ls_plug plug = { .sinks = sinks, .nr_sinks = 3, .link = &link };
	struct ls_report r = { 0 };
	struct ls_params p = *base;
	char err[512] = "", names[2][PATH_MAX];
	int ret;

	p.period_us = req->period_us;
	/*
	 * The last latmon cell is what the driver's histogram overflows;
	 * --subtract S shifts the cells sent by S: the driver keeps S more.
	 */
	p.hist_cells = (req->cells > 1 ? req->cells - 1 : 1) + p.subtract_us;
	p.timeout_s = 0;
	if (watch) {
		sinks[2] = watch->sink;
		plug.nr_sinks = 4;
		plug.snapshots = watch->snapshots;
	}
	peer->runs = run_paths(base, &p, peer->runs + 1, names);
	r.params = &p;
	r.sys = sys;
	peer->stop_asked = false;
	peer->has_next = false;
	peer->overran = false;
	atomic_store(&peer->gone, false);
	peer->overruns = 0;
	if (p.verbosity > 0)
		fprintf(stderr, "client %s asks for a %u us period and %u histogram cells%s\n",
			peer->name, req->period_us, req->cells,
			p.subtract_us ? "; it gets the round trips less --subtract" : "");
	ret = ls_run(&p, &r, &plug, err, sizeof(err));
	if (watch && watch->ended)
		watch->ended(watch->priv, ret == LS_EXIT_SETUP ? NULL : &r);
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
	if (peer->runs > 1 && p.verbosity > 0 && (p.plot_path || p.json_path))
		fprintf(stderr, "latmon monitor: run %u (client %s) written to %s%s%s\n",
			peer->runs, peer->name, p.plot_path ? p.plot_path : "",
			p.plot_path && p.json_path ? " and " : "", p.json_path ? p.json_path : "");
	ls_report_free(&r);
	return !atomic_load(&peer->gone) && !peer->stop_asked && !peer->overran;
}

/*
 * Serves one client until it leaves, goes quiet for LS_REQUEST_WAIT_S
 * between runs, or overstays --max-run. Returns 1 if the monitor must end.
 */
static int serve_client(const struct ls_params *p, const struct ls_sysinfo *sys,
			struct ls_monitor_peer *peer, const struct ls_monitor_watch *watch)
{
	struct ls_latmon_request req;
	bool served = false;	/* a stream went out: its end too */
	int ret;

	for (;;) {
		ret = read_request(peer, peer->sigfd, LS_REQUEST_WAIT_S, &req);
		if (ret == REQ_WAKE)
			return 1;
		if (ret == REQ_CLOSED) {
			if (p->verbosity > 0)
				fprintf(stderr, "client %s left\n", peer->name);
			return 0;
		}
		if (ret == REQ_IDLE || ret == REQ_BAD) {
			fprintf(stderr, "latscope: client %s: %s: closing the connection\n",
				peer->name, peer->why);
			/* A latmus that waits for a stream's end gets one. */
			if (!served || ret == REQ_BAD)
				send_trailer(peer, NULL, 0);
			return 0;
		}
		served = true;
		if (!req.period_us) {
			/* A stop with nothing running: an empty stream, as latmon. */
			if (send_trailer(peer, NULL, 0))
				return 0;
			continue;
		}
		do {
			if (measure(p, sys, peer, &req, watch))
				return 1;
			if (atomic_load(&peer->gone))
				return 0;
			if (peer->overran) {
				fprintf(stderr, "latscope: client %s: closing the connection after --max-run\n",
					peer->name);
				return 0;
			}
			req = peer->next;
		} while (peer->has_next);
	}
}

/* The address a client is told: --listen's, else the first up IPv4 one. */
static void announced_address(const struct ls_door_params *dp, char *buf, size_t len)
{
	struct ifaddrs *ifa, *i;

	snprintf(buf, len, "%s", dp->listen_addr[0] && strcmp(dp->listen_addr, "0.0.0.0") ?
		 dp->listen_addr : "127.0.0.1");
	if ((dp->listen_addr[0] && strcmp(dp->listen_addr, "0.0.0.0")) || getifaddrs(&ifa))
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

/* The UDP announcement, every LS_ANNOUNCE_S while idle; says once if it fails. */
static void send_announcement(const struct ls_params *p, const struct ls_door_params *dp,
			      int fd, const char *addr, bool *warned)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(ls_latmon_port(p)) };

	to.sin_addr.s_addr = htonl(INADDR_BROADCAST);
	if (dp->announce_to[0])
		inet_pton(AF_INET, dp->announce_to, &to.sin_addr);
	if (sendto(fd, addr, strlen(addr), 0, (struct sockaddr *)&to, sizeof(to)) < 0 &&
	    !*warned) {
		fprintf(stderr, "latscope: cannot announce %s to %s port %u: %s (clients can still connect by address)\n",
			addr, dp->announce_to[0] ? dp->announce_to : "255.255.255.255",
			ls_latmon_port(p), strerror(errno));
		*warned = true;
	}
}

/* Does the chips' check before the first client: a wrong line is said now. */
static int check_lines(const struct ls_params *p, char *err, size_t errlen)
{
	struct latscope_setup setup = { 0 };

	return ls_source_of(p)->setup(p, &setup, err, errlen);
}

/*
 * --monitor: serves clients one after the other until Ctrl-C, SIGTERM
 * or SIGHUP; @watch, if not NULL, sees each run too (--serve). Returns
 * the exit status: LS_EXIT_SETUP if it cannot start.
 */
int ls_monitor_serve(const struct ls_params *p, const struct ls_door_params *dp,
		     const struct ls_sysinfo *sys, const struct ls_monitor_watch *watch)
{
	struct ls_monitor_peer peer = { .fd = -1, .wake = { -1, -1 }, .sigfd = -1,
					.max_run_s = dp->max_run_s };
	struct ls_door door = { .lfd = -1, .stop = { -1, -1 }, .held = -1 };
	int ufd = -1, ret = LS_EXIT_SETUP, n, done = 0;
	char err[512] = "", addr[sizeof(dp->listen_addr)];
	struct pollfd pfd[2];
	bool warned = false;
	__u64 next = 0, now;
	sigset_t set, old;

	ls_block_signals(&set, &old);
	peer.sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (peer.sigfd < 0 || pipe2(peer.wake, O_CLOEXEC | O_NONBLOCK)) {
		fprintf(stderr, "latscope: --monitor: %s\n", strerror(errno));
		goto out;
	}
	if (check_lines(p, err, sizeof(err)) || ls_door_open(&door, p, dp, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		goto out;
	}
	announced_address(dp, addr, sizeof(addr));
	if (strcmp(dp->announce_to, "none")) {
		ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		n = 1;
		if (ufd >= 0)
			setsockopt(ufd, SOL_SOCKET, SO_BROADCAST, &n, sizeof(n));
	}
	pfd[0] = (struct pollfd){ .fd = door.lfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = peer.sigfd, .events = POLLIN };
	while (!done) {
		if (p->verbosity > 0)
			fprintf(stderr, "latmon monitor: waiting for a client on %s port %u%s%s\n",
				dp->listen_addr[0] ? dp->listen_addr : "any address",
				ls_latmon_port(p), ufd >= 0 ? ", announcing " : "",
				ufd >= 0 ? addr : "");
		/* A newcomer held while the last client left is served now. */
		while (!ls_door_held(&door)) {
			now = ls_now_ns();
			if (ufd >= 0 && now >= next) {
				send_announcement(p, dp, ufd, addr, &warned);
				next = now + LS_ANNOUNCE_S * 1000000000ULL;
			}
			n = poll(pfd, 2, ufd >= 0 ? ls_ms_until(next) + 1 : -1);
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
		peer.fd = ls_door_accept(&door, peer.name, sizeof(peer.name));
		if (peer.fd < 0)
			continue;
		if (p->verbosity > 0)
			fprintf(stderr, "client %s connected\n", peer.name);
		/* Busy: one newcomer waits a little, others are closed, until this one leaves. */
		if (ls_door_busy(&door, peer.name))
			fprintf(stderr, "latscope: cannot start the doorman: newcomers wait in the backlog\n");
		done = serve_client(p, sys, &peer, watch);
		ls_door_free(&door);
		close(peer.fd);
		peer.fd = -1;
		next = 0;
	}
	ret = LS_EXIT_OK;
out:
	ls_door_close(&door);
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
