// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the noise source (the driver's DOC: noise): what its
 * options ask of a run, its part of SETUP, and the user context's busy
 * loop, which reads CLOCK_MONOTONIC for the runtime of each period and
 * hands its gaps to the driver (LATSCOPE_IOC_NOISE). The loop takes its
 * clock and its reports as hooks, so that a test gives it its own.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "core/core.h"

/*
 * A report goes at the latest this long after its first read, sooner
 * (LS_NOISE_GAP_FLUSH_NS) when it has a gap: the driver tells a gap's
 * kind from the CPU's flight record, which keeps about a thousand
 * entries, so it is asked while they are there. The report's own time
 * is no runtime: the next spin starts after it.
 */
#define LS_NOISE_FLUSH_NS	10000000ULL	/* 10 ms */
#define LS_NOISE_GAP_FLUSH_NS	1000000ULL	/* 1 ms */

int ls_noise_check(const struct ls_params *p, char *err, size_t errlen)
{
	__u64 period = (__u64)p->period_us * 1000, runtime = (__u64)p->noise_runtime_us * 1000;

	if (p->context != LATSCOPE_CTX_KERNEL && p->context != LATSCOPE_CTX_USER) {
		ls_fail(err, errlen, "--noise: the busy task is a kernel thread (-k) or a user thread (-u), not %s",
			p->context == LATSCOPE_CTX_IRQ ? "-i" : "--gpiod");
		return -1;
	}
	if (period < LATSCOPE_NOISE_MIN_PERIOD_NS) {
		ls_fail(err, errlen, "--noise -p %u: the noise period is %llu to %llu us",
			p->period_us, LATSCOPE_NOISE_MIN_PERIOD_NS / 1000,
			LATSCOPE_MAX_PERIOD_NS / 1000);
		return -1;
	}
	if (runtime && (runtime < LATSCOPE_NOISE_MIN_RUNTIME_NS || runtime > period)) {
		ls_fail(err, errlen, "--noise-runtime %u: %llu us to the period (-p %u)",
			p->noise_runtime_us, LATSCOPE_NOISE_MIN_RUNTIME_NS / 1000, p->period_us);
		return -1;
	}
	if (p->irqs_off && p->context != LATSCOPE_CTX_KERNEL) {
		ls_fail(err, errlen, "--irqs-off: only the kernel thread (-k) reads with interrupts off");
		return -1;
	}
	if (p->irqs_off && (!runtime || runtime > period / 2 ||
			    runtime > LATSCOPE_NOISE_MAX_IRQS_OFF_NS)) {
		ls_fail(err, errlen, "--irqs-off holds the CPU's interrupts off for each runtime: give --noise-runtime of at most half the period (-p %u) and %llu us",
			p->period_us, LATSCOPE_NOISE_MAX_IRQS_OFF_NS / 1000);
		return -1;
	}
	return 0;
}

int ls_noise_setup(const struct ls_params *p, struct latscope_setup *setup, char *err,
		   size_t errlen)
{
	(void)err;
	(void)errlen;
	setup->noise.runtime_ns = (__u64)p->noise_runtime_us * 1000;
	setup->noise.threshold_ns = (__u64)p->noise_threshold_us * 1000;
	setup->noise.flags = p->irqs_off ? LATSCOPE_NOISE_IRQS_OFF : 0;
	return 0;
}

void ls_noise_setup_error(const struct ls_params *p, int error, char *err, size_t errlen)
{
	static const char kernel_thread[] =
		"--noise -k (the driver's busy thread) needs CAP_SYS_ADMIN too (-u does not)";

	switch (error) {
	case EPERM:
		snprintf(err, errlen, "%s: run as root, or load latscope with trusted_group=1",
			 p->context == LATSCOPE_CTX_KERNEL ? kernel_thread :
			 p->breaktrace_us ? "-b needs CAP_SYS_ADMIN too" :
			 "--why needs CAP_PERFMON too");
		break;
	case EINVAL:
		snprintf(err, errlen, "the driver refused the noise setup: is the CPU online, or is this latscope.ko older than --noise?");
		break;
	default:
		snprintf(err, errlen, "the driver refused the noise setup: %s", strerror(error));
		break;
	}
}

/* The report of the spin from @from to @to with its @n gaps. */
static int noise_flush(const struct ls_noise_spin *sp, struct latscope_noise_report *rep,
		       __u64 from, __u64 to, unsigned int n)
{
	int ret;

	rep->count = n;
	rep->from_ns = from;
	rep->to_ns = to;
	ret = sp->report(sp->priv, rep);
	/*
	 * Held off for over 10 s (LATSCOPE_NOISE_MAX_REPORT_NS) before it
	 * could report: the driver takes no report that old; the spin goes
	 * on from now.
	 */
	if (ret == ESTALE)
		return 0;
	/*
	 * The session no longer runs: stopped, or ended by its CPU going
	 * offline or a release, which the engine hears from the record
	 * stream and says. The reports are checked before they go: no other
	 * EINVAL is expected.
	 */
	if (ret == EINVAL) {
		atomic_store(sp->stop, true);
		return 0;
	}
	return ret;
}

/**
 * ls_noise_loop() - the user context's busy task
 * @sp: its clock, its reports, its settings
 *
 * For the runtime of each period it reads the clock; each gap of at
 * least the threshold between two reads is kept, and the spin is
 * reported in pieces (LS_NOISE_FLUSH_NS). Between the runtimes it
 * sleeps until the next period begins.
 *
 * Return: 0 once *@sp->stop is set, or the errno of a report.
 */
int ls_noise_loop(const struct ls_noise_spin *sp)
{
	struct latscope_noise_gap gaps[LATSCOPE_NOISE_MAX_GAPS];
	struct latscope_noise_report rep = { .gaps = (uintptr_t)gaps };
	__u64 start = sp->now(sp->priv), end, from, prev, t;
	unsigned int n;
	int ret;

	for (;;) {
		end = start + sp->runtime_ns;
		from = sp->now(sp->priv);
		prev = from;
		n = 0;
		while (prev < end) {
			if (atomic_load_explicit(sp->stop, memory_order_relaxed))
				return noise_flush(sp, &rep, from, prev, n);
			t = sp->now(sp->priv);
			if (t - prev >= sp->threshold_ns)
				gaps[n++] = (struct latscope_noise_gap){ prev, t };
			prev = t;
			if (n == LATSCOPE_NOISE_MAX_GAPS ||
			    prev - from >= (n ? LS_NOISE_GAP_FLUSH_NS : LS_NOISE_FLUSH_NS)) {
				ret = noise_flush(sp, &rep, from, prev, n);
				if (ret)
					return ret;
				n = 0;
				from = sp->now(sp->priv);
				prev = from;
			}
		}
		ret = noise_flush(sp, &rep, from, prev, n);
		if (ret || atomic_load(sp->stop))
			return ret;
		/*
		 * The next period; one the task ran late into keeps the rest
		 * of its runtime (the whole period's, reading without end),
		 * only periods wholly past are skipped.
		 */
		t = sp->now(sp->priv);
		start += sp->period_ns;
		if (t >= start + sp->period_ns)
			start += (t - start) / sp->period_ns * sp->period_ns;
		if (t < start)
			sp->sleep_until(sp->priv, start);
	}
}

static __u64 real_now(void *priv)
{
	(void)priv;
	return ls_now_ns();
}

static int real_report(void *priv, const struct latscope_noise_report *rep)
{
	return ioctl(*(const int *)priv, LATSCOPE_IOC_NOISE, rep) ? errno : 0;
}

static void real_sleep_until(void *priv, __u64 ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	(void)priv;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The user context's thread on the session @fd: its busy loop. */
int ls_noise_spin_fd(int fd, const struct ls_params *p, atomic_bool *stop)
{
	__u64 period = (__u64)p->period_us * 1000;
	struct ls_noise_spin sp = {
		.now = real_now,
		.report = real_report,
		.sleep_until = real_sleep_until,
		.stop = stop,
		.priv = &fd,
		.period_ns = period,
		.runtime_ns = p->noise_runtime_us ? (__u64)p->noise_runtime_us * 1000 : period,
		.threshold_ns = p->noise_threshold_us ? (__u64)p->noise_threshold_us * 1000 :
			LATSCOPE_NOISE_DEFAULT_THRESHOLD_NS,
	};

	return ls_noise_loop(&sp);
}
