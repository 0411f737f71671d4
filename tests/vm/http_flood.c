// SPDX-License-Identifier: GPL-2.0
/*
 * A peer that tries to blind the exporter: opens N connections to
 * HOST:PORT at once (from SRC with -s), each sending half a request and
 * then, with -t MS, one more header line every MS ms (a slow-header peer:
 * the request never ends, yet the connection is never idle), else
 * nothing. It holds them SECS seconds at most, watching which the server
 * closes, and then closes the rest. Prints how many connected, then how
 * many the server closed, how many were still open at the end, and the
 * longest any stayed open. Loopback only (127.0.0.0/8): a test's traffic
 * never leaves the machine.
 * Usage: http_flood [-s SRC] [-t MS] HOST PORT N SECS
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A loopback address into @a, else -1. */
static int loopback(const char *s, struct in_addr *a)
{
	if (inet_pton(AF_INET, s, a) != 1 || (ntohl(a->s_addr) >> 24) != 127)
		return -1;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: http_flood [-s 127.x.x.x] [-t MS] 127.x.x.x PORT N SECS\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const char half[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
	static const char line[] = "X-Slow: 1\r\n";
	struct sockaddr_in sa = { .sin_family = AF_INET }, src = { .sin_family = AF_INET };
	/* connect() gives up after this: a full backlog drops SYNs. */
	struct timeval give_up = { .tv_sec = 2 };
	int n, secs, i, opt, trickle_ms = 0, connected = 0, closed = 0, open_left = 0;
	long long start, end, next_line, longest = 0, *born;
	bool has_src = false;
	struct pollfd *pf;

	while ((opt = getopt(argc, argv, "s:t:")) != -1) {
		switch (opt) {
		case 's':
			if (loopback(optarg, &src.sin_addr))
				return usage();
			has_src = true;
			break;
		case 't':
			trickle_ms = atoi(optarg);
			if (trickle_ms < 10 || trickle_ms > 60000)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (argc - optind != 4 || loopback(argv[optind], &sa.sin_addr))
		return usage();
	sa.sin_port = htons((unsigned short)atoi(argv[optind + 1]));
	n = atoi(argv[optind + 2]);
	secs = atoi(argv[optind + 3]);
	if (n < 1 || n > 1000 || secs < 0 || secs > 600)
		return usage();
	pf = calloc((size_t)n, sizeof(*pf));
	born = calloc((size_t)n, sizeof(*born));
	if (!pf || !born)
		return 1;
	for (i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		pf[i].fd = -1;
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &give_up, sizeof(give_up));
		if ((has_src && bind(fd, (struct sockaddr *)&src, sizeof(src))) ||
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(fd);
			continue;
		}
		connected++;
		born[i] = now_ms();
		pf[i].fd = fd;
		pf[i].events = POLLIN;
		/* Half a request: the server waits for the rest. */
		if (send(fd, half, sizeof(half) - 1, MSG_NOSIGNAL) < 0 && errno != EPIPE &&
		    errno != ECONNRESET)
			perror("send");
	}
	printf("connected %d of %d\n", connected, n);
	fflush(stdout);
	start = now_ms();
	end = start + secs * 1000LL;
	next_line = start + trickle_ms;
	/* Until SECS are over or the server closed every one. */
	while (closed < connected) {
		long long now = now_ms(), wake = end;
		char buf[4096];
		ssize_t got;

		if (now >= end)
			break;
		if (trickle_ms && now >= next_line) {
			for (i = 0; i < n; i++)
				if (pf[i].fd >= 0)
					send(pf[i].fd, line, sizeof(line) - 1, MSG_NOSIGNAL);
			next_line += trickle_ms;
		}
		if (trickle_ms && next_line < wake)
			wake = next_line;
		if (poll(pf, (nfds_t)n, (int)(wake > now ? wake - now : 0)) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			/* An answer (a 4xx) is read; the end of the stream is the close. */
			got = recv(pf[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (got > 0 || (got < 0 && errno == EAGAIN))
				continue;
			if (now_ms() - born[i] > longest)
				longest = now_ms() - born[i];
			close(pf[i].fd);
			pf[i].fd = -1;
			closed++;
		}
	}
	for (i = 0; i < n; i++) {
		if (pf[i].fd < 0)
			continue;
		open_left++;
		if (now_ms() - born[i] > longest)
			longest = now_ms() - born[i];
		close(pf[i].fd);
	}
	printf("closed by the server: %d of %d, open at the end: %d, longest open: %lld ms\n",
	       closed, connected, open_left, longest);
	free(pf);
	free(born);
	return 0;
}
