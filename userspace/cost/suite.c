// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI, cost suite: every workload once to warm up, its time
 * setting how many runs of its work each timing takes (at least
 * --cost-min-run long), then --cost-repeat rounds, each a plain pass of
 * every workload and a measured one, while a child latscope measures at
 * the run's period on one CPU (the cost of being measured): plain and
 * measured alternate (ABAB...), so a drift over the suite (a board that
 * warms up, a neighbour) falls on both alike. With --cost-aa the second
 * pass of a round runs plain too: the A/A control, whose difference is
 * noise. With --stress, --cost-repeat passes more at the end while the
 * load runs (nothing measures). Each timing is on CLOCK_MONOTONIC, heat
 * and clock read every second by a thread of its own. Ctrl-C, SIGTERM or
 * SIGHUP end it between two runs: what was timed is kept.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cost/cost.h"

/* The thread that reads heat and clock each second into the current slot. */
struct heat_reader {
	const struct ls_heat_src *src;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct ls_heat_total *slot;	/* NULL: between runs */
	bool stop;
	pthread_t t;
};

static void *heat_thread(void *arg)
{
	struct heat_reader *h = arg;
	unsigned char heat, throttled;
	struct ls_heat_sample s;
	struct timespec at;

	clock_gettime(CLOCK_MONOTONIC, &at);
	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		at.tv_sec++;
		while (!h->stop && pthread_cond_timedwait(&h->wake, &h->lock, &at) != ETIMEDOUT)
			;
		if (h->stop || !h->slot)
			continue;
		ls_heat_read(h->src, &s);
		ls_heat_total_add(h->slot, &s, &heat, &throttled);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static void heat_slot(struct heat_reader *h, struct ls_heat_total *slot)
{
	pthread_mutex_lock(&h->lock);
	h->slot = slot;
	pthread_mutex_unlock(&h->lock);
}

/* Whether a signal that ends the suite came; it stays pending for the end. */
static bool stop_asked(void)
{
	sigset_t pending;

	sigpending(&pending);
	return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
	       sigismember(&pending, SIGHUP);
}

static double now_s(void)
{
	return (double)ls_now_ns() / 1e9;
}

/*
 * The measuring latscope: this program at the run's context, period,
 * priority and CPU, until stopped; 0 once it prints its first second,
 * else -1 with why in @err.
 */
static int start_measuring(const struct ls_params *p, struct ls_cost_report *r,
			   const sigset_t *mask, struct ls_cmd *m, bool first, char *err,
			   size_t errlen)
{
	static const char *const ctx_flag[] = {
		[LATSCOPE_CTX_IRQ] = "-i", [LATSCOPE_CTX_KERNEL] = "-k",
		[LATSCOPE_CTX_USER] = "-u",
	};
	char cpu[16], period[16], prio[16], out[2048];
	/* -i has no thread and refuses a priority: "-c CPU" once more instead. */
	bool irq = p->context == LATSCOPE_CTX_IRQ;
	char *const argv[] = {
		"/proc/self/exe", (char *)ctx_flag[p->context], "-c", cpu, "-p", period,
		irq ? "-c" : "-P", irq ? cpu : prio, "--thermal-zone", "none",
		first && r->latency_json[0] ? "--json" : NULL, r->latency_json, "--force", NULL
	};
	int ret, i;

	snprintf(cpu, sizeof(cpu), "%d", r->measured_cpu);
	snprintf(period, sizeof(period), "%u", p->period_us);
	snprintf(prio, sizeof(prio), "%d", p->priority);
	ret = ls_cmd_start(m, argv, mask);
	if (ret) {
		ls_fail(err, errlen, "cannot start the measuring latscope: %s", strerror(-ret));
		return -1;
	}
	/* Measuring (its first RTD| line), or gone: 60 s at most. */
	for (i = 0; i < 6000; i++) {
		ls_cmd_output(m, out, sizeof(out));
		if (strstr(out, "RTD|"))
			return 0;
		if (!ls_cmd_wait(m, 10))
			break;
	}
	ls_cmd_output(m, out, sizeof(out));
	ls_fail(err, errlen, "the measuring latscope (%s -c %d) did not measure: %.200s",
		ctx_flag[p->context], r->measured_cpu, ls_last_line(out));
	ls_cmd_close(m);
	return -1;
}

/*
 * Stops it as Ctrl-C would: its files written. The first round's RTS|
 * line is kept (its --json is the file's); the exit status is the first
 * round's, or a later one's that failed.
 */
static void stop_measuring(struct ls_cost_report *r, struct ls_cmd *m, bool first)
{
	char out[8192], *rts;
	int status;

	ls_cmd_stop(m, SIGTERM, 30000);
	status = WIFEXITED(m->status) ? WEXITSTATUS(m->status) : 128 +
		 (WIFSIGNALED(m->status) ? WTERMSIG(m->status) : 0);
	if (first || status)
		r->latency_exit = status;
	ls_cmd_output(m, out, sizeof(out));
	rts = strstr(out, "RTS|");
	if (rts && first)
		snprintf(r->latency_rts, sizeof(r->latency_rts), "%.*s", (int)strcspn(rts, "\n"),
			 rts);
	ls_cmd_close(m);
}

/*
 * One timing: @w->batch runs of the work. 0; -1 with the first failure
 * in @err; 1 if a signal asked the suite to end before the last (the
 * timing is dropped: a batch may last --cost-min-run, the stop should not).
 */
static int run_batch(const struct ls_cost_ctx *c, struct ls_wl_state *st,
		     const struct ls_workload *wl, struct ls_cost_result *w, char *err,
		     size_t errlen)
{
	unsigned int k;

	for (k = 0; k < w->batch; k++) {
		if (k && stop_asked())
			return 1;
		if (wl->run(c, st, w->check, sizeof(w->check), err, errlen))
			return -1;
	}
	return 0;
}

/* Whether the measuring latscope ended; said in @w's @variant if so. */
static bool measuring_ended(struct ls_cmd *measuring, struct ls_cost_result *w, int variant)
{
	if (!measuring || ls_cmd_wait(measuring, 0))
		return false;
	snprintf(w->failed[variant], sizeof(w->failed[variant]),
		 "the measuring latscope ended during the suite");
	return true;
}

/* One pass of every workload that runs; false if the suite must stop. */
static bool one_pass(const struct ls_cost_ctx *c, struct ls_cost_report *r,
		     struct ls_wl_state *st, const struct ls_workload **wl, int variant,
		     unsigned int rep, struct heat_reader *h, struct ls_cmd *measuring)
{
	int i;

	for (i = 0; i < r->nr; i++) {
		struct ls_cost_result *w = &r->w[i];
		char err[200] = "";
		double t0, t;
		int ret;

		if (w->skipped[0] || w->failed[variant][0])
			continue;
		if (stop_asked() || measuring_ended(measuring, w, variant))
			return false;
		heat_slot(h, &w->heat[variant]);
		t0 = now_s();
		ret = run_batch(c, &st[i], wl[i], w, err, sizeof(err));
		t = now_s() - t0;
		heat_slot(h, NULL);
		if (ret > 0)
			return false;
		if (ret < 0) {
			snprintf(w->failed[variant], sizeof(w->failed[variant]),
				 "round %u: %.180s", rep + 1, err);
			continue;
		}
		/* Measured only if it measured all along. */
		if (measuring_ended(measuring, w, variant))
			return false;
		/* The time of one run of the work: comparable whatever the batch. */
		w->t[variant][w->stat[variant].n++] = t / w->batch;
	}
	return true;
}

/*
 * The runs of the work one timing takes: enough to last @min_s by the
 * warm-up's @warm_s (a run short against the clock's and the scheduler's
 * grain times them more than the work), at most LS_COST_MAX_BATCH.
 */
static unsigned int batch_of(double warm_s, double min_s)
{
	double k;

	if (warm_s >= min_s)
		return 1;
	k = warm_s > 0 ? ceil(min_s / warm_s) : LS_COST_MAX_BATCH;
	return k < LS_COST_MAX_BATCH ? (unsigned int)k : LS_COST_MAX_BATCH;
}

/*
 * Each workload twice, timed only to set its batch, before the timed
 * passes: the first timed run would otherwise also pay for loading its
 * program, filling caches and (in an emulator) translating its code,
 * and the plain pass, which comes first, would look slower than it is.
 * The batch comes from the faster of the two, the warm one: from the
 * cold one alone a warm batch fell short of --cost-min-run. A workload
 * whose warm-up fails has failed every way.
 */
/* One warm-up run of @wl: 0 and its time in @s, or its failure in @err. */
static int warm_run(const struct ls_cost_ctx *c, struct ls_wl_state *st,
		    const struct ls_workload *wl, struct ls_cost_result *w, char *err,
		    size_t errlen, double *s)
{
	double t0 = now_s();

	if (wl->run(c, st, w->check, sizeof(w->check), err, errlen))
		return -1;
	*s = now_s() - t0;
	return 0;
}

static void warm_up(const struct ls_cost_ctx *c, struct ls_cost_report *r,
		    struct ls_wl_state *st, const struct ls_workload **wl)
{
	int i, v;

	for (i = 0; i < r->nr && !stop_asked(); i++) {
		struct ls_cost_result *w = &r->w[i];
		char err[160] = "";
		double cold, warm;

		if (w->skipped[0])
			continue;
		if (!warm_run(c, &st[i], wl[i], w, err, sizeof(err), &cold) &&
		    !warm_run(c, &st[i], wl[i], w, err, sizeof(err), &warm)) {
			w->warm_s = fmin(cold, warm);
			w->batch = batch_of(w->warm_s, r->min_run_ms / 1000.0);
			continue;
		}
		for (v = 0; v < LS_COST_VARIANTS; v++)
			snprintf(w->failed[v], sizeof(w->failed[v]), "the warm-up run: %s", err);
	}
}

static void all_passes(const struct ls_cost_ctx *c, struct ls_cost_report *r,
		       struct ls_wl_state *st, const struct ls_workload **wl, int variant,
		       struct heat_reader *h, struct ls_cmd *measuring)
{
	unsigned int rep;

	r->variant_ran[variant] = true;
	for (rep = 0; rep < r->repeat; rep++)
		if (!one_pass(c, r, st, wl, variant, rep, h, measuring)) {
			r->interrupted = stop_asked();
			break;
		}
}

/*
 * The rounds: a plain pass, then a measured one (a measuring latscope
 * started for it and stopped after), --cost-repeat times; with --cost-aa
 * the second pass runs plain, nothing started. A signal ends them between
 * two timings (@r->interrupted). LS_EXIT_SETUP if the first measuring
 * latscope does not start, LS_EXIT_RUNTIME if a later one does not (why
 * in @err), else LS_EXIT_OK.
 */
static int rounds(const struct ls_params *p, const struct ls_cost_ctx *c,
		  struct ls_cost_report *r, struct ls_wl_state *st,
		  const struct ls_workload **wl, struct heat_reader *h, const sigset_t *mask,
		  char *err, size_t errlen)
{
	struct ls_cmd measuring;
	unsigned int rep;
	bool go = true;

	r->variant_ran[LS_COST_PLAIN] = true;
	r->variant_ran[LS_COST_MEASURED] = true;
	for (rep = 0; rep < r->repeat && go; rep++) {
		go = one_pass(c, r, st, wl, LS_COST_PLAIN, rep, h, NULL);
		if (go && r->aa) {
			go = one_pass(c, r, st, wl, LS_COST_MEASURED, rep, h, NULL);
		} else if (go && !stop_asked()) {
			if (start_measuring(p, r, mask, &measuring, !rep, err, errlen)) {
				/* Ctrl-C reaches it too: then the suite was interrupted. */
				r->interrupted = stop_asked();
				if (r->interrupted)
					err[0] = '\0';
				return r->interrupted ? LS_EXIT_OK :
				       rep ? LS_EXIT_RUNTIME : LS_EXIT_SETUP;
			}
			go = one_pass(c, r, st, wl, LS_COST_MEASURED, rep, h, &measuring);
			stop_measuring(r, &measuring, !rep);
		} else {
			go = false;
		}
	}
	if (!go)
		r->interrupted = stop_asked();
	return LS_EXIT_OK;
}

/*
 * The last pass, while --stress's load runs on every CPU this process
 * may use. Last: stopping the load signals every process this one
 * started, so nothing of the suite's may be needed after it.
 */
static int under_load(const struct ls_params *p, const struct ls_cost_ctx *c,
		      struct ls_cost_report *r, struct ls_wl_state *st,
		      const struct ls_workload **wl, struct heat_reader *h, char *err,
		      size_t errlen)
{
	cpu_set_t cpus;

	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		CPU_ZERO(&cpus);
	if (ls_stress_prepare(p, CPU_COUNT(&cpus) ? CPU_COUNT(&cpus) : 1, &r->load, err,
			      errlen))
		return -1;
	ls_format_cpu_list(&cpus, r->load.cpus, sizeof(r->load.cpus));
	if (ls_stress_start(&r->load, &cpus, err, errlen))
		return -1;
	all_passes(c, r, st, wl, LS_COST_LOADED, h, NULL);
	ls_stress_stop(&r->load);
	return 0;
}

/* The workloads --cost-only names (all without it), prepared: how many. */
static int prepare_all(const char *only, const struct ls_cost_ctx *c,
		       struct ls_cost_report *r, struct ls_wl_state *st,
		       const struct ls_workload **wl)
{
	int i, n = 0;

	for (i = 0; i < ls_nr_workloads; i++) {
		const struct ls_workload *w = &ls_workloads[i];
		struct ls_cost_result *res = &r->w[n];

		if (only && !ls_word_in_list(only, w->name))
			continue;
		memset(&st[n], 0, sizeof(st[n]));
		st[n].wl = w;
		st[n].fd = -1;
		st[n].server.pid = -1;
		st[n].server.fd = -1;
		res->name = w->name;
		res->batch = 1;	/* until its warm-up says more */
		wl[n] = w;
		w->prepare(c, &st[n], res->what, sizeof(res->what), res->skipped,
			   sizeof(res->skipped));
		n++;
	}
	return n;
}

int ls_cost_suite(const struct ls_params *p, const struct ls_cost_params *cp,
		  struct ls_cost_report *r, char *err, size_t errlen)
{
	struct ls_wl_state st[LS_COST_MAX_WORKLOADS];
	const struct ls_workload *wl[LS_COST_MAX_WORKLOADS];
	struct heat_reader h = { .src = r->heat };
	sigset_t signals, old;
	struct ls_cost_ctx c = {
		.scale = cp->scale, .ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN),
		.dir = cp->dir ? cp->dir : ".", .mask = &old,
	};
	pthread_condattr_t attr;
	cpu_set_t others;
	int i, v, ret;

	r->repeat = cp->repeat;
	r->scale = cp->scale;
	r->min_run_ms = cp->min_run_ms;
	r->aa = cp->aa;
	r->latency_exit = -1;
	r->started = time(NULL);
	ls_block_signals(&signals, &old);
	pthread_mutex_init(&h.lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);	/* heat_thread()'s clock */
	pthread_cond_init(&h.wake, &attr);
	pthread_condattr_destroy(&attr);
	/* Off the measured CPU: its reads neither run there nor wait behind it. */
	if (sched_getaffinity(0, sizeof(others), &others))
		CPU_ZERO(&others);
	CPU_CLR(r->measured_cpu, &others);
	if (ls_start_thread(&h.t, heat_thread, &h, SCHED_OTHER, 0, &others)) {
		ls_fail(err, errlen, "cannot start the heat reader thread");
		ls_unblock_signals(&signals, &old);
		return LS_EXIT_RUNTIME;
	}
	r->nr = prepare_all(cp->only, &c, r, st, wl);
	warm_up(&c, r, st, wl);
	ret = rounds(p, &c, r, st, wl, &h, &old, err, errlen);
	if (!r->interrupted && !stop_asked() && !ret && (p->stress || p->stress_cmd) &&
	    under_load(p, &c, r, st, wl, &h, err, errlen))
		ret = LS_EXIT_SETUP;
	for (i = 0; i < r->nr; i++) {
		if (wl[i]->finish && !r->w[i].skipped[0])
			wl[i]->finish(&st[i]);
		for (v = 0; v < LS_COST_VARIANTS; v++) {
			ls_cost_stat(r->w[i].t[v], r->w[i].stat[v].n, &r->w[i].stat[v]);
			if (r->w[i].failed[v][0])
				ret = ret ? ret : LS_EXIT_RUNTIME;
		}
	}
	pthread_mutex_lock(&h.lock);
	h.stop = true;
	pthread_cond_signal(&h.wake);
	pthread_mutex_unlock(&h.lock);
	pthread_join(h.t, NULL);
	ls_unblock_signals(&signals, &old);
	r->ended = time(NULL);
	return ret;
}
