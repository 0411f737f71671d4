// SPDX-License-Identifier: GPL-2.0
/*
 * A steady scraper for the exporter's soak: GET /metrics on 127.0.0.1:PORT
 * every INTERVAL ms for SECS seconds, each on a new connection, as a
 * Prometheus does; prints how many answered 200, the bytes of the last,
 * and the time of a scrape (connect to the last byte): min, average, max.
 * With LIMIT_MS, a scrape that takes longer (connect, send or answer) is
 * given up and counted as not answered. Exits 1 if one was not.
 * Loopback only.
 * Usage: http_time PORT SECS INTERVAL_MS [LIMIT_MS]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* One scrape: its bytes, or -1; 200 in *ok. Each call waits @limit_ms at most (0: no limit). */
static long scrape(const struct sockaddr_in *sa, int *ok, int limit_ms)
{
	struct timeval limit = { .tv_sec = limit_ms / 1000, .tv_usec = limit_ms % 1000 * 1000 };
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
	char buf[65536];
	long total = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	*ok = 0;
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != (ssize_t)sizeof(req) - 1) {
		close(fd);
		return -1;
	}
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		if (!total && n > 12 && !memcmp(buf, "HTTP/1.1 200", 12))
			*ok = 1;
		total += n;
	}
	close(fd);
	return n < 0 ? -1 : total;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	double start, t, min = 0, max = 0, sum = 0;
	int secs, interval_ms, limit_ms = 0, i, ok, good = 0;
	long bytes = 0, n;

	if (argc != 4 && argc != 5)
		return 2;
	if (argc == 5)
		limit_ms = atoi(argv[4]);
	sa.sin_port = htons((unsigned short)atoi(argv[1]));
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	secs = atoi(argv[2]);
	interval_ms = atoi(argv[3]);
	if (secs < 1 || secs > 86400 || interval_ms < 10 || limit_ms < 0 || limit_ms > 60000)
		return 2;
	start = now_us();
	for (i = 0; now_us() - start < secs * 1e6; i++) {
		double next = start + (double)(i + 1) * interval_ms * 1e3;

		t = now_us();
		n = scrape(&sa, &ok, limit_ms);
		t = now_us() - t;
		if (limit_ms && t > limit_ms * 1e3)
			ok = 0;		/* each recv() in time, all of them not */
		if (n > 0 && ok) {
			good++;
			bytes = n;
			sum += t;
			if (good == 1 || t < min)
				min = t;
			if (t > max)
				max = t;
		}
		while (now_us() < next)
			usleep(1000);
	}
	printf("scrapes %d answered 200 of %d, last %ld bytes, time us min %.0f avg %.0f max %.0f\n",
	       good, i, bytes, min, good ? sum / good : 0, max);
	return good == i ? 0 : 1;
}
