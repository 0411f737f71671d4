// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: CPU lists as the options, messages and files write them:
 * "1,3-5". Parsed, printed, and the first CPU of a set.
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"

/* "1,3-5": CPU numbers and ranges, each below CPU_SETSIZE. */
int ls_parse_cpu_list(const char *s, cpu_set_t *set)
{
	char buf[256], *tok, *save = NULL, *dash;
	unsigned long long lo, hi, c;

	CPU_ZERO(set);
	if (!s || !*s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,"))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash) {
			*dash = '\0';
			if (ls_parse_uint(tok, 0, CPU_SETSIZE - 1, &lo) ||
			    ls_parse_uint(dash + 1, 0, CPU_SETSIZE - 1, &hi) || hi < lo)
				return -EINVAL;
		} else {
			if (ls_parse_uint(tok, 0, CPU_SETSIZE - 1, &lo))
				return -EINVAL;
			hi = lo;
		}
		for (c = lo; c <= hi; c++)
			CPU_SET(c, set);
	}
	return 0;
}

/* The lowest CPU of @set, or @none if it is empty. */
int ls_first_cpu(const cpu_set_t *set, int none)
{
	int c;

	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			return c;
	return none;
}

/* The inverse of ls_parse_cpu_list(), ranges folded: "1,3-5". */
void ls_format_cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
	int c = 0, start;
	size_t used = 0;

	buf[0] = '\0';
	while (c < CPU_SETSIZE) {
		if (!CPU_ISSET(c, set)) {
			c++;
			continue;
		}
		start = c;
		while (c + 1 < CPU_SETSIZE && CPU_ISSET(c + 1, set))
			c++;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 start == c ? "%s%d" : "%s%d-%d",
				 used ? "," : "", start, c);
		c++;
	}
}
