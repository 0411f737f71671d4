/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI: the state of one run, shared by the files that carry it
 * out: run.c (the sequence), cpu.c (where each part runs), logger.c (the
 * per-second lines), wait.c (the signals that end the run) and report.c
 * (the results). Nothing outside a run uses it.
 */
#ifndef LATSCOPE_RUN_H
#define LATSCOPE_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "latmon.h"
#include "latscope.h"

#define LS_QUEUE_LEN	64

struct cpu_run;

/*
 * A session's steps: the driver's (/dev/latscope, session_driver.c) or
 * the GPIO character device's (libgpiod, session_gpiod.c). Each fails
 * with a message in @err. Between open and close, the cpu_run's fd is
 * its record stream: struct latscope_bulk records to read() once
 * poll() says so, and EOF once it stopped (or ended by itself).
 */
struct ls_session_ops {
	int (*open)(struct cpu_run *c, char *err, size_t errlen);
	int (*start)(struct cpu_run *c, char *err, size_t errlen);
	/* Its last records still come; then EOF. */
	int (*stop)(struct cpu_run *c, char *err, size_t errlen);
	/* The result into @out's buffers (2 histograms, 2 tails): 0 or -errno. */
	int (*result)(struct cpu_run *c, struct ls_cpu_result *out, unsigned int cells,
		      bool snapshot);
	void (*close)(struct cpu_run *c);
};

extern const struct ls_session_ops ls_driver_session;
extern const struct ls_session_ops ls_gpiod_session;

/* What a session's figures are to the run. */
enum ls_role {
	LS_ROLE_MEASURES,		/* the run's figures: its records, its result */
	LS_ROLE_LOCAL,			/* a monitor measures: this board's local split */
	LS_ROLE_MONITOR,		/* the one-board monitor: the run's figures */
};

/* One session on one CPU, its responder, its queue of records. */
struct cpu_run {
	int cpu;
	int fd;				/* the record stream, or -1 */
	const struct ls_session_ops *ops;
	const struct ls_params *p;	/* the run's, or the one-board monitor's */
	enum ls_role role;
	void *priv;			/* the session's own state */
	bool isolated;
	bool opened;
	bool started;
	bool has_responder;
	pthread_t responder;
	int responder_err;
	/* Logger side: records read but not printed yet. */
	bool eof;
	struct latscope_bulk queue[LS_QUEUE_LEN];
	int queued;
};

/* The connection to a latmon monitor (-z HOST), latmon_client.c's. */
struct ls_latmon_conn {
	int fd;				/* TCP to the monitor, or -1 */
	int wake[2];			/* pipe: the main thread asks for the stop */
	pthread_t thread;
	bool has_thread;
	bool stop_sent;			/* the zero request went out */
	int exit_code;			/* LS_EXIT_MONITOR_LOST once it failed */
	char err[320];			/* why */
	struct ls_latmon_figures *fig;	/* the report's */
};

/* A latmon client of --monitor, latmon_monitor.c's, for one run. */
struct ls_monitor_peer {
	int fd;				/* the client's connection */
	int wake[2];			/* pipe: the run is over, stop reading */
	int sigfd;			/* Ctrl-C and co. while no run waits for them */
	char name[64];			/* ADDRESS:PORT */
	pthread_t thread;		/* reads its stop while the run goes on */
	bool has_thread;
	bool stop_asked;		/* it sent a request: the run ends */
	atomic_bool gone;		/* it closed, broke or stopped reading */
	bool has_next;			/* that request starts a new run */
	struct ls_latmon_request next;
	__u64 overruns;			/* of seconds without a sample, not sent yet */
	char why[200];
};

struct run {
	const struct ls_params *p;
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
	atomic_int exit_code;		/* set by the logger: -A, -b, weird */
	atomic_bool stopping;		/* the main thread is stopping the run */
	struct ls_timeline *timeline;	/* the logger's until it is joined */
	pthread_mutex_t tl_lock;	/* timeline: logger vs checkpoint */
	struct ls_latmon_conn *latmon;	/* -z HOST, else NULL */
	struct ls_monitor_peer *peer;	/* --monitor's client, else NULL */
	struct ls_report snap;		/* --checkpoint's copy of the run */
	bool snap_off;			/* the driver cannot take snapshots */
	/* Logger figures, in ns. */
	unsigned long long rounds;
	unsigned long long overruns;
	__s64 best, worst;
};

/* cpu.c */
int ls_pick_cpus(const struct ls_params *p, const struct ls_sysinfo *si,
		 cpu_set_t *set, char *err, size_t errlen);
void ls_cpus_off(const cpu_set_t *measured, cpu_set_t *others, cpu_set_t *load);
bool ls_hold_c_states(int *fd);
int ls_start_thread(pthread_t *t, void *(*fn)(void *), void *arg, int policy,
		    int prio, const cpu_set_t *cpus);

/* logger.c: the thread's function, its argument a struct run. */
void *ls_logger(void *run);
void ls_log_bulk(struct run *run, const struct latscope_bulk *b);
void ls_request_stop(struct run *run, int code);

/* latmon_client.c */
int ls_latmon_connect(struct run *run, struct ls_latmon_conn *c,
		      struct ls_latmon_figures *fig, char *err, size_t errlen);
int ls_latmon_start(struct run *run, char *err, size_t errlen);
int ls_latmon_stop(struct run *run, int ret);
void ls_latmon_close(struct ls_latmon_conn *c);
void ls_latmon_report(struct ls_report *r);

/* latmon_monitor.c and run.c: a run for a --monitor client. */
int ls_run_peer(const struct ls_params *p, struct ls_report *r,
		struct ls_monitor_peer *peer, char *err, size_t errlen);
int ls_peer_start(struct run *run, char *err, size_t errlen);
void ls_peer_stop(struct run *run);
void ls_peer_send_bulk(struct run *run, const struct latscope_bulk *b);

/* session_gpiod.c */
void ls_gpiod_request_error(const char *role, const struct ls_gpio_spec *spec, int error,
			    char *err, size_t errlen);

/* wait.c */
void ls_block_signals(sigset_t *set, sigset_t *old);
void ls_unblock_signals(const sigset_t *set, const sigset_t *old);
int ls_wait_for_end(struct run *run, const struct ls_report *r);

/* report.c */
int ls_report_alloc(struct ls_report *r, int nr_cpus, unsigned int cells, bool monitor);
struct ls_cpu_result *ls_result_slot(struct run *run, struct ls_report *r, int i);
int ls_collect(struct cpu_run *c, struct ls_cpu_result *out, unsigned int cells,
	       char *err, size_t errlen);
void ls_fill_report(struct ls_report *r, __u64 stopped_ns);
int ls_checkpoint_alloc(struct run *run, const struct ls_report *r);
void ls_checkpoint(struct run *run, const struct ls_report *r);

#endif /* LATSCOPE_RUN_H */
