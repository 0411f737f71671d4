// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: a latmon monitor's host in a static build, without the
 * system's resolver: an IPv4 or IPv6 address, or "localhost" (127.0.0.1).
 * A name is refused with a line saying what to give instead.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "core/core.h"
#include "latmon/resolve.h"

int ls_resolve(const char *host, unsigned int port, struct ls_addr *out,
	       char *err, size_t errlen)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&out->ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&out->ss;
	const char *a = strcmp(host, "localhost") ? host : "127.0.0.1";

	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, a, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		out->len = sizeof(*s4);
		return 1;
	}
	if (inet_pton(AF_INET6, a, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		out->len = sizeof(*s6);
		return 1;
	}
	ls_fail(err, errlen,
		"latmon monitor '%s': host not found (this static build resolves no names: give an IPv4 or IPv6 address)",
		host);
	return -1;
}
