/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * latscope: measure how late a Linux system answers timer and GPIO events.
 *
 * The ABI between the latscope driver (/dev/latscope) and its userspace
 * CLI. One open file is one session. Every structure uses fixed-width
 * types, explicit padding and 8-byte aligned members so that 32-bit and
 * 64-bit userspace see the same layout.
 *
 * Typical session:
 *   fd = open("/dev/latscope", O_RDWR);
 *   ioctl(fd, LATSCOPE_IOC_SETUP, &setup);
 *   ioctl(fd, LATSCOPE_IOC_START);
 *   responder thread (user context): loop on LATSCOPE_IOC_PULSE
 *   logger thread: read()/poll() struct latscope_bulk records, EOF on stop
 *   ioctl(fd, LATSCOPE_IOC_STOP);
 *   ioctl(fd, LATSCOPE_IOC_GET_RESULT, &result);
 *   close(fd);
 */
#ifndef _UAPI_LINUX_LATSCOPE_H
#define _UAPI_LINUX_LATSCOPE_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define LATSCOPE_ABI_VERSION		1

/* Who answers the event, which decides where the latency is stamped. */
enum latscope_context {
	LATSCOPE_CTX_IRQ	= 0,	/* hrtimer hard-irq handler */
	LATSCOPE_CTX_KERNEL	= 1,	/* SCHED_FIFO kthread on the CPU */
	LATSCOPE_CTX_USER	= 2,	/* userspace thread in LATSCOPE_IOC_PULSE */
};

/* What marks the events. */
enum latscope_source_id {
	LATSCOPE_SRC_TIMER	= 0,	/* hrtimer at each ideal time */
	LATSCOPE_SRC_GPIO	= 1,	/* an edge on the pulse-in GPIO line */
};

/* How GPIO events come (struct latscope_gpio_setup.mode). */
enum latscope_gpio_mode {
	/*
	 * The driver drives pulse-out at each ideal time t0 + n * period;
	 * pulse-out is wired to pulse-in. One board measures itself.
	 */
	LATSCOPE_GPIO_LOOPBACK	= 0,
	/*
	 * Another device drives pulse-in and times the ack itself; the
	 * driver measures arrival to response. period_ns must be 0.
	 */
	LATSCOPE_GPIO_REMOTE	= 1,
};

/* The pulse-in edge that is an event (physical level, not active-low). */
enum latscope_gpio_edge {
	LATSCOPE_EDGE_RISING	= 1,
	LATSCOPE_EDGE_FALLING	= 2,
	LATSCOPE_EDGE_BOTH	= 3,
};

/* Limits the driver enforces on struct latscope_setup. */
#define LATSCOPE_MIN_PERIOD_NS		10000ULL	/* 10 us */
#define LATSCOPE_MAX_PERIOD_NS		1000000000ULL	/* 1 s */
#define LATSCOPE_DEFAULT_HIST_CELLS	200
#define LATSCOPE_MAX_HIST_CELLS		65536	/* 1 ms of 100 ns cells fits 6 times */
#define LATSCOPE_DEFAULT_CELL_NS	1000	/* 1 us */
#define LATSCOPE_MAX_CELL_NS		1000000000U	/* 1 s */
#define LATSCOPE_DEFAULT_PRIORITY	90
#define LATSCOPE_MAX_PRIORITY		99
#define LATSCOPE_DEFAULT_WARMUP_NS	1000000000ULL	/* 1 s */
#define LATSCOPE_MAX_WARMUP_NS		3600000000000ULL	/* 1 h */

/* struct latscope_setup.flags */
#define LATSCOPE_SETUP_NO_WARMUP	_BITUL(0)	/* warmup_ns must be 0 */
#define LATSCOPE_SETUP_FLAGS_MASK	LATSCOPE_SETUP_NO_WARMUP

/* struct latscope_gpio_setup.flags */
#define LATSCOPE_GPIO_FROM_DT	_BITUL(0)	/* lines of the "latscope,gpio" device */
#define LATSCOPE_GPIO_FLAGS_MASK	LATSCOPE_GPIO_FROM_DT

/*
 * One GPIO line chosen at run time: the label of its chip (what
 * GPIO_GET_CHIPINFO_IOCTL reports as label, NUL-terminated) and the
 * line's offset on that chip.
 */
struct latscope_gpio_line {
	char chip[32];
	__u32 offset;
	__u32 __reserved;	/* must be 0 */
};

/*
 * GPIO part of the setup. The context must be kernel or user: the
 * responder answers each event by toggling ack-out once. pulse_out is
 * used in loopback mode only and must be all zero in remote mode. With
 * LATSCOPE_GPIO_FROM_DT the lines are those of the device tree's
 * "latscope,gpio" device (loopback needs its pulse-out-gpios) and every
 * line field must be zero.
 *
 * SETUP errors besides EINVAL: ENODEV no chip with that label (or no
 * device tree device), EBUSY a line is in use, ENXIO pulse-in cannot
 * raise an interrupt.
 */
struct latscope_gpio_setup {
	__u32 mode;		/* enum latscope_gpio_mode */
	/*
	 * enum latscope_gpio_edge. 0 only with LATSCOPE_GPIO_FROM_DT: the
	 * device's latscope,edge property, rising if it has none.
	 */
	__u32 edge;
	__u32 flags;		/* LATSCOPE_GPIO_*, others rejected */
	/*
	 * 1..99: if arrivals are stamped in a thread (the GPIO chip
	 * delivers its interrupts from one), that thread runs at this
	 * SCHED_FIFO priority for the run, then gets its own back. 0: leave
	 * it alone.
	 */
	__u32 irq_thread_priority;
	struct latscope_gpio_line pulse_in;
	struct latscope_gpio_line ack_out;
	struct latscope_gpio_line pulse_out;
	__u64 __reserved[2];	/* must be 0 */
};

/*
 * LATSCOPE_IOC_SETUP argument. The driver reads @size bytes with
 * copy_struct_from_user(): a caller built against an older, shorter
 * structure still works, and bytes a newer caller sets beyond what the
 * driver knows must be zero (else -E2BIG). A field left at 0 takes its
 * default unless stated otherwise.
 */
struct latscope_setup {
	__u32 size;		/* sizeof(struct latscope_setup) of the caller */
	__u32 context;		/* enum latscope_context */
	__u64 period_ns;	/* MIN..MAX_PERIOD_NS, no default */
	__u32 cpu;		/* online CPU to measure on */
	__u32 priority;		/* kthread SCHED_FIFO priority, 0: default */
	__u32 hist_cells;	/* 0: default, at most LATSCOPE_MAX_HIST_CELLS */
	__u32 hist_cell_ns;	/* 0: default, at most LATSCOPE_MAX_CELL_NS */
	__u64 warmup_ns;	/* 0: default, or none with SETUP_NO_WARMUP */
	__u64 trace_threshold_ns; /* 0: off; else stop ftrace above it */
	__u32 flags;		/* LATSCOPE_SETUP_*, others rejected */
	__u32 source;		/* enum latscope_source_id */
	__u64 __reserved[4];	/* must be 0 */
	struct latscope_gpio_setup gpio;	/* LATSCOPE_SRC_GPIO only, else 0 */
};

#define LATSCOPE_SETUP_SIZE_VER0	88	/* timer only */
#define LATSCOPE_SETUP_SIZE_VER1	240	/* with struct latscope_gpio_setup */

/*
 * Statistics of one latency, in nanoseconds. A latency is stamp - ideal,
 * so it can be negative (an event answered early): those samples count in
 * min/sum/underflow like any other. Unsigned 128-bit sum of squares, split
 * in two halves, so that a long run cannot overflow it.
 */
struct latscope_stats {
	__u64 samples;
	__s64 min_ns;		/* 0 when samples == 0 */
	__s64 max_ns;		/* 0 when samples == 0 */
	__s64 sum_ns;
	__u64 sum_sq_lo;	/* sum of squares, ns^2, low 64 bits */
	__u64 sum_sq_hi;	/* ... high 64 bits */
	__u64 peak_ns;		/* CLOCK_MONOTONIC ideal time of the max */
	__u64 underflow;	/* samples < 0, not in any histogram cell */
	__u64 overflow;		/* samples >= hist_cells * hist_cell_ns */
};

/*
 * Logarithmic tail of a histogram: the samples at or past its end (those
 * latscope_stats.overflow counts), in buckets of fixed relative width up to
 * the largest latency. With b = LATSCOPE_TAIL_SUB_BITS and S = 1 << b
 * sub-buckets per power of two, a latency v >= 0 (ns) falls in bucket
 *
 *	i = v					if v < 2 * S
 *	i = (k - b + 1) * S + ((v >> (k - b)) & (S - 1))	else, k = log2(v)
 *
 * (k the index of v's highest set bit). Bucket i covers [lo(i), lo(i + 1)):
 *
 *	lo(i) = i				if i < S
 *	lo(i) = (S + i % S) << (i / S - 1)	else
 *
 * so a bucket is one value wide below 2 * S, and past that at most 1/S of
 * the values it holds (6.25 % for b = 4); LATSCOPE_TAIL_BUCKETS buckets
 * reach 2^63 ns. A tail counts only samples >= hist_cells * hist_cell_ns:
 * its buckets below that are 0, and the bucket holding that value holds
 * only the samples from it on.
 */
#define LATSCOPE_TAIL_SUB_BITS		4
#define LATSCOPE_TAIL_BUCKETS		((64 - LATSCOPE_TAIL_SUB_BITS) << LATSCOPE_TAIL_SUB_BITS)

/* struct latscope_result.flags */
#define LATSCOPE_RESULT_TRACE_FIRED	_BITUL(0)	/* threshold crossed */
#define LATSCOPE_RESULT_CPU_OFFLINE	_BITUL(1)	/* ended by hotplug */
#define LATSCOPE_RESULT_SNAPSHOT	_BITUL(2)	/* from SNAPSHOT */

/* struct latscope_gpio_result.paths: how the GPIO events were handled. */
#define LATSCOPE_GPIO_IN_HARDIRQ	_BITUL(0)	/* arrival stamped in hard irq */
#define LATSCOPE_GPIO_IN_THREAD		_BITUL(1)	/* ... or in a thread */
#define LATSCOPE_GPIO_OUT_CANSLEEP	_BITUL(2)	/* pulse-out from a kthread */
#define LATSCOPE_GPIO_ACK_CANSLEEP	_BITUL(3)	/* ack-out chip may sleep */
#define LATSCOPE_GPIO_THREAD_RAISED	_BITUL(4)	/* irq_thread_priority applied */

/*
 * GPIO figures of a result. In loopback mode @latency is the response
 * time (responder - ideal) and @irq the arrival time (pulse-in irq -
 * ideal); in remote mode the ideal time is the arrival stamp, so
 * @latency is arrival to response and @irq stays empty.
 */
struct latscope_gpio_result {
	__u64 acks;		/* ack-out toggles, past the warm-up */
	__u64 lost;		/* loopback pulses never seen on pulse-in */
	__u64 spurious;		/* loopback edges with no pulse in flight */
	__u32 paths;		/* LATSCOPE_GPIO_* */
	__s32 irq;		/* Linux irq of pulse-in */
	__s32 irq_thread_pid;	/* task that stamped arrivals, or 0 */
	char irq_thread_comm[16];	/* its name, NUL-terminated */
	__u32 irq_thread_policy;	/* its scheduling before the run ... */
	__u32 irq_thread_rtprio;	/* ... restored after it */
	__u32 edge;		/* enum latscope_gpio_edge the run used */
	__u64 __reserved1;
};

/*
 * LATSCOPE_IOC_GET_RESULT argument. Allowed once the session was set up,
 * and not while it runs (-EBUSY).
 *
 * LATSCOPE_IOC_SNAPSHOT takes the same argument and is allowed while the
 * session runs too (for checkpoints of long runs): each statistics block
 * is consistent with its histogram, the event and overrun counters may be
 * a few events apart from them, and LATSCOPE_RESULT_SNAPSHOT is set. It
 * fails with EAGAIN if the histogram could not be copied between two
 * samples (a big histogram at a short period): try again later.
 *
 * In: @size, @histogram (user address of a __u64 array, or 0 for totals
 * only) and @histogram_size (its size in bytes). Out: everything else, and
 * @histogram_size set to the bytes the whole histogram needs. If a
 * buffer is too small the call fails with ENOSPC, copies no counters, and
 * still fills in the totals, @histogram_size and (since VER1) @tail_size.
 *
 * The histogram holds @hist_count arrays of @hist_cells counters, back to
 * back: first the context's latency (@latency), then, for the kernel and
 * user contexts, the irq part (@irq). Cell i counts samples in
 * [i * hist_cell_ns, (i + 1) * hist_cell_ns).
 *
 * Since LATSCOPE_RESULT_SIZE_VER1, @tail and @tail_size do the same for the
 * logarithmic tails (LATSCOPE_TAIL_*): @hist_count arrays of @tail_buckets
 * counters, in the same order. A caller whose @size ends before them gets
 * neither, and the driver writes nothing past its @size.
 */
struct latscope_result {
	__u32 size;		/* in: sizeof(struct latscope_result) */
	__u32 flags;		/* LATSCOPE_RESULT_* */
	__u64 histogram;	/* in: user pointer, or 0 */
	__u64 histogram_size;	/* in: bytes at @histogram; out: needed */
	__u32 context;		/* settings the session ran with */
	__u32 cpu;
	__u64 period_ns;
	__u32 hist_cells;
	__u32 hist_cell_ns;
	__u32 hist_count;	/* histograms in the buffer: 1 or 2 */
	__u32 priority;
	__u64 warmup_ns;
	__u64 start_ns;		/* CLOCK_MONOTONIC ideal time of event 0 */
	__u64 events;		/* timer events past the warm-up */
	__u64 overruns;		/* periods missed past the warm-up */
	__u64 bulk_dropped;	/* bulk records the logger did not read */
	__s64 trace_sample_ns;	/* sample that fired the trace, or 0 */
	struct latscope_stats latency;	/* what the context measures */
	struct latscope_stats irq;	/* timer irq part (kernel, user) */
	__u64 __reserved[4];
	struct latscope_gpio_result gpio;	/* LATSCOPE_SRC_GPIO only */
	/* Since LATSCOPE_RESULT_SIZE_VER1. */
	__u64 tail;		/* in: user pointer, or 0 */
	__u64 tail_size;	/* in: bytes at @tail; out: needed */
	__u32 tail_buckets;	/* out: per tail, LATSCOPE_TAIL_BUCKETS */
	__u32 tail_sub_bits;	/* out: LATSCOPE_TAIL_SUB_BITS */
	__u64 __reserved2[3];
};

#define LATSCOPE_RESULT_SIZE_VER0	352	/* no tail */
#define LATSCOPE_RESULT_SIZE_VER1	400	/* with the tail */

/*
 * LATSCOPE_IOC_PULSE argument, user context only. @stamp_ns is the
 * CLOCK_MONOTONIC time the caller took when its previous PULSE returned
 * (0 on the first call; ignored when no event is outstanding). The call
 * then blocks until the next event and returns its ideal time.
 * A call waits for the events of one run: the running one, or, called
 * before START, the run START makes.
 * Errors: EINTR on a signal, ECANCELED once the session stopped or a later
 * run started (the responder should exit), EBUSY if another thread is
 * already waiting.
 */
struct latscope_pulse {
	__u64 stamp_ns;		/* in */
	__u64 ideal_ns;		/* out */
};

/*
 * One record per second of measurement, read() from the session file by
 * the logger. read() returns whole records, blocks while the session runs
 * (or -EAGAIN with O_NONBLOCK), and returns 0 (EOF) once the session
 * stopped and every record was read. poll() reports EPOLLIN. Readers of
 * one file each get different records; a record whose copy to user space
 * failed stays for the next read().
 */
struct latscope_bulk {
	__u64 second;		/* 0 for the first second past the warm-up */
	__u64 samples;		/* of this second */
	__u64 overruns;		/* of this second */
	__s64 min_ns;
	__s64 avg_ns;
	__s64 max_ns;
};

struct latscope_info {
	__u32 abi_version;	/* LATSCOPE_ABI_VERSION */
	__u32 setup_size;	/* sizeof(struct latscope_setup) in the driver */
	__u32 result_size;	/* sizeof(struct latscope_result) */
	__u32 max_hist_cells;
	char version[32];	/* driver version, NUL-terminated */
	/*
	 * hrtimer resolution now: 1 with high-resolution timers active, a
	 * whole tick without them (then every period shorter than a tick
	 * shows as overruns).
	 */
	__u32 timer_resolution_ns;
	__u32 __reserved0;
	__u64 __reserved[4];
};

/* 0xBA is free in Documentation/userspace-api/ioctl/ioctl-number.rst (6.12). */
#define LATSCOPE_IOC_MAGIC	0xba

/*
 * SETUP, GET_RESULT and SNAPSHOT take structures that grow by the
 * size-versioned rule, their @size saying which version a caller has.
 * Their numbers are frozen at one size (a sizeof() would change them with
 * every growth), and the driver accepts them with any size bits: a
 * program built against an older or a newer header gets the same calls.
 */
#define LATSCOPE_IOC_GET_INFO	_IOR(LATSCOPE_IOC_MAGIC, 0, struct latscope_info)
#define LATSCOPE_IOC_SETUP	_IOC(_IOC_WRITE, LATSCOPE_IOC_MAGIC, 1, \
				     LATSCOPE_SETUP_SIZE_VER1)
#define LATSCOPE_IOC_START	_IO(LATSCOPE_IOC_MAGIC, 2)
#define LATSCOPE_IOC_STOP	_IO(LATSCOPE_IOC_MAGIC, 3)
#define LATSCOPE_IOC_GET_RESULT	_IOC(_IOC_READ | _IOC_WRITE, LATSCOPE_IOC_MAGIC, 4, \
				     LATSCOPE_RESULT_SIZE_VER0)
#define LATSCOPE_IOC_PULSE	_IOWR(LATSCOPE_IOC_MAGIC, 5, struct latscope_pulse)
#define LATSCOPE_IOC_SNAPSHOT	_IOC(_IOC_READ | _IOC_WRITE, LATSCOPE_IOC_MAGIC, 6, \
				     LATSCOPE_RESULT_SIZE_VER0)

#endif /* _UAPI_LINUX_LATSCOPE_H */
