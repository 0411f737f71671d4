/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, run: the engine's own parts, shared by the files that
 * carry a run out: run.c (the sequence), session_*.c (the sessions),
 * cpu.c (where each part runs), logger.c (the records, second by second),
 * sinks.c, wait.c (the signals that end the run) and report.c (the
 * results). Nothing above run/ uses it.
 */
#ifndef LATSCOPE_ENGINE_H
#define LATSCOPE_ENGINE_H

#include "output/output.h"
#include "run/run.h"

#define LS_QUEUE_LEN	64

struct cpu_run;

/**
 * struct ls_session_ops - a session's steps on one CPU
 * @open: takes the device and sets the session up: 0, or -1 with a
 *	message in @err
 * @start: starts measuring (the responder first): 0, or -1 with a message
 * @stop: stops it; its last records still come, then EOF: 0, or -1 with
 *	a message
 * @result: the result into @out's buffers (two histograms of @cells, two
 *	tails), at the end or with @snapshot while it runs: 0 or -errno
 * @close: gives back what @open took
 *
 * The driver's (/dev/latscope, session_driver.c) or the GPIO character
 * device's (libgpiod, session_gpiod.c). Between @open and @close the
 * cpu_run's fd is its record stream: struct latscope_bulk records (a
 * noise session's struct latscope_noise_bulk, the source's record_size)
 * to read() once poll() says so, and EOF once it stopped (or ended by
 * itself).
 */
struct ls_session_ops {
	int (*open)(struct cpu_run *c, char *err, size_t errlen);
	int (*start)(struct cpu_run *c, char *err, size_t errlen);
	int (*stop)(struct cpu_run *c, char *err, size_t errlen);
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
	atomic_bool stopping;		/* a busy responder's sign to end (--noise -u) */
	/* Logger side: records read but not printed yet, whole (noise's too). */
	bool eof;
	struct latscope_noise_bulk queue[LS_QUEUE_LEN];
	int queued;
};

/* cpu.c */
void ls_cpus_off(const cpu_set_t *measured, cpu_set_t *others, cpu_set_t *load);
bool ls_hold_c_states(int *fd);

/* logger.c: the thread's function, its argument a struct run. */
void *ls_logger(void *run);

int ls_check_driver(const struct latscope_info *info, const struct ls_source *src,
		    char *err, size_t errlen);

/* session_gpiod.c */
void ls_gpiod_request_error(const char *role, const struct ls_gpio_spec *spec, int error,
			    char *err, size_t errlen);

/* wait.c */
int ls_wait_for_end(struct run *run, const struct ls_report *r);

/* report.c */
int ls_report_alloc(struct ls_report *r, int nr_cpus, unsigned int cells, bool monitor);
struct ls_cpu_result *ls_result_slot(struct run *run, struct ls_report *r, int i);
int ls_collect(struct cpu_run *c, struct ls_cpu_result *out, unsigned int cells,
	       char *err, size_t errlen);
void ls_fill_report(struct ls_report *r, __u64 stopped_ns);
int ls_checkpoint_alloc(struct run *run, const struct ls_report *r);
void ls_checkpoint(struct run *run, const struct ls_report *r);

#endif /* LATSCOPE_ENGINE_H */
