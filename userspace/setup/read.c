// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: what the setup verdict's checks share (kernel.c,
 * cpu.c, setup.c's frame, apply.c): paths and files under
 * the root, the kernel's config and command line, a verdict's words.
 */
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "setup/setup.h"

const char *ls_verdict_name(enum ls_verdict v)
{
	switch (v) {
	case LS_VERDICT_OK:
		return "ok";
	case LS_VERDICT_COSTS:
		return "costs latency";
	default:
		return "unknown";
	}
}

/* Sets @f's verdict, and its fix unless it is ok. */
void ls_setup_verdict(struct ls_setup_factor *f, enum ls_verdict v, const char *fix)
{
	f->verdict = v;
	snprintf(f->fix, sizeof(f->fix), "%s", v == LS_VERDICT_OK ? "" : fix);
}

/* A context for the checks of a run on @cpus (see ls_setup_check()); no config read. */
void ls_setup_ctx_init(struct ls_setup_ctx *c, const char *root, const cpu_set_t *cpus,
		       int priority)
{
	memset(c, 0, sizeof(*c));
	c->root = root ? root : "";
	c->cpus = *cpus;
	c->priority = priority;
	c->self = (int)getpid();
}

static int vpath(const struct ls_setup_ctx *c, char *buf, size_t len,
		 const char *fmt, va_list ap)
{
	size_t n = (size_t)snprintf(buf, len, "%s", c->root);

	if (n >= len)
		return -1;
	n += (size_t)vsnprintf(buf + n, len - n, fmt, ap);
	return n < len ? 0 : -1;
}

/* A path under the root: 0, or -1 if it does not fit. */
int ls_setup_path(const struct ls_setup_ctx *c, char *buf, size_t len,
		  const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(c, buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

/* The first line of a file under the root: 0; -1 and "" if unreadable. */
int ls_setup_read(const struct ls_setup_ctx *c, char *buf, size_t len,
		  const char *fmt, ...)
{
	char path[512];
	va_list ap;
	int ret;

	buf[0] = '\0';
	va_start(ap, fmt);
	ret = vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	return ret ? -1 : ls_read_line(path, buf, len);
}

/* CONFIG_X's value ("y", "m", "1000"), as a pointer into the text; NULL if unset. */
const char *ls_setup_config(const struct ls_setup_ctx *c, const char *opt)
{
	size_t len = strlen(opt);
	const char *s;

	for (s = c->config; s && (s = strstr(s, opt)); s += len)
		if ((s == c->config || s[-1] == '\n') && s[len] == '=')
			return s + len + 1;
	return NULL;
}

/*
 * Whether the kernel command line has @key ("isolcpus", "nosmt"), and
 * its value (after '=', up to the next blank; "" for none) into @val.
 */
bool ls_setup_cmdline(const struct ls_setup_ctx *c, const char *key, char *val,
		      size_t len)
{
	size_t klen = strlen(key);
	char line[4096];
	const char *s;

	if (ls_setup_read(c, line, sizeof(line), "/proc/cmdline"))
		return false;
	for (s = line; *s; s += strcspn(s, " "), s += strspn(s, " ")) {
		if (strncmp(s, key, klen) || (s[klen] && s[klen] != ' ' && s[klen] != '='))
			continue;
		if (val)
			snprintf(val, len, "%.*s",
				 s[klen] == '=' ? (int)strcspn(s + klen + 1, " ") : 0,
				 s[klen] == '=' ? s + klen + 1 : "");
		return true;
	}
	return false;
}

void ls_setup_appendf(char *buf, size_t size, const char *fmt, ...)
{
	size_t at = strnlen(buf, size);
	va_list ap;

	if (at + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, size - at, fmt, ap);
	va_end(ap);
}

/* "CPU1" or "CPUs 1-3": for the values and fixes. */
void ls_setup_cpus_text(const cpu_set_t *set, char *buf, size_t len)
{
	char list[256];

	ls_format_cpu_list(set, list, sizeof(list));
	snprintf(buf, len, "CPU%s%s", CPU_COUNT(set) > 1 ? "s " : "", list);
}
