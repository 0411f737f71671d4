// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the latmon monitor's door. One listening socket for the
 * monitor's life, so no other program can take the port between two
 * clients; --allow checked at each accept; and, while a client is
 * served, a doorman thread that accepts every newcomer. The first one is
 * held for LS_DOOR_HOLD_S: a client that connects as the last one leaves
 * (a script's next run) is served next, as Zephyr's latmon serves one
 * from its listen backlog once free. Any other newcomer meanwhile, and
 * the held one if the monitor is still busy when its time is up, is
 * closed, so it learns that the monitor is busy instead of waiting for a
 * run that may last hours. Each connection served gets
 * TCP keepalive and a TCP user timeout, so a board that vanished without
 * a FIN is noticed in about LS_DOOR_GONE_S seconds, and a send timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "latmon/latmon.h"

#define LS_SEND_TIMEOUT_S	5	/* a send that waits this long: the client is gone */
#define LS_KEEPIDLE_S		5	/* idle this long, probe... */
#define LS_KEEPINTVL_S		1	/* ...every second... */
#define LS_KEEPCNT		5	/* ...this many times unanswered: gone */
#define LS_DOOR_GONE_S		10	/* data unacknowledged this long: gone */
/*
 * How long a newcomer is held while the monitor is busy: long enough for
 * the end of a run whose client has stopped it (the trailer, the summary,
 * the files, the client's close: the handover of tests/vm/latmon_test.sh
 * waited 0.020 s in the TCG VM, 2026-11-27), shorter than a latmon
 * client's 5 s of silence, so a client refused after it still hears the
 * close, not a monitor that went quiet.
 */
#define LS_DOOR_HOLD_S		3
#define LS_DOOR_HOLD_NS		(LS_DOOR_HOLD_S * 1000000000ULL)

int ls_door_open(struct ls_door *d, const struct ls_params *p,
		 const struct ls_door_params *dp, char *err, size_t errlen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(ls_latmon_port(p)) };
	int fd, on = 1;

	memset(d, 0, sizeof(*d));
	d->lfd = -1;
	d->held = -1;
	d->stop[0] = -1;
	d->stop[1] = -1;
	d->p = p;
	d->dp = dp;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (dp->listen_addr[0])
		inet_pton(AF_INET, dp->listen_addr, &sin.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 4)) {
		ls_fail(err, errlen, "--monitor: cannot listen on %s port %u: %s",
			dp->listen_addr[0] ? dp->listen_addr : "any address", ls_latmon_port(p),
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (pipe2(d->stop, O_CLOEXEC | O_NONBLOCK)) {
		ls_fail(err, errlen, "--monitor: cannot make a pipe: %s", strerror(errno));
		close(fd);
		return -1;
	}
	d->lfd = fd;
	return 0;
}

/* Accepts one connection: its fd, or -1; @from and @name say who. */
static int door_take(struct ls_door *d, struct sockaddr_in *from, char *name, size_t len)
{
	socklen_t flen = sizeof(*from);
	char a[INET_ADDRSTRLEN];
	int fd;

	fd = accept4(d->lfd, (struct sockaddr *)from, &flen, SOCK_CLOEXEC);
	if (fd < 0)
		return -1;
	inet_ntop(AF_INET, &from->sin_addr, a, sizeof(a));
	snprintf(name, len, "%s:%u", a, ntohs(from->sin_port));
	return fd;
}

/* A connection to serve: bounded sends, and a vanished peer noticed. */
static void door_bound(int fd)
{
	struct timeval tv = { .tv_sec = LS_SEND_TIMEOUT_S };
	int on = 1, idle = LS_KEEPIDLE_S, intvl = LS_KEEPINTVL_S, cnt = LS_KEEPCNT;
	unsigned int user_ms = LS_DOOR_GONE_S * 1000;

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof(user_ms));
}

/* Whether --allow lets @from in; if not, @fd is closed and the monitor says so. */
static bool door_allowed(struct ls_door *d, int fd, const struct sockaddr_in *from,
			 const char *name)
{
	if (ls_allow_has(&d->dp->allow, ntohl(from->sin_addr.s_addr)))
		return true;
	fprintf(stderr, "latscope: refused client %s: not in --allow\n", name);
	close(fd);
	return false;
}

bool ls_door_held(const struct ls_door *d)
{
	return d->held >= 0;
}

int ls_door_accept(struct ls_door *d, char *name, size_t len)
{
	struct sockaddr_in from;
	int fd;

	if (d->held >= 0) {
		fd = d->held;
		d->held = -1;
		snprintf(name, len, "%s", d->held_name);
		if (d->p->verbosity > 0)
			fprintf(stderr, "client %s waited %.3f s for %s to leave\n", name,
				(ls_now_ns() - d->held_since_ns) / 1e9, d->busy_with);
	} else {
		fd = door_take(d, &from, name, len);
		if (fd < 0 || !door_allowed(d, fd, &from, name))
			return -1;
	}
	door_bound(fd);
	return fd;
}

/*
 * The held newcomer, closed: the monitor was busy for its whole wait. Its
 * request is read first (a little: a client sends 8 bytes), so that the
 * close is a FIN the client reads as "closed", not a reset.
 */
static void door_refuse_held(struct ls_door *d)
{
	char buf[64];
	int i;

	for (i = 0; i < 16 && recv(d->held, buf, sizeof(buf), MSG_DONTWAIT) > 0; i++)
		;
	close(d->held);
	d->held = -1;
	fprintf(stderr, "latscope: refused client %s: busy with %s for %d s\n", d->held_name,
		d->busy_with, LS_DOOR_HOLD_S);
}

/*
 * While a client is served: the first newcomer is held until the client
 * leaves or LS_DOOR_HOLD_S is up, every other one is closed at once.
 */
static void *doorman_fn(void *arg)
{
	struct ls_door *d = arg;
	struct pollfd pfd[2] = { { .fd = d->lfd, .events = POLLIN },
				 { .fd = d->stop[0], .events = POLLIN } };
	struct sockaddr_in from;
	char name[64];
	int fd, n, wait_ms;

	for (;;) {
		wait_ms = d->held >= 0 ? ls_ms_until(d->held_since_ns + LS_DOOR_HOLD_NS) : -1;
		n = poll(pfd, 2, wait_ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (!n) {
			door_refuse_held(d);
			continue;
		}
		fd = door_take(d, &from, name, sizeof(name));
		if (fd < 0 || !door_allowed(d, fd, &from, name))
			continue;
		if (d->held < 0) {
			d->held = fd;
			d->held_since_ns = ls_now_ns();
			snprintf(d->held_name, sizeof(d->held_name), "%s", name);
			if (d->p->verbosity > 0)
				fprintf(stderr, "client %s waits up to %d s: busy with %s\n", name,
					LS_DOOR_HOLD_S, d->busy_with);
			continue;
		}
		close(fd);
		fprintf(stderr, "latscope: refused client %s: busy with %s\n", name,
			d->busy_with);
	}
	return NULL;
}

int ls_door_busy(struct ls_door *d, const char *name)
{
	sigset_t all, old;
	int ret;

	snprintf(d->busy_with, sizeof(d->busy_with), "%s", name);
	/* The run's signals stay with the threads that wait for them. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&d->thread, NULL, doorman_fn, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	d->has_thread = !ret;
	return ret ? -1 : 0;
}

void ls_door_free(struct ls_door *d)
{
	const char byte = 1;
	char c;

	if (!d->has_thread)
		return;
	/* An empty pipe of our own takes the byte. */
	if (write(d->stop[1], &byte, 1) != 1)
		fprintf(stderr, "latscope: cannot stop the doorman: %s\n", strerror(errno));
	pthread_join(d->thread, NULL);
	d->has_thread = false;
	while (read(d->stop[0], &c, 1) == 1)
		;
	if (d->held >= 0 && ls_now_ns() >= d->held_since_ns + LS_DOOR_HOLD_NS)
		door_refuse_held(d);
}

void ls_door_close(struct ls_door *d)
{
	ls_door_free(d);
	if (d->held >= 0)
		close(d->held);
	d->held = -1;
	if (d->lfd >= 0)
		close(d->lfd);
	if (d->stop[0] >= 0)
		close(d->stop[0]);
	if (d->stop[1] >= 0)
		close(d->stop[1]);
	d->lfd = -1;
	d->stop[0] = -1;
	d->stop[1] = -1;
}
