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
 *
 * Released device: writing 1 to /sys/class/misc/latscope/release (root)
 * ends every run (LATSCOPE_RESULT_RELEASED) and waits up to 10 s for
 * every open file of the device to be closed, so that the module can be
 * removed under a daemon that keeps it open. Until the module is
 * reloaded or 0 is written there, open() fails with ESHUTDOWN, and so do
 * SETUP and START.
 */
#ifndef _UAPI_LINUX_LATSCOPE_H
#define _UAPI_LINUX_LATSCOPE_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define LATSCOPE_ABI_VERSION		1

/**
 * enum latscope_context - who answers the event, which decides where the latency is stamped
 * @LATSCOPE_CTX_IRQ: the source's hard-irq handler (timer source only; the
 *	GPIO source refuses the irq context)
 * @LATSCOPE_CTX_KERNEL: a SCHED_FIFO kthread on the CPU
 * @LATSCOPE_CTX_USER: a userspace thread in LATSCOPE_IOC_PULSE
 */
enum latscope_context {
	LATSCOPE_CTX_IRQ	= 0,
	LATSCOPE_CTX_KERNEL	= 1,
	LATSCOPE_CTX_USER	= 2,
};

/**
 * enum latscope_source_id - what marks the events
 * @LATSCOPE_SRC_TIMER: an hrtimer at each ideal time
 * @LATSCOPE_SRC_GPIO: an edge on the pulse-in GPIO line
 * @LATSCOPE_SRC_NOISE: a gap in a busy task's clock reads (DOC: noise)
 */
enum latscope_source_id {
	LATSCOPE_SRC_TIMER	= 0,
	LATSCOPE_SRC_GPIO	= 1,
	LATSCOPE_SRC_NOISE	= 2,
};

/**
 * enum latscope_gpio_mode - how GPIO events come (&latscope_gpio_setup.mode)
 * @LATSCOPE_GPIO_LOOPBACK: the driver drives pulse-out at each ideal time
 *	t0 + n * period; pulse-out is wired to pulse-in. One board measures
 *	itself.
 * @LATSCOPE_GPIO_REMOTE: another device drives pulse-in and times the ack
 *	itself; the driver measures arrival to response. period_ns must be 0.
 * @LATSCOPE_GPIO_MONITOR: the driver is the monitor of another board, as
 *	a latmon is: it drives pulse-out at each ideal time, wired to that
 *	board's pulse-in, and that board's answer comes back on pulse_in
 *	(wired from its ack-out: the monitor's ack-in). Each sample is the
 *	round trip, the ack-in edge's stamp minus the one taken as pulse-out
 *	was driven, recorded in hard irq: the context must be
 *	LATSCOPE_CTX_IRQ and ack_out empty. A pulse not answered by the next
 *	ideal time makes that one an overrun.
 */
enum latscope_gpio_mode {
	LATSCOPE_GPIO_LOOPBACK	= 0,
	LATSCOPE_GPIO_REMOTE	= 1,
	LATSCOPE_GPIO_MONITOR	= 2,
};

/**
 * enum latscope_gpio_edge - the pulse-in edge that is an event (physical level, not active-low)
 * @LATSCOPE_EDGE_RISING: low to high
 * @LATSCOPE_EDGE_FALLING: high to low
 * @LATSCOPE_EDGE_BOTH: either
 */
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
#define LATSCOPE_GPIO_ACK_PULSE	_BITUL(1)	/* ack-out idles high, answers pulse low */
#define LATSCOPE_GPIO_PULSE_LOW	_BITUL(2)	/* monitor: pulse-out idles high, pulses low */
#define LATSCOPE_GPIO_FLAGS_MASK	(LATSCOPE_GPIO_FROM_DT | LATSCOPE_GPIO_ACK_PULSE | \
					 LATSCOPE_GPIO_PULSE_LOW)

/**
 * struct latscope_gpio_line - one GPIO line chosen at run time
 * @chip: the label of its chip (what GPIO_GET_CHIPINFO_IOCTL reports as
 *	label), NUL-terminated
 * @offset: the line's offset on that chip
 * @__reserved: must be 0
 */
struct latscope_gpio_line {
	char chip[32];
	__u32 offset;
	__u32 __reserved;
};

/**
 * struct latscope_gpio_setup - GPIO part of the setup (&latscope_setup.gpio)
 * @mode: enum latscope_gpio_mode
 * @edge: enum latscope_gpio_edge of pulse_in (the ack-in edge in monitor
 *	mode). 0 only with LATSCOPE_GPIO_FROM_DT: the device's latscope,edge
 *	property, rising if it has none.
 * @flags: LATSCOPE_GPIO_*, others rejected
 * @irq_thread_priority: 1..99: if arrivals are stamped in a thread (the
 *	GPIO chip delivers its interrupts from one), that thread runs at this
 *	SCHED_FIFO priority for the run, then gets its own back. 0: leave it
 *	alone.
 * @pulse_in: the line whose edges are the events
 * @ack_out: the line the responder toggles once per event
 * @pulse_out: the line the driver drives at each ideal time (loopback and
 *	monitor modes)
 * @__reserved: must be 0
 *
 * In loopback and remote modes the context must be kernel or user: the
 * responder answers each event on ack-out. By default it toggles ack-out
 * once per answer, starting low.
 * With LATSCOPE_GPIO_ACK_PULSE it answers as EVL's latmus does, for a
 * latmon monitor that times the ack's falling edge: ack-out idles high and
 * each answer drives it low, then high again. In monitor mode pulse-out
 * idles low and each pulse drives it high, or the other way round with
 * LATSCOPE_GPIO_PULSE_LOW (valid in monitor mode only). pulse_out must be
 * all zero in remote mode, ack_out in monitor mode. With
 * LATSCOPE_GPIO_FROM_DT the lines are those of the device tree's
 * "latscope,gpio" device (loopback needs its pulse-out-gpios; monitor mode
 * a device in the monitor role, with ack-in-gpios) and every line field
 * must be zero.
 *
 * SETUP errors besides EINVAL: ENODEV no chip with that label (or no device
 * tree device), EBUSY a line is in use, ENXIO pulse-in cannot raise an
 * interrupt.
 */
struct latscope_gpio_setup {
	__u32 mode;
	__u32 edge;
	__u32 flags;
	__u32 irq_thread_priority;
	struct latscope_gpio_line pulse_in;
	struct latscope_gpio_line ack_out;
	struct latscope_gpio_line pulse_out;
	__u64 __reserved[2];
};

/**
 * DOC: noise
 *
 * The noise source measures the time taken from a task that never
 * sleeps, as the kernel's osnoise tracer does. For &latscope_noise_setup.runtime_ns
 * of each period a busy task on the CPU reads the clock in a tight loop;
 * every gap of at least &latscope_noise_setup.threshold_ns between two
 * reads is a sample, whose ideal time is the read before it. The
 * latency statistics, histogram and tail are the gaps' lengths; there is
 * no irq part (one histogram); @events counts the gaps past the warm-up.
 *
 * In the kernel context the busy task is the driver's kthread
 * "latnoise/<cpu>": SCHED_FIFO at &latscope_setup.priority, or SCHED_OTHER
 * (nice 0) when it is 0, which has no default here. A thread that never
 * sleeps through its runtime, outside the caller's cpuset and cgroup: the
 * kernel context needs CAP_SYS_ADMIN (or the module's trusted_group). A
 * SCHED_FIFO one reads for at most period - period / LATSCOPE_NOISE_FIFO_SLACK
 * of each period, whatever the runtime asked (the result says what it
 * read: &latscope_noise_result.runtime_per_period_ns), so that the CPU's
 * other tasks run with RT throttling off too. With
 * LATSCOPE_NOISE_IRQS_OFF it reads with interrupts off (as hwlatdetect),
 * so what is left is NMIs and what the hardware (or a hypervisor) takes.
 * In the user context the busy task is the caller's thread on the CPU:
 * it reads CLOCK_MONOTONIC itself and hands its gaps in with
 * LATSCOPE_IOC_NOISE; PULSE is refused.
 *
 * Each gap is told apart by what the CPU's flight record (DOC: why; the
 * same tracepoints) saw begin in it, for a caller with CAP_PERFMON (or
 * the trusted group), as the recorder: for any other, every gap is
 * unknown and &latscope_noise_result.seen is 0. What it tells apart: a
 * hard irq or hrtimer callback, a softirq, another task switched in, an
 * NMI, or nothing (unexplained: the hardware, a hypervisor, or what no
 * tracepoint sees, as a page fault of the user thread). A gap the
 * record did not cover whole is unknown. A gap counts once in every
 * kind that began in it. The recorder (why_records) explains the worst
 * gaps as it explains the worst latencies, the gap's start as ideal time.
 *
 * read() returns struct latscope_noise_bulk records in a noise session,
 * one per second that had runtime; the result has its totals in
 * &latscope_result.noise (LATSCOPE_RESULT_SIZE_VER3).
 */
#define LATSCOPE_NOISE_DEFAULT_THRESHOLD_NS	5000ULL		/* 5 us, as rtla osnoise */
#define LATSCOPE_NOISE_MAX_THRESHOLD_NS		1000000000ULL	/* 1 s */
#define LATSCOPE_NOISE_MIN_PERIOD_NS		1000000ULL	/* 1 ms */
#define LATSCOPE_NOISE_MIN_RUNTIME_NS		100000ULL	/* 100 us */
#define LATSCOPE_NOISE_MAX_IRQS_OFF_NS		500000000ULL	/* 500 ms, as hwlat's width */
#define LATSCOPE_NOISE_MAX_GAPS			32
/* A SCHED_FIFO kernel busy task leaves 1/20 of each period to others. */
#define LATSCOPE_NOISE_FIFO_SLACK		20
/* A user context's report reaches back this far at most (DOC: noise). */
#define LATSCOPE_NOISE_MAX_REPORT_NS		10000000000ULL	/* 10 s */
#define LATSCOPE_NOISE_MIN_THRESHOLD_NS		1000ULL		/* 1 us */

/* struct latscope_noise_setup.flags */
#define LATSCOPE_NOISE_IRQS_OFF		_BITUL(0)	/* kernel context: interrupts off */
#define LATSCOPE_NOISE_FLAGS_MASK	LATSCOPE_NOISE_IRQS_OFF

/**
 * enum latscope_noise_kind - what a gap was taken by (DOC: noise)
 * @LATSCOPE_NOISE_IRQ: a hard irq handler or hrtimer callback began in it
 * @LATSCOPE_NOISE_SOFTIRQ: a softirq began in it
 * @LATSCOPE_NOISE_THREAD: another task was switched in
 * @LATSCOPE_NOISE_NMI: an NMI ran in it (where the kernel reports them)
 * @LATSCOPE_NOISE_UNEXPLAINED: the flight record covered it and saw none
 *	of these
 * @LATSCOPE_NOISE_UNKNOWN: the flight record did not cover it whole and
 *	saw none of these
 * @LATSCOPE_NOISE_KINDS: how many there are
 */
enum latscope_noise_kind {
	LATSCOPE_NOISE_IRQ		= 0,
	LATSCOPE_NOISE_SOFTIRQ		= 1,
	LATSCOPE_NOISE_THREAD		= 2,
	LATSCOPE_NOISE_NMI		= 3,
	LATSCOPE_NOISE_UNEXPLAINED	= 4,
	LATSCOPE_NOISE_UNKNOWN		= 5,
	LATSCOPE_NOISE_KINDS		= 6,
};

/**
 * struct latscope_noise_setup - noise part of the setup (&latscope_setup.noise)
 * @runtime_ns: how long the busy task reads the clock in each period,
 *	LATSCOPE_NOISE_MIN_RUNTIME_NS..period_ns; 0: the whole period
 * @threshold_ns: the shortest gap that is noise, 0: LATSCOPE_NOISE_DEFAULT_THRESHOLD_NS;
 *	else LATSCOPE_NOISE_MIN_THRESHOLD_NS to LATSCOPE_NOISE_MAX_THRESHOLD_NS
 * @flags: LATSCOPE_NOISE_*, others rejected. LATSCOPE_NOISE_IRQS_OFF is
 *	for the kernel context (CAP_SYS_ADMIN), with a runtime of at most
 *	LATSCOPE_NOISE_MAX_IRQS_OFF_NS and half the period.
 * @__reserved: must be 0
 *
 * The setup's period_ns is the noise period, LATSCOPE_NOISE_MIN_PERIOD_NS
 * to LATSCOPE_MAX_PERIOD_NS; other sources need this block all zero.
 */
struct latscope_noise_setup {
	__u64 runtime_ns;
	__u64 threshold_ns;
	__u32 flags;
	__u32 __reserved[5];
};

/**
 * struct latscope_setup - LATSCOPE_IOC_SETUP argument
 * @size: sizeof(struct latscope_setup) of the caller
 * @context: enum latscope_context
 * @period_ns: LATSCOPE_MIN_PERIOD_NS..LATSCOPE_MAX_PERIOD_NS, no default (0 in
 *	GPIO remote mode)
 * @cpu: online CPU to measure on
 * @priority: kthread SCHED_FIFO priority, 0: default
 * @hist_cells: 0: default, at most LATSCOPE_MAX_HIST_CELLS
 * @hist_cell_ns: 0: default, at most LATSCOPE_MAX_CELL_NS
 * @warmup_ns: 0: default, or none with LATSCOPE_SETUP_NO_WARMUP
 * @trace_threshold_ns: 0: off; else stop ftrace above it
 * @flags: LATSCOPE_SETUP_*, others rejected
 * @source: enum latscope_source_id
 * @why_records: 0: no worst-sample recorder; else how many of the run's
 *	worst samples it explains, at most LATSCOPE_WHY_MAX_RECORDS (DOC: why)
 * @why_flags: must be 0
 * @__reserved: must be 0
 * @gpio: LATSCOPE_SRC_GPIO only, else 0
 * @noise: LATSCOPE_SRC_NOISE only, else 0 (since LATSCOPE_SETUP_SIZE_VER2)
 *
 * The driver reads @size bytes with copy_struct_from_user(): a caller built
 * against an older, shorter structure still works, and bytes a newer caller
 * sets beyond what the driver knows must be zero (else -E2BIG). A field left
 * at 0 takes its default unless stated otherwise.
 */
struct latscope_setup {
	__u32 size;
	__u32 context;
	__u64 period_ns;
	__u32 cpu;
	__u32 priority;
	__u32 hist_cells;
	__u32 hist_cell_ns;
	__u64 warmup_ns;
	__u64 trace_threshold_ns;
	__u32 flags;
	__u32 source;
	__u32 why_records;
	__u32 why_flags;
	__u64 __reserved[3];
	struct latscope_gpio_setup gpio;
	struct latscope_noise_setup noise;
};

#define LATSCOPE_SETUP_SIZE_VER0	88	/* timer only */
#define LATSCOPE_SETUP_SIZE_VER1	240	/* with struct latscope_gpio_setup */
#define LATSCOPE_SETUP_SIZE_VER2	280	/* with struct latscope_noise_setup */

/**
 * struct latscope_stats - statistics of one latency, in nanoseconds
 * @samples: number of samples
 * @min_ns: the smallest sample, 0 when samples == 0
 * @max_ns: the largest sample, 0 when samples == 0
 * @sum_ns: sum of the samples
 * @sum_sq_lo: sum of squares, ns^2, low 64 bits
 * @sum_sq_hi: sum of squares, high 64 bits
 * @peak_ns: CLOCK_MONOTONIC ideal time of the max
 * @underflow: samples < 0, not in any histogram cell
 * @overflow: samples >= hist_cells * hist_cell_ns
 *
 * A latency is stamp - ideal, so it can be negative (an event answered
 * early): those samples count in min/sum/underflow like any other. Unsigned
 * 128-bit sum of squares, split in two halves, so that a long run cannot
 * overflow it.
 */
struct latscope_stats {
	__u64 samples;
	__s64 min_ns;
	__s64 max_ns;
	__s64 sum_ns;
	__u64 sum_sq_lo;
	__u64 sum_sq_hi;
	__u64 peak_ns;
	__u64 underflow;
	__u64 overflow;
};

/**
 * DOC: tail
 *
 * Logarithmic tail of a histogram: the samples at or past its end (those
 * latscope_stats.overflow counts), in buckets of fixed relative width up to
 * the largest latency. With b = LATSCOPE_TAIL_SUB_BITS and S = 1 << b
 * sub-buckets per power of two, a latency v >= 0 (ns) falls in bucket::
 *
 *	i = v					if v < 2 * S
 *	i = (k - b + 1) * S + ((v >> (k - b)) & (S - 1))	else, k = log2(v)
 *
 * (k the index of v's highest set bit). Bucket i covers [lo(i), lo(i + 1))::
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

/*
 * The tail bucket of latency @v (ns, >= 0), by the formula above; values
 * past the last bucket (none of an __s64) go to it.
 */
static __inline__ __u32 latscope_tail_index(__u64 v)
{
	const __u32 b = LATSCOPE_TAIL_SUB_BITS, sub = 1U << LATSCOPE_TAIL_SUB_BITS;
	__u32 k, i;

	if (v < 2 * sub)
		return (__u32)v;
	k = 63 - (__u32)__builtin_clzll(v);
	i = (k - b + 1) * sub + (__u32)((v >> (k - b)) & (sub - 1));
	return i < LATSCOPE_TAIL_BUCKETS ? i : LATSCOPE_TAIL_BUCKETS - 1;
}

/*
 * lo(@i), the smallest latency of tail bucket @i, by the formula above;
 * @i == LATSCOPE_TAIL_BUCKETS gives the end of the last bucket, 2^63.
 */
static __inline__ __u64 latscope_tail_lo(__u32 i)
{
	const __u32 sub = 1U << LATSCOPE_TAIL_SUB_BITS;

	if (i > LATSCOPE_TAIL_BUCKETS)
		i = LATSCOPE_TAIL_BUCKETS;
	if (i < sub)
		return i;
	return (__u64)(sub + i % sub) << (i / sub - 1);
}

/* struct latscope_result.flags */
#define LATSCOPE_RESULT_TRACE_FIRED	_BITUL(0)	/* threshold crossed */
#define LATSCOPE_RESULT_CPU_OFFLINE	_BITUL(1)	/* ended by hotplug */
#define LATSCOPE_RESULT_SNAPSHOT	_BITUL(2)	/* from SNAPSHOT */
#define LATSCOPE_RESULT_RELEASED	_BITUL(3)	/* ended by a release */

/* struct latscope_gpio_result.paths: how the GPIO events were handled. */
#define LATSCOPE_GPIO_IN_HARDIRQ	_BITUL(0)	/* arrival stamped in hard irq */
#define LATSCOPE_GPIO_IN_THREAD		_BITUL(1)	/* ... or in a thread */
#define LATSCOPE_GPIO_OUT_CANSLEEP	_BITUL(2)	/* pulse-out from a kthread */
#define LATSCOPE_GPIO_ACK_CANSLEEP	_BITUL(3)	/* ack-out chip may sleep */
#define LATSCOPE_GPIO_THREAD_RAISED	_BITUL(4)	/* irq_thread_priority applied */

/**
 * struct latscope_gpio_result - GPIO figures of a result (&latscope_result.gpio)
 * @acks: answers past the warm-up. Loopback and remote modes: the
 *	responder's answers on ack-out (toggles, or pulses with
 *	LATSCOPE_GPIO_ACK_PULSE). Monitor mode: the other board's answers
 *	that came back on pulse_in (the ack-in) to a pulse in flight, each
 *	one a sample, so @acks equals &latscope_result.latency.samples.
 * @lost: pulses the driver sent past the warm-up (loopback and monitor
 *	modes) whose edge or answer did not come back on pulse_in within a
 *	second, or two periods if longer; each is an overrun too
 * @spurious: edges on pulse_in with no pulse in flight (loopback and
 *	monitor modes), past the warm-up
 * @paths: how the GPIO events were handled: LATSCOPE_GPIO_IN_HARDIRQ ..
 *	LATSCOPE_GPIO_THREAD_RAISED bits
 * @irq: Linux irq of pulse-in
 * @irq_thread_pid: task that stamped arrivals, or 0
 * @irq_thread_comm: its name, NUL-terminated
 * @irq_thread_policy: its scheduling policy before the run, restored after it
 * @irq_thread_rtprio: its real-time priority before the run, restored after it
 * @edge: enum latscope_gpio_edge the run used
 * @__reserved1: reserved, 0
 *
 * In loopback mode &latscope_result.latency is the response time (responder -
 * ideal) and &latscope_result.irq the arrival time (pulse-in irq - ideal); in
 * remote mode the ideal time is the arrival stamp, so &latscope_result.latency
 * is arrival to response and &latscope_result.irq stays empty. In monitor
 * mode &latscope_result.latency is the round trip (ack-in irq - pulse sent)
 * and &latscope_result.irq stays empty.
 */
struct latscope_gpio_result {
	__u64 acks;
	__u64 lost;
	__u64 spurious;
	__u32 paths;
	__s32 irq;
	__s32 irq_thread_pid;
	char irq_thread_comm[16];
	__u32 irq_thread_policy;
	__u32 irq_thread_rtprio;
	__u32 edge;
	__u64 __reserved1;
};

/**
 * struct latscope_noise_result - noise figures of a result (&latscope_result.noise)
 * @runtime_ns: time the busy task read the clock past the warm-up, the
 *	gaps included
 * @noise_ns: the gaps' sum (&latscope_result.latency.sum_ns)
 * @gaps: gaps of each enum latscope_noise_kind
 * @threshold_ns: the run's threshold
 * @runtime_per_period_ns: the run's runtime per period
 * @flags: the run's LATSCOPE_NOISE_* flags
 * @seen: LATSCOPE_WHY_SEEN_* bits: the tracepoints the flight record
 *	hooked, which tell the kinds apart
 * @__reserved: 0
 *
 * The share of the CPU the busy task kept is 1 - @noise_ns / @runtime_ns.
 */
struct latscope_noise_result {
	__u64 runtime_ns;
	__u64 noise_ns;
	__u64 gaps[LATSCOPE_NOISE_KINDS];
	__u64 threshold_ns;
	__u64 runtime_per_period_ns;
	__u32 flags;
	__u32 seen;
	__u64 __reserved[2];
};

/**
 * struct latscope_result - LATSCOPE_IOC_GET_RESULT and LATSCOPE_IOC_SNAPSHOT argument
 * @size: in: sizeof(struct latscope_result)
 * @flags: LATSCOPE_RESULT_*
 * @histogram: in: user address of a __u64 array, or 0 for totals only
 * @histogram_size: in: bytes at @histogram; out: bytes the whole histogram
 *	needs
 * @context: the enum latscope_context the session ran with
 * @cpu: the CPU it ran on
 * @period_ns: its period
 * @hist_cells: its counters per histogram
 * @hist_cell_ns: its histogram cell width
 * @hist_count: histograms in the buffer: 1 or 2
 * @priority: its kthread SCHED_FIFO priority
 * @warmup_ns: its warm-up
 * @start_ns: CLOCK_MONOTONIC ideal time of event 0
 * @events: events past the warm-up, of any source
 * @overruns: periods missed past the warm-up
 * @bulk_dropped: bulk records the logger did not read
 * @trace_sample_ns: sample that fired the trace, or 0
 * @latency: what the context measures
 * @irq: the irq part: the event's ideal time to its hard-irq stamp (kernel and
 *	user contexts)
 * @__reserved: reserved, 0
 * @gpio: LATSCOPE_SRC_GPIO only
 * @tail: in: user pointer, or 0 (this member and all after it: since
 *	LATSCOPE_RESULT_SIZE_VER1)
 * @tail_size: in: bytes at @tail; out: needed
 * @tail_buckets: out: per tail, LATSCOPE_TAIL_BUCKETS
 * @tail_sub_bits: out: LATSCOPE_TAIL_SUB_BITS
 * @__reserved2: reserved, 0
 * @why: in: user address of room for struct latscope_why records, or 0
 *	(this member and all after it: since LATSCOPE_RESULT_SIZE_VER2)
 * @why_size: in: bytes at @why; out: bytes every record needs
 * @why_count: out: records the run kept, the worst first
 * @why_record_size: out: sizeof(struct latscope_why)
 * @why_seen: out: LATSCOPE_WHY_SEEN_* bits, what the recorder could see
 *	on this kernel (0 without a recorder)
 * @why_records: out: the setup's why_records
 * @noise: out: LATSCOPE_SRC_NOISE only, else 0 (this member: since
 *	LATSCOPE_RESULT_SIZE_VER3)
 *
 * LATSCOPE_IOC_GET_RESULT is allowed once the session was set up, and not
 * while it runs (-EBUSY).
 *
 * LATSCOPE_IOC_SNAPSHOT takes the same argument and is allowed while the
 * session runs too (for checkpoints of long runs): each statistics block
 * is consistent with its histogram, the event and overrun counters may be
 * a few events apart from them, and LATSCOPE_RESULT_SNAPSHOT is set. It
 * fails with EAGAIN if the histogram could not be copied between two
 * samples (a big histogram at a short period): try again later.
 *
 * In: @size, @histogram and @histogram_size. Out: everything else, and
 * @histogram_size set to the bytes the whole histogram needs; @context to
 * @warmup_ns (but @hist_count) are the settings the session ran with. If a
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
 *
 * Since LATSCOPE_RESULT_SIZE_VER2, @why and @why_size do the same for the
 * worst-sample records (DOC: why): @why_count records of
 * @why_record_size bytes, the worst first.
 */
struct latscope_result {
	__u32 size;
	__u32 flags;
	__u64 histogram;
	__u64 histogram_size;
	__u32 context;
	__u32 cpu;
	__u64 period_ns;
	__u32 hist_cells;
	__u32 hist_cell_ns;
	__u32 hist_count;
	__u32 priority;
	__u64 warmup_ns;
	__u64 start_ns;
	__u64 events;
	__u64 overruns;
	__u64 bulk_dropped;
	__s64 trace_sample_ns;
	struct latscope_stats latency;
	struct latscope_stats irq;
	__u64 __reserved[4];
	struct latscope_gpio_result gpio;
	__u64 tail;
	__u64 tail_size;
	__u32 tail_buckets;
	__u32 tail_sub_bits;
	__u64 __reserved2[3];
	__u64 why;
	__u64 why_size;
	__u32 why_count;
	__u32 why_record_size;
	__u32 why_seen;
	__u32 why_records;
	struct latscope_noise_result noise;
};

#define LATSCOPE_RESULT_SIZE_VER0	352	/* no tail */
#define LATSCOPE_RESULT_SIZE_VER1	400	/* with the tail */
#define LATSCOPE_RESULT_SIZE_VER2	432	/* with the worst samples explained */
#define LATSCOPE_RESULT_SIZE_VER3	536	/* with the noise figures */

/**
 * DOC: why
 *
 * The worst-sample recorder. With &latscope_setup.why_records = K, the
 * driver keeps, per measured CPU, a bounded record of what ran there
 * (hard irqs, softirqs, NMIs where the kernel reports them, hrtimer
 * callbacks, context switches, idle), from kernel tracepoints it hooks
 * itself: the user's ftrace setup is not touched. When a sample enters
 * the run's K worst, the driver reads what ran between its ideal time and
 * its answer and keeps it as a struct latscope_why: the latency split in
 * its parts, the task and code the event interrupted, and what took the
 * time, longest first. A window longer than the per-CPU record is marked
 * LATSCOPE_WHY_CUT. The records come with the result (LATSCOPE_RESULT_SIZE_VER2).
 * They name other tasks (comm, host pid, policy), irqs and kernel symbols:
 * arming the recorder needs CAP_PERFMON or CAP_SYS_ADMIN, unless the
 * module's trusted_group parameter is set. No address is handed out.
 */
#define LATSCOPE_WHY_MAX_RECORDS	64
#define LATSCOPE_WHY_ITEMS		8

/* struct latscope_result.why_seen: the tracepoints the recorder hooked. */
#define LATSCOPE_WHY_SEEN_IRQ		_BITUL(0)	/* irq_handler_entry/exit */
#define LATSCOPE_WHY_SEEN_SOFTIRQ	_BITUL(1)	/* softirq_entry/exit */
#define LATSCOPE_WHY_SEEN_SWITCH	_BITUL(2)	/* sched_switch */
#define LATSCOPE_WHY_SEEN_NMI		_BITUL(3)	/* nmi_handler (x86) */
#define LATSCOPE_WHY_SEEN_IDLE		_BITUL(4)	/* cpu_idle */
#define LATSCOPE_WHY_SEEN_HRTIMER	_BITUL(5)	/* hrtimer_expire_entry/exit */

/**
 * enum latscope_why_kind - what a struct latscope_why_item is
 * @LATSCOPE_WHY_TASK: a task ran (@id its pid, @name its comm)
 * @LATSCOPE_WHY_IRQ: a hard irq handler (@id the Linux irq, @name its action)
 * @LATSCOPE_WHY_SOFTIRQ: a softirq (@id the vector, @name as in /proc/softirqs)
 * @LATSCOPE_WHY_NMI: an NMI handler (@name its symbol, "?" if none)
 * @LATSCOPE_WHY_HRTIMER: an hrtimer callback in hard irq (@name its symbol, "?" if none)
 * @LATSCOPE_WHY_IDLE: the CPU was idle (@id the cpuidle state, -1 unknown)
 */
enum latscope_why_kind {
	LATSCOPE_WHY_TASK	= 1,
	LATSCOPE_WHY_IRQ	= 2,
	LATSCOPE_WHY_SOFTIRQ	= 3,
	LATSCOPE_WHY_NMI	= 4,
	LATSCOPE_WHY_HRTIMER	= 5,
	LATSCOPE_WHY_IDLE	= 6,
};

/* struct latscope_why_item.flags */
#define LATSCOPE_WHY_ITEM_BEFORE	_BITUL(0)	/* began before the window */
#define LATSCOPE_WHY_ITEM_AFTER		_BITUL(1)	/* went on past the window */

/**
 * struct latscope_why_item - one thing that ran in a sample's window
 * @kind: enum latscope_why_kind
 * @id: pid, irq, softirq vector or idle state, by @kind
 * @count: times it began in the window (a task: was switched in)
 * @flags: LATSCOPE_WHY_ITEM_*
 * @duration_ns: its time in the window, what it interrupted not counted
 *	in it (an irq inside a task counts for the irq)
 * @blocking_ns: the part of @duration_ns while the answer waited for it:
 *	between the ideal time and the irq stamp, and between the
 *	responder's wake-up and its running
 * @policy: a task's SCHED_* policy, else 0
 * @prio: a task's real-time priority (SCHED_FIFO, SCHED_RR), or its nice
 *	value for the others, else 0
 * @name: what it is called, NUL-terminated
 */
struct latscope_why_item {
	__u32 kind;
	__s32 id;
	__u32 count;
	__u32 flags;
	__u64 duration_ns;
	__u64 blocking_ns;
	__s32 policy;
	__s32 prio;
	char name[32];
};

/*
 * struct latscope_why.flags: HAS_IRQ @irq_ns known; HAS_WAKE @wake_ns
 * known; HAS_RUN @sched_ns and @run_ns known; CUT the record did not reach
 * back to the ideal time; IDLE the CPU was idle at the ideal time;
 * USER_MODE the event interrupted user space; NO_WHERE the interrupted
 * task and code are unknown; BUSY the responder was running when woken;
 * THRESHOLD the sample crossed the trace threshold; ELSEWHERE the
 * responder ran on another CPU.
 */
#define LATSCOPE_WHY_HAS_IRQ		_BITUL(0)
#define LATSCOPE_WHY_HAS_WAKE		_BITUL(1)
#define LATSCOPE_WHY_HAS_RUN		_BITUL(2)
#define LATSCOPE_WHY_CUT		_BITUL(3)
#define LATSCOPE_WHY_IDLE		_BITUL(4)
#define LATSCOPE_WHY_USER_MODE		_BITUL(5)
#define LATSCOPE_WHY_NO_WHERE		_BITUL(6)
#define LATSCOPE_WHY_BUSY		_BITUL(7)
#define LATSCOPE_WHY_THRESHOLD		_BITUL(8)
#define LATSCOPE_WHY_ELSEWHERE		_BITUL(9)

/**
 * struct latscope_why - one of a run's worst samples, explained
 * @latency_ns: the sample
 * @ideal_ns: its event's ideal time, CLOCK_MONOTONIC
 * @realtime_ns: the same time, CLOCK_REALTIME
 * @irq_ns: the ideal time to the irq stamp (the irq context: the sample)
 * @wake_ns: the irq stamp to the responder's wake-up
 * @sched_ns: the wake-up to the responder's running
 * @run_ns: its running to the answer: for the user context the return to
 *	user space and the stamp
 * @window_ns: how much of the sample, from the ideal time, the record
 *	covers: less than @latency_ns with LATSCOPE_WHY_CUT
 * @flags: LATSCOPE_WHY_*, which parts are known and what was seen
 * @idle_state: the cpuidle state the CPU was in at the ideal time, -1
 *	unknown or not idle
 * @pid: the task the event's irq interrupted (0: idle); unknown
 *	(LATSCOPE_WHY_NO_WHERE) when that irq ran on another CPU
 * @policy: its SCHED_* policy
 * @prio: its real-time priority, or nice value
 * @__reserved: 0
 * @comm: its name
 * @where: the code it interrupted, "symbol+off/size", "?" if no symbol
 *	names it, "" if unknown or in user space
 * @nr_items: entries of @item, longest first
 * @more_items: things that ran in the window beyond @item
 * @more_ns: their time
 * @unknown_ns: time in the window whose owner the record does not know
 *	(what ran before the CPU's record began, or past its room)
 * @item: what ran in the window
 *
 * A part not known (its LATSCOPE_WHY_HAS_* bit clear) is 0. A user
 * responder that ran on another CPU than the one measured
 * (LATSCOPE_WHY_ELSEWHERE) is not in the measured CPU's record: its wake
 * is known, its running is not.
 */
struct latscope_why {
	__s64 latency_ns;
	__u64 ideal_ns;
	__u64 realtime_ns;
	__s64 irq_ns;
	__s64 wake_ns;
	__s64 sched_ns;
	__s64 run_ns;
	__u64 window_ns;
	__u32 flags;
	__s32 idle_state;
	__s32 pid;
	__s32 policy;
	__s32 prio;
	__u32 __reserved;
	char comm[16];
	char where[64];
	__u32 nr_items;
	__u32 more_items;
	__u64 more_ns;
	__u64 unknown_ns;
	struct latscope_why_item item[LATSCOPE_WHY_ITEMS];
};

/**
 * struct latscope_pulse - LATSCOPE_IOC_PULSE argument, user context only
 * @stamp_ns: in: the CLOCK_MONOTONIC time the caller took when its previous
 *	PULSE returned (0 on the first call; ignored when no event is
 *	outstanding)
 * @ideal_ns: out: the ideal time of the next event
 *
 * The call records the answer @stamp_ns gives to the event the previous
 * PULSE returned, then blocks until the next event and returns its ideal
 * time. A call waits for the events of one run: the running one, or, called
 * before START, the run START makes.
 * Errors: EINTR on a signal, ECANCELED once the session stopped or a later
 * run started (the responder should exit), EBUSY if another thread is
 * already waiting, EINVAL if the session is not set up or its context is
 * not LATSCOPE_CTX_USER.
 */
struct latscope_pulse {
	__u64 stamp_ns;
	__u64 ideal_ns;
};

/**
 * struct latscope_bulk - one record per second of measurement
 * @second: 0 for the first second past the warm-up
 * @samples: samples of this second
 * @overruns: periods missed in this second
 * @min_ns: the smallest latency (what the context measures) of this second,
 *	0 without samples
 * @avg_ns: the average latency of this second, 0 without samples
 * @max_ns: the largest latency of this second, 0 without samples
 *
 * The logger read()s the records from the session file. read() returns
 * whole records (EINVAL for a buffer smaller than one, or before a setup),
 * blocks while the session runs (or -EAGAIN with O_NONBLOCK), and returns 0
 * (EOF) once the session stopped and every record was read. poll() reports
 * EPOLLIN. Readers of one file each get different records; a record whose
 * copy to user space failed stays for the next read(). A second with
 * neither samples nor overruns has no record.
 */
struct latscope_bulk {
	__u64 second;
	__u64 samples;
	__u64 overruns;
	__s64 min_ns;
	__s64 avg_ns;
	__s64 max_ns;
};

/**
 * struct latscope_noise_bulk - a noise session's record of one second (DOC: noise)
 * @bulk: the gaps of the second: @bulk.samples of them, their smallest,
 *	average and largest; @bulk.overruns is 0
 * @runtime_ns: time the busy task read the clock in this second, its
 *	gaps included (a gap counts in the second it began in)
 * @noise_ns: the gaps' sum
 * @gaps: the second's gaps of each enum latscope_noise_kind
 *
 * A noise session's read() returns these, whole, instead of struct
 * latscope_bulk: a buffer smaller than one is EINVAL. A second with no
 * runtime has no record.
 */
struct latscope_noise_bulk {
	struct latscope_bulk bulk;
	__u64 runtime_ns;
	__u64 noise_ns;
	__u64 gaps[LATSCOPE_NOISE_KINDS];
};

/**
 * struct latscope_noise_gap - one gap the user context's busy task saw
 * @start_ns: its last clock read before the gap, CLOCK_MONOTONIC
 * @end_ns: its first read after it
 */
struct latscope_noise_gap {
	__u64 start_ns;
	__u64 end_ns;
};

/**
 * struct latscope_noise_report - LATSCOPE_IOC_NOISE argument
 * @gaps: user address of @count struct latscope_noise_gap, oldest first
 * @count: at most LATSCOPE_NOISE_MAX_GAPS; 0 reports runtime alone
 * @flags: must be 0
 * @from_ns: the spin this report covers began with a read then,
 *	CLOCK_MONOTONIC: no earlier than the previous report's @to_ns, nor
 *	than LATSCOPE_NOISE_MAX_REPORT_NS before @to_ns
 * @to_ns: and ended with a read then, not after the call, nor
 *	LATSCOPE_NOISE_MAX_REPORT_NS before it
 *
 * Each gap must lie in [@from_ns, @to_ns], after the one before it, and
 * last at least the threshold. @to_ns - @from_ns is runtime.
 */
struct latscope_noise_report {
	__u64 gaps;
	__u32 count;
	__u32 flags;
	__u64 from_ns;
	__u64 to_ns;
};

/**
 * struct latscope_info - LATSCOPE_IOC_GET_INFO argument: what the driver is
 * @abi_version: LATSCOPE_ABI_VERSION
 * @setup_size: sizeof(struct latscope_setup) in the driver
 * @result_size: sizeof(struct latscope_result) in the driver
 * @max_hist_cells: LATSCOPE_MAX_HIST_CELLS
 * @version: driver version, NUL-terminated
 * @timer_resolution_ns: hrtimer resolution now: 1 with high-resolution
 *	timers active, a whole tick without them (then every period shorter
 *	than a tick shows as overruns)
 * @__reserved0: reserved, 0
 * @__reserved: reserved, 0
 */
struct latscope_info {
	__u32 abi_version;
	__u32 setup_size;
	__u32 result_size;
	__u32 max_hist_cells;
	char version[32];
	__u32 timer_resolution_ns;
	__u32 __reserved0;
	__u64 __reserved[4];
};

/* 0xBA is free in Documentation/userspace-api/ioctl/ioctl-number.rst (6.12). */
#define LATSCOPE_IOC_MAGIC	0xba

/**
 * DOC: ioctls
 *
 * SETUP, GET_RESULT and SNAPSHOT take structures that grow by the
 * size-versioned rule, their @size saying which version a caller has.
 * Their numbers are frozen at one size (a sizeof() would change them with
 * every growth), and the driver accepts them with any size bits: a
 * program built against an older or a newer header gets the same calls.
 *
 * Every call with an argument fails with EFAULT if that argument (or a
 * buffer it points to) cannot be copied; an unknown command fails with
 * ENOTTY.
 *
 * LATSCOPE_IOC_GET_INFO, struct latscope_info (out)
 *	What the driver is: ABI version, structure sizes, limits, and the
 *	hrtimer resolution.
 *
 * LATSCOPE_IOC_SETUP, struct latscope_setup (in)
 *	Checks the setup, fills in its defaults, takes the source's resources
 *	(those of an earlier setup are given back first) and readies the
 *	session for START. Errors: EINVAL a field out of range or @size
 *	below LATSCOPE_SETUP_SIZE_VER0; E2BIG @size past a page, or non-zero
 *	bytes past the driver's structure; ENOMEM; EBUSY the session runs, or
 *	a GPIO line (or the device tree's lines) is in use; ENODEV no GPIO
 *	chip with that label, or no "latscope,gpio" device (with a pulse-out
 *	line, for loopback); ENXIO pulse-in cannot raise an interrupt; EPERM
 *	a GPIO source, a trace threshold or a noise run of the kernel
 *	context (DOC: noise) from a caller without CAP_SYS_ADMIN, or @why_records
 *	from one without CAP_PERFMON or CAP_SYS_ADMIN (unless the module's
 *	trusted_group parameter is set), before any other field is checked;
 *	ESHUTDOWN the device is released (the session unchanged).
 *
 * LATSCOPE_IOC_START, no argument
 *	Starts a run of the set-up session: the responder, then the source.
 *	Errors: EINVAL the session is not set up or is running (a stopped
 *	session needs a new SETUP); ENODEV the session's CPU is offline;
 *	EBUSY the module's max_running_per_cpu sessions run on that CPU;
 *	ESHUTDOWN the device is released; or the error of starting the
 *	responder kthread or the source (e.g. ENOMEM, or the request of
 *	pulse-in's interrupt).
 *
 * LATSCOPE_IOC_STOP, no argument
 *	Ends the run: read() returns EOF once every record was read, and a
 *	waiting PULSE returns ECANCELED. Errors: EINVAL if the session is not
 *	set up or was not started since its SETUP; ENODEV if the run was
 *	ended by its CPU going offline (LATSCOPE_RESULT_CPU_OFFLINE);
 *	ESHUTDOWN if it was ended by a release of the device
 *	(LATSCOPE_RESULT_RELEASED).
 *
 * LATSCOPE_IOC_GET_RESULT, struct latscope_result (in/out)
 *	The result of the session's run, with its histograms and tails if
 *	asked for. Errors: EBUSY while the session runs; EINVAL if it is not
 *	set up, or @size too short to hold @irq; ENOSPC a buffer too small
 *	(the totals, @histogram_size and @tail_size are still filled in);
 *	ENOMEM; EFAULT.
 *
 * LATSCOPE_IOC_SNAPSHOT, struct latscope_result (in/out)
 *	As GET_RESULT, but allowed while the session runs too (no EBUSY),
 *	and LATSCOPE_RESULT_SNAPSHOT is set. It adds EAGAIN: a histogram
 *	could not be copied between two samples, try again later.
 *
 * LATSCOPE_IOC_PULSE, struct latscope_pulse (in/out)
 *	The user-context responder's one call: records the answer to the
 *	previous event and waits for the next. Errors: EINTR on a signal;
 *	ECANCELED once the session stopped or a later run started (the
 *	responder should exit); EBUSY another thread is already waiting;
 *	EINVAL the session is not set up or its context is not
 *	LATSCOPE_CTX_USER (the call is for user context only), or it is a
 *	noise session.
 *
 * LATSCOPE_IOC_NOISE, struct latscope_noise_report (in)
 *	The user context's busy task hands in the runtime and the gaps of a
 *	spin (DOC: noise). Errors: EINVAL the session is not a running noise
 *	session of the user context, or a field breaks a rule of struct
 *	latscope_noise_report (nothing of the report is recorded); ESTALE
 *	it ended, or began, more than LATSCOPE_NOISE_MAX_REPORT_NS before
 *	(nothing recorded: the next may follow); EXDEV the caller is not on
 *	the session's CPU.
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
#define LATSCOPE_IOC_NOISE	_IOW(LATSCOPE_IOC_MAGIC, 7, struct latscope_noise_report)

#endif /* _UAPI_LINUX_LATSCOPE_H */
