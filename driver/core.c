// SPDX-License-Identifier: GPL-2.0
/*
 * latscope: measures how late timer and GPIO events are answered in irq,
 * kernel and user context. This file is the /dev/latscope misc device: it turns
 * open/ioctl/read/poll/release into session calls and copies to and from
 * userspace.
 *
 * Whoever may open the device may measure timer events. What reaches
 * beyond the caller's own runs (GPIO lines, driven as outputs or with an
 * interrupt thread's priority raised; the trace threshold, which turns
 * tracing off for the whole system) needs CAP_SYS_ADMIN as well; the
 * worst-sample recorder, which tells what other tasks and the kernel ran
 * on the CPU, needs CAP_PERFMON (or CAP_SYS_ADMIN); unless the
 * administrator sets trusted_group to grant it all with the device
 * (latscope_setup_permitted()).
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "latscope.h"
#include "why.h"

static struct miscdevice latscope_misc;

static bool trusted_group;
module_param(trusted_group, bool, 0644);
MODULE_PARM_DESC(trusted_group,
		 "access to /dev/latscope alone grants GPIO lines, the trace threshold and the worst-sample recorder (default N: CAP_SYS_ADMIN, or CAP_PERFMON for the recorder, needed too)");

static bool latscope_caller_admin(void)
{
	return capable(CAP_SYS_ADMIN);
}

static bool latscope_caller_perfmon(void)
{
	return perfmon_capable();
}

static const struct latscope_caps latscope_caller_caps = {
	.admin = latscope_caller_admin,
	.perfmon = latscope_caller_perfmon,
};

static int latscope_open(struct inode *inode, struct file *file)
{
	struct latscope_session *s;

	/* Released for rmmod; one that slips past cannot SETUP or START. */
	if (latscope_sessions_released())
		return -ESHUTDOWN;
	s = latscope_session_create(latscope_misc.this_device);
	if (!s)
		return -ENOMEM;
	file->private_data = s;
	return nonseekable_open(inode, file);
}

static int latscope_release(struct inode *inode, struct file *file)
{
	latscope_session_destroy(file->private_data);
	return 0;
}

static long latscope_ioc_info(void __user *arg)
{
	struct latscope_info info = {
		.abi_version = LATSCOPE_ABI_VERSION,
		.setup_size = sizeof(struct latscope_setup),
		.result_size = sizeof(struct latscope_result),
		.max_hist_cells = LATSCOPE_MAX_HIST_CELLS,
		.timer_resolution_ns = hrtimer_resolution,
		.version = LATSCOPE_VERSION,
	};

	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long latscope_ioc_setup(struct latscope_session *s,
			       struct latscope_setup __user *arg)
{
	struct latscope_setup setup;
	bool trusted;
	u32 usize;
	int ret;

	if (get_user(usize, &arg->size))
		return -EFAULT;
	if (usize < LATSCOPE_SETUP_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&setup, sizeof(setup), arg, usize);
	if (ret)
		return ret;
	/*
	 * Who may ask comes first (the ABI's EPERM for a source a caller may
	 * not use, whatever the rest says); then the session checks it all.
	 */
	trusted = READ_ONCE(trusted_group);
	ret = latscope_setup_permitted(&setup, trusted, &latscope_caller_caps);
	if (ret)
		return ret;
	return latscope_session_setup(s, &setup,
				      latscope_setup_sees(&setup, trusted, &latscope_caller_caps));
}

/* The user buffers of a GET_RESULT or SNAPSHOT caller. */
struct latscope_result_bufs {
	u32 size;		/* of the caller's struct latscope_result */
	u64 hist;
	u64 hist_size;
	u64 tail;		/* 0 from a caller that predates the tail */
	u64 tail_size;
	u64 why;		/* 0 from a caller that predates the recorder */
	u64 why_size;
};

static int latscope_result_bufs_get(struct latscope_result __user *arg,
				    struct latscope_result_bufs *b)
{
	memset(b, 0, sizeof(*b));
	if (get_user(b->size, &arg->size) || get_user(b->hist, &arg->histogram) ||
	    get_user(b->hist_size, &arg->histogram_size))
		return -EFAULT;
	if (b->size < offsetofend(struct latscope_result, irq))
		return -EINVAL;
	if (b->size >= offsetofend(struct latscope_result, tail_size) &&
	    (get_user(b->tail, &arg->tail) ||
	     get_user(b->tail_size, &arg->tail_size)))
		return -EFAULT;
	if (b->size >= offsetofend(struct latscope_result, why_size) &&
	    (get_user(b->why, &arg->why) ||
	     get_user(b->why_size, &arg->why_size)))
		return -EFAULT;
	return 0;
}

/*
 * Copies @res and, if the caller gave room for them, the histograms, the
 * tails and the recorder's records of @copy out; nothing of @res past the
 * caller's size.
 */
static long latscope_result_out(struct latscope_result __user *arg,
				const struct latscope_result_bufs *b,
				struct latscope_result *res, const u64 *copy)
{
	size_t cells = (size_t)res->hist_count * res->hist_cells;
	size_t hist_bytes = cells * sizeof(u64);
	size_t tails = (size_t)res->hist_count * res->tail_buckets;
	size_t tail_bytes = tails * sizeof(u64);
	size_t why_bytes = (size_t)res->why_count * sizeof(struct latscope_why);
	long ret = 0;

	res->histogram = b->hist;
	res->histogram_size = hist_bytes;
	res->tail = b->tail;
	res->tail_size = tail_bytes;
	res->why = b->why;
	res->why_size = why_bytes;
	if ((b->hist && b->hist_size < hist_bytes) ||
	    (b->tail && b->tail_size < tail_bytes) ||
	    (b->why && b->why_size < why_bytes))
		ret = -ENOSPC;
	else if (b->hist &&
		 copy_to_user(u64_to_user_ptr(b->hist), copy, hist_bytes))
		return -EFAULT;
	else if (b->tail &&
		 copy_to_user(u64_to_user_ptr(b->tail), copy + cells, tail_bytes))
		return -EFAULT;
	else if (b->why && why_bytes &&
		 copy_to_user(u64_to_user_ptr(b->why), copy + cells + tails,
			      why_bytes))
		return -EFAULT;
	if (copy_to_user(arg, res, min_t(size_t, b->size, sizeof(*res))))
		return -EFAULT;
	return ret;
}

/* GET_RESULT, or SNAPSHOT if @snapshot: the session may be running. */
static long latscope_ioc_result(struct latscope_session *s,
				struct latscope_result __user *arg,
				bool snapshot)
{
	struct latscope_result res = {};
	struct latscope_result_bufs b;
	u64 *copy = NULL, **want;
	long ret;

	ret = latscope_result_bufs_get(arg, &b);
	if (ret)
		return ret;
	/* The counters come as a copy: copy_to_user() runs unlocked. */
	want = b.hist || b.tail || b.why ? &copy : NULL;
	if (snapshot)
		ret = latscope_session_snapshot(s, &res, want);
	else
		ret = latscope_session_result(s, &res, want);
	if (!ret)
		ret = latscope_result_out(arg, &b, &res, copy);
	kvfree(copy);
	return ret;
}

static long latscope_ioc_pulse(struct latscope_session *s,
			       struct latscope_pulse __user *arg)
{
	struct latscope_pulse pulse;
	int ret;

	if (copy_from_user(&pulse, arg, sizeof(pulse)))
		return -EFAULT;
	ret = latscope_session_pulse(s, &pulse);
	if (ret)
		return ret;
	return copy_to_user(arg, &pulse, sizeof(pulse)) ? -EFAULT : 0;
}

/*
 * NOISE: the report and its gaps are copied in before the session is
 * locked.
 */
static long latscope_ioc_noise(struct latscope_session *s,
			       struct latscope_noise_report __user *arg)
{
	struct latscope_noise_gap gaps[LATSCOPE_NOISE_MAX_GAPS];
	struct latscope_noise_report rep;

	if (copy_from_user(&rep, arg, sizeof(rep)))
		return -EFAULT;
	if (rep.count > LATSCOPE_NOISE_MAX_GAPS || rep.flags)
		return -EINVAL;
	if (rep.count && copy_from_user(gaps, u64_to_user_ptr(rep.gaps),
					rep.count * sizeof(*gaps)))
		return -EFAULT;
	return latscope_session_report(s, &rep, gaps);
}

/* An ioctl number without its size bits. */
#define LATSCOPE_IOC_UNSIZED(cmd)	((cmd) & ~IOCSIZE_MASK)

static long latscope_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct latscope_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	/* The structures that grow carry their size: any size bits do. */
	switch (LATSCOPE_IOC_UNSIZED(cmd)) {
	case LATSCOPE_IOC_UNSIZED(LATSCOPE_IOC_SETUP):
		return latscope_ioc_setup(s, uarg);
	case LATSCOPE_IOC_UNSIZED(LATSCOPE_IOC_SNAPSHOT):
		return latscope_ioc_result(s, uarg, true);
	case LATSCOPE_IOC_UNSIZED(LATSCOPE_IOC_GET_RESULT):
		return latscope_ioc_result(s, uarg, false);
	}
	switch (cmd) {
	case LATSCOPE_IOC_GET_INFO:
		return latscope_ioc_info(uarg);
	case LATSCOPE_IOC_START:
		return latscope_session_start(s);
	case LATSCOPE_IOC_STOP:
		return latscope_session_stop(s);
	case LATSCOPE_IOC_PULSE:
		return latscope_ioc_pulse(s, uarg);
	case LATSCOPE_IOC_NOISE:
		return latscope_ioc_noise(s, uarg);
	default:
		return -ENOTTY;
	}
}

/* Waits for a bulk record; 1: one is there, 0: end of stream. */
static int latscope_bulk_wait(struct latscope_session *s, bool nonblock)
{
	enum latscope_state state;

	for (;;) {
		if (!latscope_ring_empty(&s->ring))
			return 1;
		/* Pairs with the release in halt: the last record is seen. */
		state = smp_load_acquire(&s->state);
		if (state == LATSCOPE_IDLE)
			return -EINVAL;
		if (state == LATSCOPE_STOPPED)
			return !latscope_ring_empty(&s->ring);
		if (nonblock)
			return -EAGAIN;
		if (wait_event_interruptible(s->bulk_wq,
					     !latscope_ring_empty(&s->ring) ||
					     READ_ONCE(s->state) != state))
			return -ERESTARTSYS;
	}
}

/* Records a read() copies out per peek: small enough for the stack. */
#define LATSCOPE_READ_BATCH	4

/*
 * Copies whole bulk records out, waiting for the first if there is none.
 * Each is the session's record size (a noise session's are larger): the
 * slots are packed down to it. No lock is held across copy_to_user():
 * the records are peeked into a kernel buffer, copied out, and taken only
 * if no other reader or reset came in between (then they are peeked
 * again), so a reader stalled in a page fault holds up nobody and loses
 * nothing.
 */
static ssize_t latscope_read(struct file *file, char __user *buf, size_t len,
			     loff_t *ppos)
{
	struct latscope_session *s = file->private_data;
	struct latscope_noise_bulk batch[LATSCOPE_READ_BATCH];
	struct latscope_ring_pos pos;
	size_t done = 0, room, left, size;
	u32 i, n;
	int ret;

	if (len < latscope_record_size(s))
		return -EINVAL;
	for (;;) {
		if (!done) {
			ret = latscope_bulk_wait(s, file->f_flags & O_NONBLOCK);
			if (ret <= 0)
				return ret;
		}
		/* The size of what the ring holds now, a SETUP's since. */
		size = latscope_record_size(s);
		if (len - done < size)
			return done ? done : -EINVAL;
		room = min_t(size_t, (len - done) / size, ARRAY_SIZE(batch));
		n = latscope_ring_peek(&s->ring, batch, room, &pos);
		if (!n) {
			if (done)
				break;
			continue;	/* another reader was faster */
		}
		/* A SETUP between the two: peek again at its size. */
		if (pos.size != size)
			continue;
		/* Packed in place: record i moves down to i * size. */
		for (i = 1; i < n; i++)
			memmove((char *)batch + i * size, &batch[i], size);
		left = copy_to_user(buf + done, batch, n * size);
		n -= DIV_ROUND_UP(left, size);
		if (n && latscope_ring_consume(&s->ring, &pos, n))
			done += n * size;
		if (left)
			return done ? done : -EFAULT;
		if (len - done < size)
			break;
	}
	return done;
}

static __poll_t latscope_poll(struct file *file, poll_table *wait)
{
	struct latscope_session *s = file->private_data;
	enum latscope_state state;

	poll_wait(file, &s->bulk_wq, wait);
	if (!latscope_ring_empty(&s->ring))
		return EPOLLIN | EPOLLRDNORM;
	/* Acquire: pairs with the release in halt, as in read(). */
	state = smp_load_acquire(&s->state);
	if (state == LATSCOPE_STOPPED)
		return EPOLLIN | EPOLLRDNORM | EPOLLHUP;
	if (state == LATSCOPE_IDLE)
		return EPOLLERR;	/* read() fails: nothing set up */
	return 0;
}

/* How long writing 1 to "release" waits for the device's files to close. */
#define LATSCOPE_RELEASE_WAIT	(10 * HZ)

/*
 * /sys/class/misc/latscope/release: 1 while the device is released. A
 * module cannot go while its device is open, and a daemon (the exporter)
 * keeps it open; writing 1 ends every run and waits until the files are
 * closed (the daemon retries later), so rmmod can follow. Writing 0 lets
 * the device be opened again, as loading the module anew does.
 */
static ssize_t release_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", latscope_sessions_released());
}

static ssize_t release_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	if (!on) {
		latscope_sessions_admit();
		return count;
	}
	ret = latscope_sessions_release(LATSCOPE_RELEASE_WAIT);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(release);

static struct attribute *latscope_attrs[] = {
	&dev_attr_release.attr,
	NULL
};
ATTRIBUTE_GROUPS(latscope);

static const struct file_operations latscope_fops = {
	.owner = THIS_MODULE,
	.open = latscope_open,
	.release = latscope_release,
	.read = latscope_read,
	.poll = latscope_poll,
	.unlocked_ioctl = latscope_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice latscope_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "latscope",
	.fops = &latscope_fops,
	.groups = latscope_groups,
	.mode = 0600,
};

static int __init latscope_init(void)
{
	int ret;

	ret = latscope_sessions_init();
	if (ret)
		return ret;
	ret = latscope_sources_init();
	if (ret)
		goto sessions;
	/*
	 * Last: once the device is there it can be opened, and a module
	 * whose init then failed would be freed under the open file.
	 */
	ret = misc_register(&latscope_misc);
	if (ret)
		goto sources;
	return 0;

sources:
	latscope_sources_exit();
sessions:
	latscope_sessions_exit();
	return ret;
}

static void __exit latscope_exit(void)
{
	misc_deregister(&latscope_misc);
	latscope_sources_exit();
	latscope_sessions_exit();
	latscope_flights_exit();
}

module_init(latscope_init);
module_exit(latscope_exit);

MODULE_DESCRIPTION("Timer and GPIO event latency measurement (latmus for mainline and PREEMPT_RT)");
MODULE_LICENSE("GPL");
MODULE_VERSION(LATSCOPE_VERSION);
