// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: GPIO line specs. "-I gpiochip0,24[,rising-edge]" names a
 * chip by its device (gpiochip0 or /dev/gpiochip0) and a line by its
 * offset; the driver wants the chip's label, so the spec is resolved
 * through the GPIO character device, which also tells whether the offset
 * exists and whether someone else holds the line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/gpio.h>

#include "latscope.h"

static const struct {
	const char *name;
	unsigned int edge;
} ls_edges[] = {
	{ "rising-edge", LATSCOPE_EDGE_RISING },
	{ "falling-edge", LATSCOPE_EDGE_FALLING },
	{ "both-edges", LATSCOPE_EDGE_BOTH },
};

const char *ls_edge_name(unsigned int edge)
{
	size_t i;

	for (i = 0; i < sizeof(ls_edges) / sizeof(ls_edges[0]); i++)
		if (ls_edges[i].edge == edge)
			return ls_edges[i].name;
	return "?";
}

/* rising-edge, falling-edge or both-edges; 0 or -1. */
int ls_gpio_parse_edge(const char *s, unsigned int *edge)
{
	size_t i;

	for (i = 0; i < sizeof(ls_edges) / sizeof(ls_edges[0]); i++)
		if (!strcmp(s, ls_edges[i].name)) {
			*edge = ls_edges[i].edge;
			return 0;
		}
	return -1;
}

/*
 * Splits "CHIP,OFFSET[,EDGE]" into @spec. @edge is NULL where no edge is
 * allowed. Returns 0, or -1 with a message naming the bad part.
 */
int ls_gpio_parse(const char *opt, const char *arg, struct ls_gpio_spec *spec,
		  unsigned int *edge, char *err, size_t errlen)
{
	char buf[128], *offset, *edge_s, *end;
	unsigned long v;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "%s '%.40s...': too long", opt, arg);
		return -1;
	}
	strcpy(buf, arg);
	offset = strchr(buf, ',');
	if (!offset || offset == buf) {
		snprintf(err, errlen, "%s '%s': expected <gpiochip>,<offset>%s", opt,
			 arg, edge ? "[,rising-edge|falling-edge|both-edges]" : "");
		return -1;
	}
	*offset++ = '\0';
	edge_s = strchr(offset, ',');
	if (edge_s)
		*edge_s++ = '\0';
	errno = 0;
	v = strtoul(offset, &end, 10);
	if (!*offset || *end || errno || v >= 65535 || *offset == '-') {
		snprintf(err, errlen, "%s '%s': bad line offset '%s'", opt, arg, offset);
		return -1;
	}
	if (edge_s && !edge) {
		snprintf(err, errlen, "%s '%s': an output line has no edge", opt, arg);
		return -1;
	}
	if (edge_s && ls_gpio_parse_edge(edge_s, edge)) {
		snprintf(err, errlen,
			 "%s '%s': edge '%s' is not rising-edge, falling-edge or both-edges",
			 opt, arg, edge_s);
		return -1;
	}
	/* A chip name cut short would name another device: refuse it. */
	if ((size_t)snprintf(spec->dev, sizeof(spec->dev), "%s%s",
			     strchr(buf, '/') ? "" : "/dev/", buf) >= sizeof(spec->dev) ||
	    (size_t)snprintf(spec->spec, sizeof(spec->spec), "%s,%lu", buf, v) >=
	    sizeof(spec->spec)) {
		snprintf(err, errlen, "%s '%.40s...': chip name too long", opt, arg);
		return -1;
	}
	spec->offset = v;
	spec->given = true;
	return 0;
}

/*
 * Looks @spec up on its chip: fills @line with the chip's label and the
 * offset. Fails, saying why, if the chip is not there, the offset is past
 * its lines or the line is already in use.
 */
int ls_gpio_resolve(const char *role, const struct ls_gpio_spec *spec,
		    struct latscope_gpio_line *line, char *err, size_t errlen)
{
	struct gpio_v2_line_info info;
	struct gpiochip_info chip;
	int fd, ret = -1;

	fd = open(spec->dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s %s: no GPIO chip %s: %s", role, spec->spec,
			 spec->dev, strerror(errno));
		return -1;
	}
	memset(&chip, 0, sizeof(chip));
	if (ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &chip)) {
		snprintf(err, errlen, "%s %s: %s is not a GPIO chip: %s", role,
			 spec->spec, spec->dev, strerror(errno));
		goto out;
	}
	if (spec->offset >= chip.lines) {
		snprintf(err, errlen, "%s %s: offset %u out of range, %s has lines 0-%u",
			 role, spec->spec, spec->offset, chip.name, chip.lines - 1);
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.offset = spec->offset;
	if (ioctl(fd, GPIO_V2_GET_LINEINFO_IOCTL, &info)) {
		snprintf(err, errlen, "%s %s: cannot read the line: %s", role,
			 spec->spec, strerror(errno));
		goto out;
	}
	if (info.flags & GPIO_V2_LINE_FLAG_USED) {
		snprintf(err, errlen, "%s %s: line busy, used by \"%s\"", role,
			 spec->spec, info.consumer[0] ? info.consumer : "?");
		goto out;
	}
	if (strlen(chip.label) >= sizeof(line->chip)) {
		snprintf(err, errlen, "%s %s: chip label \"%s\" too long for the driver",
			 role, spec->spec, chip.label);
		goto out;
	}
	memset(line, 0, sizeof(*line));
	strcpy(line->chip, chip.label);
	line->offset = spec->offset;
	ret = 0;
out:
	close(fd);
	return ret;
}

#define LS_DT_DRIVER	"/sys/bus/platform/drivers/latscope-gpio"

/*
 * --gpio-dt: is a device tree latscope device bound, and does its node
 * have a pulse-out line (loopback)? Names its lines in @p for messages.
 */
int ls_gpio_find_dt(struct ls_params *p, char *err, size_t errlen)
{
	char path[512];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	dir = opendir(LS_DT_DRIVER);
	while (dir && !found && (d = readdir(dir))) {
		snprintf(path, sizeof(path), LS_DT_DRIVER "/%s/of_node", d->d_name);
		if (access(path, F_OK))
			continue;
		found = 1;
		snprintf(path, sizeof(path), LS_DT_DRIVER "/%s/of_node/pulse-out-gpios",
			 d->d_name);
		p->pulse_out.given = !access(path, F_OK);
		snprintf(p->pulse_in.spec, sizeof(p->pulse_in.spec), "%.60s:pulse-in", d->d_name);
		snprintf(p->ack_out.spec, sizeof(p->ack_out.spec), "%.60s:ack-out", d->d_name);
		snprintf(p->pulse_out.spec, sizeof(p->pulse_out.spec), "%.60s:pulse-out",
			 d->d_name);
	}
	if (dir)
		closedir(dir);
	if (!found)
		snprintf(err, errlen, "--gpio-dt: no \"latscope,gpio\" device is bound (%s): load the latscope-gpio overlay, see README",
			 LS_DT_DRIVER);
	return found ? 0 : -1;
}

/* Fills the GPIO part of a SETUP from the options. */
int ls_gpio_setup(const struct ls_params *p, struct latscope_setup *setup,
		  char *err, size_t errlen)
{
	struct latscope_gpio_setup *gs = &setup->gpio;
	bool loopback = p->pulse_out.given;

	setup->source = LATSCOPE_SRC_GPIO;
	setup->period_ns = loopback ? (__u64)p->period_us * 1000 : 0;
	gs->mode = loopback ? LATSCOPE_GPIO_LOOPBACK : LATSCOPE_GPIO_REMOTE;
	gs->edge = p->gpio_edge;
	gs->irq_thread_priority = (__u32)p->irq_thread_prio;
	if (p->gpio_dt) {
		gs->flags = LATSCOPE_GPIO_FROM_DT;
		return 0;
	}
	if (ls_gpio_resolve("pulse-in", &p->pulse_in, &gs->pulse_in, err, errlen) ||
	    ls_gpio_resolve("ack-out", &p->ack_out, &gs->ack_out, err, errlen))
		return -1;
	if (loopback &&
	    ls_gpio_resolve("pulse-out", &p->pulse_out, &gs->pulse_out, err, errlen))
		return -1;
	return 0;
}

/* "pulse-in X, ack-out Y[, pulse-out Z]" */
static void ls_gpio_lines(const struct ls_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "pulse-in %s, ack-out %s%s%s", p->pulse_in.spec,
		 p->ack_out.spec, p->pulse_out.given ? ", pulse-out " : "",
		 p->pulse_out.given ? p->pulse_out.spec : "");
}

/* Says why the driver refused a GPIO SETUP, naming the lines. */
void ls_gpio_setup_error(const struct ls_params *p, int error, char *err,
			 size_t errlen)
{
	char lines[320];

	switch (error) {
	case ENXIO:
		snprintf(err, errlen, "pulse-in %s cannot raise an interrupt",
			 p->pulse_in.spec);
		break;
	case EBUSY:
		ls_gpio_lines(p, lines, sizeof(lines));
		snprintf(err, errlen, "a GPIO line (%s) is busy", lines);
		break;
	case ENODEV:
		ls_gpio_lines(p, lines, sizeof(lines));
		snprintf(err, errlen, "the driver found no GPIO chip for a line (%s)", lines);
		break;
	case EINVAL:
		snprintf(err, errlen, "the driver refused the GPIO setup: two of the lines are one and the same, or CPU, priority or period is out of range");
		break;
	default:
		snprintf(err, errlen, "the driver refused the GPIO setup: %s",
			 strerror(error));
		break;
	}
}

/*
 * The edge of the run: the one the driver reports in @g (NULL: no result),
 * else the one asked for; "?" if neither says (--gpio-dt on a driver that
 * does not report it).
 */
const char *ls_gpio_edge_used(const struct ls_params *p,
			      const struct latscope_gpio_result *g)
{
	return ls_edge_name(g && g->edge ? g->edge : p->gpio_edge);
}

/* "loopback, pulse-out X -> pulse-in Y (rising-edge), ack-out Z" */
void ls_gpio_describe(const struct ls_params *p, const struct latscope_gpio_result *g,
		      char *buf, size_t len)
{
	if (p->pulse_out.given)
		snprintf(buf, len, "loopback, pulse-out %s -> pulse-in %s (%s), ack-out %s",
			 p->pulse_out.spec, p->pulse_in.spec,
			 ls_gpio_edge_used(p, g), p->ack_out.spec);
	else
		snprintf(buf, len, "remote, pulse-in %s (%s), ack-out %s",
			 p->pulse_in.spec, ls_gpio_edge_used(p, g), p->ack_out.spec);
}

static const char *ls_policy_name(unsigned int policy)
{
	switch (policy) {
	case 0: return "SCHED_OTHER";
	case 1: return "SCHED_FIFO";
	case 2: return "SCHED_RR";
	case 3: return "SCHED_BATCH";
	case 5: return "SCHED_IDLE";
	case 6: return "SCHED_DEADLINE";
	default: return "policy ?";
	}
}

/* Where the driver stamped arrivals and how it drove the lines. */
void ls_gpio_paths(const struct ls_params *p, const struct latscope_gpio_result *g,
		   char *buf, size_t len)
{
	size_t n;

	if ((g->paths & LATSCOPE_GPIO_IN_THREAD) && (g->paths & LATSCOPE_GPIO_IN_HARDIRQ))
		n = snprintf(buf, len, "arrival stamped in hard irq and in thread %s (pid %d), irq %d",
			     g->irq_thread_comm, g->irq_thread_pid, g->irq);
	else if (g->paths & LATSCOPE_GPIO_IN_THREAD)
		n = snprintf(buf, len, "arrival stamped in thread %s (pid %d), irq %d",
			     g->irq_thread_comm, g->irq_thread_pid, g->irq);
	else if (g->paths & LATSCOPE_GPIO_IN_HARDIRQ)
		n = snprintf(buf, len, "arrival stamped in hard irq, irq %d", g->irq);
	else
		n = snprintf(buf, len, "no arrival seen, irq %d", g->irq);
	if (n < len && (g->paths & LATSCOPE_GPIO_THREAD_RAISED))
		n += snprintf(buf + n, len - n, "; %s ran at SCHED_FIFO %d for the run (it had %s %u, given back)",
			      g->irq_thread_comm, p->irq_thread_prio,
			      ls_policy_name(g->irq_thread_policy), g->irq_thread_rtprio);
	else if (n < len && p->irq_thread_prio)
		n += snprintf(buf + n, len - n, "; --irq-prio %d: %s", p->irq_thread_prio,
			      g->paths & LATSCOPE_GPIO_IN_THREAD ?
			      "the thread could not be raised" : "no IRQ thread to raise");
	if (n < len && (g->paths & LATSCOPE_GPIO_OUT_CANSLEEP))
		n += snprintf(buf + n, len - n, "; pulse-out chip may sleep: driven from a kernel thread");
	if (n < len && (g->paths & LATSCOPE_GPIO_ACK_CANSLEEP))
		snprintf(buf + n, len - n, "; ack-out chip may sleep");
}
