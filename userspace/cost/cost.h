/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, cost: the cost suite (--cost), a front-end of its own:
 * fixed amounts of work, timed, repeated, plain and again while latscope
 * measures on one CPU (a child latscope run), heat and clock read
 * meanwhile. Below it: run/ (signals, threads), output/ and core/
 * (docs/design/layers.md); the result is a struct ls_cost_report that
 * print.c prints. Its pure parts (queens.c, stat.c, print.c) are its own:
 * no other folder uses them.
 */
#ifndef LATSCOPE_COST_H
#define LATSCOPE_COST_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "run/run.h"

/* --cost and its --cost-* options: the suite's own, beside the run's struct ls_params. */
struct ls_cost_params {
	bool asked;			/* --cost (or --cost-only): the suite instead of a run */
	unsigned int repeat;		/* --cost-repeat: runs of each workload */
	unsigned int scale;		/* --cost-scale: percent of the default work */
	const char *only;		/* --cost-only: workloads, NULL: all */
	const char *dir;		/* --cost-dir: fsync's file, NULL: . */
	unsigned int min_run_ms;	/* --cost-min-run: a timed run at least, 0: none */
	bool aa;			/* --cost-aa: the second runs plain too, nothing measured */
};

/* --cost-min-run without the option, ms; and the most runs of the work one timing takes. */
#define LS_COST_MIN_RUN_MS	1000
#define LS_COST_MAX_BATCH	10000

/* queens.c: the suite's CPU work. */
#define LS_QUEENS_MAX		16

unsigned long long ls_queens(unsigned int n);
unsigned long long ls_queens_known(unsigned int n);

/* stat.c: a workload's running times, summed up. */
struct ls_cost_stat {
	unsigned int n;
	double mean, stddev, min, max;	/* seconds; stddev of a sample (n - 1) */
};

void ls_cost_stat(const double *t, unsigned int n, struct ls_cost_stat *out);
double ls_cost_change(const struct ls_cost_stat *base, const struct ls_cost_stat *other);

/*
 * How much longer one set of runs took than another, in percent of the
 * base's mean, with its 95 % confidence interval [@lo, @hi] (Welch).
 * @pct NAN: no base or no other; @lo and @hi NAN: a side has one run.
 */
struct ls_cost_delta {
	double pct, lo, hi;
};

double ls_t975(double df);
void ls_cost_delta(const struct ls_cost_stat *base, const struct ls_cost_stat *other,
		   struct ls_cost_delta *d);
/* Whether @d's interval leaves 0 out: a price (or a gain), not noise. */
bool ls_cost_delta_differs(const struct ls_cost_delta *d);

/* The suite's result (suite.c makes it, print.c prints it). */
#define LS_COST_PLAIN		0	/* nothing else runs */
#define LS_COST_MEASURED	1	/* while latscope measures on one CPU */
#define LS_COST_LOADED		2	/* while --stress's load runs */
#define LS_COST_VARIANTS	3
#define LS_COST_MAX_REPEAT	100
#define LS_COST_MAX_WORKLOADS	8

struct ls_cost_result {
	const char *name;		/* "queens-1" */
	char what[160];			/* the fixed work, in words */
	char skipped[160];		/* why it did not run; "": it ran */
	char check[160];		/* what its output showed */
	char failed[LS_COST_VARIANTS][200];	/* a run that failed, or its check */
	unsigned int batch;		/* runs of its work each timing takes (--cost-min-run) */
	double warm_s;			/* its faster warm-up run's time, which set @batch */
	double t[LS_COST_VARIANTS][LS_COST_MAX_REPEAT];	/* seconds, each run */
	struct ls_cost_stat stat[LS_COST_VARIANTS];	/* of the runs made */
	struct ls_heat_total heat[LS_COST_VARIANTS];	/* during them */
};

struct ls_cost_report {
	const struct ls_params *params;
	const struct ls_sysinfo *sys;
	const struct ls_heat_src *heat;
	time_t started, ended;
	unsigned int repeat, scale;
	unsigned int min_run_ms;	/* --cost-min-run's */
	bool aa;			/* --cost-aa: LS_COST_MEASURED ran plain */
	int nr;
	struct ls_cost_result w[LS_COST_MAX_WORKLOADS];
	bool variant_ran[LS_COST_VARIANTS];
	struct ls_stress load;		/* --stress's, for LS_COST_LOADED */
	int measured_cpu;
	char latency_json[4200];	/* the measuring run's --json, "": none */
	char latency_rts[256];		/* its RTS| line, "": none came */
	int latency_exit;		/* its exit status, -1: not run */
	bool interrupted;		/* a signal ended the suite early */
	int exit_code;
};

/* print.c: the suite's table and JSON. */
void ls_cost_print(FILE *f, const struct ls_cost_report *r);
int ls_cost_write_json(FILE *f, const struct ls_cost_report *r);
int ls_cost_write_file(const char *path, const struct ls_cost_report *r, char *err,
		       size_t errlen);
int ls_cost_write_files(const struct ls_cost_report *r);

/* command.c: a program and what it printed, in a memfd. */
struct ls_cmd {
	pid_t pid;			/* 0 once reaped, -1: not started */
	int status;			/* its wait status once reaped */
	int fd;				/* its stdout and stderr */
};

int ls_cmd_start(struct ls_cmd *c, char *const argv[], const sigset_t *mask);
int ls_cmd_start_at(struct ls_cmd *c, char *const argv[], const sigset_t *mask, int dirfd);
int ls_cmd_wait(struct ls_cmd *c, int timeout_ms);
void ls_cmd_stop(struct ls_cmd *c, int sig, int grace_ms);
void ls_cmd_output(const struct ls_cmd *c, char *buf, size_t len);
void ls_cmd_close(struct ls_cmd *c);
int ls_cmd_run(char *const argv[], const sigset_t *mask, char *out, size_t outlen,
	       char *err, size_t errlen);
const char *ls_last_line(char *text);

/* What every workload is given. */
struct ls_cost_ctx {
	unsigned int scale;		/* --cost-scale: percent of the default work */
	int ncpus;			/* online: queens-all's threads */
	const char *dir;		/* --cost-dir: fsync's file */
	const sigset_t *mask;		/* the children's signal mask */
};

struct ls_workload;

/* A workload's own state between prepare, its runs and finish. */
struct ls_wl_state {
	const struct ls_workload *wl;	/* its row */
	unsigned long long amount;	/* its unit of work, by the scale */
	int fd;				/* fsync's file */
	char path[4200];
	struct ls_cmd server;		/* iperf3's */
};

/**
 * struct ls_workload - one fixed amount of work (workloads.c)
 * @name: as options, output and JSON name it
 * @prepare: sets @s->amount and says the work in @what; -1 with why in
 *	@why when it cannot run here (a tool missing): it is skipped
 * @run: the work, timed by the caller: 0 with what its output showed in
 *	@check, or -1 with why in @err
 * @finish: gives back what @prepare took; may be NULL
 * @arg: what a row shared by several workloads runs (stress-ng's stressor)
 * @at100: its amount of work at --cost-scale 100
 */
struct ls_workload {
	const char *name;
	int (*prepare)(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *what,
		       size_t whatlen, char *why, size_t whylen);
	int (*run)(const struct ls_cost_ctx *c, struct ls_wl_state *s, char *check,
		   size_t checklen, char *err, size_t errlen);
	void (*finish)(struct ls_wl_state *s);
	const char *arg;
	unsigned long long at100;
};

extern const struct ls_workload ls_workloads[];
extern const int ls_nr_workloads;
const struct ls_workload *ls_workload(const char *name);
void ls_workload_names(char *buf, size_t len);

/*
 * mode.c: --cost, as the CLI's table of modes runs it, measured on
 * @measured_cpu: its exit code, the table printed and the files written.
 */
int ls_cost_mode(const struct ls_params *p, const struct ls_cost_params *cp,
		 const struct ls_sysinfo *sys, const struct ls_heat_src *heat, int measured_cpu);

/* suite.c */
int ls_cost_suite(const struct ls_params *p, const struct ls_cost_params *cp,
		  struct ls_cost_report *r, char *err, size_t errlen);

#endif /* LATSCOPE_COST_H */
