// SPDX-License-Identifier: GPL-2.0
/*
 * A scraper that floods the exporter: opens N connections to HOST:PORT
 * at once, each sending half a request line and then nothing, holds them
 * for SECS seconds and closes them. Prints how many connected. Loopback
 * only: the VM has no other network.
 * Usage: http_flood IPV4 PORT N SECS
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char half[] = "GET /metrics HTTP/1.1\r\nHost: x";
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int n, secs, i, *fd, connected = 0;

	if (argc != 5 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1 ||
	    strcmp(argv[1], "127.0.0.1")) {
		fprintf(stderr, "usage: http_flood 127.0.0.1 PORT N SECS\n");
		return 2;
	}
	sa.sin_port = htons((unsigned short)atoi(argv[2]));
	n = atoi(argv[3]);
	secs = atoi(argv[4]);
	if (n < 1 || n > 1000 || secs < 0 || secs > 600)
		return 2;
	fd = calloc((size_t)n, sizeof(*fd));
	if (!fd)
		return 1;
	for (i = 0; i < n; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (fd[i] < 0)
			continue;
		if (connect(fd[i], (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			connected++;
			/* Half a request: the server waits for the rest. */
			if (send(fd[i], half, sizeof(half) - 1, MSG_NOSIGNAL) < 0 && errno != EPIPE)
				perror("send");
		}
	}
	printf("connected %d of %d\n", connected, n);
	fflush(stdout);
	sleep((unsigned int)secs);
	for (i = 0; i < n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(fd);
	return 0;
}
