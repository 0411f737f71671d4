/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI: a latmon monitor's host, as addresses to connect to. Two
 * implementations: resolve.c asks the system's resolver (names, both
 * families); resolve_static.c, linked into static builds, takes an
 * address or "localhost" only, since glibc's resolver needs its own
 * shared libraries at run time even in a static program.
 */
#ifndef LS_LATMON_RESOLVE_H
#define LS_LATMON_RESOLVE_H

#include <stddef.h>
#include <sys/socket.h>

#define LS_RESOLVE_MAX	8	/* addresses tried, in the order given */

struct ls_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/*
 * Fills @out with up to LS_RESOLVE_MAX addresses of @host at @port.
 * Returns how many, or -1 with the reason in @err.
 */
int ls_resolve(const char *host, unsigned int port, struct ls_addr *out,
	       char *err, size_t errlen);

#endif
