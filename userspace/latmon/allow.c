// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: --allow, the IPv4 networks whose clients a latmon monitor
 * serves: "ADDR[/PREFIX][,ADDR[/PREFIX]...]", at most LS_ALLOW_MAX. An
 * empty list serves everyone (the latmon way); a network with host bits
 * set is refused, since it usually means another prefix was meant.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latmon/latmon.h"

/* One "ADDR[/PREFIX]" of @len characters at @s into @net. */
static int parse_net(const char *s, size_t len, struct ls_allow_net *net, char *err,
		     size_t errlen)
{
	char buf[32], *slash, *end = NULL;
	struct in_addr a;
	unsigned long bits = 32;

	if (!len || len >= sizeof(buf)) {
		ls_fail(err, errlen, "--allow: '%.*s' is not ADDR or ADDR/PREFIX",
			(int)(len > 40 ? 40 : len), s);
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash) {
		*slash++ = '\0';
		bits = *slash >= '0' && *slash <= '9' ? strtoul(slash, &end, 10) : 33;
		if (bits > 32 || *end) {
			ls_fail(err, errlen, "--allow %s/%s: the prefix is a length from 0 to 32",
				buf, slash);
			return -1;
		}
	}
	if (inet_pton(AF_INET, buf, &a) != 1) {
		ls_fail(err, errlen, "--allow: '%s' is not a dotted IPv4 address", buf);
		return -1;
	}
	net->mask = bits ? 0xffffffffU << (32 - bits) : 0;
	net->addr = ntohl(a.s_addr);
	if (net->addr & ~net->mask) {
		struct in_addr n = { htonl(net->addr & net->mask) };
		char want[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &n, want, sizeof(want));
		ls_fail(err, errlen, "--allow %s/%lu: host bits set (the network is %s/%lu)",
			buf, bits, want, bits);
		return -1;
	}
	return 0;
}

int ls_allow_parse(const char *s, struct ls_allow *allow, char *err, size_t errlen)
{
	struct ls_allow a = { 0 };
	const char *comma;

	for (;;) {
		comma = strchr(s, ',');
		if (a.n == LS_ALLOW_MAX) {
			ls_fail(err, errlen, "--allow: at most %d networks", LS_ALLOW_MAX);
			return -1;
		}
		if (parse_net(s, comma ? (size_t)(comma - s) : strlen(s), &a.net[a.n], err, errlen))
			return -1;
		a.n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	*allow = a;
	return 0;
}

bool ls_allow_has(const struct ls_allow *allow, uint32_t addr)
{
	unsigned int i;

	if (!allow->n)
		return true;
	for (i = 0; i < allow->n; i++)
		if ((addr & allow->net[i].mask) == allow->net[i].addr)
			return true;
	return false;
}
