// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: one run, step by step. Opens a session per measured CPU,
 * starts the load, a SCHED_FIFO responder per CPU (user context) and the
 * logger, waits for the end in one place (timeout, Ctrl-C, SIGTERM,
 * SIGHUP, -A, -b), then stops everything and collects the results. Every
 * way out goes through the same stop and release, so what was started is
 * stopped and what was measured is kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

#define DEVICE		"/dev/latscope"

/* ---- sessions ---- */

/* Refuses a driver this latscope cannot talk to, naming both versions. */
int ls_check_driver(const struct latscope_info *info, const struct ls_source *src,
		    char *err, size_t errlen)
{
	if (info->abi_version != LATSCOPE_ABI_VERSION) {
		ls_fail(err, errlen, "the loaded driver %.32s speaks ABI %u, this latscope needs %u: load the matching latscope.ko",
			info->version, info->abi_version, LATSCOPE_ABI_VERSION);
		return -1;
	}
	if (info->setup_size < src->setup_size) {
		ls_fail(err, errlen, "the loaded driver %.32s has no %s source (setup size %u, need %zu): load the matching latscope.ko",
			info->version, src->name, info->setup_size, src->setup_size);
		return -1;
	}
	return 0;
}

static int open_session(struct cpu_run *c, const struct ls_params *p,
			char *err, size_t errlen)
{
	const struct ls_source *src = ls_source_of(p);
	struct latscope_info info;
	struct latscope_setup setup = {
		.size = sizeof(setup),
		.context = p->context,
		.source = src->id,
		.period_ns = (__u64)ls_period_us(p) * 1000,
		.cpu = (__u32)c->cpu,
		.priority = (__u32)p->priority,
		.hist_cells = p->hist_cells,
		.hist_cell_ns = LATSCOPE_DEFAULT_CELL_NS,
		.trace_threshold_ns = (__u64)p->breaktrace_us * 1000,
	};

	c->fd = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		if (errno == ENOENT)
			ls_fail(err, errlen, "no %s: load the driver first (modprobe latscope, or insmod latscope.ko)", DEVICE);
		else if (errno == EACCES || errno == EPERM)
			ls_fail(err, errlen, "no permission to open %s: run as root, or grant a group access (see README)", DEVICE);
		else
			ls_fail(err, errlen, "cannot open %s: %s", DEVICE, strerror(errno));
		return -1;
	}
	if (ioctl(c->fd, LATSCOPE_IOC_GET_INFO, &info)) {
		ls_fail(err, errlen, "%s does not answer GET_INFO (%s): is it the latscope driver?",
			DEVICE, strerror(errno));
		return -1;
	}
	if (ls_check_driver(&info, src, err, errlen))
		return -1;
	if (src->setup && src->setup(p, &setup, err, errlen))
		return -1;
	if (ioctl(c->fd, LATSCOPE_IOC_SETUP, &setup)) {
		if (src->setup_error)
			src->setup_error(p, errno, err, errlen);
		else
			ls_fail(err, errlen, "the driver refused the setup for CPU%d: %s", c->cpu,
				errno == EINVAL ? "is that CPU online?" : strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- responder ---- */

static void *responder_fn(void *arg)
{
	struct cpu_run *c = arg;
	struct latscope_pulse pulse = { 0 };

	for (;;) {
		if (ioctl(c->fd, LATSCOPE_IOC_PULSE, &pulse)) {
			if (errno == EINTR)
				continue;
			c->responder_err = errno == ECANCELED ? 0 : errno;
			return NULL;
		}
		/* The stamp that measures this event, as soon as we run. */
		pulse.stamp_ns = ls_now_ns();
	}
}

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

/* ---- the steps of a run ---- */

static void run_init(struct run *run, const struct ls_params *p)
{
	memset(run, 0, sizeof(*run));
	run->p = p;
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
	ls_cpus_off(&run->measured, &run->others, &run->load);
	nr_load = CPU_COUNT(&run->load);
	if (ls_stress_prepare(p, nr_load ? nr_load : 1, &r->stress, err, errlen))
		return -1;
	ls_format_cpu_list(&run->load, r->stress.cpus, sizeof(r->stress.cpus));
	return 0;
}

/* One cpu_run per measured CPU, with no session yet. */
static int alloc_cpu_runs(struct run *run, const struct ls_sysinfo *si)
{
	int c, i = 0;

	run->nr = CPU_COUNT(&run->measured);
	run->cpus = calloc(run->nr, sizeof(*run->cpus));
	if (!run->cpus)
		return -1;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &run->measured))
			continue;
		run->cpus[i].cpu = c;
		run->cpus[i].fd = -1;
		run->cpus[i].isolated = CPU_ISSET(c, &si->isolated);
		run->all_isolated &= run->cpus[i].isolated;
		i++;
	}
	return 0;
}

/* Every buffer the run needs, taken before memory is locked. */
static int alloc_buffers(struct run *run, struct ls_report *r, char *err, size_t errlen)
{
	if (alloc_cpu_runs(run, r->sys) || ls_report_alloc(r, run->nr, run->p->hist_cells)) {
		ls_fail(err, errlen, "out of memory for %d CPUs", run->nr);
		return -1;
	}
	ls_timeline_init(r->timeline);
	run->timeline = r->timeline;
	if (run->p->checkpoint_s && ls_checkpoint_alloc(run, r)) {
		ls_fail(err, errlen, "out of memory for the checkpoint's copy of %d CPUs", run->nr);
		return -1;
	}
	return 0;
}

static int open_sessions(struct run *run, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < run->nr; i++)
		if (open_session(&run->cpus[i], run->p, err, errlen))
			return -1;
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

static int start_sessions(struct run *run, struct ls_report *r, char *err, size_t errlen)
{
	int i;

	run->start = time(NULL);
	r->started = run->start;
	for (i = 0; i < run->nr; i++) {
		if (ioctl(run->cpus[i].fd, LATSCOPE_IOC_START)) {
			ls_fail(err, errlen, "cannot start measuring on CPU%d: %s",
				run->cpus[i].cpu, strerror(errno));
			return -1;
		}
		run->cpus[i].started = true;
	}
	return 0;
}

/* In the user context, a SCHED_FIFO responder thread on each CPU. */
static int start_responders(struct run *run, char *err, size_t errlen)
{
	const struct ls_params *p = run->p;
	int i, e;

	for (i = 0; p->context == LATSCOPE_CTX_USER && i < run->nr; i++) {
		struct cpu_run *c = &run->cpus[i];
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(c->cpu, &one);
		e = ls_start_thread(&c->responder, responder_fn, c, SCHED_FIFO, p->priority, &one);
		if (e) {
			ls_fail(err, errlen, "cannot start the SCHED_FIFO %d responder on CPU%d: %s",
				p->priority, c->cpu,
				e == EPERM ? "not allowed (run as root or raise RLIMIT_RTPRIO)" : strerror(e));
			return -1;
		}
		c->has_responder = true;
	}
	return 0;
}

static int start_logger(struct run *run, char *err, size_t errlen)
{
	if (ls_start_thread(&run->logger, ls_logger, run, SCHED_OTHER, 0, &run->others)) {
		ls_fail(err, errlen, "cannot start the logger thread");
		return -1;
	}
	run->has_logger = true;
	if (run->peer)
		return ls_peer_start(run, err, errlen);
	/* The responder answers already: the monitor may start pulsing. */
	return run->latmon ? ls_latmon_start(run, err, errlen) : 0;
}

/*
 * Stops what was started: a latmon monitor first (it pulses until then,
 * and its last records need the responder), the sessions (their last
 * records still reach the logger), the load, the responders, then the
 * logger once it has read every record. Returns @ret, or LS_EXIT_RUNTIME
 * (LS_EXIT_MONITOR_LOST) for what failed meanwhile.
 */
static int stop_run(struct run *run, struct ls_stress *st, int ret)
{
	int i;

	atomic_store(&run->stopping, true);
	run->stopped_ns = ls_now_ns();
	ret = ls_latmon_stop(run, ret);
	for (i = 0; i < run->nr; i++)
		if (run->cpus[i].started && ioctl(run->cpus[i].fd, LATSCOPE_IOC_STOP) &&
		    errno == ENODEV) {
			fprintf(stderr, "CPU%d went offline during the run\n", run->cpus[i].cpu);
			ret = LS_EXIT_RUNTIME;
		}
	stop_load(st);
	for (i = 0; i < run->nr; i++) {
		if (!run->cpus[i].has_responder)
			continue;
		pthread_join(run->cpus[i].responder, NULL);
		if (run->cpus[i].responder_err && ret == LS_EXIT_OK) {
			fprintf(stderr, "the responder on CPU%d failed: %s\n",
				run->cpus[i].cpu, strerror(run->cpus[i].responder_err));
			ret = LS_EXIT_RUNTIME;
		}
	}
	if (run->has_logger)
		pthread_join(run->logger, NULL);
	ls_peer_stop(run);
	return ret;
}

/* Each CPU's result, then the totals; @ret, or LS_EXIT_RUNTIME if one is missing. */
static int collect_results(struct run *run, struct ls_report *r, int ret, char *err,
			   size_t errlen)
{
	int i;

	r->nr_cpus = run->nr;
	for (i = 0; i < run->nr; i++)
		if (ls_collect(&run->cpus[i], &r->cpu[i], run->p->hist_cells, err, errlen)) {
			ret = LS_EXIT_RUNTIME;
			r->nr_cpus = i;
			break;
		}
	ls_fill_report(r, run->stopped_ns);
	if (r->latmon)
		ls_latmon_report(r);
	return ret;
}

/* Gives back what the run held; the load is stopped whatever happened. */
static void release(struct run *run, struct ls_report *r)
{
	int i;

	stop_load(&r->stress);
	if (run->latmon)
		ls_latmon_close(run->latmon);
	if (run->c_state_fd >= 0)
		close(run->c_state_fd);
	for (i = 0; run->cpus && i < run->nr; i++)
		if (run->cpus[i].fd >= 0)
			close(run->cpus[i].fd);
	ls_report_free(&run->snap);
	free(run->cpus);
	pthread_mutex_destroy(&run->tl_lock);
	ls_unblock_signals(&run->signals, &run->old_signals);
}

/*
 * One run into @r. A step that fails before the wait leaves LS_EXIT_SETUP
 * (LS_EXIT_MONITOR: the latmon monitor was not reached) and no result;
 * once the wait began, however the run ends, the results are collected. Either way what was started is stopped and released.
 */
int ls_run(const struct ls_params *p, struct ls_report *r, char *err,
	   size_t errlen)
{
	return ls_run_peer(p, r, NULL, err, errlen);
}

/* ls_run(), for a client of --monitor (@peer), which gets the run's records. */
int ls_run_peer(const struct ls_params *p, struct ls_report *r,
		struct ls_monitor_peer *peer, char *err, size_t errlen)
{
	struct ls_latmon_conn latmon;
	struct run run;
	int ret = LS_EXIT_SETUP;

	run_init(&run, p);
	run.peer = peer;
	if (plan(&run, r, err, errlen) || alloc_buffers(&run, r, err, errlen))
		goto out;
	/* Signals go to the wait for the end only, in every thread. */
	ls_block_signals(&run.signals, &run.old_signals);
	if (p->latmon_host[0] && ls_latmon_connect(&run, &latmon, r->latmon, err, errlen)) {
		ret = LS_EXIT_MONITOR;
		goto out;
	}
	if (open_sessions(&run, err, errlen) || start_load(&run, &r->stress, err, errlen))
		goto out;
	get_ready(&run, r);
	if (!start_sessions(&run, r, err, errlen) && !start_responders(&run, err, errlen) &&
	    !start_logger(&run, err, errlen))
		ret = ls_wait_for_end(&run, r);
	ret = stop_run(&run, &r->stress, ret);
	if (ret != LS_EXIT_SETUP)
		ret = collect_results(&run, r, ret, err, errlen);
out:
	release(&run, r);
	r->exit_code = ret;
	return ret;
}
