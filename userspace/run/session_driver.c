// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: a session of the driver, /dev/latscope, on one CPU:
 * GET_INFO and SETUP at open, START (and in the user context the
 * SCHED_FIFO responder thread that answers through PULSE), STOP, and
 * GET_RESULT or SNAPSHOT. Its record stream is the session file itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "run/engine.h"

#define DEVICE		"/dev/latscope"

/* Refuses a driver this latscope cannot talk to, naming both versions. */
int ls_check_driver(const struct latscope_info *info, const struct ls_source *src,
		    char *err, size_t errlen)
{
	if (info->abi_version != LATSCOPE_ABI_VERSION) {
		ls_fail(err, errlen, "the loaded driver %.32s speaks ABI %u, this latscope needs %u: load the matching latscope.ko",
			info->version, info->abi_version, LATSCOPE_ABI_VERSION);
		return -1;
	}
	if (info->setup_size < src->setup_size) {
		ls_fail(err, errlen, "the loaded driver %.32s has no %s source (setup size %u, need %zu): load the matching latscope.ko",
			info->version, src->name, info->setup_size, src->setup_size);
		return -1;
	}
	return 0;
}

/*
 * Why the driver says EPERM to a timer SETUP: -b's trace threshold needs
 * CAP_SYS_ADMIN (which grants --why too), --why's recorder CAP_PERFMON.
 */
static const char ls_need_admin[] =
	"-b needs CAP_SYS_ADMIN too: run as root, or load latscope with trusted_group=1";
static const char ls_need_perfmon[] =
	"--why needs CAP_PERFMON too: run as root, or load latscope with trusted_group=1";

static const char *ls_need_caps(const struct latscope_setup *setup)
{
	return setup->trace_threshold_ns ? ls_need_admin : ls_need_perfmon;
}

/* Why the driver says EBUSY to a START. */
static const char ls_cpu_full[] =
	"the module's max_running_per_cpu sessions run there already";

/* ESHUTDOWN: the device was released for rmmod (/sys/class/misc/latscope/release). */
static void fail_released(char *err, size_t errlen)
{
	ls_fail(err, errlen,
		"/dev/latscope is released (for rmmod): it opens again once the module is reloaded, or after 'echo 0 > /sys/class/misc/latscope/release'");
}

/*
 * /dev/latscope opened and asked GET_INFO (into @info), its ABI checked
 * for @src: the descriptor, or -1 with the message of what is wrong (not
 * loaded, a stale node, released, no permission, another ABI).
 */
static int open_device(const struct ls_source *src, struct latscope_info *info, char *err,
		       size_t errlen)
{
	int fd = open(DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			ls_fail(err, errlen, "no %s: load the driver first (modprobe latscope, or insmod latscope.ko)",
				DEVICE);
		else if (errno == ENODEV || errno == ENXIO)
			ls_fail(err, errlen, "%s is a stale node, no driver behind it: load the driver (modprobe latscope, or insmod latscope.ko)",
				DEVICE);
		else if (errno == ESHUTDOWN)
			fail_released(err, errlen);
		else if (errno == EACCES || errno == EPERM)
			ls_fail(err, errlen, "no permission to open %s: run as root, or grant a group access (see README)",
				DEVICE);
		else
			ls_fail(err, errlen, "cannot open %s: %s", DEVICE, strerror(errno));
		return -1;
	}
	if (ioctl(fd, LATSCOPE_IOC_GET_INFO, info)) {
		ls_fail(err, errlen, "%s does not answer GET_INFO (%s): is it the latscope driver?",
			DEVICE, strerror(errno));
		close(fd);
		return -1;
	}
	if (ls_check_driver(info, src, err, errlen)) {
		close(fd);
		return -1;
	}
	return fd;
}

int ls_device_check(const struct ls_params *p, char *err, size_t errlen)
{
	struct latscope_info info;
	int fd = open_device(ls_source_of(p), &info, err, errlen);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int driver_open(struct cpu_run *c, char *err, size_t errlen)
{
	const struct ls_params *p = c->p;
	const struct ls_source *src = ls_source_of(p);
	struct latscope_info info;
	struct latscope_setup setup = {
		.size = sizeof(setup),
		.context = p->context,
		.source = src->id,
		.period_ns = (__u64)ls_period_us(p) * 1000,
		.cpu = (__u32)c->cpu,
		.priority = (__u32)p->priority,
		.hist_cells = p->hist_cells,
		.hist_cell_ns = LATSCOPE_DEFAULT_CELL_NS,
		.trace_threshold_ns = (__u64)p->breaktrace_us * 1000,
	};

	c->fd = open_device(src, &info, err, errlen);
	if (c->fd < 0)
		return -1;
	/* A driver older than the recorder refuses the field: it explains nothing. */
	if (info.result_size >= LATSCOPE_RESULT_SIZE_VER2)
		setup.why_records = p->why;
	if (src->setup && src->setup(p, &setup, err, errlen))
		return -1;
	if (ioctl(c->fd, LATSCOPE_IOC_SETUP, &setup)) {
		if (errno == ESHUTDOWN)
			fail_released(err, errlen);
		else if (src->setup_error)
			src->setup_error(p, errno, err, errlen);
		else
			ls_fail(err, errlen, "the driver refused the setup for CPU%d: %s", c->cpu,
				errno == EINVAL ? "is that CPU online?" :
				errno == EPERM ? ls_need_caps(&setup) : strerror(errno));
		return -1;
	}
	return 0;
}

/* The user context's responder: PULSE answers each event, stamped at once. */
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

/*
 * A source's busy responder (--noise -u): its loop until the stop. One
 * that fails (its thread moved off the CPU) stops its session: the
 * logger's end of stream ends the run, and the stop says why.
 */
static void *spin_fn(void *arg)
{
	struct cpu_run *c = arg;

	c->responder_err = ls_source_of(c->p)->spin(c->fd, c->p, &c->stopping);
	if (c->responder_err)
		ioctl(c->fd, LATSCOPE_IOC_STOP);
	return NULL;
}

static int driver_start(struct cpu_run *c, char *err, size_t errlen)
{
	const struct ls_params *p = c->p;
	const struct ls_source *src = ls_source_of(p);
	int policy = p->priority ? SCHED_FIFO : SCHED_OTHER;
	cpu_set_t one;
	int e;

	if (ioctl(c->fd, LATSCOPE_IOC_START)) {
		if (errno == ESHUTDOWN)
			fail_released(err, errlen);
		else if (errno == EOPNOTSUPP)
			ls_fail(err, errlen, "cannot start measuring on CPU%d: this kernel lets a module give its thread SCHED_FIFO 50 only (it exports no sched_setattr_nocheck(), as 5.10): -P 50, or the user context (-u)",
				c->cpu);
		else
			ls_fail(err, errlen, "cannot start measuring on CPU%d: %s", c->cpu,
				errno == EBUSY ? ls_cpu_full : strerror(errno));
		return -1;
	}
	c->started = true;
	if (p->context != LATSCOPE_CTX_USER)
		return 0;
	CPU_ZERO(&one);
	CPU_SET(c->cpu, &one);
	atomic_store(&c->stopping, false);
	e = ls_start_thread(&c->responder, src->spin ? spin_fn : responder_fn, c, policy,
			    p->priority, &one);
	if (e) {
		ls_fail(err, errlen, "cannot start the %s %d responder on CPU%d: %s",
			p->priority ? "SCHED_FIFO" : "SCHED_OTHER", p->priority, c->cpu,
			e == EPERM ? "not allowed (run as root or raise RLIMIT_RTPRIO)" :
			strerror(e));
		return -1;
	}
	c->has_responder = true;
	return 0;
}

/* Joins the responder thread; its failure, if the stop had none, into @err. */
static int join_responder(struct cpu_run *c, int ret, char *err, size_t errlen)
{
	if (!c->has_responder)
		return ret;
	pthread_join(c->responder, NULL);
	c->has_responder = false;
	if (c->responder_err && !ret) {
		ls_fail(err, errlen, "the responder on CPU%d failed: %s", c->cpu,
			c->responder_err == EXDEV ?
			"its thread was moved off that CPU (a cpuset or taskset?)" :
			strerror(c->responder_err));
		ret = -1;
	}
	return ret;
}

/*
 * STOP ends the record stream (the last records still come) and any
 * PULSE. A busy responder (--noise -u) is told and joined first, so that
 * its last report is in before the run ends.
 */
static int driver_stop(struct cpu_run *c, char *err, size_t errlen)
{
	int ret = 0;

	atomic_store(&c->stopping, true);
	if (ls_source_of(c->p)->spin)
		ret = join_responder(c, ret, err, errlen);
	if (c->started && ioctl(c->fd, LATSCOPE_IOC_STOP)) {
		if (errno == ENODEV) {
			ls_fail(err, errlen, "CPU%d went offline during the run", c->cpu);
			ret = -1;
		} else if (errno == ESHUTDOWN) {
			ls_fail(err, errlen, "the run ended: /dev/latscope was released (for rmmod)");
			ret = -1;
		}
	}
	return join_responder(c, ret, err, errlen);
}

/* GET_RESULT, or SNAPSHOT while it runs, into @out's buffers: 0 or -errno. */
static int driver_result(struct cpu_run *c, struct ls_cpu_result *out, unsigned int cells,
			 bool snapshot)
{
	struct latscope_result *res = &out->res;

	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	res->histogram = (uintptr_t)out->cells;
	res->histogram_size = 2 * (size_t)cells * sizeof(__u64);
	res->tail = (uintptr_t)out->tail;
	res->tail_size = 2 * (size_t)LATSCOPE_TAIL_BUCKETS * sizeof(__u64);
	res->why = (uintptr_t)out->why;
	res->why_size = out->why ? c->p->why * sizeof(*out->why) : 0;
	if (ioctl(c->fd, snapshot ? LATSCOPE_IOC_SNAPSHOT : LATSCOPE_IOC_GET_RESULT, res))
		return -errno;
	/* A driver older than the tail says so by its size, and fills none. */
	out->has_tail = res->size >= LATSCOPE_RESULT_SIZE_VER1 &&
			res->tail_buckets == LATSCOPE_TAIL_BUCKETS &&
			res->tail_sub_bits == LATSCOPE_TAIL_SUB_BITS;
	/* So does one older than the recorder. */
	out->has_why = res->size >= LATSCOPE_RESULT_SIZE_VER2 &&
		       res->why_record_size == sizeof(struct latscope_why) && res->why_records;
	if (!out->has_why || !out->why)
		res->why_count = 0;
	return 0;
}

static void driver_close(struct cpu_run *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

const struct ls_session_ops ls_driver_session = {
	.open = driver_open,
	.start = driver_start,
	.stop = driver_stop,
	.result = driver_result,
	.close = driver_close,
};
