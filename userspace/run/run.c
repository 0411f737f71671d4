// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: one run, step by step. Opens a session per measured CPU
 * (the driver's, or with --gpiod the GPIO character device's) and, for
 * the one-board mode, the driver's monitor session beside it; starts the
 * load, the sessions and the logger, waits for the end in one place
 * (timeout, Ctrl-C, SIGTERM, SIGHUP, -A, -b), then stops everything and
 * collects the results. Every way out goes through the same stop and
 * release, so what was started is stopped and what was measured is kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/engine.h"

/* ---- the load ---- */

/* Stops the load (once) and says if a command of it ended on its own. */
static void stop_load(struct ls_stress *st)
{
	int i;

	if (!st->running)
		return;
	ls_stress_stop(st);
	for (i = 0; i < st->ncmds && st->alive_at_stop < st->ncmds; i++)
		if (!WIFSIGNALED(st->status[i]) ||
		    (WTERMSIG(st->status[i]) != SIGTERM && WTERMSIG(st->status[i]) != SIGKILL))
			fprintf(stderr, "latscope: the load command '%s' ended during the run (%s %d): part of the run was not under load\n",
				st->cmd[i], WIFSIGNALED(st->status[i]) ? "signal" : "exit status",
				WIFSIGNALED(st->status[i]) ? WTERMSIG(st->status[i]) :
				WEXITSTATUS(st->status[i]));
}

/* ---- the other board, if any ---- */

/* Reaches the other board: 0, or the exit code of the link's failure. */
static int open_link(struct run *run, struct ls_report *r, char *err, size_t errlen)
{
	const struct ls_link *link = run->plug->link;

	if (!link || !link->ops->open)
		return 0;
	run->link_opened = true;
	return link->ops->open(run, link->priv, r, err, errlen);
}

/* ---- the steps of a run ---- */

static void run_init(struct run *run, const struct ls_params *p,
		     const struct ls_plug *plug)
{
	memset(run, 0, sizeof(*run));
	run->p = p;
	run->plug = plug;
	run->all_isolated = true;
	run->c_state_fd = -1;
	atomic_init(&run->exit_code, LS_EXIT_OK);
	atomic_init(&run->stopping, false);
	pthread_mutex_init(&run->tl_lock, NULL);
	sigemptyset(&run->signals);
	/* What release() gives back if the run ends before blocking them. */
	pthread_sigmask(SIG_BLOCK, NULL, &run->old_signals);
}

/* Which CPUs measure, which run the logger and the load, and the load's commands. */
static int plan(struct run *run, struct ls_report *r, char *err, size_t errlen)
{
	const struct ls_params *p = run->p;
	int nr_load;

	if (ls_pick_cpus(p, r->sys, &run->measured, err, errlen))
		return -1;
	ls_format_cpu_list(&run->measured, run->cpu_list, sizeof(run->cpu_list));
	if (p->threads && (int)p->threads < CPU_COUNT(&run->measured)) {
		ls_fail(err, errlen, "--threads %u on %d CPUs (%s): give at least one thread per CPU, or fewer CPUs",
			p->threads, CPU_COUNT(&run->measured), run->cpu_list);
		return -1;
	}
	ls_cpus_off(&run->measured, &run->others, &run->load);
	nr_load = CPU_COUNT(&run->load);
	if (ls_stress_prepare(p, nr_load ? nr_load : 1, &r->stress, err, errlen))
		return -1;
	ls_format_cpu_list(&run->load, r->stress.cpus, sizeof(r->stress.cpus));
	return 0;
}

/*
 * The one-board monitor's options: the driver's monitor mode on
 * --pulse-out and --ack-in, pulses of -I's edge, at -p.
 */
static void one_board_params(struct run *run)
{
	struct ls_params *m = &run->mon_p;

	*m = *run->p;
	m->monitor = true;
	m->context = LATSCOPE_CTX_IRQ;
	m->pulse_edge = run->p->gpio_edge == LATSCOPE_EDGE_FALLING ?
			LATSCOPE_EDGE_FALLING : LATSCOPE_EDGE_RISING;
	m->irq_thread_prio = 0;
	m->latmon_host[0] = '\0';
}

static void init_session(struct cpu_run *c, int cpu, const struct ls_sysinfo *si)
{
	c->cpu = cpu;
	c->fd = -1;
	c->isolated = CPU_ISSET(cpu, &si->isolated);
}

/*
 * One cpu_run per responder, with no session yet: one per measured CPU,
 * or --threads of them dealt over the measured CPUs in turn (M:N); then
 * the one-board monitor's, on a CPU the logger has if there is one.
 */
static int alloc_cpu_runs(struct run *run, const struct ls_sysinfo *si)
{
	const struct ls_params *p = run->p;
	bool one_board = ls_one_board(p);
	int cpu[CPU_SETSIZE], ncpus = 0, c, i;

	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &run->measured))
			cpu[ncpus++] = c;
	run->nr_threads = p->threads ? (int)p->threads : ncpus;
	run->nr = run->nr_threads + one_board;
	run->cpus = calloc(run->nr, sizeof(*run->cpus));
	if (!run->cpus)
		return -1;
	for (i = 0; i < run->nr_threads; i++) {
		init_session(&run->cpus[i], cpu[i % ncpus], si);
		run->cpus[i].ops = p->context == LS_CTX_GPIOD ? &ls_gpiod_session :
				   &ls_driver_session;
		run->cpus[i].p = p;
		run->cpus[i].role = p->latmon_host[0] || one_board ? LS_ROLE_LOCAL :
				    LS_ROLE_MEASURES;
		run->all_isolated &= run->cpus[i].isolated;
	}
	if (one_board) {
		struct cpu_run *m = &run->cpus[i];

		one_board_params(run);
		init_session(m, ls_first_cpu(&run->others, run->cpus[0].cpu), si);
		m->ops = &ls_driver_session;
		m->p = &run->mon_p;
		m->role = LS_ROLE_MONITOR;
	}
	return 0;
}

/* Every buffer the run needs, taken before memory is locked. */
static int alloc_buffers(struct run *run, struct ls_report *r, char *err, size_t errlen)
{
	if (alloc_cpu_runs(run, r->sys) ||
	    ls_report_alloc(r, run->nr_threads, run->p->hist_cells, ls_one_board(run->p))) {
		ls_fail(err, errlen, "out of memory for %d CPUs", run->nr);
		return -1;
	}
	ls_timeline_init(r->timeline);
	run->timeline = r->timeline;
	if ((run->p->checkpoint_s || run->plug->snapshots) && ls_checkpoint_alloc(run, r)) {
		ls_fail(err, errlen, "out of memory for the checkpoint's copy of %d CPUs", run->nr);
		return -1;
	}
	return 0;
}

static int open_sessions(struct run *run, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < run->nr; i++) {
		struct cpu_run *c = &run->cpus[i];

		c->opened = true;
		if (c->ops->open(c, err, errlen))
			return -1;
	}
	return 0;
}

/* The load runs through the warm-up, so the warm-up sees it. */
static int start_load(struct run *run, struct ls_stress *st, char *err, size_t errlen)
{
	if (ls_stress_start(st, &run->load, err, errlen))
		return -1;
	if (st->ncmds && run->p->verbosity > 0)
		fprintf(stderr, "load '%s' started on CPU%s\n", st->name, st->cpus);
	return 0;
}

/* Memory locked, deep C-states held off, and the user told what starts. */
static void get_ready(struct run *run, struct ls_report *r)
{
	const struct ls_params *p = run->p;

	if (mlockall(MCL_CURRENT | MCL_FUTURE) && p->verbosity > 0)
		fprintf(stderr, "warning: mlockall: %s, page faults may add latency\n",
			strerror(errno));
	r->c_state_restricted = ls_hold_c_states(&run->c_state_fd);
	if (p->verbosity > 0)
		fprintf(stderr, "warming up on CPU%s%s...\n", run->cpu_list,
			run->all_isolated ? "" : " (not isolated)");
	else
		fprintf(stderr, "running quietly for %llu seconds on CPU%s%s\n",
			p->timeout_s, run->cpu_list, run->all_isolated ? "" : " (not isolated)");
}

/* The threads' sessions first: the one-board monitor pulses once they answer. */
static int start_sessions(struct run *run, struct ls_report *r, char *err, size_t errlen)
{
	int i;

	run->start = time(NULL);
	r->started = run->start;
	for (i = 0; i < run->nr; i++)
		if (run->cpus[i].ops->start(&run->cpus[i], err, errlen))
			return -1;
	return 0;
}

static int start_logger(struct run *run, char *err, size_t errlen)
{
	const struct ls_link *link = run->plug->link;

	if (ls_start_thread(&run->logger, ls_logger, run, SCHED_OTHER, 0, &run->others)) {
		ls_fail(err, errlen, "cannot start the logger thread");
		return -1;
	}
	run->has_logger = true;
	/* The responder answers already: the other board may start. */
	return link && link->ops->start ? link->ops->start(run, link->priv, err, errlen) : 0;
}

/*
 * Stops what was started: a monitor first (it pulses until then, and its
 * last records need the responder), a latmon one or the one-board
 * monitor's session, then the threads' sessions (their last records
 * still reach the logger), the load, then the logger once it has read
 * every record. Returns @ret, or LS_EXIT_RUNTIME (LS_EXIT_MONITOR_LOST)
 * for what failed meanwhile.
 */
static int stop_run(struct run *run, struct ls_stress *st, int ret)
{
	const struct ls_link *link = run->plug->link;
	char err[320];
	int i;

	atomic_store(&run->stopping, true);
	run->stopped_ns = ls_now_ns();
	if (link && link->ops->stop)
		ret = link->ops->stop(run, link->priv, ret);
	for (i = run->nr - 1; i >= 0; i--) {
		struct cpu_run *c = &run->cpus[i];

		if (c->opened && c->ops->stop(c, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			if (ret == LS_EXIT_OK)
				ret = LS_EXIT_RUNTIME;
		}
	}
	stop_load(st);
	if (run->has_logger)
		pthread_join(run->logger, NULL);
	if (link && link->ops->stopped)
		link->ops->stopped(run, link->priv);
	return ret;
}

/* Each CPU's result, then the totals; @ret, or LS_EXIT_RUNTIME if one is missing. */
static int collect_results(struct run *run, struct ls_report *r, int ret, char *err,
			   size_t errlen)
{
	const struct ls_link *link = run->plug->link;
	int i;

	r->nr_cpus = run->nr_threads;
	for (i = 0; i < run->nr; i++)
		if (ls_collect(&run->cpus[i], ls_result_slot(run, r, i), run->p->hist_cells,
			       err, errlen)) {
			ret = LS_EXIT_RUNTIME;
			/*
			 * A thread's missing result ends the list; a monitor's
			 * leaves its entry without cells, and no total: no
			 * figure stands in for its round trip.
			 */
			if (i < run->nr_threads)
				r->nr_cpus = i;
			break;
		}
	ls_fill_report(r, run->stopped_ns);
	if (link && link->ops->collect)
		link->ops->collect(run, link->priv, r);
	return ret;
}

/* Gives back what the run held; the load is stopped whatever happened. */
static void release(struct run *run, struct ls_report *r)
{
	int i;

	stop_load(&r->stress);
	if (run->link_opened && run->plug->link->ops->close)
		run->plug->link->ops->close(run, run->plug->link->priv);
	if (run->c_state_fd >= 0)
		close(run->c_state_fd);
	for (i = 0; run->cpus && i < run->nr; i++)
		if (run->cpus[i].opened)
			run->cpus[i].ops->close(&run->cpus[i]);
	ls_report_free(&run->snap);
	free(run->cpus);
	pthread_mutex_destroy(&run->tl_lock);
	ls_unblock_signals(&run->signals, &run->old_signals);
}

/*
 * One run into @r, with @plug's sinks and link. A step that fails before
 * the wait leaves LS_EXIT_SETUP (or the link's exit code: the other board
 * was not reached) and no result; once the wait began, however the run
 * ends, the results are collected. Either way what was started is
 * stopped and released.
 */
int ls_run(const struct ls_params *p, struct ls_report *r, const struct ls_plug *plug,
	   char *err, size_t errlen)
{
	struct run run;
	int ret = LS_EXIT_SETUP;

	run_init(&run, p, plug);
	if (plan(&run, r, err, errlen) || alloc_buffers(&run, r, err, errlen))
		goto out;
	/* Signals go to the wait for the end only, in every thread. */
	ls_block_signals(&run.signals, &run.old_signals);
	ret = open_link(&run, r, err, errlen);
	if (ret)
		goto out;
	ret = LS_EXIT_SETUP;
	if (open_sessions(&run, err, errlen) || start_load(&run, &r->stress, err, errlen))
		goto out;
	get_ready(&run, r);
	if (!start_sessions(&run, r, err, errlen) && !start_logger(&run, err, errlen))
		ret = ls_wait_for_end(&run, r);
	ret = stop_run(&run, &r->stress, ret);
	if (ret != LS_EXIT_SETUP)
		ret = collect_results(&run, r, ret, err, errlen);
out:
	release(&run, r);
	r->exit_code = ret;
	return ret;
}
