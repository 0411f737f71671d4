// SPDX-License-Identifier: GPL-2.0
/*
 * A test double of a latmon monitor, written from the wire protocol as
 * issue 14 states it (Zephyr's latmon, EVL's latmus), not from latscope's
 * own code: TCP, packed 32-bit big-endian fields; request {period_usecs,
 * histogram_cells}; data {sum_lat_hi, sum_lat_lo, min_lat, max_lat,
 * overruns, samples}; after the zero request, the partial record, an end
 * record with samples 0 (min_lat all ones, as Zephyr sends it), then
 * histogram_cells counts. Each scenario misbehaves in one way.
 *
 * usage: latmon_peer monitor SCENARIO PORT
 *          SCENARIO: known silent close short bad shorthist early, steady
 *          (known's three records, then one each 500 ms until the stop:
 *          a client that must outlive a slow test), deaf
 *          (streams on, ignoring the stop, for 30 s), overflow (two
 *          records whose sums together overflow 64 bits), overflow-range
 *          (-9.2e18, +9.2e18, +9.2e18: all three add up, the last two
 *          do not fit 64 bits)
 *        latmon_peer client SCENARIO ADDRESS PORT [PERIOD CELLS RECORDS]
 *          a latmon client: good (asks, takes RECORDS records, stops, reads
 *          the rest and checks the histogram adds up), vanish (leaves after
 *          RECORDS records), stop-first, long-period, many-cells, half,
 *          tiny-period (5 us), mute (connects, says nothing), busy
 *          (expects to be closed at once), linger (a good run, then
 *          silent: expects to be closed within 20 s), trickle (a request
 *          a byte every 2 s), deaf (a request, then never reads, 60 s),
 *          hold (takes RECORDS records, then stops reading for 60 s),
 *          handover (a good run; before it closes, a newcomer connects
 *          and asks, then a third, which must be closed at once; once
 *          the first closed, the newcomer must get RECORDS records)
 *        latmon_peer announce ADDRESS PORT [from=SOURCE] TEXT...
 *          sends each TEXT as a UDP datagram to ADDRESS:PORT (broadcast
 *          allowed), from SOURCE if given, one a second, until killed
 * The monitor prints what it received ("request PERIOD CELLS", "stop"),
 * with the bytes in hex, and exits 0 once its scenario is played out.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void be32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_all(int fd, const void *buf, size_t len)
{
	if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len) {
		perror("latmon_peer: send");
		exit(1);
	}
}

/* One data record: sum as two halves, then min, max, overruns, samples. */
static void record(int fd, uint64_t sum, uint32_t min, uint32_t max, uint32_t overruns,
		   uint32_t samples)
{
	unsigned char b[24];

	be32(b, (uint32_t)(sum >> 32));
	be32(b + 4, (uint32_t)sum);
	be32(b + 8, min);
	be32(b + 12, max);
	be32(b + 16, overruns);
	be32(b + 20, samples);
	put_all(fd, b, sizeof(b));
}

/* Reads one 8-byte request; returns its period, prints it and its bytes. */
static int request(int fd, uint32_t *cells)
{
	unsigned char b[8];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(b)) {
		n = recv(fd, b + got, sizeof(b) - got, 0);
		if (n <= 0) {
			printf("eof after %zu request bytes\n", got);
			return -1;
		}
		got += (size_t)n;
	}
	printf("bytes %02x%02x%02x%02x %02x%02x%02x%02x\n", b[0], b[1], b[2], b[3],
	       b[4], b[5], b[6], b[7]);
	*cells = rd32(b + 4);
	if (!rd32(b))
		printf("stop\n");
	else
		printf("request %u %u\n", rd32(b), *cells);
	fflush(stdout);
	return (int)rd32(b);
}

/*
 * The histogram the known scenario sends, cells past 20 empty but the
 * last: 2507 samples, as its records.
 */
static void histogram(int fd, uint32_t cells, uint32_t send_cells)
{
	unsigned char *b = calloc(cells ? cells : 1, 4);
	static const struct { uint32_t cell, count; } h[] = {
		{ 9, 1 }, { 10, 999 }, { 11, 500 }, { 12, 7 }, { 20, 999 },
	};
	size_t i;

	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		if (h[i].cell < cells - 1)
			be32(b + 4 * h[i].cell, h[i].count);
	if (cells)
		be32(b + 4 * (cells - 1), 1);
	put_all(fd, b, 4 * (size_t)send_cells);
	free(b);
}

static void known_records(int fd)
{
	/* 20 us average; 5e9 ns needs the high half; 15 us average. */
	record(fd, 20000000ULL, 10000, 50000, 0, 1000);
	usleep(300000);
	record(fd, 5000000000ULL, 9000, 6000000, 2, 1000);
	usleep(300000);
	record(fd, 7500000ULL, 11000, 30000, 0, 500);
}

static int monitor(const char *scenario, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint32_t cells = 0, stop_cells;
	int one = 1, ls, fd;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&sin, sizeof(sin)) || listen(ls, 1)) {
		perror("latmon_peer: listen");
		return 1;
	}
	printf("listening %d\n", port);
	fflush(stdout);
	fd = accept(ls, NULL, NULL);
	if (fd < 0 || request(fd, &cells) <= 0)
		return 1;
	if (!strcmp(scenario, "silent")) {
		/* Holds the connection open, says nothing, until the client goes. */
		request(fd, &stop_cells);
		request(fd, &stop_cells);
		return 0;
	}
	if (!strcmp(scenario, "close")) {
		record(fd, 20000000ULL, 10000, 50000, 0, 1000);
		usleep(200000);
		return 0;
	}
	if (!strcmp(scenario, "short")) {
		put_all(fd, "\0\0\0\0\0\0\0\0\0\0", 10);
		usleep(200000);
		return 0;
	}
	if (!strcmp(scenario, "bad")) {
		record(fd, 20000000ULL, 50000, 10000, 0, 1000);	/* min > max */
		request(fd, &stop_cells);
		return 0;
	}
	if (!strcmp(scenario, "deaf")) {
		/* 150 records, one each 200 ms, whatever the client says. */
		for (int i = 0; i < 150; i++) {
			record(fd, 20000000ULL, 10000, 50000, 0, 1000);
			usleep(200000);
		}
		return 0;
	}
	if (!strcmp(scenario, "overflow")) {
		/* Each record adds up (sum = samples * min = samples * max)... */
		uint64_t sum = 0xffffffffULL * 0x7fffffffULL;

		record(fd, sum, 0x7fffffff, 0x7fffffff, 0, 0xffffffffU);
		record(fd, sum, 0x7fffffff, 0x7fffffff, 0, 0xffffffffU);
		/* ...two do not fit a signed 64-bit sum. */
		request(fd, &stop_cells);
		return 0;
	}
	if (!strcmp(scenario, "overflow-range")) {
		/* Each adds up: 2^32 - 1 samples of -2^31 ns, then of 2^31 - 1. */
		struct timeval tv = { .tv_sec = 10 };

		record(fd, (uint64_t)(INT32_MIN * 0xffffffffLL), 0x80000000U, 0x80000000U, 0,
		       0xffffffffU);
		record(fd, 0xffffffffULL * 0x7fffffffULL, 0x7fffffff, 0x7fffffff, 0, 0xffffffffU);
		record(fd, 0xffffffffULL * 0x7fffffffULL, 0x7fffffff, 0x7fffffff, 0, 0xffffffffU);
		/* A client that took them all sends no stop: closed in 10 s. */
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		request(fd, &stop_cells);
		return 0;
	}
	if (!strcmp(scenario, "early")) {
		record(fd, 20000000ULL, 10000, 50000, 0, 1000);
		record(fd, 0, 0xffffffffU, 0, 0, 0);
		histogram(fd, cells, cells);
		request(fd, &stop_cells);
		return 0;
	}
	/* known, shorthist: three records, then the trailer on the stop. */
	known_records(fd);
	/* steady: then a record each 500 ms until the stop (2 min at most). */
	for (int i = 0; !strcmp(scenario, "steady") && i < 240; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 500) != 0)
			break;
		record(fd, 7500000ULL, 11000, 30000, 0, 500);
	}
	if (request(fd, &stop_cells) != 0)
		return 1;
	record(fd, 87500, 12000, 13000, 0, 7);
	record(fd, 0, 0xffffffffU, 0, 0, 0);
	if (!strcmp(scenario, "shorthist")) {
		histogram(fd, cells, cells / 2);
		return 0;
	}
	histogram(fd, cells, cells);
	/* The client closes; nothing more may come. */
	return request(fd, &stop_cells) == -1 ? 0 : 1;
}

static int connect_to(const char *addr, int port)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port) };
	/* A monitor that says nothing fails the scenario, not the whole VM. */
	struct timeval tv = { .tv_sec = 30 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || inet_pton(AF_INET, addr, &to.sin_addr) != 1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return -1;
	if (connect(fd, (struct sockaddr *)&to, sizeof(to))) {
		printf("connect: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void send_request(int fd, uint32_t period, uint32_t cells)
{
	unsigned char b[8];

	be32(b, period);
	be32(b + 4, cells);
	put_all(fd, b, sizeof(b));
}

/* Exactly @len bytes, or -1 at the end of the stream. */
static int get_all(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, (char *)buf + got, len - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* One data record; its samples, or -1 at the end of the stream. */
static long long get_record(int fd, long long *sum)
{
	unsigned char b[24];
	uint32_t min, max;

	if (get_all(fd, b, sizeof(b)))
		return -1;
	*sum = (long long)((uint64_t)rd32(b) << 32 | rd32(b + 4));
	min = rd32(b + 8);
	max = rd32(b + 12);
	if (rd32(b + 20))
		printf("record samples %u overruns %u min %u max %u sum %lld\n", rd32(b + 20),
		       rd32(b + 16), min, max, *sum);
	else
		printf("end record\n");
	fflush(stdout);
	return rd32(b + 20);
}

/* A good run's trailer: records until the end one, then @cells counts. */
static int trailer(int fd, uint32_t cells)
{
	unsigned char *b = malloc(4 * (size_t)cells + 1);
	long long n, sum;
	int ret;

	while ((n = get_record(fd, &sum)) > 0)
		;
	ret = !b || n < 0 || get_all(fd, b, 4 * (size_t)cells) ? -1 : 0;
	free(b);
	return ret;
}

/*
 * Back to back: the newcomer connects and sends its request after the
 * first client's run ended but before that client closed, as a script's
 * next run may; a third connects meanwhile. The newcomer must be served
 * once the first closes, the third closed at once (without a byte).
 */
static int handover(const char *addr, int port, uint32_t period, uint32_t cells, int records)
{
	long long sum;
	int first, next, third, k;
	char c;

	first = connect_to(addr, port);
	if (first < 0)
		return 1;
	send_request(first, period, cells);
	for (k = 0; k < records; k++)
		if (get_record(first, &sum) <= 0)
			return 1;
	send_request(first, 0, 0);
	if (trailer(first, cells))
		return 1;
	printf("first run done, not closed yet\n");
	next = connect_to(addr, port);
	if (next < 0)
		return 1;
	send_request(next, period, cells);
	third = connect_to(addr, port);
	if (third < 0)
		return 1;
	k = (int)recv(third, &c, 1, 0);
	printf("third %s\n", k == 0 ? "closed" : "not closed");
	close(third);
	close(first);
	fflush(stdout);
	for (k = 0; k < records; k++)
		if (get_record(next, &sum) <= 0) {
			printf("newcomer refused after %d records\n", k);
			return 1;
		}
	send_request(next, 0, 0);
	if (trailer(next, cells))
		return 1;
	printf("newcomer served\n");
	close(next);
	return 0;
}

static int client(const char *scenario, const char *addr, int port, uint32_t period,
		  uint32_t cells, int records)
{
	long long samples = 0, hist = 0, n, sum;
	unsigned char *b;
	uint32_t i;
	int fd, k;

	if (!strcmp(scenario, "handover"))
		return handover(addr, port, period, cells, records);
	fd = connect_to(addr, port);
	if (fd < 0)
		return 1;
	if (!strcmp(scenario, "busy")) {
		/* Closed without a byte, before SO_RCVTIMEO's 30 s. */
		time_t t0 = time(NULL);

		n = recv(fd, &i, 1, 0);
		printf("%s after %lld s\n", n == 0 ? "closed at once" : "not closed",
		       (long long)(time(NULL) - t0));
		return n == 0 && time(NULL) - t0 < 10 ? 0 : 1;
	}
	if (!strcmp(scenario, "trickle")) {
		/* A byte every 2 s: errors ignored, the monitor may be gone. */
		for (k = 0; k < 8; k++) {
			if (send(fd, "\0", 1, MSG_NOSIGNAL) != 1)
				break;
			n = recv(fd, &i, 1, MSG_DONTWAIT | MSG_PEEK);
			if (n >= 0)
				break;	/* the monitor answered (or closed): stop */
			sleep(2);
		}
		n = get_record(fd, &sum);
		k = n == 0 && get_all(fd, &i, 1) ? 0 : 1;
		printf("%s\n", k ? "more than an empty stream" : "empty stream, closed");
		return k;
	}
	if (!strcmp(scenario, "deaf") || !strcmp(scenario, "hold")) {
		send_request(fd, period, cells);
		for (k = 0; !strcmp(scenario, "hold") && k < records; k++)
			if (get_record(fd, &sum) <= 0)
				return 1;
		printf("not reading\n");
		fflush(stdout);
		sleep(60);
		return 0;
	}
	if (!strcmp(scenario, "mute") || !strcmp(scenario, "half")) {
		if (!strcmp(scenario, "half")) {
			put_all(fd, "\0\0\x03", 3);
			shutdown(fd, SHUT_WR);
		}
		n = get_record(fd, &sum);
		printf("%s\n", n == 0 ? "empty stream" : "no end record");
		return n == 0 ? 0 : 1;
	}
	if (!strcmp(scenario, "stop-first"))
		send_request(fd, 0, 0);
	else if (!strcmp(scenario, "long-period"))
		send_request(fd, 1000001, 10);
	else if (!strcmp(scenario, "many-cells"))
		send_request(fd, 1000, 1001);
	else if (!strcmp(scenario, "tiny-period"))
		send_request(fd, 5, 10);
	else
		send_request(fd, period, cells);
	if (!strcmp(scenario, "stop-first")) {
		/* Nothing runs: an empty stream, and the monitor waits for more. */
		n = get_record(fd, &sum);
		printf("%s\n", n ? "no end record" : "empty stream");
		return n ? 1 : 0;
	}
	if (strcmp(scenario, "good") && strcmp(scenario, "vanish") && strcmp(scenario, "linger")) {
		/* Refused: the end record, then the connection closes. */
		n = get_record(fd, &sum);
		k = n == 0 && get_all(fd, &i, 1) ? 0 : 1;
		printf("%s\n", k ? "more than an empty stream" : "empty stream, closed");
		return k;
	}
	for (k = 0; k < records; k++) {
		n = get_record(fd, &sum);
		if (n <= 0)
			return 1;
		samples += n;
	}
	if (!strcmp(scenario, "vanish"))
		return 0;
	send_request(fd, 0, 0);
	while ((n = get_record(fd, &sum)) > 0)
		samples += n;
	if (n < 0)
		return 1;
	b = malloc(4 * (size_t)cells + 1);
	if (!b || get_all(fd, b, 4 * (size_t)cells))
		return 1;
	for (i = 0; i < cells; i++)
		hist += rd32(b + 4 * i);
	printf("records done: samples %lld histogram %lld\n", samples, hist);
	if (!strcmp(scenario, "linger")) {
		/* Silent, not closing: the monitor must close within 20 s. */
		time_t t0 = time(NULL);

		fflush(stdout);
		n = recv(fd, &i, 1, 0);
		printf("%s after %lld s\n", n == 0 ? "closed by the monitor" : "not closed",
		       (long long)(time(NULL) - t0));
		if (n != 0 || time(NULL) - t0 >= 20)
			return 1;
	}
	return samples == hist && samples > 0 ? 0 : 1;
}

static int announce(const char *addr, int port, int n, char **texts)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in from = { .sin_family = AF_INET };
	int one = 1, fd, i;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || inet_pton(AF_INET, addr, &to.sin_addr) != 1 ||
	    setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one))) {
		perror("latmon_peer: announce");
		return 1;
	}
	if (n > 1 && !strncmp(texts[0], "from=", 5)) {
		if (inet_pton(AF_INET, texts[0] + 5, &from.sin_addr) != 1 ||
		    bind(fd, (struct sockaddr *)&from, sizeof(from))) {
			perror("latmon_peer: announce from");
			return 1;
		}
		texts++;
		n--;
	}
	for (;;) {
		for (i = 0; i < n; i++)
			if (sendto(fd, texts[i], strlen(texts[i]), 0, (struct sockaddr *)&to,
				   sizeof(to)) < 0)
				perror("latmon_peer: sendto");
		sleep(1);
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "monitor"))
		return monitor(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], atoi(argv[4]), 10000, 51, 3);
	if (argc == 8 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], atoi(argv[4]), (uint32_t)atoi(argv[5]),
			      (uint32_t)atoi(argv[6]), atoi(argv[7]));
	if (argc >= 5 && !strcmp(argv[1], "announce"))
		return announce(argv[2], atoi(argv[3]), argc - 4, argv + 4);
	fprintf(stderr, "usage: latmon_peer monitor SCENARIO PORT | client SCENARIO ADDRESS PORT [PERIOD CELLS RECORDS] | announce ADDRESS PORT [from=SOURCE] TEXT...\n");
	return 2;
}
