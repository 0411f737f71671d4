// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the latmon monitor's door. One listening socket for the
 * monitor's life, so no other program can take the port between two
 * clients; --allow checked at each accept; and, while a client is
 * served, a doorman thread that accepts every newcomer and closes it at
 * once, so a second client learns in a round trip that the monitor is
 * busy instead of waiting in the backlog. Each connection served gets
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

int ls_door_open(struct ls_door *d, const struct ls_params *p, char *err, size_t errlen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(ls_latmon_port(p)) };
	int fd, on = 1;

	memset(d, 0, sizeof(*d));
	d->lfd = -1;
	d->stop[0] = -1;
	d->stop[1] = -1;
	d->p = p;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (p->listen_addr[0])
		inet_pton(AF_INET, p->listen_addr, &sin.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 4)) {
		ls_fail(err, errlen, "--monitor: cannot listen on %s port %u: %s",
			p->listen_addr[0] ? p->listen_addr : "any address", ls_latmon_port(p),
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

int ls_door_accept(struct ls_door *d, char *name, size_t len)
{
	struct sockaddr_in from;
	int fd;

	fd = door_take(d, &from, name, len);
	if (fd < 0)
		return -1;
	if (!ls_allow_has(&d->p->allow, ntohl(from.sin_addr.s_addr))) {
		fprintf(stderr, "latscope: refused client %s: not in --allow\n", name);
		close(fd);
		return -1;
	}
	door_bound(fd);
	return fd;
}

/* While a client is served: every newcomer is closed at once. */
static void *doorman_fn(void *arg)
{
	struct ls_door *d = arg;
	struct pollfd pfd[2] = { { .fd = d->lfd, .events = POLLIN },
				 { .fd = d->stop[0], .events = POLLIN } };
	struct sockaddr_in from;
	char name[64];
	int fd;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		fd = door_take(d, &from, name, sizeof(name));
		if (fd < 0)
			continue;
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
}

void ls_door_close(struct ls_door *d)
{
	ls_door_free(d);
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
