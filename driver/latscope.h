/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope internals: the session an open file of /dev/latscope owns, the
 * statistics it keeps, the seam its event source (struct latscope_source)
 * plugs into, and the timeline periodic sources share.
 */
#ifndef LATSCOPE_H
#define LATSCOPE_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/rcuwait.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/linux/latscope.h>

#define LATSCOPE_VERSION	"0.1.0"

/* A minute of 1 Hz records: the logger has that long to catch up. */
#define LATSCOPE_BULK_SLOTS	64

/*
 * Statistics and histogram of one latency. One writer at a time; @seq lets
 * a snapshot taken while it writes see all of one sample or none of it.
 */
struct latscope_acc {
	seqcount_t seq;
	u64 samples;
	s64 min;
	s64 max;
	s64 sum;
	u64 sum_sq_lo;
	u64 sum_sq_hi;
	u64 peak;		/* ideal time of @max */
	u64 underflow;
	u64 overflow;
	u64 *cells;
	u32 nr_cells;
	u32 cell_ns;
	u64 span;		/* nr_cells * cell_ns */
	u64 *tail;		/* LATSCOPE_TAIL_BUCKETS, samples >= @span */
};

void latscope_acc_init(struct latscope_acc *acc, u64 *cells, u32 nr_cells,
		       u32 cell_ns, u64 *tail);
void latscope_acc_add(struct latscope_acc *acc, s64 lat, u64 ideal);
void latscope_acc_export(const struct latscope_acc *acc,
			 struct latscope_stats *out);
int latscope_acc_snapshot(struct latscope_acc *acc, struct latscope_stats *out,
			  u64 *cells, u64 *tail);

/* The second being summed up for the next bulk record. */
struct latscope_second {
	u64 index;
	u64 deadline;		/* ideal time that closes this second */
	u64 samples;
	s64 min;
	s64 max;
	s64 sum;
	u64 overruns_seen;	/* session overruns when the last record left */
};

/*
 * Ring of bulk records (each slot room for the largest kind: a noise
 * session's, struct latscope_bulk its first member) with one producer
 * and any number of consumers. The
 * producer is whoever records samples and never waits: a full ring counts
 * a drop. Consumers (read()) copy records out with latscope_ring_peek()
 * and take them with latscope_ring_consume() once they reached user
 * space, so @lock, which SETUP and START also take to reset the ring, is
 * never held across a user copy: a consumer that lost a race to another
 * one, or to a reset, takes nothing and peeks again.
 */
struct latscope_ring {
	struct latscope_noise_bulk slot[LATSCOPE_BULK_SLOTS];
	u32 head;		/* next slot to fill, producer-owned */
	u32 tail;		/* next slot to read, under @lock */
	u32 gen;		/* resets so far, under @lock */
	size_t size;		/* bytes read() hands out of a record, under @lock */
	u64 dropped;		/* producer-owned */
	struct mutex lock;	/* consumers and reset */
};

/*
 * Where a peek started: what latscope_ring_consume() checks; and the
 * size of the records it copied, as read() hands them out.
 */
struct latscope_ring_pos {
	u32 gen;
	u32 tail;
	size_t size;
};

void latscope_ring_init(struct latscope_ring *ring);
void latscope_ring_reset(struct latscope_ring *ring, size_t size);
bool latscope_ring_push(struct latscope_ring *ring,
			const struct latscope_noise_bulk *rec);
u32 latscope_ring_peek(struct latscope_ring *ring,
		       struct latscope_noise_bulk *recs, u32 max,
		       struct latscope_ring_pos *pos);
bool latscope_ring_consume(struct latscope_ring *ring,
			   const struct latscope_ring_pos *pos, u32 n);
bool latscope_ring_empty(struct latscope_ring *ring);

struct device;
struct latscope_flight;
struct latscope_session;
struct latscope_worst_set;

/**
 * struct latscope_source - what makes a session's events: the only seam
 * between a session and a source. latscope_source_of() finds one by its
 * uapi id (enum latscope_source_id); the session calls its hooks and
 * knows nothing else of it.
 * @name: what the source is called ("timer", "gpio", "noise").
 * @self_timed: the source times its own events (noise: the gaps a busy
 *	task of its own sees) and answers none: no responder is started,
 *	PULSE is refused, and a priority of 0 is left for the source to
 *	read (no default).
 * @record_size: bytes of each bulk record read() returns: 0 for struct
 *	latscope_bulk, else the whole struct latscope_noise_bulk.
 * @uses_flight: the source reads the measured CPU's flight record
 *	(why.h): SETUP hooks the tracepoints for it, unlocked, as for a
 *	recorder (@s->flight, @s->flight_seen), and a run arms it.
 * @priv_size: bytes of state the session allocates, zeroed, at SETUP
 *	for the source (@s->priv), and frees at the next SETUP or the close;
 *	0 for none.
 * @check: validates the source's part of @setup (its period, its own
 *	block); the session checks the rest. Nothing is allocated yet.
 *	Returns 0, or a negative error: SETUP then fails with -EINVAL.
 * @get: optional: takes what the setup in @s->setup names (lines, an
 *	interrupt) into @s->priv. Called with @s->lock held, after the
 *	previous setup's @put; may sleep. Returns 0, or an error SETUP
 *	returns (-ENODEV, -EBUSY, ...); on failure it holds nothing.
 * @put: optional: gives back what @get took; the figures in @s->priv
 *	stay for the result. Called once for each @get that succeeded: when
 *	the run's responder ended, else at the next SETUP or the close;
 *	@s->lock held, may sleep.
 * @start: arms the source on @s->setup.cpu, its figures already cleared,
 *	with cpus_read_lock() and @s->lock held; may sleep. Returns 0, or
 *	an error START returns; on failure @stop is called to undo what was
 *	done.
 * @stop: disarms; no event reaches the session once it returns. Called
 *	with @s->lock held, after @start, failed or not; may sleep.
 * @respond: optional: the responder answered the event of @ideal, past
 *	the warm-up or not (an ack line, say). Called from the responder,
 *	the kernel kthread or PULSE; may sleep.
 * @export: optional: fills the source's part of @res, with @s->lock
 *	held, while the source runs too (a snapshot).
 * @second: optional: fills the source's part of @rec, the record of the
 *	second being closed, and starts the next; from the measuring
 *	context. Returns true if the second had anything of the source's
 *	(then it has a record even without samples).
 * @report: optional: LATSCOPE_IOC_NOISE, the user context's busy task
 *	handing in @rep and its gaps, copied in; with @s->lock held, the
 *	session running. Returns 0, or the error the ioctl returns.
 * @init: optional, at module load: what the source needs module-wide.
 *	Returns 0, or an error that fails the load.
 * @exit: optional, at module unload (or a failed load, if @init
 *	succeeded): undoes @init.
 */
struct latscope_source {
	const char *name;
	bool self_timed;
	bool uses_flight;
	size_t record_size;
	size_t priv_size;
	int (*check)(const struct latscope_setup *setup);
	int (*get)(struct latscope_session *s);
	void (*put)(struct latscope_session *s);
	int (*start)(struct latscope_session *s);
	void (*stop)(struct latscope_session *s);
	void (*respond)(struct latscope_session *s, u64 ideal);
	void (*export)(struct latscope_session *s, struct latscope_result *res);
	bool (*second)(struct latscope_session *s, struct latscope_noise_bulk *rec);
	int (*report)(struct latscope_session *s,
		      const struct latscope_noise_report *rep,
		      const struct latscope_noise_gap *gaps);
	int (*init)(void);
	void (*exit)(void);
};

/* Slots of the source table: the uapi ids, and room for a test's own. */
#define LATSCOPE_SOURCE_SLOTS	8

/* sources.c */
const struct latscope_source *latscope_source_of(u32 id);
int latscope_sources_init(void);
void latscope_sources_exit(void);
#if IS_ENABLED(CONFIG_LATSCOPE_KUNIT_TEST)
const struct latscope_source *
latscope_source_swap(u32 id, const struct latscope_source *src);
#endif

extern const struct latscope_source latscope_timer_source;
extern const struct latscope_source latscope_gpio_source;
extern const struct latscope_source latscope_noise_source;

/*
 * What a periodic source does on the session's timeline, from hard irq:
 * @tick at each ideal time (@arrival: when the handler ran), and, if
 * given, @half half a period later (@when: its own due time).
 */
typedef void (*latscope_tick_fn)(struct latscope_session *s, u64 ideal,
				 u64 arrival);
typedef void (*latscope_half_fn)(struct latscope_session *s, u64 when);

/**
 * struct latscope_timeline - the ideal times t0 + n * period of a
 * periodic source, on a pinned hard-irq hrtimer of the session's CPU.
 * @timer: fires at each ideal time, and half-way if @half is set.
 * @tick: the source's step at each ideal time.
 * @half: the source's optional step half a period later.
 * @next: the next ideal time.
 * @half_due: the timer's next expiry is a half step.
 * @armed: @timer was started and is not cancelled yet.
 */
struct latscope_timeline {
	struct hrtimer timer;
	latscope_tick_fn tick;
	latscope_half_fn half;
	u64 next;
	bool half_due;
	bool armed;
};

/* timeline.c */
void latscope_timeline_init(struct latscope_session *s, u64 now);
void latscope_timeline_use(struct latscope_session *s, latscope_tick_fn tick,
			   latscope_half_fn half);
int latscope_timeline_arm(struct latscope_session *s);
u64 latscope_timeline_step(struct latscope_session *s, u64 due, u64 now);
void latscope_timeline_close(struct latscope_session *s, u64 next, u64 now);
void latscope_timeline_stop(struct latscope_session *s);
u64 latscope_timeline_fn(void);

enum latscope_state {
	LATSCOPE_IDLE,		/* opened, not set up */
	LATSCOPE_READY,		/* set up, not started */
	LATSCOPE_RUNNING,
	LATSCOPE_STOPPED,	/* results readable, SETUP allowed again */
};

struct latscope_session {
	struct mutex lock;		/* state changes, setup, results */
	/*
	 * Outside @lock: SETUP, which replaces @worst (and @setup), and a
	 * result, which waits for @worst's builder without @lock.
	 */
	struct mutex worst_lock;
	enum latscope_state state;	/* written under @lock */
	struct latscope_setup setup;	/* validated, defaults filled in */
	const struct latscope_source *source;	/* of @setup, NULL before */
	void *priv;			/* the source's, @source->priv_size */
	bool held;			/* by the source's get(), not put() yet */
	struct device *dev;		/* resources are requested for */
	struct list_head node;		/* in the list the hotplug hook walks */
	u32 result_flags;

	/* Timeline: ideal(n) = t0 + n * period. */
	u64 t0;
	u64 warmup_end;			/* first ideal time that counts */
	struct latscope_timeline timeline;	/* periodic sources */

	/* Measurement, written from the measuring contexts only. */
	/* lat.cells, irq.cells (not in irq context), lat.tail, irq.tail */
	u64 *cells;
	struct latscope_acc lat;	/* what the context measures */
	struct latscope_acc irq;	/* irq part, kernel/user context */
	u64 events;			/* past the warm-up, source side */
	atomic64_t overruns;		/* past the warm-up, any side */
	struct latscope_second sec;
	struct latscope_ring ring;
	atomic_t trace_fired;
	s64 trace_sample;
	struct latscope_worst_set *worst;	/* why_session.c, or NULL */
	u32 why_seen;			/* LATSCOPE_WHY_SEEN_* of @worst */
	struct latscope_flight *flight;	/* the CPU's, for @source, or NULL */
	u32 flight_seen;		/* LATSCOPE_WHY_SEEN_* of @flight */

	/* Hand-off from the event to the responder. */
	atomic64_t pending;		/* ideal of the untaken event, or 0 */
	struct task_struct *kthread;	/* kernel context */
	struct rcuwait resp_wait;	/* user context: the task in PULSE */
	atomic_t resp_busy;		/* one PULSE caller at a time */
	u32 run;			/* STARTs so far, written under @lock */
	u64 outstanding;		/* ideal the last PULSE returned, PULSE-owned */
	s32 resp_pid;			/* the task in PULSE, for the recorder */
	u32 resp_cpu;			/* where its last wait ended */

	/* Logger side. */
	wait_queue_head_t bulk_wq;
	struct irq_work bulk_work;
};

/* A period a periodic source can keep. */
static inline bool latscope_period_valid(u64 period_ns)
{
	return period_ns >= LATSCOPE_MIN_PERIOD_NS &&
	       period_ns <= LATSCOPE_MAX_PERIOD_NS;
}

/*
 * Histograms of a session: the context's latency, and the irq part of
 * the kernel and user contexts; a noise session's gaps have none (the
 * ABI's DOC: noise).
 */
static inline u32 latscope_hist_count(const struct latscope_setup *setup)
{
	return setup->context == LATSCOPE_CTX_IRQ ||
	       setup->source == LATSCOPE_SRC_NOISE ? 1 : 2;
}

/*
 * Where the counters lie in a block of histograms, then tails: the
 * session's own, with both tails always (the irq one stays empty in the
 * irq context), and a result's copy, with as many tails as histograms.
 */
struct latscope_counters {
	u64 *lat_cells;
	u64 *irq_cells;		/* NULL in the irq context */
	u64 *lat_tail;
	u64 *irq_tail;		/* NULL if @tails is 1 */
};

static inline size_t latscope_counters_size(const struct latscope_setup *setup,
					    u32 tails)
{
	return (size_t)latscope_hist_count(setup) * setup->hist_cells +
	       (size_t)tails * LATSCOPE_TAIL_BUCKETS;
}

static inline struct latscope_counters
latscope_counters_at(u64 *base, const struct latscope_setup *setup, u32 tails)
{
	u32 count = latscope_hist_count(setup);
	struct latscope_counters c = { };

	if (!base)
		return c;
	c.lat_cells = base;
	c.lat_tail = base + (size_t)count * setup->hist_cells;
	if (count > 1)
		c.irq_cells = base + setup->hist_cells;
	if (tails > 1)
		c.irq_tail = c.lat_tail + LATSCOPE_TAIL_BUCKETS;
	return c;
}

/* Counters of a result: the histograms, then as many tails. */
static inline size_t latscope_result_counters(const struct latscope_setup *setup)
{
	return latscope_counters_size(setup, latscope_hist_count(setup));
}

/*
 * What a SETUP's caller holds (capable() in the driver, made up in a
 * test); capable() audits, so each is asked only when needed.
 * @admin: CAP_SYS_ADMIN
 * @perfmon: CAP_PERFMON, or CAP_SYS_ADMIN (perfmon_capable())
 */
struct latscope_caps {
	bool (*admin)(void);
	bool (*perfmon)(void);
};

/* session.c */
int latscope_setup_check(struct latscope_setup *setup);
int latscope_setup_permitted(const struct latscope_setup *setup, bool trusted,
			     const struct latscope_caps *caps);
bool latscope_setup_sees(const struct latscope_setup *setup, bool trusted,
			 const struct latscope_caps *caps);
struct latscope_session *latscope_session_create(struct device *dev);
void latscope_session_destroy(struct latscope_session *s);
int latscope_session_setup(struct latscope_session *s,
			   const struct latscope_setup *setup, bool sees);
int latscope_session_start(struct latscope_session *s);
int latscope_session_stop(struct latscope_session *s);
int latscope_session_result(struct latscope_session *s,
			    struct latscope_result *res, u64 **cells);
int latscope_session_snapshot(struct latscope_session *s,
			      struct latscope_result *res, u64 **cells);
int latscope_sessions_init(void);
void latscope_sessions_exit(void);
bool latscope_sessions_released(void);
int latscope_sessions_release(long timeout);
void latscope_sessions_admit(void);

/*
 * Periods that passed, beyond the event's own, between its @ideal time and
 * its @arrival: the events the source missed while this one was late.
 */
static inline u64 latscope_missed(u64 ideal, u64 arrival, u64 period)
{
	if (arrival < ideal + period)
		return 0;
	return div64_u64(arrival - ideal, period);
}

/* measure.c */
void latscope_measure_reset(struct latscope_session *s);
void latscope_handoff(struct latscope_session *s, u64 ideal, s64 irq_lat,
		      bool has_irq);
void latscope_record(struct latscope_session *s, s64 lat, u64 ideal);
void latscope_measure_advance(struct latscope_session *s, u64 now);
void latscope_measure_flush(struct latscope_session *s);
size_t latscope_record_size(const struct latscope_session *s);

/* why_session.c */
struct latscope_worst_set *latscope_recorder_alloc(const struct latscope_setup *setup,
						   u64 self_fn, u32 *seen);
void latscope_recorder_free(struct latscope_worst_set *set);
void latscope_recorder_arm(struct latscope_session *s);
void latscope_recorder_disarm(struct latscope_session *s);
void latscope_recorder_event(struct latscope_session *s, u64 ideal, u64 arrival);
void latscope_recorder_sample(struct latscope_session *s, s64 lat, u64 ideal,
			      bool crossing);
struct latscope_worst;
int latscope_recorder_export(struct latscope_session *s, struct latscope_worst *tmp);

/* responder.c */
int latscope_kthread_start(struct latscope_session *s, struct task_struct **slot,
			   int (*fn)(void *), u32 prio, const char *name);
void latscope_kthread_stop(struct task_struct **slot);
int latscope_responder_start(struct latscope_session *s);
void latscope_responder_stop(struct latscope_session *s);
int latscope_session_pulse(struct latscope_session *s,
			   struct latscope_pulse *pulse);
int latscope_session_report(struct latscope_session *s,
			    const struct latscope_noise_report *rep,
			    const struct latscope_noise_gap *gaps);

/* timer.c */
void latscope_timer_tick(struct latscope_session *s, u64 ideal, u64 arrival);

#endif /* LATSCOPE_H */
