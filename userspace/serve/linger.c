// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the exporter's lingering close (RFC 9112, 9.6). When the
 * server closes a connection whose peer is still sending (a request too
 * big for its memory, a body after a 405), closing the socket with unread
 * input makes the kernel send a reset, which can reach the peer before it
 * has read the answer, and a peer still writing dies of EPIPE without
 * reading it at all: a 20 kB URL sent by nc got no 414 but a reset.
 *
 * So the socket is kept open a little longer on a descriptor of ours:
 * its write side shut down (the answer, then a FIN), its input read and
 * thrown away until the peer closes, for at most LS_LINGER_MS and
 * LS_LINGER_BYTES. The door's limits hold: at most LS_LINGER_MAX sockets
 * linger at once, LS_LINGER_PER_PEER from one address; past those a
 * socket is closed at once, as before. One thread uses a set.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "serve/serve.h"

/* One socket lingering: @fd -1 for a free slot. */
struct ls_linger_sock {
	int fd;
	__u64 deadline_ns;
	size_t drained;
	struct sockaddr_storage peer;
};

struct ls_linger {
	int ep;			/* the sockets', for the loop to wait on */
	struct ls_linger_sock sock[LS_LINGER_MAX];
};

struct ls_linger *ls_linger_open(void)
{
	struct ls_linger *l = calloc(1, sizeof(*l));
	unsigned int i;

	if (!l)
		return NULL;
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0) {
		free(l);
		return NULL;
	}
	for (i = 0; i < LS_LINGER_MAX; i++)
		l->sock[i].fd = -1;
	return l;
}

int ls_linger_fd(const struct ls_linger *l)
{
	return l->ep;
}

/* The same host: the address, not the port. */
static bool same_peer(const struct sockaddr_storage *a, const struct sockaddr *b)
{
	if (a->ss_family != b->sa_family)
		return false;
	if (b->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (b->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return true;
}

static socklen_t addr_len(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return sizeof(sa->sa_family);
}

static void sock_close(struct ls_linger *l, struct ls_linger_sock *s)
{
	epoll_ctl(l->ep, EPOLL_CTL_DEL, s->fd, NULL);
	close(s->fd);
	s->fd = -1;
}

/**
 * ls_linger_add() - let the socket behind @fd linger after its owner
 *	closes @fd
 * @l: the set
 * @fd: the socket, its answer written; its owner still closes it
 * @peer: the peer's address
 * @now_ns: the time, on ls_now_ns()'s clock
 *
 * Return: true if it lingers; false if a limit (or no descriptor) says
 * it is closed at once.
 */
bool ls_linger_add(struct ls_linger *l, int fd, const struct sockaddr *peer, __u64 now_ns)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct ls_linger_sock *s = NULL;
	unsigned int i, same = 0;

	for (i = 0; i < LS_LINGER_MAX; i++) {
		if (l->sock[i].fd < 0) {
			if (!s)
				s = &l->sock[i];
		} else if (same_peer(&l->sock[i].peer, peer)) {
			same++;
		}
	}
	if (!s || same >= LS_LINGER_PER_PEER)
		return false;
	s->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (s->fd < 0)
		return false;
	ev.data.u32 = (__u32)(s - l->sock);
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, s->fd, &ev)) {
		close(s->fd);
		s->fd = -1;
		return false;
	}
	/* Already done by a server that answered; a no-op then. */
	shutdown(s->fd, SHUT_WR);
	s->deadline_ns = now_ns + LS_LINGER_MS * 1000000ULL;
	s->drained = 0;
	memset(&s->peer, 0, sizeof(s->peer));
	memcpy(&s->peer, peer, addr_len(peer));
	return true;
}

/* Reads @s's input away: false once it is done (the peer's end, an error, the cap). */
static bool drain(struct ls_linger_sock *s)
{
	char buf[4096];

	for (;;) {
		ssize_t n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0) {
			s->drained += (size_t)n;
			if (s->drained > LS_LINGER_BYTES)
				return false;
			continue;
		}
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
	}
}

/**
 * ls_linger_run() - read what the lingering sockets were sent, close
 *	those done or past their deadline
 * @l: the set
 * @now_ns: the time, on ls_now_ns()'s clock
 *
 * Return: the milliseconds until the next deadline, or -1 for none.
 */
int ls_linger_run(struct ls_linger *l, __u64 now_ns)
{
	struct epoll_event got[LS_LINGER_MAX];
	__u64 next = 0;
	unsigned int i;
	int n;

	n = epoll_wait(l->ep, got, LS_LINGER_MAX, 0);
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		struct ls_linger_sock *s = &l->sock[got[i].data.u32];

		if (s->fd >= 0 && !drain(s))
			sock_close(l, s);
	}
	for (i = 0; i < LS_LINGER_MAX; i++) {
		struct ls_linger_sock *s = &l->sock[i];

		if (s->fd < 0)
			continue;
		if (s->deadline_ns <= now_ns)
			sock_close(l, s);
		else if (!next || s->deadline_ns < next)
			next = s->deadline_ns;
	}
	if (!next)
		return -1;
	return (int)((next - now_ns + 999999) / 1000000);
}

/* Closes every socket still lingering, and the set. */
void ls_linger_close(struct ls_linger *l)
{
	unsigned int i;

	if (!l)
		return;
	for (i = 0; i < LS_LINGER_MAX; i++)
		if (l->sock[i].fd >= 0)
			sock_close(l, &l->sock[i]);
	close(l->ep);
	free(l);
}
