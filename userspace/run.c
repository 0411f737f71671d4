// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: one run. Opens a session per measured CPU, starts a
 * SCHED_FIFO responder per CPU (user context) and one SCHED_OTHER logger
 * that prints a RTD line per second, waits for the end in one place
 * (timeout, Ctrl-C, SIGTERM, SIGHUP, -A, -b), then stops everything and
 * collects the results. Every way out goes through the same teardown.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latscope.h"

#define DEVICE		"/dev/latscope"
#define QUEUE_LEN	64

struct cpu_run {
	int cpu;
	int fd;
	bool isolated;
	bool started;
	bool has_responder;
	pthread_t responder;
	int responder_err;
	/* Logger side: records read but not printed yet. */
	bool eof;
	struct latscope_bulk queue[QUEUE_LEN];
	int queued;
};

struct run {
	const struct ls_params *p;
	int nr;
	struct cpu_run *cpus;
	time_t start;
	__u64 stopped_ns;		/* CLOCK_MONOTONIC at the stop */
	char cpu_list[256];
	bool all_isolated;
	atomic_int exit_code;		/* set by the logger: -A, -b, weird */
	atomic_bool stopping;		/* the main thread is stopping the run */
	struct ls_timeline *timeline;	/* the logger's until it is joined */
	pthread_mutex_t tl_lock;	/* timeline: logger vs checkpoint */
	struct ls_report snap;		/* --checkpoint's copy of the run */
	bool snap_off;			/* the driver cannot take snapshots */
	/* Logger figures, in ns. */
	unsigned long long rounds;
	unsigned long long overruns;
	__s64 best, worst;
};

/* ---- logger ---- */

/* Asks the main thread to end the run with @code. */
static void request_stop(struct run *run, int code)
{
	int none = LS_EXIT_OK;

	if (atomic_compare_exchange_strong(&run->exit_code, &none, code))
		kill(getpid(), SIGUSR1);
}

static void print_header(struct run *run)
{
	const struct ls_params *p = run->p;
	time_t now = time(NULL);
	unsigned long long elapsed = now > run->start + 1 ? now - run->start - 1 : 0;
	char line[256];

	ls_fmt_rtt(line, sizeof(line), elapsed, ls_run_context(p),
		   p->gpio && !p->pulse_out.given ? 0 : p->period_us, p->context == LATSCOPE_CTX_IRQ ? 0 : p->priority,
		   run->cpu_list, run->all_isolated);
	fputs(line, stdout);
	ls_fmt_rth(line, sizeof(line));
	fputs(line, stdout);
}

/* One second, all CPUs merged: a RTD line and the checks on it. */
static void log_second(struct run *run, const struct latscope_bulk *b)
{
	const struct ls_params *p = run->p;
	char line[256];
	bool weird;

	ls_merge_extremes(&run->best, &run->worst, !run->rounds, b->min_ns, b->max_ns);
	run->overruns += b->overruns;
	weird = b->min_ns > b->max_ns || b->min_ns > b->avg_ns ||
		b->avg_ns > b->max_ns || b->max_ns > run->worst ||
		run->best > run->worst;
	if (p->verbosity > 0 || weird) {
		if (p->lines ? run->rounds % p->lines == 0 : run->rounds == 0)
			print_header(run);
		ls_fmt_rtd(line, sizeof(line), ls_us(b->min_ns), ls_us(b->avg_ns),
			   ls_us(b->max_ns), run->overruns, ls_us(run->best),
			   ls_us(run->worst));
		fputs(line, stdout);
		fflush(stdout);
	}
	run->rounds++;
	if (weird) {
		fprintf(stderr, "results look weird, aborting.\n");
		request_stop(run, LS_EXIT_WEIRD);
	} else if (p->abort_us && b->max_ns > (__s64)p->abort_us * 1000) {
		fprintf(stderr, "latency threshold is exceeded (%u >= %.3f), aborting.\n",
			p->abort_us, ls_us(b->max_ns));
		request_stop(run, LS_EXIT_ABORT);
	} else if (p->breaktrace_us && b->max_ns > (__s64)p->breaktrace_us * 1000) {
		request_stop(run, LS_EXIT_BREAKTRACE);
	}
}

/*
 * Prints every second all CPUs have reported (or that is the oldest left
 * once a CPU reached its end of stream), merging the CPUs' records.
 */
static void log_ready_seconds(struct run *run, bool drain)
{
	struct latscope_bulk m;
	__s64 sum;
	int i, j;

	for (;;) {
		__u64 second = UINT64_MAX;
		bool any = false;

		for (i = 0; i < run->nr; i++) {
			struct cpu_run *c = &run->cpus[i];

			if (!c->queued) {
				if (!c->eof && !drain)
					return;	/* wait for this CPU */
				continue;
			}
			any = true;
			if (c->queue[0].second < second)
				second = c->queue[0].second;
		}
		if (!any)
			return;
		memset(&m, 0, sizeof(m));
		m.second = second;
		sum = 0;
		for (i = 0; i < run->nr; i++) {
			struct cpu_run *c = &run->cpus[i];
			const struct latscope_bulk *b = &c->queue[0];

			if (!c->queued || b->second != second)
				continue;
			if (b->samples)
				ls_merge_extremes(&m.min_ns, &m.max_ns, !m.samples,
						  b->min_ns, b->max_ns);
			sum += b->avg_ns * (__s64)b->samples;
			m.samples += b->samples;
			m.overruns += b->overruns;
			for (j = 1; j < c->queued; j++)
				c->queue[j - 1] = c->queue[j];
			c->queued--;
		}
		m.avg_ns = m.samples ? sum / (__s64)m.samples : 0;
		pthread_mutex_lock(&run->tl_lock);
		ls_timeline_add(run->timeline, &m);
		pthread_mutex_unlock(&run->tl_lock);
		if (m.samples)
			log_second(run, &m);
		else
			run->overruns += m.overruns;
	}
}

static void *logger_fn(void *arg)
{
	struct run *run = arg;
	struct pollfd pfd[CPU_SETSIZE];
	struct latscope_bulk rec[8];
	int i, k, open_streams;
	ssize_t n;

	for (;;) {
		open_streams = 0;
		for (i = 0; i < run->nr; i++) {
			pfd[i].fd = run->cpus[i].eof ? -1 : run->cpus[i].fd;
			pfd[i].events = POLLIN;
			open_streams += !run->cpus[i].eof;
		}
		if (!open_streams)
			break;
		if (poll(pfd, run->nr, 1000) < 0 && errno != EINTR)
			break;
		for (i = 0; i < run->nr; i++) {
			struct cpu_run *c = &run->cpus[i];

			if (c->eof || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(c->fd, rec, sizeof(rec));
			if (n <= 0) {
				if (n == 0 || (errno != EAGAIN && errno != EINTR))
					c->eof = true;
				/* A session that ends by itself lost its CPU. */
				if (c->eof && !atomic_load(&run->stopping))
					request_stop(run, LS_EXIT_RUNTIME);
				continue;
			}
			for (k = 0; k < n / (ssize_t)sizeof(rec[0]); k++) {
				if (c->queued == QUEUE_LEN)
					log_ready_seconds(run, true);
				c->queue[c->queued++] = rec[k];
			}
		}
		log_ready_seconds(run, false);
	}
	log_ready_seconds(run, true);
	return NULL;
}

/* ---- responder ---- */

static void *responder_fn(void *arg)
{
	struct cpu_run *c = arg;
	struct latscope_pulse pulse = { 0 };

	for (;;) {
		if (ioctl(c->fd, LATSCOPE_IOC_PULSE, &pulse)) {
			if (errno == EINTR)
				continue;
			c->responder_err = errno == ECANCELED ? 0 : errno;
			return NULL;
		}
		/* The stamp that measures this event, as soon as we run. */
		pulse.stamp_ns = ls_now_ns();
	}
}

static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg,
			int policy, int prio, const cpu_set_t *cpus)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t attr;
	int ret;

	pthread_attr_init(&attr);
	/* mlockall() pins every stack: keep them small. */
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, policy);
	pthread_attr_setschedparam(&attr, &sp);
	if (cpus && CPU_COUNT(cpus))
		pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	ret = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return ret;
}

/* ---- the load ---- */

/* Stops the load (once) and says if a command of it ended on its own. */
static void stop_load(struct ls_stress *st)
{
	int i;

	if (!st->running)
		return;
	ls_stress_stop(st);
	for (i = 0; i < st->ncmds && st->alive_at_stop < st->ncmds; i++)
		if (!WIFSIGNALED(st->status[i]) ||
		    (WTERMSIG(st->status[i]) != SIGTERM && WTERMSIG(st->status[i]) != SIGKILL))
			fprintf(stderr, "latscope: the load command '%s' ended during the run (%s %d): part of the run was not under load\n",
				st->cmd[i], WIFSIGNALED(st->status[i]) ? "signal" : "exit status",
				WIFSIGNALED(st->status[i]) ? WTERMSIG(st->status[i]) :
				WEXITSTATUS(st->status[i]));
}

/* ---- sessions ---- */

/* Refuses a driver this latscope cannot talk to, naming both versions. */
int ls_check_driver(const struct latscope_info *info, bool gpio, char *err,
		    size_t errlen)
{
	if (info->abi_version != LATSCOPE_ABI_VERSION) {
		ls_fail(err, errlen, "the loaded driver %.32s speaks ABI %u, this latscope needs %u: load the matching latscope.ko",
			info->version, info->abi_version, LATSCOPE_ABI_VERSION);
		return -1;
	}
	if (gpio && info->setup_size < sizeof(struct latscope_setup)) {
		ls_fail(err, errlen, "the loaded driver %.32s has no GPIO source (setup size %u, need %zu): load the matching latscope.ko",
			info->version, info->setup_size, sizeof(struct latscope_setup));
		return -1;
	}
	return 0;
}

static int open_session(struct cpu_run *c, const struct ls_params *p,
			char *err, size_t errlen)
{
	struct latscope_info info;
	struct latscope_setup setup = {
		.size = sizeof(setup),
		.context = p->context,
		.period_ns = (__u64)p->period_us * 1000,
		.cpu = (__u32)c->cpu,
		.priority = (__u32)p->priority,
		.hist_cells = p->hist_cells,
		.hist_cell_ns = LATSCOPE_DEFAULT_CELL_NS,
		.trace_threshold_ns = (__u64)p->breaktrace_us * 1000,
	};

	c->fd = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		if (errno == ENOENT)
			ls_fail(err, errlen, "no %s: load the driver first (modprobe latscope, or insmod latscope.ko)", DEVICE);
		else if (errno == EACCES || errno == EPERM)
			ls_fail(err, errlen, "no permission to open %s: run as root, or grant a group access (see README)", DEVICE);
		else
			ls_fail(err, errlen, "cannot open %s: %s", DEVICE, strerror(errno));
		return -1;
	}
	if (ioctl(c->fd, LATSCOPE_IOC_GET_INFO, &info)) {
		ls_fail(err, errlen, "%s does not answer GET_INFO (%s): is it the latscope driver?",
			DEVICE, strerror(errno));
		return -1;
	}
	if (ls_check_driver(&info, p->gpio, err, errlen))
		return -1;
	if (p->gpio && ls_gpio_setup(p, &setup, err, errlen))
		return -1;
	if (ioctl(c->fd, LATSCOPE_IOC_SETUP, &setup)) {
		if (p->gpio)
			ls_gpio_setup_error(p, errno, err, errlen);
		else
			ls_fail(err, errlen, "the driver refused the setup for CPU%d: %s", c->cpu,
				errno == EINVAL ? "is that CPU online?" : strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The counters of one CPU's result, in one block that free(out->cells)
 * frees: two histograms of @cells, then two tails.
 */
static int result_alloc(struct ls_cpu_result *out, unsigned int cells)
{
	out->cells = calloc(2 * ((size_t)cells + LATSCOPE_TAIL_BUCKETS), sizeof(__u64));
	out->tail = out->cells ? out->cells + 2 * (size_t)cells : NULL;
	return out->cells ? 0 : -1;
}

/* GET_RESULT or SNAPSHOT (@cmd) into @out, allocated by result_alloc(). */
static int read_result(struct cpu_run *c, struct ls_cpu_result *out, unsigned int cells,
		       unsigned long cmd)
{
	struct latscope_result *res = &out->res;

	out->cpu = c->cpu;
	out->isolated = c->isolated;
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	res->histogram = (uintptr_t)out->cells;
	res->histogram_size = 2 * (size_t)cells * sizeof(__u64);
	res->tail = (uintptr_t)out->tail;
	res->tail_size = 2 * (size_t)LATSCOPE_TAIL_BUCKETS * sizeof(__u64);
	if (ioctl(c->fd, cmd, res))
		return -errno;
	/* A driver older than the tail says so by its size, and fills none. */
	out->has_tail = res->size >= LATSCOPE_RESULT_SIZE_VER1 &&
			res->tail_buckets == LATSCOPE_TAIL_BUCKETS &&
			res->tail_sub_bits == LATSCOPE_TAIL_SUB_BITS;
	return 0;
}

static int collect(struct cpu_run *c, struct ls_cpu_result *out, unsigned int cells,
		   char *err, size_t errlen)
{
	int ret;

	if (result_alloc(out, cells)) {
		ls_fail(err, errlen, "out of memory for CPU%d's histogram", c->cpu);
		return -1;
	}
	ret = read_result(c, out, cells, LATSCOPE_IOC_GET_RESULT);
	if (ret) {
		ls_fail(err, errlen, "cannot read CPU%d's result: %s", c->cpu, strerror(-ret));
		free(out->cells);
		out->cells = NULL;
		out->tail = NULL;
	}
	return ret;
}

/* The merged histogram of @r and its tail, in one block: total_cells. */
static __u64 *report_totals_alloc(struct ls_report *r, unsigned int cells)
{
	r->total_cells = calloc((size_t)cells + LATSCOPE_TAIL_BUCKETS, sizeof(__u64));
	r->total_tail = r->total_cells ? r->total_cells + cells : NULL;
	return r->total_cells;
}

/* Frees the buffers of @r: its CPUs' histograms, totals and timeline. */
void ls_report_free(struct ls_report *r)
{
	int i;

	for (i = 0; r->cpu && i < r->nr_cpus; i++)
		free(r->cpu[i].cells);
	free(r->cpu);
	free(r->total_cells);
	free(r->timeline);
	r->cpu = NULL;
	r->total_cells = NULL;
	r->total_tail = NULL;
	r->timeline = NULL;
	r->nr_cpus = 0;
}

/* ---- checkpoints ---- */

/* Totals of @r's CPUs, and the measured time up to @stopped_ns. */
static void fill_report(struct ls_report *r, __u64 stopped_ns)
{
	unsigned int n = r->params->hist_cells;
	__u64 warmup_end;
	int i;

	memset(&r->total, 0, sizeof(r->total));
	memset(&r->total_irq, 0, sizeof(r->total_irq));
	memset(r->total_cells, 0, n * sizeof(*r->total_cells));
	memset(r->total_tail, 0, LATSCOPE_TAIL_BUCKETS * sizeof(*r->total_tail));
	r->total_overruns = 0;
	r->total_dropped = 0;
	r->has_tail = r->nr_cpus > 0;
	for (i = 0; i < r->nr_cpus; i++) {
		const struct latscope_result *res = &r->cpu[i].res;

		ls_merge_stats(&r->total, &res->latency);
		ls_merge_stats(&r->total_irq, &res->irq);
		ls_merge_cells(r->total_cells, r->cpu[i].cells, n);
		ls_merge_cells(r->total_tail, r->cpu[i].tail, LATSCOPE_TAIL_BUCKETS);
		r->has_tail &= r->cpu[i].has_tail;
		r->total_overruns += res->overruns;
		r->total_dropped += res->bulk_dropped;
	}
	r->ended = time(NULL);
	r->duration_ns = 0;
	r->peak_s = 0;
	for (i = 0; i < r->nr_cpus; i++) {
		const struct latscope_result *res = &r->cpu[i].res;

		warmup_end = res->start_ns + res->warmup_ns;
		if (stopped_ns > warmup_end && stopped_ns - warmup_end > r->duration_ns)
			r->duration_ns = stopped_ns - warmup_end;
		if (res->latency.samples && res->latency.max_ns == r->total.max_ns &&
		    res->latency.peak_ns >= warmup_end)
			r->peak_s = (res->latency.peak_ns - warmup_end) / 1000000000ULL;
	}
	r->duration_s = (r->duration_ns + 500000000ULL) / 1000000000ULL;
}

/* The buffers of --checkpoint's copy, taken before memory is locked. */
static int snap_alloc(struct run *run, const struct ls_report *r)
{
	struct ls_report *s = &run->snap;
	unsigned int n = run->p->hist_cells;
	int i;

	*s = *r;
	s->checkpoint = true;
	s->nr_cpus = run->nr;
	s->cpu = calloc(run->nr, sizeof(*s->cpu));
	s->total_cells = report_totals_alloc(s, n);
	s->timeline = malloc(sizeof(*s->timeline));
	if (!s->cpu || !s->total_cells || !s->timeline)
		return -1;
	for (i = 0; i < run->nr; i++)
		if (result_alloc(&s->cpu[i], n))
			return -1;
	return 0;
}

/*
 * Rewrites the plot and JSON files with what the run measured so far, so
 * that a crash or a power cut keeps it. Errors are said and the run goes
 * on: the final files are written as usual.
 */
static void checkpoint(struct run *run, const struct ls_report *r)
{
	struct ls_report *s = &run->snap;
	int i, ret;

	if (run->snap_off)
		return;
	for (i = 0; i < run->nr; i++) {
		ret = read_result(&run->cpus[i], &s->cpu[i], run->p->hist_cells,
				  LATSCOPE_IOC_SNAPSHOT);
		if (ret == -ENOTTY) {
			fprintf(stderr, "latscope: this latscope.ko cannot read a running session: --checkpoint needs the driver of this latscope\n");
			run->snap_off = true;
			return;
		}
		if (ret) {
			fprintf(stderr, "latscope: checkpoint skipped, CPU%d: %s\n", run->cpus[i].cpu,
				ret == -EAGAIN ? "its histogram changed during every copy" :
				strerror(-ret));
			return;
		}
	}
	pthread_mutex_lock(&run->tl_lock);
	memcpy(s->timeline, r->timeline, sizeof(*s->timeline));
	pthread_mutex_unlock(&run->tl_lock);
	s->stress = r->stress;
	s->c_state_restricted = r->c_state_restricted;
	s->started = r->started;
	s->ended = time(NULL);
	fill_report(s, ls_now_ns());
	ls_write_files(s, false);
}

/* Which CPUs to measure, each checked online. */
static int pick_cpus(const struct ls_params *p, const struct ls_sysinfo *si,
		     cpu_set_t *set, char *err, size_t errlen)
{
	cpu_set_t online;
	char buf[256] = "";
	FILE *f;
	int c;

	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f || !fgets(buf, sizeof(buf), f) ||
	    ls_parse_cpu_list(strtok(buf, "\n"), &online)) {
		if (f)
			fclose(f);
		ls_fail(err, errlen, "cannot read the online CPUs from /sys/devices/system/cpu/online");
		return -1;
	}
	fclose(f);
	if (p->cpus_all) {
		*set = online;
	} else if (CPU_COUNT(&p->cpus)) {
		*set = p->cpus;
	} else {
		CPU_ZERO(set);
		CPU_SET(ls_default_cpu(&si->isolated), set);
	}
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, set) && !CPU_ISSET(c, &online)) {
			ls_format_cpu_list(&online, buf, sizeof(buf));
			ls_fail(err, errlen, "CPU%d is not online (online: %s)", c, buf);
			return -1;
		}
	}
	return 0;
}

static int restrict_c_states(int *fd)
{
	__s32 zero = 0;

	*fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (*fd < 0)
		return 0;
	if (write(*fd, &zero, sizeof(zero)) != sizeof(zero)) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	return 1;	/* held as long as the file stays open */
}

/*
 * Waits for the end of the run, writing a checkpoint every checkpoint_s
 * seconds past the warm-up meanwhile; returns the signal that ended it.
 */
static int wait_for_end(struct run *run, const struct ls_report *r,
			const sigset_t *set, unsigned long long timeout_s)
{
	unsigned long long every = run->p->checkpoint_s;
	struct timespec next, now, left;
	int sig = 0;

	if (timeout_s)
		alarm((unsigned int)(timeout_s + 1));	/* + the 1 s warm-up */
	clock_gettime(CLOCK_MONOTONIC, &next);
	next.tv_sec += (time_t)every + 1;
	while (every) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = next.tv_sec - now.tv_sec;
		left.tv_nsec = next.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			left.tv_sec = left.tv_nsec = 0;
		sig = sigtimedwait(set, NULL, &left);
		if (sig > 0)
			break;
		if (errno == EAGAIN) {
			checkpoint(run, r);
			next.tv_sec += (time_t)every;
		}
	}
	while (!every && sigwait(set, &sig))
		;
	alarm(0);
	return sig;
}


int ls_run(const struct ls_params *p, struct ls_report *r, char *err,
	   size_t errlen)
{
	struct run run = { .p = p, .all_isolated = true };
	int i, c, sig, cstate_fd = -1, ret = LS_EXIT_SETUP;
	pthread_t logger;
	bool has_logger = false;
	cpu_set_t set, others, load;
	sigset_t sigs;

	atomic_init(&run.exit_code, LS_EXIT_OK);
	pthread_mutex_init(&run.tl_lock, NULL);
	atomic_init(&run.stopping, false);
	sigemptyset(&sigs);
	if (pick_cpus(p, r->sys, &set, err, errlen))
		return LS_EXIT_SETUP;
	ls_format_cpu_list(&set, run.cpu_list, sizeof(run.cpu_list));
	/* The logger and the load stay off the measured CPUs when there are others. */
	CPU_ZERO(&others);
	if (!sched_getaffinity(0, sizeof(others), &others))
		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				CPU_CLR(c, &others);
	load = others;
	if (!CPU_COUNT(&load) && sched_getaffinity(0, sizeof(load), &load))
		CPU_ZERO(&load);
	if (ls_stress_prepare(p, CPU_COUNT(&load) ? CPU_COUNT(&load) : 1, &r->stress,
			      err, errlen))
		return LS_EXIT_SETUP;
	ls_format_cpu_list(&load, r->stress.cpus, sizeof(r->stress.cpus));
	run.nr = CPU_COUNT(&set);
	run.cpus = calloc(run.nr, sizeof(*run.cpus));
	r->cpu = calloc(run.nr, sizeof(*r->cpu));
	r->total_cells = report_totals_alloc(r, p->hist_cells);
	r->timeline = malloc(sizeof(*r->timeline));
	if (!run.cpus || !r->cpu || !r->total_cells || !r->timeline) {
		ls_fail(err, errlen, "out of memory for %d CPUs", run.nr);
		goto out;
	}
	ls_timeline_init(r->timeline);
	run.timeline = r->timeline;
	if (p->checkpoint_s && snap_alloc(&run, r)) {
		ls_fail(err, errlen, "out of memory for the checkpoint's copy of %d CPUs", run.nr);
		goto out;
	}
	for (c = 0, i = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		run.cpus[i].cpu = c;
		run.cpus[i].fd = -1;
		run.cpus[i].isolated = CPU_ISSET(c, &r->sys->isolated);
		run.all_isolated &= run.cpus[i].isolated;
		i++;
	}

	/* Signals go to sigwait() below only, in every thread. */
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGALRM);
	sigaddset(&sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	for (i = 0; i < run.nr; i++)
		if (open_session(&run.cpus[i], p, err, errlen))
			goto out;
	/* The load runs through the warm-up, so the warm-up sees it. */
	if (ls_stress_start(&r->stress, &load, err, errlen))
		goto out;
	if (r->stress.ncmds && p->verbosity > 0)
		fprintf(stderr, "load '%s' started on CPU%s\n", r->stress.name, r->stress.cpus);
	if (mlockall(MCL_CURRENT | MCL_FUTURE) && p->verbosity > 0)
		fprintf(stderr, "warning: mlockall: %s, page faults may add latency\n",
			strerror(errno));
	r->c_state_restricted = restrict_c_states(&cstate_fd);

	if (p->verbosity > 0)
		fprintf(stderr, "warming up on CPU%s%s...\n", run.cpu_list,
			run.all_isolated ? "" : " (not isolated)");
	else
		fprintf(stderr, "running quietly for %llu seconds on CPU%s%s\n",
			p->timeout_s, run.cpu_list, run.all_isolated ? "" : " (not isolated)");

	run.start = time(NULL);
	r->started = run.start;
	for (i = 0; i < run.nr; i++) {
		if (ioctl(run.cpus[i].fd, LATSCOPE_IOC_START)) {
			ls_fail(err, errlen, "cannot start measuring on CPU%d: %s",
				run.cpus[i].cpu, strerror(errno));
			goto stop;
		}
		run.cpus[i].started = true;
	}
	for (i = 0; p->context == LATSCOPE_CTX_USER && i < run.nr; i++) {
		cpu_set_t one;
		int e;

		CPU_ZERO(&one);
		CPU_SET(run.cpus[i].cpu, &one);
		e = start_thread(&run.cpus[i].responder, responder_fn, &run.cpus[i],
				 SCHED_FIFO, p->priority, &one);
		if (e) {
			ls_fail(err, errlen, "cannot start the SCHED_FIFO %d responder on CPU%d: %s",
				p->priority, run.cpus[i].cpu,
				e == EPERM ? "not allowed (run as root or raise RLIMIT_RTPRIO)" : strerror(e));
			goto stop;
		}
		run.cpus[i].has_responder = true;
	}
	if (start_thread(&logger, logger_fn, &run, SCHED_OTHER, 0, &others)) {
		ls_fail(err, errlen, "cannot start the logger thread");
		goto stop;
	}
	has_logger = true;

	sig = wait_for_end(&run, r, &sigs, p->timeout_s);
	ret = sig == SIGUSR1 ? atomic_load(&run.exit_code) : LS_EXIT_OK;
stop:
	atomic_store(&run.stopping, true);
	run.stopped_ns = ls_now_ns();
	for (i = 0; i < run.nr; i++)
		if (run.cpus[i].started && ioctl(run.cpus[i].fd, LATSCOPE_IOC_STOP) &&
		    errno == ENODEV) {
			fprintf(stderr, "CPU%d went offline during the run\n", run.cpus[i].cpu);
			ret = LS_EXIT_RUNTIME;
		}
	stop_load(&r->stress);
	for (i = 0; i < run.nr; i++) {
		if (!run.cpus[i].has_responder)
			continue;
		pthread_join(run.cpus[i].responder, NULL);
		if (run.cpus[i].responder_err && ret == LS_EXIT_OK) {
			fprintf(stderr, "the responder on CPU%d failed: %s\n",
				run.cpus[i].cpu, strerror(run.cpus[i].responder_err));
			ret = LS_EXIT_RUNTIME;
		}
	}
	if (has_logger)
		pthread_join(logger, NULL);
	if (ret != LS_EXIT_SETUP) {
		r->nr_cpus = run.nr;
		for (i = 0; i < run.nr; i++)
			if (collect(&run.cpus[i], &r->cpu[i], p->hist_cells, err, errlen)) {
				ret = LS_EXIT_RUNTIME;
				r->nr_cpus = i;
				break;
			}
		fill_report(r, run.stopped_ns);
	}
out:
	stop_load(&r->stress);
	if (cstate_fd >= 0)
		close(cstate_fd);
	for (i = 0; run.cpus && i < run.nr; i++)
		if (run.cpus[i].fd >= 0)
			close(run.cpus[i].fd);
	ls_report_free(&run.snap);
	free(run.cpus);
	pthread_mutex_destroy(&run.tl_lock);
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
	r->exit_code = ret;
	return ret;
}
