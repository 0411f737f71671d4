// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the application's path, a session without the driver.
 * A SCHED_FIFO thread on the measured CPU holds pulse-in (edge events)
 * and ack-out (an output) through the GPIO character device, as any
 * real-time application on libgpiod does, waits for each edge and answers
 * on ack-out. Per event it has three times: the kernel's stamp of the edge
 * (hard irq), the moment the thread has the event in hand, and the moment
 * the ack is written. Its figures are the local split: edge to ack written
 * (the latency) and edge to thread running (the irq part), kept as the
 * driver keeps its own; one record a second goes to the logger through a
 * pipe, as the driver's do through its file.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/gpiod_compat.h"
#include "run/engine.h"

#define NSEC_PER_SEC	1000000000ULL
#define MAX_EVENTS	16

struct gpiod_session {
	struct ls_gpiod_line *in, *ack;
	int wake[2];			/* main -> thread: stop */
	int rec[2];			/* thread -> logger: records; the thread closes [1] */
	pthread_t thread;
	bool has_thread;
	int thread_err;			/* what ended the thread, 0: the stop */
	bool pulse;			/* latmus's ack pulse, else one toggle */
	int level;			/* ack-out now */
	struct ls_irq_thread irqt;
	int nr_irqs;			/* with the pulse label, new with our request */
	int irq_prio;			/* --irq-prio, 0: leave it */
	int raise_err;			/* errno of the raise, 0 */
	int restore_err;		/* errno of the give-back, 0 */
	/* The figures: the thread writes them, a snapshot reads them by @seq. */
	atomic_uint seq;
	struct ls_acc lat, irq;
	__u64 events, acks, start_ns, warmup_end, dropped;
	/* The second being filled, from 0 past the warm-up. */
	struct latscope_bulk cur;
	__s64 cur_sum;
};

/* ---- opening: the lines, the interrupt, the buffers ---- */

/* Why a request failed, for the user: "pulse-in gpiochip0,3: ..." */
void ls_gpiod_request_error(const char *role, const struct ls_gpio_spec *spec, int error,
			    char *err, size_t errlen)
{
	struct latscope_gpio_line line;

	switch (error) {
	case EBUSY:
		/* Who holds it, if it still does. */
		if (ls_gpio_resolve(role, spec, &line, err, errlen))
			return;
		ls_fail(err, errlen, "%s %s: line busy", role, spec->spec);
		break;
	case ENXIO:
	case ENODEV:
		ls_fail(err, errlen, "%s %s cannot raise an interrupt: give a line whose chip has one",
			role, spec->spec);
		break;
	case ENOSYS:
		ls_fail(err, errlen, "%s %s: this latscope was built without libgpiod: install libgpiod-dev and rebuild (or use -k or -u, the driver's responders)",
			role, spec->spec);
		break;
	default:
		ls_fail(err, errlen, "%s %s: cannot request the line: %s", role, spec->spec,
			strerror(error));
		break;
	}
}

/* The interrupt our pulse-in request got: the one named for it that was not before. */
static void find_irq(struct gpiod_session *g, const int *before, int nr_before)
{
	int after[16], n, i, j, irq = -1;

	g->nr_irqs = 0;
	n = ls_irqs_named("/proc", LS_GPIOD_PULSE_LABEL, after, 16);
	for (i = 0; i < n && i < 16; i++) {
		for (j = 0; j < nr_before && j < 16 && before[j] != after[i]; j++)
			;
		if (j < nr_before && j < 16)
			continue;
		irq = after[i];
		g->nr_irqs++;
	}
	if (g->nr_irqs != 1) {
		g->irqt.irq = -1;
		return;
	}
	ls_irq_thread_find("/proc", irq, LS_GPIOD_PULSE_LABEL, &g->irqt);
}

static int alloc_figures(struct gpiod_session *g, unsigned int cells)
{
	struct ls_acc *acc[2] = { &g->lat, &g->irq };
	int i;

	for (i = 0; i < 2; i++) {
		acc[i]->nr_cells = cells;
		acc[i]->cell_ns = LATSCOPE_DEFAULT_CELL_NS;
		acc[i]->cells = calloc(cells, sizeof(__u64));
		acc[i]->tail = calloc(LATSCOPE_TAIL_BUCKETS, sizeof(__u64));
		if (!acc[i]->cells || !acc[i]->tail)
			return -1;
	}
	return 0;
}

static int gpiod_open(struct cpu_run *c, char *err, size_t errlen)
{
	const struct ls_params *p = c->p;
	struct latscope_gpio_line line;
	struct gpiod_session *g;
	int before[16], nr_before;

	g = calloc(1, sizeof(*g));
	if (!g) {
		ls_fail(err, errlen, "out of memory for the GPIO responder");
		return -1;
	}
	c->priv = g;
	g->wake[0] = -1;
	g->wake[1] = -1;
	g->rec[0] = -1;
	g->rec[1] = -1;
	atomic_init(&g->seq, 0);
	g->irqt.irq = -1;
	g->irq_prio = p->irq_thread_prio;
	/* Chip, offset and holder first: they make the clearest messages. */
	if (ls_gpio_resolve("pulse-in", &p->pulse_in, &line, err, errlen) ||
	    ls_gpio_resolve("ack-out", &p->ack_out, &line, err, errlen))
		return -1;
	if (alloc_figures(g, p->hist_cells) || pipe2(g->wake, O_CLOEXEC | O_NONBLOCK) ||
	    pipe2(g->rec, O_CLOEXEC | O_NONBLOCK)) {
		ls_fail(err, errlen, "cannot set up the GPIO responder: %s", strerror(errno));
		return -1;
	}
	nr_before = ls_irqs_named("/proc", LS_GPIOD_PULSE_LABEL, before, 16);
	g->in = ls_gpiod_request_events(p->pulse_in.dev, p->pulse_in.offset, p->gpio_edge,
					LS_GPIOD_PULSE_LABEL);
	if (!g->in) {
		ls_gpiod_request_error("pulse-in", &p->pulse_in, errno, err, errlen);
		return -1;
	}
	/* Between answers ack-out idles high for latmus's pulse, low to toggle. */
	g->pulse = ls_ack_pulse(p);
	g->level = g->pulse;
	g->ack = ls_gpiod_request_output(p->ack_out.dev, p->ack_out.offset, g->level,
					 LS_GPIOD_ACK_LABEL);
	if (!g->ack) {
		ls_gpiod_request_error("ack-out", &p->ack_out, errno, err, errlen);
		return -1;
	}
	find_irq(g, before, nr_before);
	c->fd = g->rec[0];
	return 0;
}

/* ---- the responder thread ---- */

/*
 * Sends the second being filled to the logger (a full pipe drops it,
 * counted), and starts filling second @next.
 */
static void send_second(struct gpiod_session *g, __u64 next)
{
	if (g->cur.samples || g->cur.overruns) {
		g->cur.avg_ns = g->cur.samples ? g->cur_sum / (__s64)g->cur.samples : 0;
		if (write(g->rec[1], &g->cur, sizeof(g->cur)) != (ssize_t)sizeof(g->cur)) {
			atomic_fetch_add_explicit(&g->seq, 1, memory_order_relaxed);
			atomic_thread_fence(memory_order_release);
			g->dropped++;
			atomic_fetch_add_explicit(&g->seq, 1, memory_order_release);
		}
	}
	memset(&g->cur, 0, sizeof(g->cur));
	g->cur_sum = 0;
	g->cur.second = next;
}

/* The second (from 0 past the warm-up) of time @t, which is past it. */
static __u64 second_of(const struct gpiod_session *g, __u64 t)
{
	return (t - g->warmup_end) / NSEC_PER_SEC;
}

/* One answered event: its sample in the figures and in its second's record. */
static void count(struct gpiod_session *g, __u64 edge, __u64 running, __u64 acked)
{
	__s64 lat = (__s64)(acked - edge), wake = (__s64)(running - edge);
	__u64 sec = second_of(g, edge);

	/* An edge of a second already sent (read late) counts in this one. */
	if (sec > g->cur.second)
		send_second(g, sec);
	atomic_fetch_add_explicit(&g->seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	g->events++;
	g->acks++;
	ls_acc_add(&g->lat, lat, edge);
	ls_acc_add(&g->irq, wake, edge);
	atomic_fetch_add_explicit(&g->seq, 1, memory_order_release);
	if (!g->cur.samples || lat < g->cur.min_ns)
		g->cur.min_ns = lat;
	if (!g->cur.samples || lat > g->cur.max_ns)
		g->cur.max_ns = lat;
	g->cur.samples++;
	g->cur_sum += lat;
}

/* Answers one edge on ack-out: the time the answer is written, or 0 on failure. */
static __u64 answer(struct gpiod_session *g)
{
	__u64 acked;

	if (g->pulse) {
		if (ls_gpiod_set(g->ack, 0))
			return 0;
		acked = ls_now_ns();
		if (ls_gpiod_set(g->ack, 1))
			return 0;
		return acked;
	}
	g->level = !g->level;
	if (ls_gpiod_set(g->ack, g->level))
		return 0;
	return ls_now_ns();
}

/* How long poll() may wait: until the second being filled is over. */
static int wait_ms(const struct gpiod_session *g, __u64 now)
{
	__u64 end;

	if (!g->cur.samples || now < g->warmup_end)
		return 1000;
	end = g->warmup_end + (g->cur.second + 1) * NSEC_PER_SEC;
	return now >= end ? 0 : (int)((end - now) / 1000000 + 1);
}

static void *responder(void *arg)
{
	struct gpiod_session *g = arg;
	struct ls_gpiod_event ev[MAX_EVENTS];
	struct pollfd pfd[2] = {
		{ .fd = ls_gpiod_fd(g->in), .events = POLLIN },
		{ .fd = g->wake[0], .events = POLLIN },
	};
	__u64 running, acked, now;
	int n, i;

	for (;;) {
		now = ls_now_ns();
		if (g->cur.samples && now >= g->warmup_end &&
		    second_of(g, now) > g->cur.second)
			send_second(g, second_of(g, now));
		n = poll(pfd, 2, wait_ms(g, now));
		if (n < 0 && errno != EINTR) {
			g->thread_err = errno;
			break;
		}
		if (n <= 0)
			continue;
		if (pfd[1].revents)
			break;
		if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			g->thread_err = ENODEV;	/* the chip went away */
			break;
		}
		n = ls_gpiod_read(g->in, ev, MAX_EVENTS);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			g->thread_err = errno;
			break;
		}
		/* The thread runs with its events in hand. */
		running = ls_now_ns();
		for (i = 0; i < n; i++) {
			acked = answer(g);
			if (!acked) {
				g->thread_err = errno ? errno : EIO;
				goto out;
			}
			if (ev[i].ts_ns >= g->warmup_end)
				count(g, ev[i].ts_ns, running, acked);
		}
	}
out:
	send_second(g, 0);
	close(g->rec[1]);
	g->rec[1] = -1;
	return NULL;
}

static int gpiod_start(struct cpu_run *c, char *err, size_t errlen)
{
	struct gpiod_session *g = c->priv;
	const struct ls_params *p = c->p;
	cpu_set_t one;
	int e;

	if (g->irq_prio && g->irqt.pid && ls_irq_thread_raise(&g->irqt, g->irq_prio))
		g->raise_err = errno;
	g->start_ns = ls_now_ns();
	g->warmup_end = g->start_ns + LATSCOPE_DEFAULT_WARMUP_NS;
	CPU_ZERO(&one);
	CPU_SET(c->cpu, &one);
	e = ls_start_thread(&g->thread, responder, g, SCHED_FIFO, p->priority, &one);
	if (e) {
		ls_fail(err, errlen, "cannot start the SCHED_FIFO %d GPIO responder on CPU%d: %s",
			p->priority, c->cpu,
			e == EPERM ? "not allowed (run as root or raise RLIMIT_RTPRIO)" :
			strerror(e));
		return -1;
	}
	g->has_thread = true;
	c->started = true;
	return 0;
}

/* The IRQ thread's old scheduling back, while it still exists (it goes with the line). */
static void give_back(struct gpiod_session *g)
{
	if (g->irqt.raised && ls_irq_thread_restore(&g->irqt))
		g->restore_err = errno;
}

static int gpiod_stop(struct cpu_run *c, char *err, size_t errlen)
{
	struct gpiod_session *g = c->priv;
	char one = 1;

	if (!g->has_thread)
		return 0;
	if (write(g->wake[1], &one, 1) < 0)
		ls_fail(err, errlen, "cannot stop the GPIO responder: %s", strerror(errno));
	pthread_join(g->thread, NULL);
	g->has_thread = false;
	give_back(g);
	if (g->thread_err) {
		ls_fail(err, errlen, "the GPIO responder on CPU%d failed: %s", c->cpu,
			g->thread_err == ENODEV ? "its GPIO chip went away" :
			strerror(g->thread_err));
		return -1;
	}
	return 0;
}

/* ---- results ---- */

/*
 * The IRQ thread, as the output names it: found, raised and given back,
 * or why not.
 */
static void irq_note(const struct gpiod_session *g, char *buf, size_t len)
{
	size_t n;

	if (g->irqt.irq < 0)
		n = snprintf(buf, len, g->nr_irqs ?
			     "%d interrupts named " LS_GPIOD_PULSE_LABEL ", not telling which is pulse-in's"
			     : "no interrupt named " LS_GPIOD_PULSE_LABEL " in /proc/irq",
			     g->nr_irqs);
	else if (g->irqt.ambiguous)
		n = snprintf(buf, len, "irq %d, two kernel threads named for it: none raised",
			     g->irqt.irq);
	else if (!g->irqt.pid)
		n = snprintf(buf, len, "irq %d, not threaded: its edges are delivered in hard irq or in its parent interrupt's thread",
			     g->irqt.irq);
	else
		n = snprintf(buf, len, "irq %d delivered by thread %s (pid %d)", g->irqt.irq,
			     g->irqt.comm, g->irqt.pid);
	if (n >= len || !g->irq_prio)
		return;
	if (g->irqt.restored)
		snprintf(buf + n, len - n, ", at SCHED_FIFO %d for the run, then given back its %s %d",
			 g->irq_prio, g->irqt.old_policy == SCHED_FIFO ? "SCHED_FIFO" :
			 g->irqt.old_policy == SCHED_OTHER ? "SCHED_OTHER" : "policy",
			 g->irqt.old_prio);
	else if (g->raise_err || !g->irqt.pid)
		snprintf(buf + n, len - n, "; --irq-prio %d: %s", g->irq_prio,
			 g->irqt.pid ? strerror(g->raise_err) : "no thread to raise");
	else if (g->restore_err)
		snprintf(buf + n, len - n, ", at SCHED_FIFO %d for the run; giving it back failed: %s",
			 g->irq_prio, strerror(g->restore_err));
}

static void export(const struct gpiod_session *g, const struct cpu_run *c,
		   struct ls_cpu_result *out, unsigned int cells)
{
	const struct ls_params *p = c->p;
	struct latscope_result *res = &out->res;
	struct latscope_gpio_result *gr = &res->gpio;

	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	res->context = p->context;
	res->cpu = (__u32)c->cpu;
	res->period_ns = (__u64)ls_period_us(p) * 1000;
	res->hist_cells = cells;
	res->hist_cell_ns = LATSCOPE_DEFAULT_CELL_NS;
	res->hist_count = 2;
	res->priority = (__u32)p->priority;
	res->warmup_ns = LATSCOPE_DEFAULT_WARMUP_NS;
	res->start_ns = g->start_ns;
	res->events = g->events;
	res->bulk_dropped = g->dropped;
	res->latency = g->lat.st;
	res->irq = g->irq.st;
	res->tail_buckets = LATSCOPE_TAIL_BUCKETS;
	res->tail_sub_bits = LATSCOPE_TAIL_SUB_BITS;
	memcpy(out->cells, g->lat.cells, cells * sizeof(__u64));
	memcpy(out->cells + cells, g->irq.cells, cells * sizeof(__u64));
	memcpy(out->tail, g->lat.tail, LATSCOPE_TAIL_BUCKETS * sizeof(__u64));
	memcpy(out->tail + LATSCOPE_TAIL_BUCKETS, g->irq.tail,
	       LATSCOPE_TAIL_BUCKETS * sizeof(__u64));
	out->has_tail = true;
	irq_note(g, out->path_note, sizeof(out->path_note));
	gr->acks = g->acks;
	gr->edge = p->gpio_edge;
	gr->irq = g->irqt.irq;
	gr->irq_thread_pid = g->irqt.pid;
	snprintf(gr->irq_thread_comm, sizeof(gr->irq_thread_comm), "%.15s", g->irqt.comm);
	gr->paths = g->irqt.pid ? LATSCOPE_GPIO_IN_THREAD : 0;
	if (g->irqt.was_raised) {
		gr->paths |= LATSCOPE_GPIO_THREAD_RAISED;
		gr->irq_thread_policy = (__u32)g->irqt.old_policy;
		gr->irq_thread_rtprio = (__u32)g->irqt.old_prio;
	}
}

/*
 * The figures into @out: once the thread ended, or while it runs (a
 * snapshot), copied between two even, equal counts of @seq so that no
 * sample is half in; EAGAIN if the thread kept adding.
 */
static int gpiod_result(struct cpu_run *c, struct ls_cpu_result *out, unsigned int cells,
			bool snapshot)
{
	struct gpiod_session *g = c->priv;
	unsigned int before;
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		before = atomic_load_explicit(&g->seq, memory_order_acquire);
		if (before & 1)
			continue;
		export(g, c, out, cells);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&g->seq, memory_order_relaxed) == before) {
			if (snapshot)
				out->res.flags |= LATSCOPE_RESULT_SNAPSHOT;
			return 0;
		}
	}
	return -EAGAIN;
}

static void gpiod_close(struct cpu_run *c)
{
	struct gpiod_session *g = c->priv;
	int i;

	if (!g)
		return;
	give_back(g);
	ls_gpiod_release(g->in);
	ls_gpiod_release(g->ack);
	for (i = 0; i < 2; i++) {
		if (g->wake[i] >= 0)
			close(g->wake[i]);
		if (g->rec[i] >= 0)
			close(g->rec[i]);
	}
	free(g->lat.cells);
	free(g->lat.tail);
	free(g->irq.cells);
	free(g->irq.tail);
	free(g);
	c->priv = NULL;
	c->fd = -1;
}

const struct ls_session_ops ls_gpiod_session = {
	.open = gpiod_open,
	.start = gpiod_start,
	.stop = gpiod_stop,
	.result = gpiod_result,
	.close = gpiod_close,
};
