// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: a latmon monitor's host through the system's resolver
 * (getaddrinfo): names and addresses of either family.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "latmon/resolve.h"

int ls_resolve(const char *host, unsigned int port, struct ls_addr *out,
	       char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	char service[16];
	int ret, n = 0;

	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret) {
		ls_fail(err, errlen, "latmon monitor '%s': host not found (%s)", host,
			ret == EAI_SYSTEM ? strerror(errno) : gai_strerror(ret));
		return -1;
	}
	for (ai = res; ai && n < LS_RESOLVE_MAX; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(out[n].ss))
			continue;
		memcpy(&out[n].ss, ai->ai_addr, ai->ai_addrlen);
		out[n++].len = ai->ai_addrlen;
	}
	freeaddrinfo(res);
	if (!n) {
		ls_fail(err, errlen, "latmon monitor '%s': host not found (no usable address)",
			host);
		return -1;
	}
	return n;
}
