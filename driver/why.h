/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope's worst-sample recorder, inside the driver: the per-CPU flight
 * record of what ran (why_ring.c, fed by the tracepoint probes of
 * why_probes.c), and a session's K worst samples explained from it
 * (why_walk.c, kept by why_worst.c). Private to the driver; the ABI is DOC: why in the uapi header.
 */
#ifndef LATSCOPE_WHY_H
#define LATSCOPE_WHY_H

#include <linux/atomic.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <uapi/linux/latscope.h>

#include <asm/local.h>

/* Entries of one CPU's flight record: a power of two. */
#define LATSCOPE_FLIGHT_SLOTS	1024

/* What a flight entry says happened. */
enum latscope_flight_kind {
	LATSCOPE_FL_IRQ_ENTRY = 1,	/* @id irq, @name action */
	LATSCOPE_FL_IRQ_EXIT,		/* @id irq */
	LATSCOPE_FL_SOFTIRQ_ENTRY,	/* @id vector */
	LATSCOPE_FL_SOFTIRQ_EXIT,	/* @id vector */
	LATSCOPE_FL_NMI,		/* @ptr handler, @arg its duration */
	LATSCOPE_FL_HRTIMER_ENTRY,	/* @ptr callback */
	LATSCOPE_FL_HRTIMER_EXIT,	/* @ptr callback */
	LATSCOPE_FL_SWITCH,		/* @task[0] prev, @task[1] next */
	LATSCOPE_FL_IDLE_ENTER,		/* @id cpuidle state */
	LATSCOPE_FL_IDLE_EXIT,
	LATSCOPE_FL_EVENT,		/* latscope's own: see below */
	LATSCOPE_FL_GAP,		/* entries dropped: see below */
};

/* struct latscope_flight_entry.flags of an EVENT */
#define LATSCOPE_FL_EV_HARDIRQ	BIT(0)	/* stamped in hard irq: @task[0], @ptr known */
#define LATSCOPE_FL_EV_USER	BIT(1)	/* interrupted user space */

struct latscope_flight_task {
	char comm[TASK_COMM_LEN];
	s32 pid;
	s16 policy;
	s16 prio;		/* rt_priority, or nice */
};

/**
 * struct latscope_flight_entry - one thing that happened on a CPU
 * @seq: its number in the CPU's record (the first is 1) once complete,
 *	0 while being written
 * @ts: when, ktime_get_mono_fast_ns()
 * @ptr: a callback, or the code an EVENT interrupted
 * @arg: an NMI's duration; an EVENT's ideal time
 * @arg2: an EVENT's irq stamp
 * @kind: enum latscope_flight_kind
 * @flags: LATSCOPE_FL_EV_* of an EVENT
 * @id: by @kind; an EVENT's session id
 * @task: a SWITCH's tasks; an EVENT's interrupted task in @task[0]
 * @name: an IRQ_ENTRY's action name
 *
 * An EVENT is written by latscope when it hands an event to the
 * responder (or, in the irq context, records it): @ts is the responder's
 * wake-up.
 *
 * A GAP stands where entries were dropped, as a window was held (see
 * struct latscope_flight): @ts is the first dropped one's time, @arg how
 * many, @arg2 the time the GAP was written. What ran across a GAP is not
 * known.
 */
struct latscope_flight_entry {
	u64 seq;
	u64 ts;
	u64 ptr;
	u64 arg;
	u64 arg2;
	u16 kind;
	u16 flags;
	s32 id;
	union {
		struct latscope_flight_task task[2];
		char name[32];
	};
};

/**
 * struct latscope_flight_holder - one recorder's claim on a flight record
 * @node: in the record's @holders
 * @from: the oldest window it has yet to copy begins then; 0: none
 */
struct latscope_flight_holder {
	struct list_head node;
	u64 from;
};

/**
 * struct latscope_flight - one CPU's flight record
 * @head: entries reserved so far
 * @armed: running sessions with a recorder
 * @since: armed then: older entries are stale
 * @hold: the oldest @from of @holders, 0: none
 * @gap: entries dropped since the last GAP entry
 * @gap_ts: the first of them was stamped then
 * @hold_lock: @holders and @hold's updates
 * @holders: the recorders of sessions on this CPU
 * @slot: the ring
 *
 * Written on its CPU only, from any context (an NMI may interrupt a
 * write: each writer reserves its own slot), read from anywhere with the
 * @seq check of latscope_flight_copy().
 *
 * A recorder holds the window of a sample it has yet to copy: until it
 * has, a writer that would overwrite the last entry before @hold drops
 * its entry instead, and the next writer that has room writes a GAP
 * first. So a builder that runs late still finds the window it was asked
 * for, and later windows that lost entries are known to have.
 */
struct latscope_flight {
	local_t head;
	atomic_t armed;
	u64 since;
	u64 hold;
	local_t gap;
	u64 gap_ts;
	raw_spinlock_t hold_lock;
	struct list_head holders;
	struct latscope_flight_entry slot[LATSCOPE_FLIGHT_SLOTS];
};

/* why_ring.c */
struct latscope_flight *latscope_flight_alloc(int node);
struct latscope_flight_entry *latscope_flight_reserve(struct latscope_flight *fl,
						      long *n, u64 ts);
void latscope_flight_commit(struct latscope_flight_entry *e, long n);
u32 latscope_flight_copy(struct latscope_flight *fl, u64 from, u64 to,
			 struct latscope_flight_entry *out, bool *cut);
void latscope_flight_holder_add(struct latscope_flight *fl,
				struct latscope_flight_holder *h);
void latscope_flight_holder_del(struct latscope_flight *fl,
				struct latscope_flight_holder *h);
void latscope_flight_hold(struct latscope_flight *fl,
			  struct latscope_flight_holder *h, u64 from);
void latscope_flight_task(struct latscope_flight_task *t,
			  struct task_struct *task);
u32 latscope_flight_kinds(struct latscope_flight *fl, u64 from, u64 to,
			  bool *cut);
void latscope_flight_arm(struct latscope_flight *fl);
void latscope_flight_disarm(struct latscope_flight *fl);

/* why_probes.c */
void latscope_flight_event(u32 session, u64 ideal, u64 arrival);
int latscope_flight_get(unsigned int cpu, u32 *seen);
void latscope_flight_put(void);
struct latscope_flight *latscope_flight_of(unsigned int cpu);
void latscope_flights_exit(void);

/**
 * struct latscope_why_window - a sample's window and what knows it
 * @ideal: the event's ideal time, where the window starts
 * @end: the answer, where it ends (@ideal + the sample)
 * @session: the id the session's EVENT entries carry
 * @responder: the responder's pid, 0 in the irq context
 * @self_fn: the timeline's hrtimer callback: the measurement's own, not
 *	counted
 * @cut: the flight record did not reach back to @ideal
 */
struct latscope_why_window {
	u64 ideal;
	u64 end;
	u32 session;
	s32 responder;
	u64 self_fn;
	bool cut;
};

/* Things a window's walk tells apart; the longest go into the record. */
#define LATSCOPE_WHY_TALLY	32

struct latscope_why_count {
	struct latscope_why_item item;
	u64 fn;				/* NMI and hrtimer callbacks */
};

/**
 * struct latscope_why_tally - what a walk through a window counts
 * @c: one per thing that ran
 * @nr: entries of @c
 * @lost_ns: time of things with no room in @c, or not known
 */
struct latscope_why_tally {
	struct latscope_why_count c[LATSCOPE_WHY_TALLY];
	u32 nr;
	u64 lost_ns;
};

/*
 * A kept record: the ABI's, and the pointers symbolised only when it is
 * handed out (why_worst.c).
 */
struct latscope_worst {
	struct latscope_why why;
	u64 where;			/* interrupted code, or 0 */
	u64 fn[LATSCOPE_WHY_ITEMS];	/* NMI and hrtimer items' callbacks */
	u32 gen;			/* which claim of its slot it is */
	s32 responder;			/* the claim's, for the builder */
	u32 job_flags;			/* LATSCOPE_WHY_* the sample brings */
	u64 remote_arrival;		/* its EVENT, handled on another CPU: */
	u64 remote_wake;		/* irq stamp and wake-up; 0: none */
	bool pending;			/* claimed, not built yet */
};

/**
 * struct latscope_builder - what builds the records of a CPU's sessions
 * @worker: its thread, SCHED_FIFO 1, off the CPU when there is another
 * @cpu: the CPU
 * @users: sessions set up with a recorder there, under why_builder.c's lock
 * @scratch: a copy of the flight record, LATSCOPE_FLIGHT_SLOTS entries,
 *	and room for one more (latscope_why_merge_event())
 * @tally: the walk's
 * @build: the record built before it goes in its slot
 *
 * Only its worker uses @scratch, @tally and @build, one work at a time.
 */
struct latscope_builder {
	struct kthread_worker *worker;
	unsigned int cpu;
	unsigned int users;
	struct latscope_flight_entry *scratch;
	struct latscope_why_tally *tally;
	struct latscope_worst build;
};

/* why_builder.c */
struct latscope_builder *latscope_builder_get(unsigned int cpu);
void latscope_builder_put(struct latscope_builder *b);

/**
 * struct latscope_worst_set - a session's K worst samples, explained
 * @seq: lets a snapshot see whole records
 * @id: the recorder's id in its EVENT entries
 * @k: records kept at most
 * @nr: records kept so far
 * @floor: the smallest latency kept once @nr == @k
 * @floor_slot: its slot
 * @slot: @k records, unordered
 * @gen: claims so far
 * @lock: the measuring context's claims against the builder's fills
 * @builder: the measured CPU's builder
 * @work: what it does for this set
 * @flight: the measured CPU's flight record
 * @holder: the windows of @flight it has yet to copy, under @lock
 * @self_fn: the timeline's hrtimer callback, not counted
 * @remote_ideal: the last event handed over on another CPU than the
 *	measured one (a GPIO line's interrupt), under @lock: its ideal time,
 * @remote_arrival: irq stamp
 * @remote_wake: and the responder's wake-up (0: none); that CPU's flight
 *	record is not the builder's, so the sample's claim takes them along
 *
 * The measuring context claims a slot (placeholder: latency and ideal
 * time, marked pending) and queues the set's work; the CPU's builder,
 * elsewhere, builds each pending slot's
 * record from the flight record, which it reads without disturbing its
 * CPU, and puts it in the slot if no later claim took it meanwhile. @seq is written
 * under @lock, so a snapshot sees whole records.
 */
struct latscope_worst_set {
	seqcount_t seq;
	u32 id;
	u32 k;
	u32 nr;
	s64 floor;
	u32 floor_slot;
	struct latscope_worst *slot;
	u32 gen;
	raw_spinlock_t lock;
	struct latscope_builder *builder;
	struct kthread_work work;
	struct latscope_flight *flight;
	struct latscope_flight_holder holder;
	u64 self_fn;
	u64 remote_ideal;
	u64 remote_arrival;
	u64 remote_wake;
};

/* why_walk.c */
u32 latscope_why_merge_event(struct latscope_flight_entry *ev, u32 n,
			     const struct latscope_flight_entry *e);
void latscope_why_build(const struct latscope_flight_entry *ev, u32 n,
			const struct latscope_why_window *w,
			struct latscope_why_tally *t,
			struct latscope_worst *out);

/* why_worst.c */
struct latscope_worst *latscope_worst_claim(struct latscope_worst_set *set,
					    s64 lat, bool force);
void latscope_worst_done(struct latscope_worst_set *set);
void latscope_worst_reset(struct latscope_worst_set *set);
void latscope_worst_fill(struct latscope_worst_set *set, u32 slot,
			 const struct latscope_worst *rec);
int latscope_worst_export(struct latscope_worst_set *set,
			  struct latscope_worst *tmp);

#endif /* LATSCOPE_WHY_H */
