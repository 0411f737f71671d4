// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI, survey: the plan run phase by phase (docs/guide/survey.md).
 *
 * The directory is new (mkdir, never an existing one, unless --resume),
 * this user's and writable by no one else, and held open: each phase is
 * a child latscope, this program again, started in it (fchdir) with the
 * options of its phase and its files named relative to it (NN-name.json
 * and .plot); the survey writes what it printed, NN-name.txt, through
 * /proc/self/fd. Renaming the directory, or putting a symlink in its
 * place, moves none of them elsewhere. A phase that fails is said and the
 * next one runs. A progress line follows each phase: redrawn each second
 * on a terminal, a line at each start and end otherwise. Ctrl-C, SIGTERM,
 * SIGHUP or SIGQUIT end the phase that runs (the child writes its files
 * as any run does) and skip the rest; what was measured gets its profile
 * all the same: survey.txt (the plan, each phase's outcome) and
 * latscope-report's profile of the directory (profile.md, profile.html), in
 * profile/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "survey/survey.h"

/* How long a phase that was asked to end may take to write its files. */
#define STOP_GRACE_MS	120000
/*
 * How much longer than its -T a timer phase may take (warm-up, the EVT
 * estimate, its files), and the setup verdict at all, before it is
 * ended: a child stuck in the driver does not hold the survey forever.
 */
#define OVERRUN_S	120
/* A timer phase that ended this much before its -T did not run its course. */
#define EARLY_S		3

struct ls_survey {
	const struct ls_params *p;
	const struct ls_survey_params *sp;
	const struct ls_survey_plan *plan;
	const sigset_t *child_mask;
	int dirfd;			/* the directory, O_PATH */
	/* What every phase is given, which --resume compares; the GPIO options too. */
	char settings[320 + LS_SURVEY_GPIO_ARGS * LS_SURVEY_GPIO_ARG_LEN];
	bool stopped;			/* a signal asked the survey to end */
	bool tty;
	double worst_us;		/* the largest RTS| maximum so far, < 0: none */
	struct ls_phase_outcome out[LS_SURVEY_MAX_PHASES];
};

/*
 * Whether a signal that ends the survey (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT;
 * blocked meanwhile) came since the last call: it is taken, and the
 * survey stopped. A second one ends the profile's making too.
 */
static bool new_stop(struct ls_survey *s)
{
	static const struct timespec now = { 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	if (sigtimedwait(&set, NULL, &now) <= 0)
		return false;
	s->stopped = true;
	return true;
}

/* The first @len - 1 bytes of what @c printed, NUL-ended: the summary is near its top. */
static void output_head(const struct ls_cmd *c, char *buf, size_t len)
{
	ssize_t n = pread(c->fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

/* A phase's file, relative to the directory: as its child names it. */
static void name_of(const struct ls_phase *ph, const char *ext, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", ph->name, ext);
}

/* A file in the directory, as the survey names it: through its descriptor. */
static void held_path(const struct ls_survey *s, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d/%s", s->dirfd, name);
}

/* The child's command line for @ph; its strings live in @space. */
struct argv_space {
	char *argv[32 + LS_SURVEY_GPIO_ARGS];
	char cpu[16], period[16], prio[16], secs[32], scale[16], repeat[16], min_run[16];
	char json[4096], plot[4096];
};

static void add_arg(struct argv_space *a, int *n, const char *arg)
{
	if (*n < (int)ARRAY_SIZE(a->argv) - 1)
		a->argv[(*n)++] = (char *)arg;
	a->argv[*n] = NULL;
}

static void cpus_args(const struct ls_survey *s, struct argv_space *a, int *n, bool one)
{
	if (!s->sp->cpus[0])
		return;
	if (one) {
		snprintf(a->cpu, sizeof(a->cpu), "%d", s->sp->first_cpu);
		add_arg(a, n, "-c");
		add_arg(a, n, a->cpu);
		return;
	}
	add_arg(a, n, "--cpus");
	add_arg(a, n, s->sp->cpus);
}

/*
 * What a timed run (timer, GPIO, latmon) is given after its source: the
 * CPUs, period and priority (none in the irq context: its handler has
 * none), -T, the load, the recorder and its files.
 */
static void timed_args(const struct ls_survey *s, const struct ls_phase *ph,
		       struct argv_space *a, int *n)
{
	cpus_args(s, a, n, false);
	add_arg(a, n, "-p");
	add_arg(a, n, a->period);
	if (ph->kind != LS_PHASE_TIMER || ph->context != LATSCOPE_CTX_IRQ) {
		add_arg(a, n, "-P");
		add_arg(a, n, a->prio);
	}
	snprintf(a->secs, sizeof(a->secs), "%llu", ph->seconds);
	add_arg(a, n, "-T");
	add_arg(a, n, a->secs);
	if (strcmp(ph->stress, "none")) {
		add_arg(a, n, "--stress");
		add_arg(a, n, ph->stress);
	}
	add_arg(a, n, "--why");
	name_of(ph, ".json", a->json, sizeof(a->json));
	name_of(ph, ".plot", a->plot, sizeof(a->plot));
	add_arg(a, n, "--json");
	add_arg(a, n, a->json);
	add_arg(a, n, "-g");
	add_arg(a, n, a->plot);
	add_arg(a, n, "-q");
}

static void phase_argv(const struct ls_survey *s, const struct ls_phase *ph, struct argv_space *a)
{
	static const char *const ctx_flag[] = {
		[LATSCOPE_CTX_IRQ] = "-i", [LATSCOPE_CTX_KERNEL] = "-k",
		[LATSCOPE_CTX_USER] = "-u",
	};
	int n = 0, k;

	add_arg(a, &n, "/proc/self/exe");
	snprintf(a->period, sizeof(a->period), "%u", s->p->period_us);
	snprintf(a->prio, sizeof(a->prio), "%d", s->p->priority);
	switch (ph->kind) {
	case LS_PHASE_SETUP:
		add_arg(a, &n, "--check-setup");
		cpus_args(s, a, &n, false);
		break;
	case LS_PHASE_TIMER:
		add_arg(a, &n, ctx_flag[ph->context]);
		timed_args(s, ph, a, &n);
		break;
	case LS_PHASE_GPIO:
	case LS_PHASE_LATMON:
		/* A latmon round trip is answered as latscope -z answers it: --gpiod. */
		if (ph->kind == LS_PHASE_GPIO)
			add_arg(a, &n, ctx_flag[ph->context]);
		for (k = 0; k < s->sp->gpio_nr; k++)
			add_arg(a, &n, s->sp->gpio_args[k]);
		timed_args(s, ph, a, &n);
		break;
	case LS_PHASE_COST:
		add_arg(a, &n, "--cost");
		cpus_args(s, a, &n, true);
		add_arg(a, &n, "-p");
		add_arg(a, &n, a->period);
		snprintf(a->scale, sizeof(a->scale), "%u", s->plan->cost_scale);
		snprintf(a->repeat, sizeof(a->repeat), "%u", s->plan->cost_repeat);
		add_arg(a, &n, "--cost-scale");
		add_arg(a, &n, a->scale);
		add_arg(a, &n, "--cost-repeat");
		add_arg(a, &n, a->repeat);
		if (s->plan->cost_min_run_ms >= 0) {
			snprintf(a->min_run, sizeof(a->min_run), "%d", s->plan->cost_min_run_ms);
			add_arg(a, &n, "--cost-min-run");
			add_arg(a, &n, a->min_run);
		}
		if (strcmp(ph->stress, "none")) {
			add_arg(a, &n, "--stress");
			add_arg(a, &n, ph->stress);
		}
		name_of(ph, ".json", a->json, sizeof(a->json));
		add_arg(a, &n, "--json");
		add_arg(a, &n, a->json);
		break;
	}
}

/* The RTS| line's maximum in @text, < 0 if none. */
static double rts_max(const char *text)
{
	const char *rts = strstr(text, "RTS|");
	double min, avg, max;

	if (!rts || sscanf(rts, "RTS| %lf| %lf| %lf|", &min, &avg, &max) != 3)
		return -1;
	return max;
}

/* Copies the child's output (its memfd) into the log file. */
static int copy_output(FILE *f, const void *arg)
{
	const struct ls_cmd *c = arg;
	char buf[8192];
	off_t at = 0;
	ssize_t n;

	while ((n = pread(c->fd, buf, sizeof(buf), at)) > 0) {
		if (fwrite(buf, 1, (size_t)n, f) != (size_t)n)
			return -1;
		at += n;
	}
	return n < 0 ? -1 : 0;
}

/* The timer runs' seconds still to run: @phase_left of phase @i, the phases after it not done. */
static unsigned long long timer_left(const struct ls_survey *s, int i,
				     unsigned long long phase_left)
{
	unsigned long long left = phase_left;
	int j;

	for (j = i + 1; j < s->plan->nr; j++)
		if (!s->out[j].ran)
			left += s->plan->phase[j].seconds;
	return left;
}

static void progress(const struct ls_survey *s, int i, unsigned long long phase_left, bool end)
{
	const struct ls_phase *ph = &s->plan->phase[i];
	char t[32], u[32], worst[48] = "";

	if (s->worst_us >= 0)
		snprintf(worst, sizeof(worst), "; worst so far %.3f us", s->worst_us);
	if (!s->tty) {
		if (!end)
			printf("SURVEY| phase %d of %d: %s: %s%s%s\n", i + 1, s->plan->nr, ph->name,
			       ph->what, ph->seconds ? ", " : "",
			       ph->seconds ? ls_survey_duration(ph->seconds, t, sizeof(t)) : "");
		else
			printf("SURVEY| phase %d of %d: %s: %s%s\n", i + 1, s->plan->nr, ph->name,
			       s->out[i].said, worst);
		fflush(stdout);
		return;
	}
	printf("\r\033[KSURVEY| phase %d of %d: %s", i + 1, s->plan->nr, ph->what);
	if (end)
		printf(": %s", s->out[i].said);
	else if (ph->seconds)
		printf(", %s left", ls_survey_duration(phase_left, t, sizeof(t)));
	printf("; timer runs %s left%s",
	       ls_survey_duration(timer_left(s, i, end ? 0 : phase_left), u, sizeof(u)), worst);
	if (end)
		printf("\n");
	fflush(stdout);
}

/*
 * Writes @name in the directory; if it cannot be (a full disk), prints it
 * on standard output between marker lines instead, as a run does with its
 * files (output/'s ls_write_other_rescued_as()): what was measured is not
 * lost. 0, or -1.
 */
static int write_rescued(const struct ls_survey *s, const char *name,
			 int (*fill)(FILE *f, const void *arg), const void *arg)
{
	char path[4096], shown[4200];

	held_path(s, name, path, sizeof(path));
	snprintf(shown, sizeof(shown), "%.4000s/%s", s->sp->dir, name);
	return ls_write_other_rescued_as(path, shown, fill, arg);
}

/* Runs phase @i; false if a signal asked the survey to end. */
/*
 * Whole seconds since @t0 on CLOCK_MONOTONIC: how long a phase has run.
 * Not a count of waits: a wait of a second lasts longer on a loaded board
 * (TCG under a load made 50 s count as 33), and the phase would be called
 * interrupted.
 */
static unsigned long long elapsed_s(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t0->tv_sec ? (unsigned long long)(now.tv_sec - t0->tv_sec) -
					 (now.tv_nsec < t0->tv_nsec) : 0;
}

static bool run_phase(struct ls_survey *s, int i)
{
	const struct ls_phase *ph = &s->plan->phase[i];
	struct ls_phase_outcome *o = &s->out[i];
	struct argv_space a = { 0 };
	unsigned long long waited = 0, deadline;
	char text[4096], head[16384], name[64];
	bool overran = false;
	struct timespec t0;
	struct ls_cmd c;
	int ret, status;

	o->ran = true;
	o->max_us = -1;
	phase_argv(s, ph, &a);
	progress(s, i, ph->seconds, false);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = ls_cmd_start_at(&c, a.argv, s->child_mask, s->dirfd);
	if (ret) {
		snprintf(o->said, sizeof(o->said), "failed: cannot start latscope: %s",
			 strerror(-ret));
		progress(s, i, 0, true);
		new_stop(s);
		return !s->stopped;
	}
	/* The cost suite is untimed: it takes what it takes. */
	deadline = ph->kind == LS_PHASE_COST ? 0 : ph->seconds + OVERRUN_S;
	while (ls_cmd_wait(&c, 1000)) {
		if (new_stop(s)) {
			o->interrupted = true;
			ls_cmd_stop(&c, SIGTERM, STOP_GRACE_MS);
			break;
		}
		waited = elapsed_s(&t0);
		if (deadline && waited >= deadline) {
			overran = true;
			ls_cmd_stop(&c, SIGTERM, STOP_GRACE_MS);
			break;
		}
		if (s->tty)
			progress(s, i, ph->seconds > waited ? ph->seconds - waited : 0, false);
	}
	/* A stop that came while the phase was ending: it did not run to its end either. */
	if (new_stop(s))
		o->interrupted = true;
	waited = elapsed_s(&t0);
	status = c.status;
	ls_cmd_output(&c, text, sizeof(text));
	output_head(&c, head, sizeof(head));
	name_of(ph, ".txt", name, sizeof(name));
	write_rescued(s, name, copy_output, &c);
	ls_cmd_close(&c);
	o->max_us = rts_max(head);
	if (o->max_us > s->worst_us)
		s->worst_us = o->max_us;
	o->ok = !overran && WIFEXITED(status) &&
		(!WEXITSTATUS(status) ||
		 (ph->kind == LS_PHASE_SETUP && WEXITSTATUS(status) == LS_EXIT_SETUP_COSTS));
	/* Ended by a signal of its own (one sent to it alone): not a whole phase. */
	if (o->ok && ph->seconds && waited + EARLY_S < ph->seconds)
		o->interrupted = true;
	if (overran)
		snprintf(o->said, sizeof(o->said), "failed: still running %d s past its time, ended",
			 OVERRUN_S);
	else if (o->interrupted && o->ok)
		snprintf(o->said, sizeof(o->said), "interrupted after %llu s of %llu, its files written",
			 waited, ph->seconds);
	else if (o->interrupted)
		snprintf(o->said, sizeof(o->said), "interrupted, its files written as far as it ran");
	else if (o->ok && o->max_us >= 0)
		snprintf(o->said, sizeof(o->said), "done, max %.3f us", o->max_us);
	else if (o->ok)
		snprintf(o->said, sizeof(o->said), "done");
	else if (WIFEXITED(status) && strstr(text, "=== latscope: end of "))
		snprintf(o->said, sizeof(o->said),
			 "failed, exit %d: a file not written (a full disk?), its content in what the phase printed",
			 WEXITSTATUS(status));
	else if (WIFEXITED(status))
		snprintf(o->said, sizeof(o->said), "failed, exit %d: %.150s", WEXITSTATUS(status),
			 ls_last_line(text));
	else
		snprintf(o->said, sizeof(o->said), "failed, killed by signal %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	progress(s, i, 0, true);
	return !s->stopped;
}

static int copy_text(FILE *f, const void *arg)
{
	fputs(arg, f);
	return ferror(f) ? -1 : 0;
}

static int write_system(FILE *f, const void *root)
{
	return ls_survey_system(f, root);
}

/* survey.txt: the plan, then each phase's outcome. */
static int write_summary(FILE *f, const void *arg)
{
	const struct ls_survey *s = arg;
	int i;

	fprintf(f, "latscope survey, %s\n%s\n\n", s->p->cmdline, s->settings);
	ls_survey_print_plan(f, s->plan);
	fprintf(f, "\nOutcome:\n");
	for (i = 0; i < s->plan->nr; i++)
		fprintf(f, "  %-24s %s\n", s->plan->phase[i].name,
			s->out[i].ran ? s->out[i].said : "not run");
	return ferror(f) ? -1 : 0;
}

/* survey.txt, whole: after each phase, so that --resume knows what is done. */
static int write_state(const struct ls_survey *s, bool last)
{
	char path[64], why[256] = "";

	if (last)
		return write_rescued(s, "survey.txt", write_summary, s);
	held_path(s, "survey.txt", path, sizeof(path));
	if (!ls_write_file(path, write_summary, s, why, sizeof(why)))
		return 0;
	fprintf(stderr, "latscope: %s/survey.txt: not written: %s\n", s->sp->dir, why);
	return -1;
}

/* The files of a phase that runs again, set aside: none is overwritten. */
static int set_aside_phase(const struct ls_survey *s, const struct ls_phase *ph, char *err,
			   size_t errlen)
{
	static const char *const exts[] = { ".json", ".plot", ".txt", "-latency.json" };
	char name[64];
	size_t k;

	if (!s->sp->resume)
		return 0;
	for (k = 0; k < ARRAY_SIZE(exts); k++) {
		name_of(ph, exts[k], name, sizeof(name));
		if (ls_survey_set_aside(s->dirfd, name, err, errlen))
			return -1;
	}
	return 0;
}

/*
 * The directory: made (never an existing one) and opened; with --resume,
 * opened and read (survey.txt), its earlier profile set aside.
 */
static int open_dir(struct ls_survey *s, char *err, size_t errlen)
{
	const char *dir = s->sp->dir;
	struct stat st = { 0 };

	ls_warn_shared_dir(stderr, "--survey", dir);
	if (!s->sp->resume && mkdir(dir, 0755)) {
		ls_fail(err, errlen, "--survey %s: %s%s", dir, strerror(errno),
			errno == EEXIST ?
			": a survey writes into a new directory; --resume carries one on" : "");
		return -1;
	}
	s->dirfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dirfd < 0) {
		ls_fail(err, errlen, "--survey %s: %s", dir, strerror(errno));
		return -1;
	}
	/*
	 * Another user's directory, or one others can write, may have been
	 * put in place of ours (a shared parent): its survey.txt, and a
	 * symlink it holds at profile/, are theirs. Refused.
	 */
	if (fstat(s->dirfd, &st) || st.st_uid != geteuid() || (st.st_mode & 0022)) {
		ls_fail(err, errlen, "--survey %s: not this user's, or writable by others (mode %04o): a survey writes only into a directory of its own",
			dir, (unsigned int)(st.st_mode & 07777));
		close(s->dirfd);
		return -1;
	}
	if (s->sp->resume && (ls_survey_read_state(s->dirfd, s->plan, s->settings, s->out,
						   err, errlen) ||
			      ls_survey_same_kernel(s->dirfd, err, errlen) ||
			      ls_survey_set_aside(s->dirfd, "profile", err, errlen))) {
		close(s->dirfd);
		return -1;
	}
	return 0;
}

/*
 * The profile: latscope-report of the survey's directory (survey.txt, which
 * names the phases, their files and outcomes), into DIR/profile.
 */
static int make_profile(struct ls_survey *s)
{
	char program[4096], text[2048], file[64];
	char *argv[5];
	struct ls_cmd c;
	struct stat st;
	int i, nr = 0, ret;

	ls_companion("LATSCOPE_REPORT", "latscope-report", program, sizeof(program));
	argv[0] = program;
	argv[1] = "-o";
	argv[2] = "profile";
	argv[3] = ".";
	argv[4] = NULL;
	for (i = 0; i < s->plan->nr; i++) {
		name_of(&s->plan->phase[i], ".json", file, sizeof(file));
		nr += s->out[i].ran && !fstatat(s->dirfd, file, &st, AT_SYMLINK_NOFOLLOW) &&
		      S_ISREG(st.st_mode);
	}
	if (!nr) {
		printf("SURVEY| no profile: no phase wrote a JSON file\n");
		return -1;
	}
	if (mkdirat(s->dirfd, "profile", 0755)) {
		printf("SURVEY| no profile: %s/profile: %s\n", s->sp->dir, strerror(errno));
		return -1;
	}
	/* In the directory, so that the pages name the files as they sit beside them. */
	ret = ls_cmd_start_at(&c, argv, s->child_mask, s->dirfd);
	if (ret) {
		printf("SURVEY| no profile: cannot run %s: %s\n", program, strerror(-ret));
		return -1;
	}
	/* A signal ends the report too: a survey is never left only to SIGKILL. */
	while (ls_cmd_wait(&c, 1000))
		if (new_stop(s))
			ls_cmd_stop(&c, SIGTERM, 5000);
	ls_cmd_output(&c, text, sizeof(text));
	ls_cmd_close(&c);
	write_rescued(s, "profile/profile.txt", copy_text, text);
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		printf("SURVEY| no profile: %s exited %d: %.200s\n", program,
		       WIFEXITED(c.status) ? WEXITSTATUS(c.status) : -1, ls_last_line(text));
		return -1;
	}
	printf("SURVEY| the profile of %d files: %s/profile/\n", nr, s->sp->dir);
	return 0;
}

/**
 * ls_survey_run() - the survey: every phase of @plan, then its profile
 * @p: the run's options (CPUs, period, priority) each phase gets
 * @sp: the directory, which must not exist
 * @plan: as ls_survey_plan() made it
 * @child_mask: the signal mask of before the survey, for the children;
 *	the caller blocks the signals that end a run meanwhile
 *
 * Return: LS_EXIT_OK if every phase ran and succeeded; LS_EXIT_SETUP if
 * the directory cannot be made; LS_EXIT_RUNTIME if a phase failed or the
 * profile was not made; LS_EXIT_OK after a signal too, once the profile of
 * what was measured is written.
 */
/**
 * ls_survey_open() - the survey's directory, made or (--resume) read back
 * @p: the run's options (CPUs, period, priority) each phase gets
 * @sp: the directory: new, or with --resume a survey's of this plan
 * @plan: as ls_survey_plan() made it
 * @child_mask: the signal mask of before the survey, for the children;
 *	the caller blocks the signals that end a run meanwhile
 * @out: the survey, for ls_survey_run()
 *
 * Before anything on the board changes (--apply-setup): a directory that
 * cannot be used changes nothing. Says why not on stderr.
 *
 * Return: LS_EXIT_OK, or LS_EXIT_SETUP (the directory), LS_EXIT_RUNTIME.
 */
int ls_survey_open(const struct ls_params *p, const struct ls_survey_params *sp,
		   const struct ls_survey_plan *plan, const sigset_t *child_mask,
		   struct ls_survey **out)
{
	struct ls_survey *s = calloc(1, sizeof(*s));
	char err[512] = "";
	int i;

	*out = NULL;
	if (!s) {
		fprintf(stderr, "latscope: out of memory\n");
		return LS_EXIT_RUNTIME;
	}
	s->p = p;
	s->sp = sp;
	s->plan = plan;
	s->child_mask = child_mask;
	s->tty = isatty(STDOUT_FILENO);
	s->worst_us = -1;
	snprintf(s->settings, sizeof(s->settings), "settings: CPUs %s, period %u us, priority %d",
		 sp->cpus[0] ? sp->cpus : "latscope's choice", p->period_us, p->priority);
	for (i = 0; i < sp->gpio_nr; i++) {
		size_t len = strlen(s->settings);

		snprintf(s->settings + len, sizeof(s->settings) - len, "%s%s", i ? " " : ", GPIO ",
			 sp->gpio_args[i]);
	}
	for (i = 0; i < plan->nr; i++)
		s->out[i].max_us = -1;
	if (open_dir(s, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", err);
		free(s);
		return LS_EXIT_SETUP;
	}
	*out = s;
	return LS_EXIT_OK;
}

/* A survey opened and not run (--apply-setup failed). */
void ls_survey_close(struct ls_survey *s)
{
	if (!s)
		return;
	close(s->dirfd);
	free(s);
}

/**
 * ls_survey_run() - the survey: every phase of its plan not done, then its profile
 * @s: as ls_survey_open() made it; freed
 *
 * Return: LS_EXIT_OK if every phase ran and succeeded; LS_EXIT_RUNTIME if
 * a phase failed or the profile was not made; LS_EXIT_OK after a signal
 * too, once the profile of what was measured is written.
 */
int ls_survey_run(struct ls_survey *s)
{
	const struct ls_survey_plan *plan = s->plan;
	const struct ls_survey_params *sp = s->sp;
	char err[512] = "";
	bool failed = false;
	int i, ret;

	if (!sp->resume)
		failed |= write_rescued(s, "system.txt", write_system, sp->root) != 0;
	ls_survey_print_plan(stdout, plan);
	printf("SURVEY| into %s/%s\n", sp->dir, sp->resume ? ", carried on" : "");
	fflush(stdout);
	for (i = 0; i < plan->nr; i++) {
		bool go_on;

		if (s->out[i].ran) {
			if (s->out[i].max_us > s->worst_us)
				s->worst_us = s->out[i].max_us;
			printf("SURVEY| phase %d of %d: %s: %s before\n", i + 1, plan->nr,
			       plan->phase[i].name, s->out[i].said);
			continue;
		}
		/* A signal between two phases: the next does not start. */
		if (new_stop(s)) {
			printf("SURVEY| ended by a signal before phase %d of %d; the profile of what was measured follows\n",
			       i + 1, plan->nr);
			break;
		}
		if (set_aside_phase(s, &plan->phase[i], err, sizeof(err))) {
			fprintf(stderr, "latscope: %s\n", err);
			failed = true;
			break;
		}
		go_on = run_phase(s, i);
		failed |= !s->out[i].ok && !s->out[i].interrupted;
		failed |= write_state(s, false) != 0;
		if (!go_on) {
			printf("SURVEY| ended by a signal: %d of %d phases ran; the profile of what was measured follows\n",
			       i + 1, plan->nr);
			break;
		}
	}
	failed |= write_state(s, true) != 0;
	failed |= make_profile(s) != 0;
	ret = failed ? LS_EXIT_RUNTIME : LS_EXIT_OK;
	ls_survey_close(s);
	return ret;
}
