// SPDX-License-Identifier: GPL-2.0
/*
 * latscope_noise: interference of known kinds, on a chosen CPU, at known
 * times, for latscope's recorder test in tests/vm. The test measures on
 * that CPU while this module disturbs it, then checks that the worst
 * samples latscope recorded name the disturbance: the function that was
 * running, or the interrupt that was. A test module, never installed.
 *
 * Once per period_ms, on CPU cpu:
 * - thread noise (thread_us > 0): the kthread "lsnoise/<cpu>", SCHED_OTHER
 *   at nice 0, spins thread_us with preemption disabled and interrupts on,
 *   in latscope_noise_spin(). An instruction pointer sampled then
 *   symbolises to latscope_noise_spin+0x...
 * - irq noise (irq_us > 0): half a period after the thread's spin, a pinned
 *   hard hrtimer raises a Linux interrupt of its own, "lsnoise", whose hard
 *   handler spins irq_us in latscope_noise_irq_spin(). No hardware: the
 *   descriptor is allocated here with the dummy irq chip and the timer's
 *   callback (hard irq) calls generic_handle_irq(), so the interrupt passes
 *   through handle_simple_irq() and the irq_handler_entry tracepoint as a
 *   device's would, and counts in /proc/interrupts.
 *
 * Both kinds keep to one grid set at load: thread spins start at
 * load + k * period, irq spins at load + (k + 1/2) * period, k >= 1; a spin
 * that comes late does not move the later ones. Each spin must fit in half
 * a period so that the two never overlap.
 *
 * thread_spins and irq_spins count the spins done, for the test to wait
 * on; the load line in the kernel log gives the irq number ("(no irq)" if
 * irq_us is 0):
 *	latscope_noise: cpu 1 period 100 ms thread 300 us irq 200 us (irq 24)
 *
 * Build: make -C $KDIR M=$PWD modules (see Kbuild).
 * The CPU is not expected to go offline while the module is loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>

#define NOISE_PERIOD_MS_MAX	10000
#define NOISE_SPIN_US_MAX	100000
/* cpu_relax() calls before the clock is first read again, to learn its rate */
#define NOISE_FIRST_BATCH	16

static unsigned int noise_cpu = 1;
module_param_named(cpu, noise_cpu, uint, 0444);
MODULE_PARM_DESC(cpu, "the CPU the noise runs on (default 1)");

static unsigned int period_ms = 100;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "one noise event of each kind per period, 1..10000 (default 100)");

static unsigned int thread_us;
module_param(thread_us, uint, 0444);
MODULE_PARM_DESC(thread_us,
		 "the kthread's spin with preemption off, 0..100000, under half a period (default 0: off)");

static unsigned int irq_us;
module_param(irq_us, uint, 0444);
MODULE_PARM_DESC(irq_us,
		 "the hard irq handler's spin, 0..100000, under half a period (default 0: off)");

static struct {
	struct task_struct *thread;	/* NULL: no thread noise */
	struct hrtimer timer;		/* raises the irq; armed if irq != 0 */
	unsigned int irq;		/* 0: no irq noise */
	ktime_t start;			/* the grid's origin */
	u64 period_ns;
	unsigned long thread_spins;	/* written by the thread only */
	unsigned long irq_spins;	/* written by the handler only */
	unsigned long thread_max_us;	/* the longest spin, as it took */
	unsigned long irq_max_us;
} noise;

/*
 * The counters are written as the spins end and read through sysfs at any
 * time: READ_ONCE() where param_get_ulong() would read plainly. They are
 * not settings: insmod refuses a value for one.
 */
static int noise_count_set(const char *val, const struct kernel_param *kp)
{
	return -EINVAL;
}

static int noise_count_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", READ_ONCE(*(unsigned long *)kp->arg));
}

static const struct kernel_param_ops noise_count_ops = {
	.set = noise_count_set,
	.get = noise_count_get,
};

module_param_cb(thread_spins, &noise_count_ops, &noise.thread_spins, 0444);
MODULE_PARM_DESC(thread_spins, "thread spins done (read-only)");
module_param_cb(irq_spins, &noise_count_ops, &noise.irq_spins, 0444);
MODULE_PARM_DESC(irq_spins, "irq handler spins done (read-only)");
module_param_cb(thread_max_us, &noise_count_ops, &noise.thread_max_us, 0444);
MODULE_PARM_DESC(thread_max_us, "the longest thread spin as it took, in us (read-only)");
module_param_cb(irq_max_us, &noise_count_ops, &noise.irq_max_us, 0444);
MODULE_PARM_DESC(irq_max_us, "the longest irq handler spin as it took, in us (read-only)");

/*
 * Keeps the CPU busy for @ns by ktime_get_ns(). latscope's irq samples the
 * instruction pointer it interrupted, which must then lie in the spin's
 * function, not in the clock's code: read at every cpu_relax(), the clock
 * would take about half the time. So it is read a few times per spin only:
 * each batch of cpu_relax() is sized, at the rate the last one ran, to
 * cover half the time left, so that an emulator slowing down mid-batch
 * (QEMU's TCG on a busy host) overshoots by little. An interrupt during
 * the last batch lengthens the spin by its own time.
 * Return: how long it spun, in ns.
 */
static __always_inline u64 noise_burn(u64 ns)
{
	u64 now = ktime_get_ns();
	u64 start = now, end = now + ns;
	u64 batch = NOISE_FIRST_BATCH;
	u64 then, i;

	for (;;) {
		for (i = 0; i < batch; i++)
			cpu_relax();
		then = now;
		now = ktime_get_ns();
		if (now >= end)
			return now - start;
		if (now == then)	/* a clock coarser than the batch */
			batch *= 2;
		else
			batch = div64_u64(batch * (end - now), 2 * (now - then)) + 1;
	}
}

/* Keeps the longest spin, in us, for the test to compare with. */
static void noise_note(unsigned long *max_us, u64 ns)
{
	unsigned long us = div_u64(ns, NSEC_PER_USEC);

	if (us > *max_us)
		WRITE_ONCE(*max_us, us);
}

/*
 * The two spins are what the recorder must name, so each keeps a function
 * and a symbol of its own: never inlined, and (__noipa) never cloned into
 * a .constprop/.isra copy nor folded into the other, whose body is the same.
 */
static noinline __noipa u64 latscope_noise_spin(u64 ns)
{
	return noise_burn(ns);
}

static noinline __noipa u64 latscope_noise_irq_spin(u64 ns)
{
	return noise_burn(ns);
}

/* The first point of the grid after @t that is not past yet. */
static ktime_t noise_next(ktime_t t)
{
	ktime_t now = ktime_get();

	do
		t = ktime_add_ns(t, noise.period_ns);
	while (ktime_before(t, now));
	return t;
}

static int noise_thread(void *unused)
{
	ktime_t next = ktime_add_ns(noise.start, noise.period_ns);

	/* kthreadd's nice is inherited; the test expects the default. */
	sched_set_normal(current, 0);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		/* Woken before the time: only kthread_stop() does that. */
		if (schedule_hrtimeout_range(&next, 0, HRTIMER_MODE_ABS))
			continue;
		preempt_disable();
		noise_note(&noise.thread_max_us,
			   latscope_noise_spin((u64)thread_us * NSEC_PER_USEC));
		preempt_enable();
		WRITE_ONCE(noise.thread_spins, noise.thread_spins + 1);
		next = noise_next(next);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static irqreturn_t noise_irq_handler(int irq, void *unused)
{
	noise_note(&noise.irq_max_us,
		   latscope_noise_irq_spin((u64)irq_us * NSEC_PER_USEC));
	WRITE_ONCE(noise.irq_spins, noise.irq_spins + 1);
	return IRQ_HANDLED;
}

/* Context: hard irq, on noise_cpu. */
static enum hrtimer_restart noise_timer_fire(struct hrtimer *timer)
{
	generic_handle_irq(noise.irq);
	hrtimer_forward_now(timer, ns_to_ktime(noise.period_ns));
	return HRTIMER_RESTART;
}

/*
 * hrtimer_setup() replaced hrtimer_init() + .function in 6.13 (and 6.15
 * dropped hrtimer_init()). Kbuild defines LATSCOPE_HAVE_HRTIMER_SETUP when
 * the kernel's hrtimer.h has it.
 */
static void noise_hrtimer_setup(struct hrtimer *timer,
				enum hrtimer_restart (*fn)(struct hrtimer *),
				clockid_t clock, enum hrtimer_mode mode)
{
#ifdef LATSCOPE_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * Called on noise_cpu: a pinned timer stays on the CPU that started it,
 * and so do its restarts.
 */
static void noise_timer_arm(void *unused)
{
	ktime_t first = ktime_add_ns(noise.start,
				     noise.period_ns + noise.period_ns / 2);

	hrtimer_start(&noise.timer, first, HRTIMER_MODE_ABS_PINNED_HARD);
}

static int __init noise_irq_create(void)
{
	int irq, ret;

	/*
	 * Not irq_alloc_desc(): it makes this module the descriptor's owner,
	 * and request_irq() takes a reference on the owner, so the module
	 * could not be unloaded while it holds the irq. From 1: irq 0 means
	 * "none" to much of the kernel.
	 */
	irq = __irq_alloc_descs(-1, 1, 1, cpu_to_node(noise_cpu), NULL, NULL);
	if (irq < 0)
		return irq;
	irq_set_chip_and_handler_name(irq, &dummy_irq_chip, handle_simple_irq,
				      "simple");
	/* Some architectures (arm, powerpc) make new descriptors unrequestable. */
	irq_clear_status_flags(irq, IRQ_NOREQUEST);
	/* IRQF_NO_THREAD: a hard handler on PREEMPT_RT and with threadirqs too. */
	ret = request_irq(irq, noise_irq_handler, IRQF_NO_THREAD, "lsnoise",
			  &noise);
	if (ret) {
		irq_free_desc(irq);
		return ret;
	}
	noise.irq = irq;
	return 0;
}

static void noise_irq_destroy(void)
{
	free_irq(noise.irq, &noise);
	irq_free_desc(noise.irq);
}

static bool __init noise_spin_fits(const char *name, unsigned int us)
{
	if (us > NOISE_SPIN_US_MAX) {
		pr_err("%s %u is out of 0..%u\n", name, us, NOISE_SPIN_US_MAX);
		return false;
	}
	if ((u64)us * 2 * NSEC_PER_USEC >= noise.period_ns) {
		pr_err("%s %u does not fit in half of period_ms %u\n", name, us,
		       period_ms);
		return false;
	}
	return true;
}

static int __init latscope_noise_init(void)
{
	struct task_struct *t;
	int ret;

	if (noise_cpu >= nr_cpu_ids || !cpu_online(noise_cpu)) {
		pr_err("cpu %u is not online\n", noise_cpu);
		return -EINVAL;
	}
	if (period_ms < 1 || period_ms > NOISE_PERIOD_MS_MAX) {
		pr_err("period_ms %u is out of 1..%u\n", period_ms,
		       NOISE_PERIOD_MS_MAX);
		return -EINVAL;
	}
	noise.period_ns = (u64)period_ms * NSEC_PER_MSEC;
	if (!noise_spin_fits("thread_us", thread_us) ||
	    !noise_spin_fits("irq_us", irq_us))
		return -EINVAL;

	if (irq_us) {
		ret = noise_irq_create();
		if (ret) {
			pr_err("no irq: %d\n", ret);
			return ret;
		}
		noise_hrtimer_setup(&noise.timer, noise_timer_fire,
				    CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	}

	noise.start = ktime_get();
	if (thread_us) {
		t = kthread_create_on_node(noise_thread, NULL,
					   cpu_to_node(noise_cpu), "lsnoise/%u",
					   noise_cpu);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			pr_err("no thread: %d\n", ret);
			goto err_irq;
		}
		kthread_bind(t, noise_cpu);
		noise.thread = t;
		wake_up_process(t);
	}

	if (irq_us) {
		ret = smp_call_function_single(noise_cpu, noise_timer_arm, NULL,
					       1);
		if (ret) {
			pr_err("cannot arm the timer on cpu %u: %d\n", noise_cpu,
			       ret);
			goto err_thread;
		}
	}

	if (irq_us)
		pr_info("cpu %u period %u ms thread %u us irq %u us (irq %u)\n",
			noise_cpu, period_ms, thread_us, irq_us, noise.irq);
	else
		pr_info("cpu %u period %u ms thread %u us irq %u us (no irq)\n",
			noise_cpu, period_ms, thread_us, irq_us);
	return 0;

err_thread:
	if (noise.thread)
		kthread_stop(noise.thread);
err_irq:
	if (irq_us)
		noise_irq_destroy();
	return ret;
}

static void __exit latscope_noise_exit(void)
{
	/* The timer first: it raises the irq. */
	if (irq_us)
		hrtimer_cancel(&noise.timer);
	if (noise.thread)
		kthread_stop(noise.thread);
	if (irq_us)
		noise_irq_destroy();
}

module_init(latscope_noise_init);
module_exit(latscope_noise_exit);

MODULE_DESCRIPTION("latscope's test noise: known interference for the recorder's test; never to be installed");
MODULE_LICENSE("GPL");
