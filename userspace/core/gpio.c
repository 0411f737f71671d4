// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the GPIO source, up to its SETUP. Line specs such as
 * "-I gpiochip0,24[,rising-edge]" name a chip by its device (gpiochip0 or
 * /dev/gpiochip0) and a line by its offset; the driver wants the chip's
 * label, so the spec is resolved through the GPIO character device, which
 * also tells whether the offset exists and whether someone else holds the
 * line. Also what GPIO mode asks of the other options and the device
 * tree's lines (--gpio-dt). What a GPIO run prints is in output/gpio_print.c.
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

#include "core/core.h"

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

	for (i = 0; i < ARRAY_SIZE(ls_edges); i++)
		if (ls_edges[i].edge == edge)
			return ls_edges[i].name;
	return "?";
}

/* rising-edge, falling-edge or both-edges; 0 or -1. */
int ls_gpio_parse_edge(const char *s, unsigned int *edge)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ls_edges); i++)
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

/*
 * Whether the responder answers with latmus's ack pulse (--ack pulse, or
 * by default when a monitor times it: a latmon host, or the one-board
 * monitor) rather than one toggle.
 */
bool ls_ack_pulse(const struct ls_params *p)
{
	return p->ack == LS_ACK_PULSE ||
	       (p->ack == LS_ACK_AUTO && (p->latmon_host[0] || ls_one_board(p)));
}

/* Loopback: the driver pulses at the period; remote: the monitor's pace. */
bool ls_gpio_paced(const struct ls_params *p)
{
	return p->pulse_out.given || p->latmon_host[0];
}

/*
 * The edge of the other board's answer a monitor times: --ack-in's (or
 * --gpio-dt's), else falling, as latmus answers.
 */
unsigned int ls_ack_in_edge(const struct ls_params *p)
{
	unsigned int edge = p->gpio_dt ? p->gpio_edge : p->ack_in_edge;

	return edge ? edge : LATSCOPE_EDGE_FALLING;
}

/* What a latmon host asks of the other options. */
static int latmon_check(const struct ls_params *p, char *err, size_t errlen)
{
	if (p->pulse_out.given) {
		ls_fail(err, errlen, "-z %s: the latmon monitor drives pulse-in; a loopback pulse-out (%s) has no place in that run",
			p->latmon_host, p->pulse_out.spec);
		return -1;
	}
	if (p->hist_cells + 1 > LS_LATMON_MAX_CELLS) {
		ls_fail(err, errlen, "-H %u: a latmon monitor keeps at most %u cells, the last for all past them: at most %u with -z",
			p->hist_cells, LS_LATMON_MAX_CELLS, LS_LATMON_MAX_CELLS - 1);
		return -1;
	}
	if (p->checkpoint_s) {
		ls_fail(err, errlen, "--checkpoint with -z %s: the monitor sends its histogram at the end only, so no checkpoint could hold it",
			p->latmon_host);
		return -1;
	}
	return 0;
}

static bool same_line(const struct ls_gpio_spec *a, const struct ls_gpio_spec *b)
{
	return a->offset == b->offset && !strcmp(a->dev, b->dev);
}

/* What --monitor asks of the other options. */
static int monitor_check(const struct ls_params *p, char *err, size_t errlen)
{
	if (p->context != LATSCOPE_CTX_IRQ) {
		ls_fail(err, errlen, "--monitor times the other board's answer in hard irq: leave out -k, -u and --gpiod");
		return -1;
	}
	if (p->pulse_in.given || p->ack_out.given || p->latmon_host[0] ||
	    p->ack != LS_ACK_AUTO) {
		ls_fail(err, errlen, "--monitor drives --pulse-out and times --ack-in: -I, -O, -z and --ack are the other board's");
		return -1;
	}
	if (p->gpio_dt && (p->pulse_out.given || p->ack_in.given)) {
		ls_fail(err, errlen, "--monitor --gpio-dt takes the lines from the device tree: leave out --pulse-out and --ack-in");
		return -1;
	}
	if (!p->gpio_dt && (!p->pulse_out.given || !p->ack_in.given)) {
		ls_fail(err, errlen, "--monitor needs --pulse-out <chip>,<offset> (to the other board's pulse-in) and --ack-in <chip>,<offset> (from its ack-out), or --gpio-dt");
		return -1;
	}
	if (!p->gpio_dt && same_line(&p->pulse_out, &p->ack_in)) {
		ls_fail(err, errlen, "--pulse-out %s and --ack-in %s: each line must be a different one",
			p->pulse_out.spec, p->ack_in.spec);
		return -1;
	}
	if (p->cpus_all || CPU_COUNT(&p->cpus) > 1) {
		ls_fail(err, errlen, "--monitor pulses from one CPU: give one with -c");
		return -1;
	}
	if (!p->calibrate && (p->period_us != LS_DEFAULT_PERIOD_US ||
			      p->hist_cells != LATSCOPE_DEFAULT_HIST_CELLS)) {
		ls_fail(err, errlen, "-p and -H with --monitor: each client's request sets the period and the cells; they are for --calibrate");
		return -1;
	}
	if (p->subtract_us && p->calibrate) {
		ls_fail(err, errlen, "--subtract %u with --calibrate: the fixture is what --calibrate measures",
			p->subtract_us);
		return -1;
	}
	if (p->checkpoint_s && !p->calibrate) {
		ls_fail(err, errlen, "--checkpoint applies to --calibrate: a monitor writes its files after each client's run");
		return -1;
	}
	return 0;
}

/*
 * The one-board mode: the driver's monitor pulses --pulse-out (wired to
 * -I) and times --ack-in (wired from -O), the application's responder
 * (--gpiod) answers between them.
 */
bool ls_one_board(const struct ls_params *p)
{
	return p->context == LS_CTX_GPIOD && p->ack_in.given && !p->monitor;
}

/* What the application's responder (--gpiod) asks of the other options. */
static int gpiod_check(const struct ls_params *p, char *err, size_t errlen)
{
	if (p->gpio_dt) {
		ls_fail(err, errlen, "--gpiod requests its lines through the GPIO character device: give -I and -O (--gpio-dt's lines are the driver's)");
		return -1;
	}
	if (p->pulse_out.given != p->ack_in.given) {
		ls_fail(err, errlen, "--gpiod on one board needs both --pulse-out (wired to -I) and --ack-in (wired from -O): the driver's monitor drives and times them");
		return -1;
	}
	if (!ls_one_board(p)) {
		if (p->breaktrace_us) {
			ls_fail(err, errlen, "-b %u: the driver stops ftrace, and --gpiod answers without it: use -A, or the one-board mode (--pulse-out and --ack-in), whose monitor is the driver's",
				p->breaktrace_us);
			return -1;
		}
		return 0;
	}
	if (p->latmon_host[0]) {
		ls_fail(err, errlen, "-z %s and --ack-in: a latmon monitor or this board's own, not both",
			p->latmon_host);
		return -1;
	}
	if (p->gpio_edge == LATSCOPE_EDGE_BOTH) {
		ls_fail(err, errlen, "-I %s,both-edges: the one-board monitor times one edge of each pulse: give rising-edge or falling-edge",
			p->pulse_in.spec);
		return -1;
	}
	if (p->ack == LS_ACK_TOGGLE) {
		ls_fail(err, errlen, "--ack toggle: the one-board monitor times latmus's ack pulse (--ack pulse)");
		return -1;
	}
	if (same_line(&p->ack_in, &p->pulse_in) || same_line(&p->ack_in, &p->ack_out) ||
	    same_line(&p->ack_in, &p->pulse_out)) {
		ls_fail(err, errlen, "--ack-in %s: a line of its own, wired from -O %s",
			p->ack_in.spec, p->ack_out.spec);
		return -1;
	}
	return 0;
}

int ls_gpio_check(const struct ls_params *p, char *err, size_t errlen)
{
	if (p->monitor)
		return monitor_check(p, err, errlen);
	if (p->context == LS_CTX_GPIOD && gpiod_check(p, err, errlen))
		return -1;
	if (p->gpio_dt && (p->pulse_in.given || p->ack_out.given || p->pulse_out.given)) {
		ls_fail(err, errlen, "--gpio-dt takes the lines from the device tree: leave out -I, -O and --pulse-out");
		return -1;
	}
	if (!p->gpio_dt && (!p->pulse_in.given || !p->ack_out.given)) {
		ls_fail(err, errlen, "GPIO mode needs both -I <chip>,<offset> (pulse-in) and -O <chip>,<offset> (ack-out)");
		return -1;
	}
	if (p->context == LATSCOPE_CTX_IRQ) {
		ls_fail(err, errlen, "-i: a GPIO event is answered by a kernel thread (-k) or a user thread (-u)");
		return -1;
	}
	if (p->cpus_all || CPU_COUNT(&p->cpus) > 1) {
		ls_fail(err, errlen, "GPIO mode measures one responder: give one CPU with -c");
		return -1;
	}
	if (p->latmon_host[0] && latmon_check(p, err, errlen))
		return -1;
	if (p->gpio_dt)
		return 0;
	if (same_line(&p->pulse_in, &p->ack_out) ||
	    (p->pulse_out.given && (same_line(&p->pulse_in, &p->pulse_out) ||
				    same_line(&p->ack_out, &p->pulse_out)))) {
		ls_fail(err, errlen, "pulse-in %s, ack-out %s%s%s: each line must be a different one",
			p->pulse_in.spec, p->ack_out.spec,
			p->pulse_out.given ? " and pulse-out " : "",
			p->pulse_out.given ? p->pulse_out.spec : "");
		return -1;
	}
	return 0;
}

#define LS_DT_DRIVER	"/sys/bus/platform/drivers/latscope-gpio"

/*
 * --gpio-dt: is a device tree latscope device bound, and does its node
 * have a pulse-out line (loopback)? Names its lines in @p for messages.
 */
static int find_dt(struct ls_params *p, char *err, size_t errlen)
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
		snprintf(path, sizeof(path), LS_DT_DRIVER "/%s/of_node/ack-in-gpios", d->d_name);
		if (!access(path, F_OK) != p->monitor) {
			snprintf(err, errlen, p->monitor ?
				 "--monitor --gpio-dt: the bound \"latscope,gpio\" device %.60s is for the board under test (no ack-in-gpios): load the latscope-monitor overlay, see README"
				 : "--gpio-dt: the bound \"latscope,gpio\" device %.60s is in the monitor role (ack-in-gpios): use it with --monitor --gpio-dt",
				 d->d_name);
			closedir(dir);
			return -1;
		}
		if (p->monitor) {
			p->pulse_out.given = true;
			p->ack_in.given = true;
			snprintf(p->pulse_out.spec, sizeof(p->pulse_out.spec), "%.60s:pulse-out",
				 d->d_name);
			snprintf(p->ack_in.spec, sizeof(p->ack_in.spec), "%.60s:ack-in", d->d_name);
			break;
		}
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

/*
 * Before the run: the device tree's lines found (--gpio-dt), and what -Z
 * means on these kernels said.
 */
int ls_gpio_prepare(struct ls_params *p, char *err, size_t errlen)
{
	if (p->gpio_dt && find_dt(p, err, errlen))
		return -1;
	if (p->oob_note)
		fprintf(stderr, "latscope: -Z: this kernel has no out-of-band stage, the response is measured in-band\n");
	return 0;
}

/* A monitor's SETUP: its pulse-out, and its ack-in as the event line. */
static int monitor_setup(const struct ls_params *p, struct latscope_setup *setup,
			 char *err, size_t errlen)
{
	struct latscope_gpio_setup *gs = &setup->gpio;

	setup->context = LATSCOPE_CTX_IRQ;
	gs->mode = LATSCOPE_GPIO_MONITOR;
	gs->edge = ls_ack_in_edge(p);
	gs->irq_thread_priority = (__u32)p->irq_thread_prio;
	if (p->pulse_edge == LATSCOPE_EDGE_FALLING)
		gs->flags |= LATSCOPE_GPIO_PULSE_LOW;
	if (p->gpio_dt) {
		/* Edge 0: the node's latscope,edge (falling without it). */
		gs->flags |= LATSCOPE_GPIO_FROM_DT;
		gs->edge = p->gpio_edge;
		return 0;
	}
	if (ls_gpio_resolve("ack-in", &p->ack_in, &gs->pulse_in, err, errlen) ||
	    ls_gpio_resolve("pulse-out", &p->pulse_out, &gs->pulse_out, err, errlen))
		return -1;
	return 0;
}

/* Fills the GPIO part of a SETUP from the options. */
int ls_gpio_setup(const struct ls_params *p, struct latscope_setup *setup,
		  char *err, size_t errlen)
{
	struct latscope_gpio_setup *gs = &setup->gpio;
	bool loopback = p->pulse_out.given;

	if (p->monitor)
		return monitor_setup(p, setup, err, errlen);
	gs->mode = loopback ? LATSCOPE_GPIO_LOOPBACK : LATSCOPE_GPIO_REMOTE;
	gs->edge = p->gpio_edge;
	gs->irq_thread_priority = (__u32)p->irq_thread_prio;
	/* Remote: the events come at the monitor's pace, whatever -p says. */
	if (!loopback)
		setup->period_ns = 0;
	if (ls_ack_pulse(p))
		gs->flags |= LATSCOPE_GPIO_ACK_PULSE;
	if (p->gpio_dt) {
		gs->flags |= LATSCOPE_GPIO_FROM_DT;
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

/* "pulse-in X, ack-out Y[, pulse-out Z]", or a monitor's two */
static void ls_gpio_lines(const struct ls_params *p, char *buf, size_t len)
{
	if (p->monitor) {
		snprintf(buf, len, "pulse-out %s, ack-in %s", p->pulse_out.spec, p->ack_in.spec);
		return;
	}
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
	case EPERM:
		snprintf(err, errlen, "GPIO lines need CAP_SYS_ADMIN too: run as root, or load latscope with trusted_group=1");
		break;
	case EINVAL:
		snprintf(err, errlen, "the driver refused the GPIO setup: two of the lines are one and the same, or CPU, priority or period is out of range%s",
			 p->ack == LS_ACK_PULSE || p->latmon_host[0] ?
			 ", or this latscope.ko is older than the ack pulse (--ack pulse)" : "");
		break;
	default:
		snprintf(err, errlen, "the driver refused the GPIO setup: %s",
			 strerror(error));
		break;
	}
}
