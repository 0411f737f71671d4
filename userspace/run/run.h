/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, run: the engine's face to the front-ends above it
 * (latmon/, cli/). A front-end plugs into a run the sinks that get each
 * second and, for a measurement with another board, a link to that
 * board; the engine calls them at fixed moments and never names one.
 * Below it: output/ and core/ (docs/design/layers.md). The engine's own
 * state between its files is engine.h's.
 */
#ifndef LATSCOPE_RUN_H
#define LATSCOPE_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "core/core.h"
#include "setup/setup.h"

struct cpu_run;
struct run;

/**
 * struct ls_sink - a consumer of a run's seconds
 * @second: one second of the run's figures, all measured CPUs merged (or
 *	the other board's record): from one thread at a time, the logger or
 *	a link's reader, before the next second
 * @priv: the sink's own state, given back to @second and @cpu_second
 * @cpu_second: if not NULL, each measured CPU's own record of that
 *	second, from the logger, before @second gets them merged (a run
 *	whose figures come from the other board has none)
 *
 * Sinks get each second in the order the front-end's struct ls_plug
 * lists them. A sink may end the run with ls_request_stop().
 */
struct ls_sink {
	void (*second)(struct run *run, void *priv, const struct latscope_bulk *b);
	void *priv;
	void (*cpu_second)(struct run *run, void *priv, int cpu, const struct latscope_bulk *b);
};

/* sinks.c: the sinks of every run that prints and keeps its seconds. */
void ls_timeline_second(struct run *run, void *priv, const struct latscope_bulk *b);
void ls_console_second(struct run *run, void *priv, const struct latscope_bulk *b);
void ls_heat_second(struct run *run, void *priv, const struct latscope_bulk *b);

/**
 * struct ls_link_ops - the other board of a measurement, as the engine
 *	drives it (a latmon monitor, a latmon client)
 * @open: before any session opens, reaches the other board, @r's figures
 *	at hand: 0, or the exit code (LS_EXIT_*) with a message in @err
 * @start: the responders answer, the other board may start: 0, or -1
 *	with a message in @err
 * @stop: the run stops; the other board stops first, before the
 *	sessions: returns @ret, or the exit code of its failure meanwhile
 * @stopped: the logger read every record and ended
 * @collect: the results are in @r: the other board's figures go in
 * @close: gives back what @open took, once, whatever happened after it
 *
 * Each hook may be NULL. @priv is the link's own state.
 */
struct ls_link_ops {
	int (*open)(struct run *run, void *priv, struct ls_report *r, char *err,
		    size_t errlen);
	int (*start)(struct run *run, void *priv, char *err, size_t errlen);
	int (*stop)(struct run *run, void *priv, int ret);
	void (*stopped)(struct run *run, void *priv);
	void (*collect)(struct run *run, void *priv, struct ls_report *r);
	void (*close)(struct run *run, void *priv);
};

struct ls_link {
	const struct ls_link_ops *ops;
	void *priv;
};

/**
 * struct ls_plug - what a front-end plugs into a run
 * @sinks: who gets each second, in this order
 * @nr_sinks: how many
 * @link: the other board of the measurement, or NULL
 * @snapshots: the sinks read the sessions' figures while the run goes
 *	on (ls_run_snapshot()); not with --checkpoint, which does too
 */
struct ls_plug {
	const struct ls_sink *sinks;
	int nr_sinks;
	const struct ls_link *link;
	bool snapshots;
};

/* One run: its state, shared by the engine's files and its links. */
struct run {
	const struct ls_params *p;
	const struct ls_plug *plug;
	struct ls_params mon_p;		/* the one-board monitor's, if any */
	int nr;				/* sessions: the threads, then a monitor */
	int nr_threads;			/* the responders' sessions, in the report's cpu[] */
	struct cpu_run *cpus;
	cpu_set_t measured;		/* the CPUs of @cpus */
	cpu_set_t others;		/* the logger's: not measured, or empty */
	cpu_set_t load;			/* the load's: @others, else all */
	time_t start;
	__u64 stopped_ns;		/* CLOCK_MONOTONIC at the stop */
	char cpu_list[256];
	bool all_isolated;
	sigset_t signals;		/* those that end the run, blocked */
	sigset_t old_signals;		/* the mask before the run */
	int c_state_fd;			/* /dev/cpu_dma_latency held, or -1 */
	pthread_t logger;
	bool has_logger;
	bool link_opened;		/* the link's close is due */
	atomic_int exit_code;		/* set by the logger: -A, -b, weird */
	atomic_bool stopping;		/* the main thread is stopping the run */
	struct ls_timeline *timeline;	/* the logger's until it is joined */
	pthread_mutex_t tl_lock;	/* timeline: logger vs checkpoint */
	struct ls_report snap;		/* --checkpoint's copy of the run */
	bool snap_off;			/* the driver cannot take snapshots */
	/*
	 * The whole record of the second being handed to the sinks (a noise
	 * run's part beside the struct latscope_bulk they get), or NULL when
	 * a link hands the seconds: ls_run_whole().
	 */
	const struct latscope_noise_bulk *whole;
	/* The console sink's figures, in ns. */
	unsigned long long rounds;
	unsigned long long overruns;
	__s64 best, worst;
};

/* run.c and report.c */
/*
 * ls_device_check() - /dev/latscope there, answering, of this CLI's ABI
 * for @p's source: 0, or -1 with the message (session_driver.c). For a
 * front-end that would otherwise find out late (--cost, after its plain
 * pass).
 */
int ls_device_check(const struct ls_params *p, char *err, size_t errlen);
int ls_run(const struct ls_params *p, struct ls_report *r, const struct ls_plug *plug,
	   char *err, size_t errlen);
void ls_report_free(struct ls_report *r);

/* logger.c: for sinks and links, from the thread that has the seconds. */
void ls_run_second(struct run *run, const struct latscope_bulk *b);

/*
 * For a sink, inside its @second or @cpu_second: the whole record of that
 * second (a noise run's runtime and gaps by kind), or NULL if a link
 * handed it (a latmon monitor's has none).
 */
static inline const struct latscope_noise_bulk *ls_run_whole(const struct run *run)
{
	return run->whole;
}

void ls_request_stop(struct run *run, int code);

/* report.c: for a sink of a plug with snapshots, from the logger. */
const struct ls_report *ls_run_snapshot(struct run *run);

/* cpu.c and wait.c: for the threads and signals of links and front-ends. */
int ls_start_thread(pthread_t *t, void *(*fn)(void *), void *arg, int policy,
		    int prio, const cpu_set_t *cpus);
void ls_block_signals(sigset_t *set, sigset_t *old);
void ls_unblock_signals(const sigset_t *set, const sigset_t *old);

/* stress.c: the load a run is measured under. */
const struct ls_preset *ls_stress_preset(const char *name);
void ls_stress_names(char *buf, size_t len);
int ls_stress_prepare(const struct ls_params *p, int ncpus, struct ls_stress *st,
		      char *err, size_t errlen);
int ls_stress_start(struct ls_stress *st, const cpu_set_t *cpus, char *err,
		    size_t errlen);
void ls_stress_stop(struct ls_stress *st);

/* irq_thread.c: the thread that delivers a line's interrupt. */
struct ls_irq_thread {
	int irq;
	int pid;			/* 0: the irq has no thread of its own */
	char comm[64];
	int old_policy, old_prio;	/* before ls_irq_thread_raise() */
	bool was_raised;		/* ls_irq_thread_raise() did it */
	bool raised;			/* and not given back yet */
	bool restored;			/* given back, and checked */
	bool ambiguous;			/* two threads matched: none chosen */
};

int ls_irqs_named(const char *proc, const char *label, int *irqs, int max);
bool ls_irq_comm_matches(const char *comm, int irq, const char *label);
int ls_irq_thread_find(const char *proc, int irq, const char *label,
		       struct ls_irq_thread *t);
int ls_irq_thread_sched(int pid, int *policy, int *prio);
int ls_irq_thread_raise(struct ls_irq_thread *t, int prio);
int ls_irq_thread_restore(struct ls_irq_thread *t);

/* evt.c: the extreme-value estimate of a run, by latscope-evt. */
void ls_evt_estimate(struct ls_report *r);

/* cpu.c: the CPUs a run measures on, as the options say. */
int ls_pick_cpus(const struct ls_params *p, const struct ls_sysinfo *si,
		 cpu_set_t *set, char *err, size_t errlen);

#endif /* LATSCOPE_RUN_H */
