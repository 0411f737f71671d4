/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, setup: was this board set up to be measured? One factor
 * each of what costs a real-time responder latency (the kernel's debug
 * options, the preemption model, the governor, isolation, IRQs and RT
 * threads on the measured CPUs, ...), read from /proc, /sys and the
 * kernel's config under a root that tests replace with a directory of
 * their own (setup.c, read.c, kernel.c, cpu.c); apply.c changes what can
 * be changed safely, each change in an undo journal first (journal.c);
 * output/setup_print.c prints the verdicts (docs/design/setup.md). Below
 * it only core/ (docs/design/layers.md).
 */
#ifndef LATSCOPE_SETUP_H
#define LATSCOPE_SETUP_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

enum ls_verdict {
	LS_VERDICT_OK,			/* nothing to fix */
	LS_VERDICT_COSTS,		/* costs latency: the fix says what to do */
	LS_VERDICT_UNKNOWN,		/* could not tell, or may cost: measure */
};

/* What --apply-setup may change for a run, LS_APPLY_* bits. */
#define LS_APPLY_GOVERNOR	0x1	/* the measured CPUs' cpufreq governor */
#define LS_APPLY_IRQS		0x2	/* IRQ affinity off the measured CPUs */
#define LS_APPLY_RT_RUNTIME	0x4	/* RT throttling off */

/**
 * struct ls_setup_factor - one thing the board does that may cost latency
 * @name: short, stable: the JSON key ("governor")
 * @title: in words ("cpufreq governor")
 * @value: what this board has, in words
 * @verdict: LS_VERDICT_*
 * @fix: the boot argument, write or package that fixes it; "" if ok
 * @apply: the LS_APPLY_* bit --apply-setup fixes it with, 0: none
 */
struct ls_setup_factor {
	const char *name;
	const char *title;
	char value[320];
	enum ls_verdict verdict;
	char fix[320];
	unsigned int apply;
};

#define LS_SETUP_MAX		24

/* Appends to the char array @buf (not a pointer), as snprintf() writes. */
#define ls_setup_append(buf, ...) ls_setup_appendf(buf, sizeof(buf), __VA_ARGS__)

/**
 * struct ls_setup - the verdicts of one board, for a run's CPUs
 * @n: factors in @f, in the order of the checks
 * @costs: how many cost latency
 * @applied: what --apply-setup changed for the run, in words; "" none
 */
struct ls_setup {
	unsigned int n;
	unsigned int costs;
	struct ls_setup_factor f[LS_SETUP_MAX];
	char applied[512];
};

/**
 * struct ls_setup_ctx - what the checks read and for what
 * @root: prefixed to every /proc, /sys and /boot path; "" the real ones
 * @cpus: the measured CPUs
 * @priority: the responder's SCHED_FIFO priority, 0: none (irq context)
 * @self: this process, whose threads are not a competitor
 * @config: the kernel's .config text, NULL if none was found
 * @config_from: where it came from, for the messages
 */
struct ls_setup_ctx {
	const char *root;
	cpu_set_t cpus;
	int priority;
	int self;
	char *config;
	char config_from[300];
};

/* setup.c */
void ls_setup_check(struct ls_setup *s, const char *root, const cpu_set_t *cpus,
		    int priority);

/* read.c */
void ls_setup_ctx_init(struct ls_setup_ctx *c, const char *root, const cpu_set_t *cpus,
		       int priority);
const char *ls_verdict_name(enum ls_verdict v);
void ls_setup_verdict(struct ls_setup_factor *f, enum ls_verdict v, const char *fix);
int ls_setup_path(const struct ls_setup_ctx *c, char *buf, size_t len,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int ls_setup_read(const struct ls_setup_ctx *c, char *buf, size_t len,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *ls_setup_config(const struct ls_setup_ctx *c, const char *opt);
bool ls_setup_cmdline(const struct ls_setup_ctx *c, const char *key, char *val,
		      size_t len);
void ls_setup_cpus_text(const cpu_set_t *set, char *buf, size_t len);
void ls_setup_appendf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A factor's check: fills @f's value, verdict, fix and apply. kernel.c
 * has the kernel's, cpu.c the measured CPUs'.
 */
typedef void ls_setup_check_fn(const struct ls_setup_ctx *c, struct ls_setup_factor *f);

ls_setup_check_fn ls_setup_debug, ls_setup_tracing, ls_setup_preemption,
	ls_setup_console, ls_setup_clock, ls_setup_gpu, ls_setup_watchdog,
	ls_setup_thp, ls_setup_timer_migration, ls_setup_rt_runtime;
ls_setup_check_fn ls_setup_governor, ls_setup_isolation, ls_setup_nohz_full,
	ls_setup_rcu_nocbs, ls_setup_smt, ls_setup_irqs, ls_setup_rt_threads,
	ls_setup_throttling;

/* cpu.c: the IRQs that may land on the measured CPUs, for the check and --apply-setup. */
enum ls_irq_where {
	LS_IRQ_LANDS,		/* allowed on a measured CPU, and lands there */
	LS_IRQ_MAY_LAND,	/* allowed there, lands elsewhere for now */
	LS_IRQ_MOVING,		/* allowed elsewhere, lands there until its next interrupt */
};

typedef void ls_setup_irq_fn(void *priv, int irq, const char *actions,
			     enum ls_irq_where where);
int ls_setup_irqs_on(const struct ls_setup_ctx *c, ls_setup_irq_fn *fn, void *priv);

/*
 * apply.c, journal.c: --apply-setup, for the length of a run,
 * each change in an undo journal on disk first (docs/design/setup.md).
 */
struct ls_setup_undo {
	bool open;			/* ls_setup_journal_open() succeeded */
	int rootfd, dirfd;		/* the root, its run/latscope */
	int lockfd;			/* setup.lock, flock'd */
	int fd;				/* setup.journal */
	int failed_back;		/* values not set back */
	char failed[320];		/* the file a change failed on */
};

int ls_setup_apply(struct ls_setup_undo *u, struct ls_setup *s, const char *root,
		   const cpu_set_t *cpus, char *err, size_t errlen);
int ls_setup_journal_open(struct ls_setup_undo *u, const char *root, char *err,
			  size_t errlen);
int ls_setup_change(struct ls_setup_undo *u, const char *rel, const char *value, char *old,
		    size_t len);
void ls_setup_restore(struct ls_setup_undo *u);
void ls_setup_journal_close(struct ls_setup_undo *u);
int ls_setup_restore_left(const char *root, bool asked, char *err, size_t errlen);

#endif /* LATSCOPE_SETUP_H */
