/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, core: the types every layer shares and what can be worked
 * out of them without a thread, a socket or a printed line. What every
 * run is asked ends up in one struct ls_params that the rest only reads
 * (a mode's own options stay in its folder: struct ls_options, cli.h);
 * a run ends up in one struct ls_report that the printers and writers
 * only read. The layers above: docs/design/layers.md.
 */
#ifndef LATSCOPE_CORE_H
#define LATSCOPE_CORE_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/latscope.h>

#define LS_VERSION		"0.1.0"

/*
 * --why: the worst samples explained per CPU when asked, and by default:
 * none, as its measured price (docs/measurements/why-cost.md) was above
 * the 5 % of the average the project allows a default.
 */
#define LS_WHY_RECORDS		8
#define LS_WHY_DEFAULT		0
/* latmus's defaults: -p and -l as ls_params_init() sets them. */
#define LS_DEFAULT_PERIOD_US	1000
#define LS_DEFAULT_LINES	21
/* --noise's, as osnoise's: a 1 s period, read for all of it. */
#define LS_NOISE_PERIOD_US	1000000

/*
 * The extreme-value estimate (run/evt.c, latscope-evt) of runs of at
 * least this many seconds: the fewest per-second maxima it fits.
 */
#define LS_EVT_MIN_SECONDS	600

/*
 * The latmon protocol's most histogram cells (latmon/wire.h): a run with
 * a latmon host (-z) refuses more (gpio.c).
 */
#define LS_LATMON_MAX_CELLS	1000U

/* The number of elements of array @a (as the kernel's). */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/* Exit codes, documented in --help and latscope(1). */
enum ls_exit {
	LS_EXIT_OK		= 0,
	LS_EXIT_RUNTIME		= 1,	/* the device failed, or a file was not written */
	LS_EXIT_USAGE		= 2,	/* bad option or option value */
	LS_EXIT_SETUP		= 3,	/* device, permission, CPU, file */
	LS_EXIT_MONITOR		= 4,	/* the latmon monitor cannot be reached */
	LS_EXIT_MONITOR_LOST	= 5,	/* it stopped answering, or sent a bad frame */
	LS_EXIT_SETUP_COSTS	= 6,	/* --check-setup: a factor costs latency */
	LS_EXIT_ABORT		= 102,	/* -A threshold crossed (as latmus) */
	LS_EXIT_WEIRD		= 103,	/* inconsistent results (as latmus) */
	LS_EXIT_BREAKTRACE	= 104,	/* -b threshold crossed, trace stopped */
};

/*
 * The application's responder (--gpiod): a SCHED_FIFO thread on the GPIO
 * character device, through libgpiod, no driver. A context of the CLI
 * only, past the driver's LATSCOPE_CTX_*; never sent to the driver.
 */
#define LS_CTX_GPIOD		3
#define LS_NR_CTX		4

/* Its lines' consumer labels, which also name the pulse-in interrupt. */
#define LS_GPIOD_PULSE_LABEL	"latscope-pulse"
#define LS_GPIOD_ACK_LABEL	"latscope-ack"

/* A GPIO line as given on the command line: -I gpiochip0,24 */
struct ls_gpio_spec {
	bool given;
	char dev[80];			/* /dev/gpiochip0 */
	char spec[96];			/* gpiochip0,24: how messages name it */
	unsigned int offset;
};

/* How the responder answers on ack-out (--ack). */
enum ls_ack {
	LS_ACK_AUTO,			/* pulse with a latmon host, else toggle */
	LS_ACK_TOGGLE,
	LS_ACK_PULSE,
};

/*
 * What a run is asked: the event source, who answers, how often, where,
 * for how long, and its outputs. Every layer reads it; the parser alone
 * (cli/) writes it. The cost suite's, the exporter's, the monitor's door
 * and the setup verdict's options are their folders' own.
 */
struct ls_params {
	unsigned int context;		/* LATSCOPE_CTX_*, LS_CTX_GPIOD */
	unsigned int source;		/* LATSCOPE_SRC_*: what marks the events */
	bool gpio_dt;			/* --gpio-dt: the device tree's lines */
	struct ls_gpio_spec pulse_in;	/* -I */
	struct ls_gpio_spec ack_out;	/* -O */
	struct ls_gpio_spec pulse_out;	/* --pulse-out: loopback */
	unsigned int gpio_edge;		/* LATSCOPE_EDGE_*, 0: the DT node's */
	bool oob_note;			/* -Z: asked for out-of-band, got in-band */
	char latmon_host[256];		/* -z/-Z HOST, "broadcast"; "": none ('-') */
	unsigned int latmon_port;	/* --latmon-port */
	unsigned int ack;		/* --ack: LS_ACK_*, LS_ACK_AUTO: by mode */
	bool monitor;			/* --monitor: a latmon monitor for another board */
	bool calibrate;			/* --calibrate: its fixture, no network */
	unsigned int subtract_us;	/* --subtract: the fixture's, from what clients get */
	/* --ack-in: the other board's answer, or with --gpiod this board's ack-out's */
	struct ls_gpio_spec ack_in;
	unsigned int ack_in_edge;	/* LATSCOPE_EDGE_*, 0: falling (latmus) */
	unsigned int pulse_edge;	/* --pulse-edge: RISING or FALLING pulses */
	int irq_thread_prio;		/* --irq-prio, 0: leave it */
	bool noise;			/* --noise: the noise source's busy task */
	unsigned int noise_runtime_us;	/* --noise-runtime, 0: the whole period */
	unsigned int noise_threshold_us;	/* --noise-threshold, 0: the driver's 5 us */
	bool irqs_off;			/* --irqs-off: the kernel thread's, interrupts off */
	const char *stress;		/* --stress preset, NULL: none */
	const char *stress_cmd;		/* --stress-cmd */
	unsigned long long checkpoint_s;	/* --checkpoint, 0: none */
	unsigned int threads;		/* --threads: responders, 0: one per CPU */
	unsigned int period_us;
	int priority;
	cpu_set_t cpus;			/* measured CPUs; empty: default */
	bool cpus_all;
	unsigned long long timeout_s;	/* 0: until a signal */
	unsigned int hist_cells;
	unsigned int abort_us;		/* -A, 0: off */
	unsigned int breaktrace_us;	/* -b, 0: off */
	unsigned int why;		/* --why: worst samples explained per CPU, 0: off */
	int verbosity;			/* 0 quiet, 1 default, 2 verbose */
	int lines;			/* RTH every N RTD lines, 0: once */
	const char *plot_path;		/* NULL: none, "-": stdout */
	const char *json_path;
	bool force;
	char cmdline[1024];
};

/* util.c */
void ls_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
__u64 ls_now_ns(void);
int ls_ms_until(__u64 deadline_ns);
int ls_parse_uint(const char *s, unsigned long long min,
		  unsigned long long max, unsigned long long *out);
int ls_read_line(const char *path, char *buf, size_t len);
bool ls_in_path(const char *name);
void ls_companion(const char *env, const char *name, char *buf, size_t len);
bool ls_word_in_list(const char *list, const char *word);

/* cpulist.c */
int ls_parse_cpu_list(const char *s, cpu_set_t *set);
void ls_format_cpu_list(const cpu_set_t *set, char *buf, size_t len);
int ls_first_cpu(const cpu_set_t *set, int none);

/* Nanoseconds as the microseconds every output prints. */
static inline double ls_us(double ns)
{
	return ns / 1000.0;
}

/* One measured CPU's result, as GET_RESULT returned it. */
struct ls_cpu_result {
	int cpu;
	bool isolated;
	struct latscope_result res;
	__u64 *cells;			/* hist_count * hist_cells */
	__u64 *tail;			/* hist_count * LATSCOPE_TAIL_BUCKETS */
	bool has_tail;			/* the driver filled @tail */
	struct latscope_why *why;	/* res.why_count records, worst first */
	bool has_why;			/* the driver has a recorder */
	char path_note[256];		/* the GPIO responder's IRQ thread, or "" */
};

/* A histogram as the CLI reads it: the linear cells, then the tail. */
struct ls_hist {
	const __u64 *cells;
	unsigned int nr_cells;
	unsigned int cell_ns;
	const __u64 *tail;		/* LATSCOPE_TAIL_BUCKETS, or NULL */
};

#define LS_NR_PCT	5

/* Where a percentile was found, which says how well it is known. */
enum ls_pct_kind {
	LS_PCT_CELL,			/* a linear cell: [lo, hi) */
	LS_PCT_TAIL,			/* a tail bucket: [lo, hi], hi <= max */
	LS_PCT_MAX,			/* past the cells, no tail: only max */
};

struct ls_pct {
	double lo, hi;			/* ns: the percentile is in between */
	enum ls_pct_kind kind;
};

/* Figures derived from a latscope_stats and its histogram, in ns. */
struct ls_summary {
	__u64 samples;
	double min, avg, max, stddev;
	bool has_stddev;		/* false: figures without a sum of squares */
	struct ls_pct pct[LS_NR_PCT];	/* at ls_percentiles[] */
};

extern const double ls_percentiles[LS_NR_PCT];

/* stats.c */
void ls_summarize(const struct latscope_stats *st, const struct ls_hist *h,
		  struct ls_summary *out);
int ls_fmt_pct(char *buf, size_t len, const struct ls_pct *pct);
bool ls_merge_extremes(__s64 *min, __s64 *max, bool empty, __s64 lo, __s64 hi);
void ls_merge_stats(struct latscope_stats *into,
		    const struct latscope_stats *from);
void ls_merge_cells(__u64 *into, const __u64 *from, unsigned int n);

/* A latency as the driver keeps one: statistics, 1 us cells, a log tail. */
struct ls_acc {
	struct latscope_stats st;
	__u64 *cells;			/* @nr_cells of @cell_ns */
	__u64 *tail;			/* LATSCOPE_TAIL_BUCKETS */
	unsigned int nr_cells, cell_ns;
};

void ls_acc_add(struct ls_acc *a, __s64 lat, __u64 at);

/* What the system looked like, for the plot header and the JSON. */
struct ls_sysinfo {
	char sysname[65], nodename[65], release[65], version[65], machine[65];
	char proc_version[512];
	char proc_cmdline[1024];
	char clocksource[64];
	char governor[64];		/* of the first measured CPU */
	bool realtime;			/* PREEMPT_RT kernel */
	char preemption[32];		/* "PREEMPT_RT", "PREEMPT", ... */
	cpu_set_t isolated;
};

/* sysinfo.c */
void ls_sysinfo_read(struct ls_sysinfo *si, int first_cpu);
int ls_default_cpu(const cpu_set_t *isolated);

/* stress.c: the load a run is measured under. */
#define LS_STRESS_MAX	8

struct ls_preset {
	const char *name;
	const char *cmds[LS_STRESS_MAX];	/* NULL-ended; %N: load CPUs */
	const char *tools[LS_STRESS_MAX];	/* NULL-ended */
};

struct ls_stress {
	char name[32];			/* preset, or "custom" */
	int ncmds;
	char cmd[LS_STRESS_MAX][640];
	int ntools;
	char tool[LS_STRESS_MAX][32];
	char version[LS_STRESS_MAX][128];
	char cpus[256];			/* where the load runs */
	pid_t pid[LS_STRESS_MAX];	/* 0 once reaped */
	int status[LS_STRESS_MAX];	/* wait status, once reaped */
	int running;
	int alive_at_stop;
};

/* timeline.c: per-second records, merged into at most a fixed count. */
#define LS_TIMELINE_POINTS	4096

/* What a point or a run has of heat and clock: LS_HEAT_* bits. */
#define LS_HEAT_TEMP		0x1
#define LS_HEAT_FREQ		0x2
#define LS_HEAT_THROTTLE	0x4

struct ls_point {
	__u64 second;			/* first second of the bucket */
	__u64 samples, overruns;
	__s64 min_ns, max_ns;		/* meaningless without samples */
	__s64 sum_ns;
	int temp_mc;			/* the bucket's hottest second, m°C */
	unsigned int freq_khz;		/* its slowest clock */
	unsigned char heat;		/* LS_HEAT_*: which of these it has */
	unsigned char throttled;	/* throttling seen in it, LS_THROTTLE_BITS */
	/* A noise run's (ls_timeline_noise()): its runtime, noise, gaps by kind. */
	__u64 runtime_ns, noise_ns;
	__u64 gaps[LATSCOPE_NOISE_KINDS];
};

/* Heat and clock over the whole run (heat.c's samples). */
struct ls_heat_total {
	unsigned long long seconds;	/* samples taken */
	unsigned char heat;		/* LS_HEAT_*: what any sample had */
	int temp_min_mc, temp_max_mc;
	unsigned int freq_min_khz, freq_max_khz;
	unsigned int throttled;		/* seen during the run, LS_THROTTLE_BITS */
	unsigned long long throttled_s;	/* seconds that saw some */
	unsigned int before;		/* since-boot flags at the first sample */
	unsigned int since;		/* since-boot flags at the last */
};

struct ls_timeline {
	unsigned int bucket_s;		/* seconds per point, a power of 2 */
	unsigned int n;
	bool noise;			/* its points have a noise run's figures */
	struct ls_heat_total heat;
	struct ls_point pt[LS_TIMELINE_POINTS];
};

/* heat.c: temperature, clock and throttling, read once a second. */
#define LS_ZONE_AUTO		(-1)	/* --thermal-zone: the CPU's or SoC's */
#define LS_ZONE_NONE		(-2)	/* --thermal-zone none */
#define LS_THROTTLE_BITS	4	/* get_throttled: bits 0-3 now, */
#define LS_THROTTLE_SINCE	16	/* the same from bit 16: since boot */

struct ls_heat_src {
	int cpu;			/* whose clock */
	char temp[256];			/* the zone's temp file, "": none */
	char zone[24];			/* "thermal_zone0" */
	char zone_type[32];		/* "cpu-thermal" */
	char freq[256];			/* the CPU's scaling_cur_freq, "": none */
	char throttle[256];		/* the firmware's get_throttled, "": none */
	char spared[256];		/* what is left unread not to interrupt a measured CPU */
};

struct ls_heat_sample {
	bool has_temp, has_freq, has_throttle;
	int temp_mc;			/* millidegrees Celsius */
	unsigned int freq_khz;
	unsigned int throttle;		/* get_throttled as read */
};

int ls_heat_find(struct ls_heat_src *h, const char *sysfs, int cpu, int zone,
		 char *err, size_t errlen);
void ls_heat_spare(struct ls_heat_src *h, const char *sysfs, const cpu_set_t *measured,
		   const char *release, const char *machine);
void ls_heat_read(const struct ls_heat_src *h, struct ls_heat_sample *s);
void ls_throttle_names(unsigned int flags, char *buf, size_t len);
const char *ls_throttle_name(int bit);

void ls_heat_total_add(struct ls_heat_total *h, const struct ls_heat_sample *s,
		       unsigned char *heat, unsigned char *throttled);
void ls_timeline_init(struct ls_timeline *t);
void ls_timeline_add(struct ls_timeline *t, const struct latscope_bulk *b);
void ls_timeline_noise(struct ls_timeline *t, const struct latscope_noise_bulk *w);
void ls_timeline_heat(struct ls_timeline *t, __u64 second, const struct ls_heat_sample *s);

/* What a latmon monitor measured (-z HOST): the run's figures then. */
struct ls_latmon_figures {
	char peer[96];			/* "ADDRESS:PORT" connected to */
	unsigned int cells;		/* asked for: hist_cells + 1 */
	__u32 *hist;			/* @cells counts of 1 us, the last: past them */
	__u64 bulks;			/* data records with samples */
	struct latscope_stats stats;	/* of the bulks: no sum of squares */
	__u64 overruns;
	__u64 peak_bulk;		/* the bulk of the max, from 0 */
	__u64 hist_samples;		/* what @hist adds up to */
	bool ended;			/* the end record came */
	bool has_hist;			/* and then the whole histogram */
};

struct ls_setup;

/* The whole run, read by the printers and writers. */
struct ls_report {
	const struct ls_params *params;
	const struct ls_sysinfo *sys;
	time_t started;			/* wall clock at start */
	time_t ended;
	unsigned long long duration_ns;	/* measured, warm-up excluded */
	unsigned long long duration_s;	/* the same, rounded */
	unsigned long long peak_s;	/* second of the worst sample */
	bool c_state_restricted;
	int nr_cpus;
	struct ls_cpu_result *cpu;	/* nr_cpus entries */
	struct latscope_stats total;	/* all CPUs merged */
	struct latscope_stats total_irq;
	__u64 *total_cells;		/* merged latency histogram */
	__u64 *total_tail;		/* its tail, LATSCOPE_TAIL_BUCKETS */
	bool has_tail;			/* every CPU's driver gave a tail */
	__u64 total_overruns;
	__u64 total_dropped;
	struct ls_timeline *timeline;	/* all CPUs merged, second by second */
	const struct ls_heat_src *heat;	/* where heat and clock were read, or NULL */
	struct ls_stress stress;	/* the load, started or not */
	struct ls_latmon_figures *latmon;	/* -z HOST: the totals are its */
	struct ls_cpu_result *monitor;	/* the one-board monitor's: the totals are its */
	char gpiod_lib[32];		/* --gpiod's library: "libgpiod 2.3" */
	const struct ls_setup *setup;	/* the setup verdict at the start, or NULL */
	char *evt_json;			/* latscope-evt's estimate: a JSON object, or NULL */
	char evt_line[1024];		/* its EVT| line, "": none (evt.py's LINE_MAX) */
	int exit_code;
	bool checkpoint;		/* written while the run goes on */
};

/* How the responders sit on the CPUs: "1:1", "N:N" or "M:N". */
const char *ls_scenario(const struct ls_report *r);
int ls_report_cpus(const struct ls_report *r);

/* stats.c: views of a report's histograms. */
void ls_total_hist(const struct ls_report *r, struct ls_hist *h);
void ls_total_summary(const struct ls_report *r, struct ls_summary *out);
void ls_cpu_hist(const struct ls_cpu_result *c, bool irq, struct ls_hist *h);
bool ls_local_part(const struct ls_report *r, char *buf, size_t len);

/**
 * struct ls_source - what the CLI knows of one event source (source.c)
 * @id: its enum latscope_source_id, LATSCOPE_SRC_*
 * @name: the source as messages name it ("timer", "GPIO")
 * @contexts: the run's context as RTT, the plot and the JSON print it,
 *	by LATSCOPE_CTX_* and LS_CTX_GPIOD
 * @setup_size: the size of the driver's struct latscope_setup it needs,
 *	at least; 0: any driver
 * @paced: whether the events come at period_us; NULL: always
 * @check: what it asks of the other options, once all are parsed: 0, or
 *	-1 with a message in @err
 * @prepare: before the run, finds what the options name (a chip, a
 *	device tree node): 0, or -1 with a message
 * @setup: its part of a SETUP: 0, or -1 with a message
 * @setup_error: why the driver refused a SETUP with @error (an errno),
 *	in words, into @err
 * @record_size: bytes of each record its session's read() gives (struct
 *	latscope_noise_bulk); 0: struct latscope_bulk
 * @spin: the user context's thread, instead of PULSE: its busy loop on
 *	the session's @fd until *@stop, then 0, or an errno
 *
 * One row per source in source.c; its result block (summary lines, plot
 * header, JSON object) is its row in output/parts.c. A new source is a
 * row in each plus its own option and code; nothing else asks which
 * source a run has. Every hook may be NULL: the source has nothing to
 * do there.
 */
struct ls_source {
	unsigned int id;
	const char *name;
	const char *const *contexts;
	size_t setup_size;
	bool (*paced)(const struct ls_params *p);
	int (*check)(const struct ls_params *p, char *err, size_t errlen);
	int (*prepare)(struct ls_params *p, char *err, size_t errlen);
	int (*setup)(const struct ls_params *p, struct latscope_setup *setup, char *err,
		     size_t errlen);
	void (*setup_error)(const struct ls_params *p, int error, char *err, size_t errlen);
	size_t record_size;
	int (*spin)(int fd, const struct ls_params *p, atomic_bool *stop);
};

const struct ls_source *ls_source(unsigned int id);
const struct ls_source *ls_source_of(const struct ls_params *p);
const char *ls_context_name(unsigned int context);
const char *ls_run_context(const struct ls_params *p);
unsigned int ls_period_us(const struct ls_params *p);
unsigned int ls_lead_s(const struct ls_params *p);
int ls_responder_priority(const struct ls_params *p);

/* noise.c: the noise source, from its options to SETUP, and the user context's busy loop. */
int ls_noise_check(const struct ls_params *p, char *err, size_t errlen);
int ls_noise_setup(const struct ls_params *p, struct latscope_setup *setup, char *err,
		   size_t errlen);
void ls_noise_setup_error(const struct ls_params *p, int error, char *err, size_t errlen);

/**
 * struct ls_noise_spin - the user context's busy loop, its clock and its
 *	reports given (ls_noise_loop()): the real ones, or a test's
 * @now: CLOCK_MONOTONIC in ns
 * @report: hands a report in (LATSCOPE_IOC_NOISE): 0, or an errno
 * @sleep_until: sleeps until a CLOCK_MONOTONIC time
 * @stop: the loop ends once it is set
 * @priv: the hooks' own
 * @period_ns: the noise period
 * @runtime_ns: read for this long in each period
 * @threshold_ns: the shortest gap that is noise
 */
struct ls_noise_spin {
	__u64 (*now)(void *priv);
	int (*report)(void *priv, const struct latscope_noise_report *rep);
	void (*sleep_until)(void *priv, __u64 ns);
	atomic_bool *stop;
	void *priv;
	__u64 period_ns;
	__u64 runtime_ns;
	__u64 threshold_ns;
};

int ls_noise_loop(const struct ls_noise_spin *sp);
int ls_noise_spin_fd(int fd, const struct ls_params *p, atomic_bool *stop);

/* gpio.c: the GPIO source, from line specs to SETUP. */
const char *ls_edge_name(unsigned int edge);
int ls_gpio_parse_edge(const char *s, unsigned int *edge);
int ls_gpio_parse(const char *opt, const char *arg, struct ls_gpio_spec *spec,
		  unsigned int *edge, char *err, size_t errlen);
int ls_gpio_resolve(const char *role, const struct ls_gpio_spec *spec,
		    struct latscope_gpio_line *line, char *err, size_t errlen);
bool ls_gpio_paced(const struct ls_params *p);
bool ls_one_board(const struct ls_params *p);
bool ls_ack_pulse(const struct ls_params *p);
unsigned int ls_ack_in_edge(const struct ls_params *p);
int ls_gpio_check(const struct ls_params *p, char *err, size_t errlen);
int ls_gpio_prepare(struct ls_params *p, char *err, size_t errlen);
int ls_gpio_setup(const struct ls_params *p, struct latscope_setup *setup,
		  char *err, size_t errlen);
void ls_gpio_setup_error(const struct ls_params *p, int error, char *err,
			 size_t errlen);

#endif /* LATSCOPE_CORE_H */
