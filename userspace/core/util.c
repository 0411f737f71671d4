// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the small helpers every part shares: the one-line error
 * message a failing step leaves for its caller, and the monotonic clock
 * the driver stamps with.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"

void ls_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* CLOCK_MONOTONIC in ns, the clock of the driver's ideal times. */
__u64 ls_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A poll() timeout: the milliseconds from now to @deadline_ns, rounded up; 0 past it. */
int ls_ms_until(__u64 deadline_ns)
{
	__u64 now = ls_now_ns();

	return now >= deadline_ns ? 0 : (int)((deadline_ns - now + 999999) / 1000000);
}

/* A whole decimal number in [min, max], nothing else around it. */
int ls_parse_uint(const char *s, unsigned long long min,
		  unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* The first line of a small file, without its newline: 0; -1 and "" if unreadable. */
int ls_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = -1;

	buf[0] = '\0';
	if (!f)
		return -1;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	} else {
		buf[0] = '\0';
	}
	fclose(f);
	return ret;
}

/**
 * ls_companion() - where a program latscope runs is: @env, else beside latscope
 * @env: the environment variable that names it (LATSCOPE_EVT), or NULL
 * @name: its file name, "latscope-evt"
 * @buf: its path: @env's value, made absolute if it is relative (a child
 *	may run in another directory), else @name beside /proc/self/exe if
 *	it is there, else @name alone, for execvp() to find in $PATH
 * @len: @buf's size
 */
void ls_companion(const char *env, const char *name, char *buf, size_t len)
{
	const char *value = env ? getenv(env) : NULL;
	char self[4096];
	ssize_t n;

	if (value && value[0]) {
		if (value[0] == '/' || !getcwd(self, sizeof(self) - 1))
			snprintf(buf, len, "%s", value);
		else
			snprintf(buf, len, "%.4000s/%s", self, value);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(buf, len, "%.4000s/%s", self, name);
		if (!access(buf, X_OK))
			return;
	}
	snprintf(buf, len, "%s", name);
}

/* Whether @name is an executable in $PATH (an empty entry is "."). */
bool ls_in_path(const char *name)
{
	const char *p = getenv("PATH");
	char file[4200];
	size_t len;

	for (p = p ? p : "/usr/bin:/bin"; ; p += len + 1) {
		len = strcspn(p, ":");
		snprintf(file, sizeof(file), "%.*s/%s", len ? (int)len : 1, len ? p : ".", name);
		if (!access(file, X_OK))
			return true;
		if (!p[len])
			return false;
	}
}

/* Whether @word is one of the comma-separated words of @list. */
bool ls_word_in_list(const char *list, const char *word)
{
	size_t len = strlen(word), n;

	for (;; list += n + 1) {
		n = strcspn(list, ",");
		if (n == len && !strncmp(list, word, len))
			return true;
		if (!list[n])
			return false;
	}
}
