/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope internals: the session an open file of /dev/latscope owns, the
 * statistics it keeps and the seam an event source (timer, later GPIO)
 * plugs into.
 */
#ifndef LATSCOPE_H
#define LATSCOPE_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/swait.h>
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

/*
 * The tail bucket of latency @v (see LATSCOPE_TAIL_SUB_BITS): its highest
 * set bit picks the power of two, the next LATSCOPE_TAIL_SUB_BITS bits the
 * sub-bucket. Values past the last bucket (none of an s64) go to it.
 */
static inline u32 latscope_tail_index(u64 v)
{
	const u32 b = LATSCOPE_TAIL_SUB_BITS, sub = 1U << b;
	u32 k;

	if (v < 2 * sub)
		return v;
	k = fls64(v) - 1;
	return min_t(u32, (k - b + 1) * sub + ((v >> (k - b)) & (sub - 1)),
		     LATSCOPE_TAIL_BUCKETS - 1);
}

/*
 * The smallest latency of tail bucket @i; LATSCOPE_TAIL_BUCKETS gives the
 * end of the last one, 2^63.
 */
static inline u64 latscope_tail_lo(u32 i)
{
	const u32 b = LATSCOPE_TAIL_SUB_BITS, sub = 1U << b;

	i = min_t(u32, i, LATSCOPE_TAIL_BUCKETS);
	if (i < sub)
		return i;
	return (u64)(sub + i % sub) << (i / sub - 1);
}

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
 * Ring of bulk records with one producer and any number of consumers. The
 * producer is whoever records samples and never waits: a full ring counts
 * a drop. Consumers (read()) copy records out with latscope_ring_peek()
 * and take them with latscope_ring_consume() once they reached user
 * space, so @lock, which SETUP and START also take to reset the ring, is
 * never held across a user copy: a consumer that lost a race to another
 * one, or to a reset, takes nothing and peeks again.
 */
struct latscope_ring {
	struct latscope_bulk slot[LATSCOPE_BULK_SLOTS];
	u32 head;		/* next slot to fill, producer-owned */
	u32 tail;		/* next slot to read, under @lock */
	u32 gen;		/* resets so far, under @lock */
	u64 dropped;		/* producer-owned */
	struct mutex lock;	/* consumers and reset */
};

/* Where a peek started: what latscope_ring_consume() checks. */
struct latscope_ring_pos {
	u32 gen;
	u32 tail;
};

void latscope_ring_init(struct latscope_ring *ring);
void latscope_ring_reset(struct latscope_ring *ring);
bool latscope_ring_push(struct latscope_ring *ring,
			const struct latscope_bulk *rec);
u32 latscope_ring_peek(struct latscope_ring *ring, struct latscope_bulk *recs,
		       u32 max, struct latscope_ring_pos *pos);
bool latscope_ring_consume(struct latscope_ring *ring,
			   const struct latscope_ring_pos *pos, u32 n);
bool latscope_ring_empty(struct latscope_ring *ring);

struct gpio_desc;
struct latscope_session;

/*
 * An event source marks the ideal time of each event on the session's CPU
 * and hands it over from hard-irq context: latscope_event() for the timer,
 * latscope_handoff() for sources that stamp the irq part themselves.
 */
struct latscope_source {
	const char *name;
	/*
	 * Arm on s->setup.cpu; called with cpus_read_lock() and s->lock held.
	 * On failure stop() is called to undo what was done.
	 */
	int (*start)(struct latscope_session *s);
	/* Disarm; no call into latscope_event() once it returns. */
	void (*stop)(struct latscope_session *s);
	/* Optional: the responder answered the event of @ideal (sleepable). */
	void (*respond)(struct latscope_session *s, u64 ideal);
	/* Optional: after stop() and the responder's end. */
	void (*release)(struct latscope_session *s);
};

extern const struct latscope_source latscope_timer_source;
extern const struct latscope_source latscope_gpio_source;

/*
 * Lines, interrupt and loopback pulse train of a GPIO session. The lines
 * are held from SETUP to the stop; the figures until the next SETUP.
 */
struct latscope_dt_lines;

struct latscope_gpio {
	struct latscope_dt_lines *dt;	/* lines lent by the DT device */
	struct gpio_desc *in;		/* pulse-in, the event */
	struct gpio_desc *ack;		/* ack-out, the answer */
	struct gpio_desc *out;		/* pulse-out, loopback only */
	int irq;			/* of pulse-in */
	u32 mode;			/* enum latscope_gpio_mode */
	u32 edge;			/* enum latscope_gpio_edge */
	bool out_cansleep;		/* pulse-out via pulse_task */
	bool irq_requested;
	bool timer_armed;

	/* Loopback pulse train, timer-owned. */
	int pulse_level;		/* raw level of a pulse */
	int level;			/* raw level last asked of pulse-out */
	bool release_step;		/* the timer's next step releases */
	u64 next_send;			/* ideal time of the next send step */
	atomic64_t in_flight;		/* ideal of the pulse out, or 0 */
	u64 lost;			/* pulses given up, past the warm-up */
	struct task_struct *pulse_task;	/* sleeping chips only */
	atomic_t out_req;		/* level for pulse_task, or -1 */
	int driven;			/* pulse_task-owned */

	/* Arrival side, irq-handler owned. */
	u64 spurious;
	atomic_t paths;			/* LATSCOPE_GPIO_* */
	pid_t thread_pid;
	char thread_comm[TASK_COMM_LEN];

	/* The stamping thread raised for the run (irq_thread_priority). */
	u32 thread_prio;		/* asked, 0: leave it */
	struct task_struct *thread;	/* held from its first arrival */
	struct work_struct raise_work;
	u32 thread_policy;		/* what it had, to give back */
	u32 thread_rtprio;
	int thread_nice;

	/* Responder side. */
	int ack_level;
	u64 acks;
};

/* gpio.c */
int latscope_gpio_setup_check(const struct latscope_setup *setup);
struct latscope_gpio *latscope_gpio_get(const struct latscope_setup *setup);
void latscope_gpio_release(struct latscope_gpio *g);
int latscope_gpio_edge_parse(const char *name);
const char *latscope_gpio_edge_name(u32 edge);
int latscope_gpio_idle_level(u32 edge);
void latscope_gpio_reset(struct latscope_gpio *g);
int latscope_gpio_step(struct latscope_session *s, u64 ideal, bool send);
void latscope_gpio_arrival(struct latscope_session *s, u64 arrival);
void latscope_gpio_export(const struct latscope_gpio *g,
			  struct latscope_gpio_result *out);

/* platform.c */
int latscope_dt_borrow(struct latscope_gpio *g, bool loopback);
void latscope_dt_return(struct latscope_gpio *g);
int latscope_dt_init(void);
void latscope_dt_exit(void);

/* core.c */
struct device *latscope_device(void);

enum latscope_state {
	LATSCOPE_IDLE,		/* opened, not set up */
	LATSCOPE_READY,		/* set up, not started */
	LATSCOPE_RUNNING,
	LATSCOPE_STOPPED,	/* results readable, SETUP allowed again */
};

struct latscope_session {
	struct mutex lock;		/* state changes, setup, results */
	enum latscope_state state;	/* written under @lock */
	struct latscope_setup setup;	/* validated, defaults filled in */
	const struct latscope_source *source;
	struct latscope_gpio *gpio;	/* LATSCOPE_SRC_GPIO only */
	struct list_head node;		/* in the list the hotplug hook walks */
	u32 result_flags;

	/* Timeline: ideal(n) = t0 + n * period. */
	u64 t0;
	u64 warmup_end;			/* first ideal time that counts */
	struct hrtimer timer;

	/* Measurement, written from the measuring contexts only. */
	/* lat.cells, irq.cells (not in irq context), lat.tail, irq.tail */
	u64 *cells;
	struct latscope_acc lat;	/* what the context measures */
	struct latscope_acc irq;	/* timer irq part, kernel/user ctx */
	u64 events;			/* past the warm-up, irq side */
	atomic64_t overruns;		/* past the warm-up, any side */
	struct latscope_second sec;
	struct latscope_ring ring;
	atomic_t trace_fired;
	s64 trace_sample;

	/* Hand-off from the event to the responder. */
	atomic64_t pending;		/* ideal of the untaken event, or 0 */
	struct task_struct *kthread;	/* kernel context */
	struct swait_queue_head resp_wq;	/* user context */
	atomic_t resp_busy;		/* one PULSE caller at a time */
	u32 run;			/* STARTs so far, written under @lock */
	u64 outstanding;		/* ideal the last PULSE returned, PULSE-owned */

	/* Logger side. */
	wait_queue_head_t bulk_wq;
	struct irq_work bulk_work;
};

/* Histograms of a session: the context's latency, and the irq part. */
static inline u32 latscope_hist_count(const struct latscope_setup *setup)
{
	return setup->context == LATSCOPE_CTX_IRQ ? 1 : 2;
}

/* Counters of a result: the histograms, then as many tails. */
static inline size_t latscope_result_counters(const struct latscope_setup *setup)
{
	return (size_t)latscope_hist_count(setup) *
	       (setup->hist_cells + LATSCOPE_TAIL_BUCKETS);
}

/* session.c */
int latscope_setup_check(struct latscope_setup *setup);
struct latscope_session *latscope_session_create(void);
void latscope_session_destroy(struct latscope_session *s);
int latscope_session_setup(struct latscope_session *s,
			   const struct latscope_setup *setup);
int latscope_session_start(struct latscope_session *s);
int latscope_session_stop(struct latscope_session *s);
int latscope_session_result(struct latscope_session *s,
			    struct latscope_result *res, u64 **cells);
int latscope_session_snapshot(struct latscope_session *s,
			      struct latscope_result *res, u64 **cells);
int latscope_session_pulse(struct latscope_session *s,
			   struct latscope_pulse *pulse);
struct task_struct *latscope_fifo_kthread(struct latscope_session *s,
					  int (*fn)(void *), u32 prio,
					  const char *name);
int latscope_sessions_init(void);
void latscope_sessions_exit(void);

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
void latscope_timeline_init(struct latscope_session *s, u64 now);
void latscope_timeline_close(struct latscope_session *s, u64 next, u64 now);
void latscope_event(struct latscope_session *s, u64 ideal, u64 arrival,
		    u64 missed);
void latscope_handoff(struct latscope_session *s, u64 ideal, s64 irq_lat,
		      bool has_irq);
void latscope_record(struct latscope_session *s, s64 lat, u64 ideal);
void latscope_measure_flush(struct latscope_session *s);
int latscope_kthread_fn(void *data);

#endif /* LATSCOPE_H */
