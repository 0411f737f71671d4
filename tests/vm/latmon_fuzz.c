// SPDX-License-Identifier: GPL-2.0
/*
 * Network fuzz of both latmon ends, over loopback in the GPIO test VM
 * (tests/vm/netfuzz_test.sh): written from the wire protocol (packed
 * 32-bit big-endian fields; request {period_usecs, histogram_cells}; data
 * {sum hi, sum lo, min, max, overruns, samples}; samples 0 ends the
 * stream, then histogram_cells counts), not from latscope's code.
 *
 * usage: latmon_fuzz monitor PORT SEED N
 *          a monitor that serves N clients one after the other, each with
 *          a behaviour drawn from SEED: valid, edge and garbage records,
 *          sums that overflow together, an early end, histograms short,
 *          long or missing, a cut at any byte, a stop ignored, silence;
 *          every wait bounded (10 s), every step printed
 *        latmon_fuzz client ADDRESS PORT SEED N
 *          N connections to a monitor, each sending random and edge
 *          requests (periods 0, 1, 9, 10, 1000000, 1000001, random;
 *          cells 0 to 1001, random), byte by byte or at once, with cuts,
 *          reading or not; each connection lasts 4 s at most
 * Exits 0 when it played its N turns; what the side under test did is
 * judged by the script (its exit status, its output, what it left).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
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

static uint64_t rng_state;

/* xorshift64*: the same SEED plays the same game. */
static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return n ? (uint32_t)((rng_state * 2685821657736338717ULL) >> 32) % n : 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void msleep(unsigned int ms)
{
	usleep(ms * 1000);
}

/* Sends what it can; a peer that left is not an error here. */
static void out(int fd, const void *buf, size_t len)
{
	if (send(fd, buf, len, MSG_NOSIGNAL) < 0)
		return;
}

static void bounded(int fd)
{
	struct timeval tv = { .tv_sec = 10 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Reads @len bytes within the socket's bound: 0, or -1. */
static int in(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, buf + got, len - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static void record(unsigned char *b, uint64_t sum, uint32_t min, uint32_t max,
		   uint32_t overruns, uint32_t samples)
{
	put32(b, (uint32_t)(sum >> 32));
	put32(b + 4, (uint32_t)sum);
	put32(b + 8, min);
	put32(b + 12, max);
	put32(b + 16, overruns);
	put32(b + 20, samples);
}

/* One data record of a kind drawn at random; returns its kind. */
static int fuzz_record(unsigned char *b)
{
	uint32_t samples = 1 + rnd(2000), min = rnd(100000), max = min + rnd(100000);
	int kind = (int)rnd(9);
	size_t i;

	switch (kind) {
	case 0: case 1: case 2: case 3:	/* valid */
		record(b, (uint64_t)samples * (min + (max - min) / 2), min, max, rnd(3), samples);
		break;
	case 4:				/* min above max */
		record(b, (uint64_t)samples * max, max + 1, min, 0, samples);
		break;
	case 5:				/* each valid, two overflow a signed sum */
		record(b, 0xffffffffULL * 0x7fffffffULL, 0x7fffffff, 0x7fffffff, 0,
		       0xffffffffU);
		break;
	case 6:				/* a sum out of samples * [min, max] */
		record(b, UINT64_MAX - rnd(1000), min, max, 0, samples);
		break;
	case 7:				/* negative latencies, valid */
		record(b, (uint64_t)(int64_t)-(int64_t)samples * 1000, (uint32_t)-2000,
		       (uint32_t)-1000, 0, samples);
		break;
	default:			/* garbage */
		for (i = 0; i < 24; i++)
			b[i] = (unsigned char)rnd(256);
		break;
	}
	return kind;
}

/* Sends @len bytes of @buf, cut after a random byte if @cut. */
static int send_cut(int fd, const unsigned char *buf, size_t len, int cut)
{
	size_t n = cut ? rnd((uint32_t)len) : len;

	out(fd, buf, n);
	return n < len;
}

/* One client of the fuzzing monitor. */
static void serve(int fd, int turn)
{
	unsigned char req[8], rec[24], *hist;
	uint32_t cells, n, i, how = rnd(8);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	time_t end;

	if (in(fd, req, sizeof(req))) {
		printf("turn %d: no request\n", turn);
		return;
	}
	cells = get32(req + 4);
	printf("turn %d: request %u us %u cells, behaviour %u\n", turn, get32(req), cells, how);
	fflush(stdout);
	for (n = rnd(6), i = 0; i < n; i++) {
		printf("turn %d: record kind %d\n", turn, fuzz_record(rec));
		if (send_cut(fd, rec, sizeof(rec), how == 1 && i == n - 1))
			return;
		msleep(rnd(300));
	}
	switch (how) {
	case 2:		/* silent until the client gives up (5 s) or 8 s */
		poll(&pfd, 1, 8000);
		return;
	case 3:		/* ignores the stop, streams on for 8 s */
		for (end = time(NULL) + 8; time(NULL) < end;) {
			fuzz_record(rec);
			record(rec, 1000000, 1000, 1000, 0, 1000);
			out(fd, rec, sizeof(rec));
			msleep(200);
		}
		return;
	case 4:		/* an early end record, then a histogram */
		break;
	default:	/* waits for the stop */
		if (in(fd, req, sizeof(req)))
			return;
		printf("turn %d: stop request %u\n", turn, get32(req));
		break;
	}
	/* The trailer: maybe a record, the end, a histogram of some length. */
	if (rnd(2)) {
		fuzz_record(rec);
		out(fd, rec, sizeof(rec));
	}
	record(rec, 0, 0xffffffffU, 0, 0, 0);
	if (send_cut(fd, rec, sizeof(rec), how == 5))
		return;
	n = rnd(4) == 0 ? rnd(cells + 2) : cells;
	hist = calloc(n + 1, 4);
	if (!hist)
		return;
	for (i = 0; i < n; i++)
		put32(hist + 4 * i, rnd(4) ? rnd(1000) : UINT32_MAX - rnd(10));
	send_cut(fd, hist, 4 * (size_t)n, how == 6);
	free(hist);
	printf("turn %d: histogram %u of %u cells\n", turn, n, cells);
	/* Lets the client read it all before the close. */
	poll(&pfd, 1, 2000);
}

static int fuzz_monitor(int port, int runs)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, ls, fd, turn;
	struct timeval tv = { .tv_sec = 60 };

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(ls, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(ls, (struct sockaddr *)&sin, sizeof(sin)) || listen(ls, 1)) {
		perror("latmon_fuzz: listen");
		return 1;
	}
	printf("listening %d\n", port);
	fflush(stdout);
	for (turn = 0; turn < runs; turn++) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0) {
			perror("latmon_fuzz: accept");
			return 1;
		}
		bounded(fd);
		serve(fd, turn);
		close(fd);
		printf("turn %d: done\n", turn);
		fflush(stdout);
	}
	close(ls);
	return 0;
}

/* A request's fields: edge values most of the time, else random. */
static uint32_t edge_period(void)
{
	static const uint32_t v[] = { 0, 1, 9, 10, 10000, 1000000, 1000001, UINT32_MAX };

	return rnd(4) ? v[rnd(8)] : rnd(UINT32_MAX);
}

static uint32_t edge_cells(void)
{
	static const uint32_t v[] = { 0, 1, 2, 51, 1000, 1001, UINT32_MAX };

	return rnd(4) ? v[rnd(7)] : rnd(2000);
}

/* One connection to the monitor under test, 4 s at most. */
static void poke(const char *addr, int port, int turn)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port) };
	unsigned char buf[64], junk[512];
	struct pollfd pfd = { .events = POLLIN };
	uint32_t how = rnd(6), n, i;
	time_t end = time(NULL) + 4;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || inet_pton(AF_INET, addr, &to.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&to, sizeof(to))) {
		printf("turn %d: not connected\n", turn);
		if (fd >= 0)
			close(fd);
		return;
	}
	bounded(fd);
	pfd.fd = fd;
	switch (how) {
	case 0:		/* random bytes */
		n = rnd(sizeof(buf));
		for (i = 0; i < n; i++)
			buf[i] = (unsigned char)rnd(256);
		out(fd, buf, n);
		break;
	case 1:		/* a request byte by byte */
		put32(buf, edge_period());
		put32(buf + 4, edge_cells());
		for (i = 0; i < 8 && time(NULL) < end; i++) {
			out(fd, buf + i, 1);
			msleep(rnd(700));
		}
		break;
	default:	/* requests, then a stop or a cut */
		for (n = 1 + rnd(3), i = 0; i < n; i++) {
			put32(buf, rnd(2) ? 10000 : edge_period());
			put32(buf + 4, edge_cells());
			send_cut(fd, buf, 8, how == 2);
			msleep(rnd(1500));
		}
		if (how == 3) {
			put32(buf, 0);
			put32(buf + 4, 0);
			out(fd, buf, 8);
		}
		break;
	}
	printf("turn %d: behaviour %u sent\n", turn, how);
	fflush(stdout);
	/* Reads what comes (or not: how 4 leaves it unread), until 4 s. */
	while (how != 4 && time(NULL) < end && poll(&pfd, 1, 200) >= 0)
		if ((pfd.revents & POLLIN) && recv(fd, junk, sizeof(junk), MSG_DONTWAIT) == 0)
			break;
	if (how == 4)
		msleep(rnd(3000));
	if (rnd(2))
		shutdown(fd, SHUT_WR);
	close(fd);
}

int main(int argc, char **argv)
{
	int i, n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "monitor")) {
		rng_state = strtoull(argv[3], NULL, 0) | 1;
		return fuzz_monitor(atoi(argv[2]), atoi(argv[4]));
	}
	if (argc == 6 && !strcmp(argv[1], "client")) {
		rng_state = strtoull(argv[4], NULL, 0) | 1;
		n = atoi(argv[5]);
		for (i = 0; i < n; i++)
			poke(argv[2], atoi(argv[3]), i);
		return 0;
	}
	fprintf(stderr, "usage: latmon_fuzz monitor PORT SEED N | client ADDRESS PORT SEED N\n");
	return 2;
}
