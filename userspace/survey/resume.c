// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI, survey: --resume, carrying on a survey in its directory.
 * survey.txt (rewritten after each phase) holds the plan and each phase's
 * outcome; the plan asked for now must be the one it holds, and the
 * phases it says are done are not run again. The files of a phase that
 * runs again, and an earlier profile, are set aside under a new name,
 * never overwritten: what was measured stays.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "survey/survey.h"

/* survey.txt is small; a larger one is not ours. */
#define STATE_MAX	65536

/* The whole of @dirfd's survey.txt into @buf, NUL-ended: its length, or -errno. */
static ssize_t read_state_file(int dirfd, char *buf, size_t len)
{
	int fd = openat(dirfd, "survey.txt", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	n = got < len - 1 ? 0 : -EFBIG;
	close(fd);
	buf[got] = '\0';
	return n ? n : (ssize_t)got;
}

/**
 * ls_survey_read_state() - what an earlier run of this survey did
 * @dirfd: the survey's directory
 * @plan: the plan asked for now
 * @settings: its "settings:" line, what every phase is given now
 * @out: each phase's outcome, filled for the phases survey.txt says are done
 * @err: why not
 * @errlen: its size
 *
 * Return: 0; -1 if survey.txt is missing or unreadable, or holds another
 * plan.
 */
int ls_survey_read_state(int dirfd, const struct ls_survey_plan *plan, const char *settings,
			 struct ls_phase_outcome *out, char *err, size_t errlen)
{
	char *text = malloc(STATE_MAX), *now = NULL, *outcome, *held, *at;
	size_t now_len = 0;
	FILE *f;
	ssize_t n;
	int i, ret = -1;

	if (!text) {
		ls_fail(err, errlen, "--resume: out of memory");
		return -1;
	}
	n = read_state_file(dirfd, text, STATE_MAX);
	if (n < 0) {
		ls_fail(err, errlen, "--resume: its survey.txt: %s%s", strerror((int)-n),
			n == -ENOENT ?
			": not a survey's directory, or it ended before its first phase" : "");
		goto out;
	}
	f = open_memstream(&now, &now_len);
	if (!f) {
		ls_fail(err, errlen, "--resume: out of memory");
		goto out;
	}
	ls_survey_print_plan(f, plan);
	fclose(f);
	held = strstr(text, "SURVEY| plan");
	outcome = strstr(text, "\nOutcome:\n");
	if (!held || !outcome || (size_t)(outcome - held) != now_len ||
	    memcmp(held, now, now_len)) {
		ls_fail(err, errlen, "--resume: its survey.txt holds another plan: give the -T and --survey-skip of its first line");
		goto out;
	}
	at = strstr(text, settings);
	if (!at || at == text || at[-1] != '\n' || at[strlen(settings)] != '\n') {
		ls_fail(err, errlen, "--resume: its survey.txt says other settings than %.200s: give the -c/--cpus, -p and -P of its first line",
			settings + strlen("settings: "));
		goto out;
	}
	for (i = 0; i < plan->nr; i++) {
		const char *name = plan->phase[i].name, *at = outcome, *said;
		size_t len = strlen(name);

		/* "  NN-name   said\n": the name whole, then spaces. */
		while ((at = strstr(at, name)) && (at[-1] != ' ' || at[len] != ' '))
			at++;
		if (!at)
			continue;
		said = at + len + strspn(at + len, " ");
		if (strncmp(said, "done", 4))
			continue;
		out[i].ran = true;
		out[i].ok = true;
		snprintf(out[i].said, sizeof(out[i].said), "%.*s", (int)strcspn(said, "\n"), said);
		if (sscanf(said, "done, max %lf us", &out[i].max_us) != 1)
			out[i].max_us = -1;
	}
	ret = 0;
out:
	free(now);
	free(text);
	return ret;
}

/**
 * ls_survey_set_aside() - rename @name in @dirfd to @name.oldK, K the first free
 * @dirfd: the survey's directory
 * @name: a file or directory; nothing to do if it does not exist
 * @err: why not
 * @errlen: its size
 *
 * Return: 0, or -1.
 */
int ls_survey_set_aside(int dirfd, const char *name, char *err, size_t errlen)
{
	char to[128];
	int k;

	for (k = 1; k < 100; k++) {
		snprintf(to, sizeof(to), "%s.old%d", name, k);
		if (!renameat2(dirfd, name, dirfd, to, RENAME_NOREPLACE))
			return 0;
		if (errno == ENOENT)
			return 0;
		if (errno != EEXIST)
			break;
	}
	ls_fail(err, errlen, "--resume: %s not set aside: %s", name, strerror(errno));
	return -1;
}

/**
 * ls_survey_same_kernel() - whether the survey in @dirfd ran on this kernel
 * @dirfd: the survey's directory
 * @err: the two kernels, if not
 * @errlen: its size
 *
 * A survey carried on after a reboot into another kernel would put two
 * kernels' figures in one profile. system.txt's "kernel:" line is compared
 * with uname's; a survey without one (no system.txt) is not refused.
 *
 * Return: 0, or -1 if the kernels differ.
 */
int ls_survey_same_kernel(int dirfd, char *err, size_t errlen)
{
	char line[1024], now[1024];
	struct utsname u;
	FILE *f;
	int fd = openat(dirfd, "system.txt", O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ret = 0;

	if (fd < 0 || uname(&u))
		goto out;
	f = fdopen(fd, "r");
	if (!f)
		goto out;
	fd = -1;
	snprintf(now, sizeof(now), "kernel: %s %s %s", u.release, u.version, u.machine);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "kernel: ", 8) || !strcmp(line, now))
			continue;
		ls_fail(err, errlen, "--resume: the survey ran on %.200s; this is %.200s: start a new survey for this kernel",
			line + 8, now + 8);
		ret = -1;
		break;
	}
	fclose(f);
out:
	if (fd >= 0)
		close(fd);
	return ret;
}
