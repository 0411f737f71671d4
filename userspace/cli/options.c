// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: command-line parsing into struct ls_options. latmus's
 * options, same letters, meanings and defaults, plus latscope's own. No
 * side effects: every bad value comes back as one message naming it.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "run/run.h"

void ls_params_init(struct ls_params *p)
{
	memset(p, 0, sizeof(*p));
	p->context = LATSCOPE_CTX_USER;
	p->source = LATSCOPE_SRC_TIMER;
	p->period_us = LS_DEFAULT_PERIOD_US;
	p->priority = 90;
	p->hist_cells = LATSCOPE_DEFAULT_HIST_CELLS;
	p->why = LS_WHY_DEFAULT;
	p->gpio_edge = LATSCOPE_EDGE_RISING;
	p->pulse_edge = LATSCOPE_EDGE_RISING;
	p->verbosity = 1;
	p->lines = LS_DEFAULT_LINES;
	CPU_ZERO(&p->cpus);
}

void ls_options_init(struct ls_options *o)
{
	memset(o, 0, sizeof(*o));
	ls_params_init(&o->p);
	o->thermal_zone = LS_ZONE_AUTO;
	o->cost.repeat = 5;
	o->cost.scale = 100;
	o->cost.min_run_ms = LS_COST_MIN_RUN_MS;
	o->survey.cost_min_run_ms = -1;
}

/* "30", "30s", "5m", "2h", "1d": seconds, at most 100 days. */
int ls_parse_duration(const char *s, unsigned long long *secs)
{
	unsigned long long v, mult = 1;
	char num[32];
	size_t n;

	if (!s)
		return -EINVAL;
	n = strlen(s);
	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'd':
		mult = 86400;
		break;
	case 'h':
		mult = 3600;
		break;
	case 'm':
		mult = 60;
		break;
	case 's':
		break;
	default:
		n++;	/* no suffix: keep the last digit */
		break;
	}
	num[n - 1] = '\0';
	if (ls_parse_uint(num, 1, 100ULL * 86400, &v) || v * mult > 100ULL * 86400)
		return -EINVAL;
	*secs = v * mult;
	return 0;
}

static void join_cmdline(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < argc && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

/* ---- options: one row each ---- */

struct opt_call;

enum opt_kind {
	OPT_SET,		/* no value: @value goes to the field */
	OPT_NUMBER,		/* a whole number in [min, max] to the field */
	OPT_TEXT,		/* the value as given to the field, a const char * */
	OPT_HANDLER,		/* @parse reads the value */
	OPT_ENDS,		/* parsing ends: @value is the enum ls_parse */
};

/*
 * One option: its names and value for getopt_long(), what it sets in
 * struct ls_options, and how a bad value is told: "invalid value 'x' for
 * -p/--period (<hint>)", the hint a format given @min then @max.
 */
struct opt {
	const char *name;
	char letter;			/* 0: a long option only */
	int has_arg;			/* no_argument, required_argument, ... */
	enum opt_kind kind;
	size_t field, size;		/* the field's offset and size */
	unsigned long long min, max;
	unsigned long long value;	/* OPT_SET's, OPT_NUMBER's without a value */
	int (*parse)(struct opt_call *call);
	const char *hint;
	const char *word;		/* a value that is a word: what to give */
};

/* What a handler works on: its row, the value given, where it goes. */
struct opt_call {
	const struct opt *opt;
	const char *arg;		/* NULL: an optional value not given */
	struct ls_options *o;
	struct ls_params *p;		/* &o->p */
	char *err;			/* the handler's own message, if it has one */
	size_t errlen;
};

/* A handler's answer besides 0 and -1: "invalid value" with the row's hint. */
#define BAD_VALUE	1

/* ---- options with a parsing of their own ---- */

/* -c and --cpus both say where to measure: one of them. */
static int cpus_given(struct opt_call *call, const char *opt)
{
	if (call->o->cpus_opt && strcmp(call->o->cpus_opt, opt)) {
		ls_fail(call->err, call->errlen,
			"%s and %s: give the CPUs once (-c one CPU, --cpus a list or all)",
			call->o->cpus_opt, opt);
		return -1;
	}
	call->o->cpus_opt = opt;
	return 0;
}

static int cpu_value(struct opt_call *call)
{
	unsigned long long v;

	if (cpus_given(call, "-c"))
		return -1;
	if ((isdigit((unsigned char)call->arg[0]) && strpbrk(call->arg, ",-")) ||
	    !strcmp(call->arg, "all")) {
		ls_fail(call->err, call->errlen,
			"-c/--cpu '%.40s': one CPU number; a list or all is --cpus %.40s",
			call->arg, call->arg);
		return -1;
	}
	if (ls_parse_uint(call->arg, call->opt->min, call->opt->max, &v))
		return BAD_VALUE;
	CPU_ZERO(&call->p->cpus);
	CPU_SET(v, &call->p->cpus);
	call->p->cpus_all = false;
	return 0;
}

static int cpus_value(struct opt_call *call)
{
	struct ls_params *p = call->p;

	if (cpus_given(call, "--cpus"))
		return -1;
	if (!strcmp(call->arg, "all")) {
		p->cpus_all = true;
		CPU_ZERO(&p->cpus);
		return 0;
	}
	if (ls_parse_cpu_list(call->arg, &p->cpus))
		return BAD_VALUE;
	p->cpus_all = false;
	return 0;
}

/* -P: remembered as given, so that a context without a thread (-i) can refuse it. */
static int priority_value(struct opt_call *call)
{
	unsigned long long v;

	if (ls_parse_uint(call->arg, call->opt->min, call->opt->max, &v))
		return BAD_VALUE;
	call->p->priority = (int)v;
	call->o->priority_given = true;
	return 0;
}

static int timeout_value(struct opt_call *call)
{
	return ls_parse_duration(call->arg, &call->p->timeout_s) ? BAD_VALUE : 0;
}

static int max_run_value(struct opt_call *call)
{
	if (ls_parse_duration(call->arg, &call->o->door.max_run_s) || !call->o->door.max_run_s)
		return BAD_VALUE;
	return 0;
}

static int allow_value(struct opt_call *call)
{
	return ls_allow_parse(call->arg, &call->o->door.allow, call->err, call->errlen);
}

/* A bare number is minutes; 30s, 5m, 2h as -T. */
static int checkpoint_value(struct opt_call *call)
{
	const char *arg = call->arg;
	char buf[32];

	snprintf(buf, sizeof(buf), "%s%s", arg,
		 arg[0] && isdigit((unsigned char)arg[strlen(arg) - 1]) ? "m" : "");
	if (ls_parse_duration(buf, &call->p->checkpoint_s) || !call->p->checkpoint_s)
		return BAD_VALUE;
	return 0;
}

/* --serve[=[ADDR:]PORT]: checked here, parsed again where it listens. */
static int serve_value(struct opt_call *call)
{
	struct ls_serve_addr a;

	call->o->serve.http = true;
	call->o->serve.addr = call->arg;
	return ls_serve_parse_addr(call->arg, &a, call->err, call->errlen);
}

static int textfile_every_value(struct opt_call *call)
{
	unsigned long long *every = &call->o->serve.textfile_s;

	if (ls_parse_duration(call->arg, every) || *every > 3600)
		return BAD_VALUE;
	return 0;
}

/* How each context is given on the command line. */
static const char *const context_opts[LS_NR_CTX] = {
	[LATSCOPE_CTX_IRQ] = "-i",
	[LATSCOPE_CTX_KERNEL] = "-k",
	[LATSCOPE_CTX_USER] = "-u",
	[LS_CTX_GPIOD] = "--gpiod",
};

/* -i, -k, -u and --gpiod: who answers the events; one of them. */
static int context_value(struct opt_call *call)
{
	unsigned int ctx = (unsigned int)call->opt->value;

	if (call->o->context_given && call->p->context != ctx) {
		ls_fail(call->err, call->errlen,
			"%s and %s: give one context (who answers the events), not two",
			context_opts[call->p->context], context_opts[ctx]);
		return -1;
	}
	call->p->context = (unsigned int)call->opt->value;
	call->o->context_given = true;
	if (call->p->context == LS_CTX_GPIOD)
		call->p->source = LATSCOPE_SRC_GPIO;
	return 0;
}

static int pulse_in_value(struct opt_call *call)
{
	call->p->source = LATSCOPE_SRC_GPIO;
	return ls_gpio_parse("-I", call->arg, &call->p->pulse_in, &call->p->gpio_edge,
			     call->err, call->errlen);
}

static int ack_out_value(struct opt_call *call)
{
	call->p->source = LATSCOPE_SRC_GPIO;
	return ls_gpio_parse("-O", call->arg, &call->p->ack_out, NULL, call->err, call->errlen);
}

static int pulse_out_value(struct opt_call *call)
{
	call->p->source = LATSCOPE_SRC_GPIO;
	return ls_gpio_parse("--pulse-out", call->arg, &call->p->pulse_out, NULL, call->err,
			     call->errlen);
}

static int noise_value(struct opt_call *call)
{
	call->p->noise = true;
	if (call->p->source == LATSCOPE_SRC_TIMER)
		call->p->source = LATSCOPE_SRC_NOISE;
	return 0;
}

static int monitor_value(struct opt_call *call)
{
	call->p->monitor = true;
	call->p->source = LATSCOPE_SRC_GPIO;
	return 0;
}

static int ack_in_value(struct opt_call *call)
{
	return ls_gpio_parse("--ack-in", call->arg, &call->p->ack_in, &call->p->ack_in_edge,
			     call->err, call->errlen);
}

static int pulse_edge_value(struct opt_call *call)
{
	unsigned int edge;

	if (ls_gpio_parse_edge(call->arg, &edge) || edge == LATSCOPE_EDGE_BOTH) {
		ls_fail(call->err, call->errlen, "--pulse-edge %.40s%s: give rising-edge or falling-edge",
			call->arg, strlen(call->arg) > 40 ? "..." : "");
		return -1;
	}
	call->p->pulse_edge = edge;
	return 0;
}

/* --listen and --announce-to: a dotted IPv4 address (or "none" to announce nothing). */
static int ipv4_value(struct opt_call *call)
{
	struct ls_door_params *dp = &call->o->door;
	bool announce = !strcmp(call->opt->name, "announce-to");
	char *field = announce ? dp->announce_to : dp->listen_addr;
	size_t size = announce ? sizeof(dp->announce_to) : sizeof(dp->listen_addr);
	struct in_addr a;

	if ((!announce || strcmp(call->arg, "none")) &&
	    (strlen(call->arg) >= size || inet_pton(AF_INET, call->arg, &a) != 1)) {
		ls_fail(call->err, call->errlen, "--%s %.40s%s: give a dotted IPv4 address%s",
			call->opt->name, call->arg, strlen(call->arg) > 40 ? "..." : "",
			announce ? ", or none" : "");
		return -1;
	}
	strcpy(field, call->arg);
	return 0;
}

static int gpio_dt_value(struct opt_call *call)
{
	struct ls_params *p = call->p;
	const char *arg = call->arg;

	p->source = LATSCOPE_SRC_GPIO;
	p->gpio_dt = true;
	p->gpio_edge = 0;	/* the device's latscope,edge */
	if (arg && ls_gpio_parse_edge(arg, &p->gpio_edge)) {
		ls_fail(call->err, call->errlen,
			"--gpio-dt=%s: edge '%s' is not rising-edge, falling-edge or both-edges",
			arg, arg);
		return -1;
	}
	return 0;
}

/*
 * -z and -Z: latmus's remote monitor. HOST: a latmon monitor to talk to
 * (a name, an address, or "broadcast": the first one announcing itself);
 * '-': none, the monitor keeps its figures.
 */
static int remote_value(struct opt_call *call)
{
	struct ls_params *p = call->p;
	const char *s;

	p->source = LATSCOPE_SRC_GPIO;
	p->oob_note = call->opt->letter == 'Z';
	call->o->inband = call->opt->letter == 'z';
	p->latmon_host[0] = '\0';
	if (!strcmp(call->arg, "-"))
		return 0;
	for (s = call->arg; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			break;
	if (!call->arg[0] || *s || strlen(call->arg) >= sizeof(p->latmon_host)) {
		ls_fail(call->err, call->errlen,
			"-%c '%.40s%s': give a latmon host (a name or an address of at most %zu characters, no spaces), 'broadcast', or '-'",
			call->opt->letter, call->arg, strlen(call->arg) > 40 ? "..." : "",
			sizeof(p->latmon_host) - 1);
		return -1;
	}
	strcpy(p->latmon_host, call->arg);
	return 0;
}

/* --ack pulse|toggle: how the responder answers on ack-out. */
static int ack_value(struct opt_call *call)
{
	if (!strcmp(call->arg, "pulse")) {
		call->p->ack = LS_ACK_PULSE;
	} else if (!strcmp(call->arg, "toggle")) {
		call->p->ack = LS_ACK_TOGGLE;
	} else {
		ls_fail(call->err, call->errlen, "--ack %.40s%s: give pulse or toggle", call->arg,
			strlen(call->arg) > 40 ? "..." : "");
		return -1;
	}
	call->p->source = LATSCOPE_SRC_GPIO;
	return 0;
}

static int stress_value(struct opt_call *call)
{
	char names[128];

	if (!ls_stress_preset(call->arg)) {
		ls_stress_names(names, sizeof(names));
		ls_fail(call->err, call->errlen, "--stress %s: no such preset (presets: %s)",
			call->arg, names);
		return -1;
	}
	call->p->stress = call->arg;
	return 0;
}

static int stress_cmd_value(struct opt_call *call)
{
	const size_t max = sizeof(((struct ls_stress *)0)->cmd[0]);

	if (!call->arg[0] || strlen(call->arg) >= max) {
		ls_fail(call->err, call->errlen, "--stress-cmd: give a command of 1 to %zu characters",
			max - 1);
		return -1;
	}
	call->p->stress_cmd = call->arg;
	return 0;
}

/* --thermal-zone N|none: the zone whose temperature is read each second. */
static int thermal_zone_value(struct opt_call *call)
{
	unsigned long long n;

	if (!strcmp(call->arg, "none")) {
		call->o->thermal_zone = LS_ZONE_NONE;
	} else if (!ls_parse_uint(call->arg, 0, 9999, &n)) {
		call->o->thermal_zone = (int)n;
	} else {
		ls_fail(call->err, call->errlen,
			"--thermal-zone '%.40s%s': give a zone number (N of /sys/class/thermal/thermal_zoneN) or none",
			call->arg, strlen(call->arg) > 40 ? "..." : "");
		return -1;
	}
	return 0;
}

/* --cost-only a,b: workloads of the cost suite, each named once. */
static int survey_skip_value(struct opt_call *call)
{
	return ls_survey_parse_skip(call->arg, &call->o->survey.skip, call->err, call->errlen);
}

static int cost_only_value(struct opt_call *call)
{
	char names[160], word[64];
	const char *at = call->arg;
	size_t n;

	if (!call->arg[0])
		goto bad;
	for (;; at += n + 1) {
		n = strcspn(at, ",");
		snprintf(word, sizeof(word), "%.*s",
			 (int)(n < sizeof(word) ? n : sizeof(word) - 1), at);
		if (!n || n >= sizeof(word) || !ls_workload(word))
			goto bad;
		if (!at[n])
			break;
	}
	call->o->cost.only = call->arg;
	call->o->cost.asked = true;
	return 0;
bad:
	ls_workload_names(names, sizeof(names));
	ls_fail(call->err, call->errlen, "--cost-only '%.40s%s': give workloads from: %s",
		call->arg, strlen(call->arg) > 40 ? "..." : "", names);
	return -1;
}

/* ---- the option table ---- */

#define FIELD(f)		.field = offsetof(struct ls_options, f), \
				.size = sizeof(((struct ls_options *)0)->f)
#define SET(f, v)		.kind = OPT_SET, FIELD(f), .value = (v)
#define NUMBER(f, lo, hi)	.kind = OPT_NUMBER, FIELD(f), .min = (lo), .max = (hi)
#define TEXT(f)			.kind = OPT_TEXT, FIELD(f)
#define HANDLER(fn)		.kind = OPT_HANDLER, .parse = (fn)
#define ENDS(v)			.kind = OPT_ENDS, .value = (v)

static const struct opt opts[] = {
	{ "period", 'p', required_argument,
	  NUMBER(p.period_us, LATSCOPE_MIN_PERIOD_NS / 1000, LATSCOPE_MAX_PERIOD_NS / 1000),
	  .hint = "microseconds, %llu to %llu" },
	{ "priority", 'P', required_argument, HANDLER(priority_value), .min = 1,
	  .max = LATSCOPE_MAX_PRIORITY, .hint = "%llu to %llu" },
	{ "cpu", 'c', required_argument, HANDLER(cpu_value), .min = 0, .max = CPU_SETSIZE - 1,
	  .hint = "a CPU number" },
	{ "timeout", 'T', required_argument, HANDLER(timeout_value),
	  .hint = "e.g. 30, 30s, 5m, 2h, 1d; at most 100 days" },
	{ "duration", 0, required_argument, HANDLER(timeout_value),
	  .hint = "e.g. 30, 30s, 5m, 2h, 1d; at most 100 days" },
	{ "plot", 'g', required_argument, TEXT(p.plot_path),
	  .word = "a file name, or - for stdout" },
	{ "histogram", 'H', required_argument, NUMBER(p.hist_cells, 1, LATSCOPE_MAX_HIST_CELLS),
	  .hint = "%llu to %llu cells" },
	{ "irq", 'i', no_argument, HANDLER(context_value), .value = LATSCOPE_CTX_IRQ },
	{ "kernel", 'k', no_argument, HANDLER(context_value), .value = LATSCOPE_CTX_KERNEL },
	{ "user", 'u', no_argument, HANDLER(context_value), .value = LATSCOPE_CTX_USER },
	{ "gpiod", 0, no_argument, HANDLER(context_value), .value = LS_CTX_GPIOD },
	{ "maxlat-abort", 'A', required_argument, NUMBER(p.abort_us, 1, 1000000000),
	  .hint = "microseconds, at least %llu" },
	{ "quiet", 'q', no_argument, SET(p.verbosity, 0) },
	{ "verbose", 'v', optional_argument, NUMBER(p.verbosity, 0, 9), .value = 2,
	  .hint = "%llu to %llu" },
	{ "lines", 'l', required_argument, NUMBER(p.lines, 0, 1000000), .hint = "%llu or more" },
	{ "breaktrace", 'b', required_argument, NUMBER(p.breaktrace_us, 1, 1000000000),
	  .hint = "microseconds, at least %llu" },
	{ "why", 0, optional_argument, NUMBER(p.why, 1, LATSCOPE_WHY_MAX_RECORDS),
	  .value = LS_WHY_RECORDS, .hint = "%llu to %llu samples per CPU" },
	{ "no-why", 0, no_argument, SET(p.why, 0) },
	{ "gpio-in", 'I', required_argument, HANDLER(pulse_in_value), .word = "<chip>,<n>" },
	{ "gpio-out", 'O', required_argument, HANDLER(ack_out_value), .word = "<chip>,<n>" },
	{ "inband-gpio", 'z', required_argument, HANDLER(remote_value),
	  .word = "a host, broadcast, or -" },
	{ "oob-gpio", 'Z', required_argument, HANDLER(remote_value),
	  .word = "a host, broadcast, or -" },
	{ "latmon-port", 0, required_argument, NUMBER(p.latmon_port, 1, 65535),
	  .hint = "%llu to %llu" },
	{ "ack", 0, required_argument, HANDLER(ack_value), .word = "pulse or toggle" },
	{ "monitor", 0, no_argument, HANDLER(monitor_value) },
	{ "calibrate", 0, no_argument, SET(p.calibrate, true) },
	{ "subtract", 0, required_argument, NUMBER(p.subtract_us, 1, 10000),
	  .hint = "whole microseconds, %llu to %llu" },
	{ "ack-in", 0, required_argument, HANDLER(ack_in_value), .word = "<chip>,<n>" },
	{ "pulse-edge", 0, required_argument, HANDLER(pulse_edge_value),
	  .word = "rising-edge or falling-edge" },
	{ "listen", 0, required_argument, HANDLER(ipv4_value), .word = "an IPv4 address" },
	{ "announce-to", 0, required_argument, HANDLER(ipv4_value),
	  .word = "an IPv4 address, or none" },
	{ "allow", 0, required_argument, HANDLER(allow_value),
	  .word = "ADDR[/PREFIX][,...]" },
	{ "max-run", 0, required_argument, HANDLER(max_run_value),
	  .hint = "e.g. 30m, 2h, 1d; at most 100 days" },
	{ "pulse-out", 0, required_argument, HANDLER(pulse_out_value), .word = "<chip>,<n>" },
	{ "gpio-dt", 0, optional_argument, HANDLER(gpio_dt_value) },
	{ "irq-prio", 0, required_argument, NUMBER(p.irq_thread_prio, 1, LATSCOPE_MAX_PRIORITY),
	  .hint = "%llu to %llu" },
	{ "stress", 0, required_argument, HANDLER(stress_value), .word = "a preset" },
	{ "stress-cmd", 0, required_argument, HANDLER(stress_cmd_value), .word = "a command" },
	{ "threads", 0, required_argument, NUMBER(p.threads, 1, 1024), .hint = "%llu to %llu" },
	{ "noise", 0, no_argument, HANDLER(noise_value) },
	{ "noise-runtime", 0, required_argument,
	  NUMBER(p.noise_runtime_us, LATSCOPE_NOISE_MIN_RUNTIME_NS / 1000,
		 LATSCOPE_MAX_PERIOD_NS / 1000),
	  .hint = "microseconds, %llu to %llu" },
	{ "noise-threshold", 0, required_argument,
	  NUMBER(p.noise_threshold_us, 1, LATSCOPE_NOISE_MAX_THRESHOLD_NS / 1000),
	  .hint = "microseconds, %llu to %llu" },
	{ "irqs-off", 0, no_argument, SET(p.irqs_off, true) },
	{ "cost", 0, no_argument, SET(cost.asked, true) },
	{ "survey", 0, required_argument, TEXT(survey.dir), .word = "a new directory" },
	{ "survey-plan", 0, no_argument, SET(survey.plan_only, true) },
	{ "survey-skip", 0, required_argument, HANDLER(survey_skip_value),
	  .word = "phases, e.g. cost,classic" },
	{ "resume", 0, no_argument, SET(survey.resume, true) },
	{ "check-setup", 0, no_argument, SET(check_setup, true) },
	{ "apply-setup", 0, no_argument, SET(apply_setup, true) },
	{ "restore-setup", 0, no_argument, SET(restore_setup, true) },
	{ "cost-repeat", 0, required_argument, NUMBER(cost.repeat, 1, LS_COST_MAX_REPEAT),
	  .hint = "%llu to %llu runs" },
	{ "cost-scale", 0, required_argument, NUMBER(cost.scale, 1, 10000),
	  .hint = "percent of the default work, %llu to %llu" },
	{ "cost-only", 0, required_argument, HANDLER(cost_only_value),
	  .word = "workloads, e.g. queens-1,fsync" },
	{ "cost-dir", 0, required_argument, TEXT(cost.dir), .word = "a directory" },
	{ "cost-min-run", 0, required_argument, NUMBER(cost.min_run_ms, 0, 600000),
	  .hint = "milliseconds, %llu to %llu" },
	{ "cost-aa", 0, no_argument, SET(cost.aa, true) },
	{ "thermal-zone", 0, required_argument, HANDLER(thermal_zone_value),
	  .word = "a zone number, or none" },
	{ "checkpoint", 0, required_argument, HANDLER(checkpoint_value),
	  .hint = "minutes, or 30s, 5m, 2h" },
	{ "serve", 0, optional_argument, HANDLER(serve_value), .word = "[ADDR:]PORT" },
	{ "textfile", 0, required_argument, TEXT(serve.textfile), .word = "a .prom file" },
	{ "textfile-every", 0, required_argument, HANDLER(textfile_every_value),
	  .hint = "e.g. 15, 15s, 1m; at most an hour" },
	{ "window", 0, required_argument, NUMBER(serve.window_s, 1, LS_PROM_MAX_WINDOW_S),
	  .hint = "seconds, %llu to %llu" },
	{ "buckets", 0, required_argument, TEXT(serve.buckets),
	  .word = "bounds in microseconds, e.g. 1,2,5,10" },
	{ "cpus", 0, required_argument, HANDLER(cpus_value),
	  .hint = "a list such as 1,3-5, or all" },
	{ "json", 0, required_argument, TEXT(p.json_path), .word = "a file name, or - for stdout" },
	{ "force", 0, no_argument, SET(p.force, true) },
	{ "help", 0, optional_argument, ENDS(LS_PARSE_HELP) },
	{ "version", 0, no_argument, ENDS(LS_PARSE_VERSION) },
};

#define NR_OPTS		ARRAY_SIZE(opts)
#define LONG_ONLY	256	/* getopt_long()'s value of opts[i] without a letter: + i */

/* getopt_long()'s arguments, from the table: "p:P:...v::..." and the long options. */
static void getopt_tables(char *shorts, struct option *longs)
{
	size_t i;

	/* No argument is a non-option: stop at the first, to say what came before it. */
	*shorts++ = '+';
	for (i = 0; i < NR_OPTS; i++) {
		const struct opt *o = &opts[i];

		longs[i] = (struct option){ o->name, o->has_arg, NULL,
					    o->letter ? o->letter : LONG_ONLY + (int)i };
		if (!o->letter)
			continue;
		*shorts++ = o->letter;
		if (o->has_arg != no_argument)
			*shorts++ = ':';
		if (o->has_arg == optional_argument)
			*shorts++ = ':';
	}
	*shorts = '\0';
	longs[NR_OPTS] = (struct option){ NULL, 0, NULL, 0 };
}

/* The row getopt_long() returned @c for, or NULL ('?': an error). */
static const struct opt *opt_of(int c)
{
	size_t i;

	if (c >= LONG_ONLY)
		return c - LONG_ONLY < (int)NR_OPTS ? &opts[c - LONG_ONLY] : NULL;
	for (i = 0; i < NR_OPTS; i++)
		if (opts[i].letter && opts[i].letter == c)
			return &opts[i];
	return NULL;
}

/* Stores @v in @o's field of @options: an unsigned long long, an (unsigned) int or a bool. */
static void set_field(struct ls_options *options, const struct opt *o, unsigned long long v)
{
	char *field = (char *)options + o->field;
	unsigned int u = (unsigned int)v;
	bool b = v;

	if (o->size == sizeof(v))
		memcpy(field, &v, sizeof(v));
	else if (o->size == sizeof(u))
		memcpy(field, &u, sizeof(u));
	else
		memcpy(field, &b, sizeof(b));
}

/* Applies @o with value @arg: 0, BAD_VALUE, or -1 with its own message. */
static int apply(const struct opt *o, const char *arg, struct ls_options *options, char *err,
		 size_t errlen)
{
	struct opt_call call = { o, arg, options, &options->p, err, errlen };
	unsigned long long v = o->value;

	switch (o->kind) {
	case OPT_HANDLER:
		return o->parse(&call);
	case OPT_TEXT:
		memcpy((char *)options + o->field, &arg, sizeof(arg));
		return 0;
	case OPT_NUMBER:
		if (arg && ls_parse_uint(arg, o->min, o->max, &v))
			return BAD_VALUE;
		break;
	case OPT_ENDS:
		return 0;
	case OPT_SET:
		break;
	}
	set_field(options, o, v);
	return 0;
}

bool ls_option_letter(const char *name, char *letter)
{
	size_t i;

	for (i = 0; i < NR_OPTS; i++)
		if (!strcmp(opts[i].name, name)) {
			*letter = opts[i].letter;
			return true;
		}
	return false;
}

/* "-p/--period", or "--json": how messages name an option. */
struct opt_label {
	char s[48];
};

/* @o's label, by value: opt_name(o).s lives to the end of the call it is in. */
static struct opt_label opt_name(const struct opt *o)
{
	struct opt_label l;

	if (o->letter)
		snprintf(l.s, sizeof(l.s), "-%c/--%s", o->letter, o->name);
	else
		snprintf(l.s, sizeof(l.s), "--%s", o->name);
	return l;
}

/* "invalid value '0' for -p/--period (microseconds, 10 to 1000000)" */
static void bad_value(const struct opt *o, const char *arg, char *err, size_t errlen)
{
	char hint[96];

	snprintf(hint, sizeof(hint), o->hint ? o->hint : "", o->min, o->max);
	ls_fail(err, errlen, "invalid value '%s' for %s (%s)", arg ? arg : "", opt_name(o).s, hint);
}

/*
 * What users of cyclictest, rtla and latmus type by reflex, and where
 * latscope has it: for a letter it does not know, or a long name.
 */
static const struct {
	const char *given;
	const char *hint;
} reflexes[] = {
	{ .given = "-D", .hint = "the duration is -T, e.g. -T 10m (cyclictest's -D)" },
	{ .given = "-d", .hint = "the duration is -T, e.g. -T 10m (rtla's -d)" },
	{ .given = "-h", .hint = "help is --help; the histogram's cells are -H" },
	{ .given = "-m", .hint = "memory is always locked (cyclictest's -m)" },
	{ .given = "-t", .hint = "several CPUs are --cpus, e.g. --cpus all (one responder each)" },
	{ .given = "-a", .hint = "the CPU is -c, several are --cpus" },
	{ .given = "-n", .hint = "the driver's absolute hrtimer is always used (cyclictest's -n)" },
	{ .given = "-N", .hint = "figures are microseconds with three decimals, down to the ns" },
	{ .given = "--interval", .hint = "the period is -p, in microseconds" },
	{ .given = "--loops", .hint = "a run is as long as -T says, not a number of loops" },
	{ .given = "--mlockall", .hint = "memory is always locked" },
};

/* "--name=value" for an option getopt knows: it takes no value. */
static bool no_value_given(const char *arg)
{
	return !strncmp(arg, "--", 2) && strchr(arg, '=');
}

/* A word value that starts with '-': the next option, taken as a value. */
static void dash_value(const struct opt *o, const char *arg, char *err, size_t errlen)
{
	if (o->kind == OPT_TEXT)
		ls_fail(err, errlen, "%s '%.40s': that is an option, not a value: give %s %s (./%.40s for a file of that name)",
			opt_name(o).s, arg, opt_name(o).s, o->word, arg);
	else
		ls_fail(err, errlen, "%s '%.40s': that is an option, not a value: give %s %s",
			opt_name(o).s, arg, opt_name(o).s, o->word);
}

/* An option getopt_long() refused: @given, as on the command line. */
static void bad_option(const char *given, const char *shorts, char *err, size_t errlen)
{
	const char *hint = NULL;
	char name[48], quoted[52];
	size_t i;

	if (given[1] != '-')
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(given, "="), given);
	for (i = 0; i < ARRAY_SIZE(reflexes); i++)
		if (!strcmp(reflexes[i].given, name))
			hint = reflexes[i].hint;
	/* A long name as given, quoted: it may be anything. */
	snprintf(quoted, sizeof(quoted), given[1] == '-' ? "'%s'" : "%s", name);
	if (optopt && no_value_given(given)) {
		ls_fail(err, errlen, "option %s takes no value", quoted);
	} else if (optopt && (optopt >= LONG_ONLY || strchr(shorts + 1, optopt))) {
		const struct opt *o = opt_of(optopt);

		ls_fail(err, errlen, "option %s needs a value%s%s%s", quoted,
			o && o->word ? " (" : "", o && o->word ? o->word : "",
			o && o->word ? ")" : "");
	} else {
		ls_fail(err, errlen, "option %s is unknown%s%s", quoted, hint ? ": " : "",
			hint ? hint : "");
	}
}

/* The first argument that is no option: what came before it says why. */
static void stray_argument(char **argv, int at, char *err, size_t errlen)
{
	const char *arg = argv[at], *prev = argv[at - 1];
	const struct opt *o = NULL;

	if (!strcmp(prev, "--serve") || !strcmp(prev, "--why")) {
		ls_fail(err, errlen, "unexpected argument '%s': %s takes its value as %s=%s", arg,
			prev, prev, arg);
		return;
	}
	if (prev[0] == '-' && prev[1] && prev[1] != '-')
		o = opt_of((unsigned char)prev[strlen(prev) - 1]);
	if (!o || o->has_arg != no_argument || !isdigit((unsigned char)arg[0])) {
		ls_fail(err, errlen, "unexpected argument '%s'", arg);
		return;
	}
	ls_fail(err, errlen, "unexpected argument '%s': %s takes no value%s%s", arg, opt_name(o).s,
		o->letter == 'i' ? "; the period is -p, e.g. -p " : "",
		o->letter == 'i' ? arg : "");
}

/*
 * Who answers when no -i, -k, -u or --gpiod said: as latmus, -z's GPIO
 * test is an application's (--gpiod), and so is the one-board mode
 * (--ack-in without --monitor); a monitor times in hard irq; else the
 * user thread of the driver.
 */
static void default_context(struct ls_options *o)
{
	struct ls_params *p = &o->p;

	if (p->monitor && !o->context_given)
		p->context = LATSCOPE_CTX_IRQ;
	if (o->context_given || p->monitor)
		return;
	if (p->source == LATSCOPE_SRC_GPIO && !p->gpio_dt &&
	    ((o->inband && !p->pulse_out.given) || p->ack_in.given))
		p->context = LS_CTX_GPIOD;
}

/* The exporter's options: what --serve and --textfile leave out. */
static int check_exporter(struct ls_options *o, char *err, size_t errlen)
{
	const struct ls_params *p = &o->p;
	struct ls_serve_params *sp = &o->serve;
	struct ls_prom_bounds b;

	if (!sp->http && !sp->textfile)
		return 0;
	if (o->cost.asked || o->check_setup || o->apply_setup || p->calibrate ||
	    p->latmon_host[0] || p->checkpoint_s || p->abort_us || p->breaktrace_us) {
		ls_fail(err, errlen, "--serve and --textfile measure until stopped and show the figures to Prometheus: not with --cost, --check-setup, --apply-setup, --calibrate, a latmon host (-z/-Z HOST), --checkpoint, -A or -b");
		return -1;
	}
	if ((p->plot_path && !strcmp(p->plot_path, "-")) ||
	    (p->json_path && !strcmp(p->json_path, "-"))) {
		ls_fail(err, errlen, "-g and --json with --serve or --textfile: give a file, written when a run ends; not - (stdout)");
		return -1;
	}
	if (sp->buckets && ls_prom_parse_bounds(sp->buckets, &b, err, errlen))
		return -1;
	if (sp->textfile && !sp->textfile_s)
		sp->textfile_s = LS_TEXTFILE_EVERY_S;
	return 0;
}

/* The GPIO options a survey takes and gives each of its GPIO or latmon runs. */
static const char *const survey_gpio[] = {
	"gpio-in", "gpio-out", "pulse-out", "gpio-dt", "ack", "irq-prio", "inband-gpio",
	"oob-gpio", "latmon-port",
};

static bool is_survey_gpio(const char *name)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(survey_gpio); k++)
		if (!strcmp(name, survey_gpio[k]))
			return true;
	return false;
}

/* A GPIO option as the survey's GPIO runs will be given it: "--gpio-in=gpiochip0,24". */
static int keep_survey_gpio(struct ls_options *o, const char *name, const char *arg, char *err,
			    size_t errlen)
{
	struct ls_survey_params *sp = &o->survey;
	int n;

	if (sp->gpio_nr == LS_SURVEY_GPIO_ARGS) {
		ls_fail(err, errlen, "--%s: more than %d GPIO options for a survey's runs", name,
			LS_SURVEY_GPIO_ARGS);
		return -1;
	}
	n = snprintf(sp->gpio_args[sp->gpio_nr], LS_SURVEY_GPIO_ARG_LEN, arg ? "--%s=%s" : "--%s",
		     name, arg);
	if (n < 0 || n >= LS_SURVEY_GPIO_ARG_LEN) {
		ls_fail(err, errlen, "--%s '%.40s...': too long for a survey's runs", name, arg);
		return -1;
	}
	sp->gpio_nr++;
	return 0;
}

/*
 * --survey runs each context and load itself, into its directory: of
 * the options of every run it takes the CPUs, the period, the priority,
 * -T (the timer runs' total, an hour by default) and --apply-setup; of
 * the cost suite's, its scale, rounds and shortest timing, in place of
 * the plan's; and the GPIO lines and latmon monitor, which add their runs.
 */
static int check_survey(struct ls_options *o, const bool *given, char *err, size_t errlen)
{
	static const char *const allowed[] = {
		"survey", "survey-plan", "survey-skip", "resume", "timeout", "duration", "cpu",
		"cpus", "period",
		"priority", "apply-setup", "cost-scale", "cost-repeat", "cost-min-run", "help",
		"version", "gpio-in", "gpio-out", "pulse-out", "gpio-dt", "ack", "irq-prio",
		"inband-gpio", "oob-gpio", "latmon-port",
	};
	struct ls_survey_plan plan;
	size_t i, k;

	if (!o->survey.dir && !o->survey.plan_only && !o->survey.resume)
		return 0;
	for (i = 0; i < NR_OPTS; i++) {
		for (k = 0; given[i] && k < ARRAY_SIZE(allowed); k++)
			if (!strcmp(opts[i].name, allowed[k]))
				break;
		if (given[i] && k == ARRAY_SIZE(allowed)) {
			ls_fail(err, errlen, "--%s with --survey: a survey runs every context and load itself, into its directory; it takes -T, -c/--cpus, -p, -P, --apply-setup, the cost suite's --cost-scale, --cost-repeat and --cost-min-run, and the GPIO lines and latmon monitor (-I, -O, --pulse-out, --gpio-dt, --ack, --irq-prio, -z, -Z, --latmon-port) only",
				opts[i].name);
			return -1;
		}
		if (given[i] && !strcmp(opts[i].name, "cost-scale"))
			o->survey.cost_scale = o->cost.scale;
		if (given[i] && !strcmp(opts[i].name, "cost-repeat"))
			o->survey.cost_repeat = o->cost.repeat;
		if (given[i] && !strcmp(opts[i].name, "cost-min-run"))
			o->survey.cost_min_run_ms = (int)o->cost.min_run_ms;
	}
	if (o->survey.dir && (!o->survey.dir[0] || strlen(o->survey.dir) > LS_SURVEY_MAX_DIR)) {
		ls_fail(err, errlen, "--survey '%.40s%s': give the directory to make and fill, at most %d characters",
			o->survey.dir, strlen(o->survey.dir) > 40 ? "..." : "", LS_SURVEY_MAX_DIR);
		return -1;
	}
	if (!o->survey.dir && o->survey.resume) {
		ls_fail(err, errlen, "--resume carries on a survey: give its directory, --survey DIR");
		return -1;
	}
	if (!o->survey.dir && o->apply_setup) {
		ls_fail(err, errlen, "--apply-setup with --survey-plan: the plan changes nothing; give --survey DIR");
		return -1;
	}
	if (!o->p.timeout_s)
		o->p.timeout_s = LS_SURVEY_DEFAULT_S;
	if (o->p.latmon_host[0])
		o->survey.with = LS_SURVEY_WITH_LATMON;
	else if (o->p.source != LATSCOPE_SRC_TIMER)
		o->survey.with = LS_SURVEY_WITH_GPIO;
	return ls_survey_plan(o->p.timeout_s, o->survey.skip, o->survey.with, &plan, err, errlen);
}

/* "--ack-in belongs to --gpiod or --monitor (latscope --help=gpiod, --help=monitor)" */
static void not_its_mode(const char *name, const struct ls_help_page **owners, size_t n,
			 char *err, size_t errlen)
{
	ls_fail(err, errlen, "--%s belongs to %s%s%s%s%s (latscope --help=%s%s%s%s%s)", name,
		owners[0]->asked, n > 1 ? " or " : "", n > 1 ? owners[1]->asked : "",
		n > 2 ? " or " : "", n > 2 ? owners[2]->asked : "",
		owners[0]->name, n > 1 ? ", --help=" : "", n > 1 ? owners[1]->name : "",
		n > 2 ? ", --help=" : "", n > 2 ? owners[2]->name : "");
}

/*
 * An option whose --help rows are all on modes' pages (rows.c) belongs to
 * those modes: in a run of none of them it would be ignored, so it is
 * refused, naming them. @given: which of opts[] the command line has.
 */
static int check_modes(const struct ls_options *o, const bool *given, char *err,
		       size_t errlen)
{
	const struct ls_help_page *owners[3], *page;
	const struct ls_help_row *row;
	size_t i, r, n;
	bool holds;

	for (i = 0; i < NR_OPTS; i++) {
		holds = !given[i];
		for (r = 0, n = 0; !holds && (row = ls_help_row(r)); r++) {
			if (!row->name || strcmp(row->name, opts[i].name))
				continue;
			page = ls_help_page_named(row->page);
			/* Not a mode's page: the first page's, an option of every run. */
			holds = !page || !page->holds || page->holds(o);
			if (!holds && n < ARRAY_SIZE(owners))
				owners[n++] = page;
		}
		if (!holds && n) {
			not_its_mode(opts[i].name, owners, n, err, errlen);
			return -1;
		}
	}
	return 0;
}

/* Whether the command line gave the option named @name. */
static bool given_named(const bool *given, const char *name)
{
	size_t i;

	for (i = 0; i < NR_OPTS; i++)
		if (!strcmp(opts[i].name, name))
			return given[i];
	return false;
}

/*
 * --noise: a source of its own, not with another's lines; osnoise's
 * defaults (a 1 s period, a SCHED_OTHER busy task) unless -p and -P say
 * otherwise.
 */
static int noise_defaults(struct ls_options *o, const bool *given, char *err, size_t errlen)
{
	struct ls_params *p = &o->p;

	if (!p->noise)
		return 0;
	if (p->source != LATSCOPE_SRC_NOISE || p->latmon_host[0] || p->monitor ||
	    p->context == LS_CTX_GPIOD || p->pulse_in.given || p->ack_out.given ||
	    p->pulse_out.given || p->ack_in.given || p->gpio_dt) {
		ls_fail(err, errlen, "--noise measures the time a busy task loses, on its own: not with GPIO lines, --gpiod, -z or --monitor");
		return -1;
	}
	if (o->cost.asked || o->survey.dir || o->survey.plan_only || o->survey.resume) {
		ls_fail(err, errlen, "--noise is a run of its own: not with --cost or --survey");
		return -1;
	}
	if (!given_named(given, "period"))
		p->period_us = LS_NOISE_PERIOD_US;
	if (!o->priority_given)
		p->priority = 0;
	return 0;
}

/* What the options ask of each other, once all are read: the source's rules first. */
static int check_together(struct ls_options *o, const bool *given, char *err, size_t errlen)
{
	struct ls_params *p = &o->p;
	const struct ls_source *src;

	if (noise_defaults(o, given, err, errlen))
		return -1;

	if (o->check_setup && (o->cost.asked || p->monitor || p->latmon_host[0] || p->plot_path ||
			       p->json_path || p->timeout_s || p->checkpoint_s || p->stress ||
			       p->stress_cmd || p->abort_us || p->breaktrace_us || p->why ||
			       (p->period_us != LS_DEFAULT_PERIOD_US && !p->noise) ||
			       p->hist_cells != LATSCOPE_DEFAULT_HIST_CELLS ||
			       p->lines != LS_DEFAULT_LINES)) {
		ls_fail(err, errlen, "--check-setup reads the board for a run's CPUs and priority and measures nothing: -c/--cpus, -P, -i/-k/-u/--gpiod, --noise and --apply-setup only");
		return -1;
	}
	if (o->apply_setup && (o->cost.asked || (p->monitor && !p->calibrate))) {
		ls_fail(err, errlen, "--apply-setup changes the board for a run or --check-setup, not for --cost or a monitor serving clients");
		return -1;
	}
	if (o->cost.asked && (p->source != LATSCOPE_SRC_TIMER || p->context == LS_CTX_GPIOD ||
			      p->latmon_host[0] || p->monitor || p->timeout_s || p->plot_path ||
			      p->checkpoint_s || p->cpus_all || CPU_COUNT(&p->cpus) > 1 ||
			      p->abort_us || p->breaktrace_us || p->why ||
			      p->hist_cells != LATSCOPE_DEFAULT_HIST_CELLS ||
			      p->lines != LS_DEFAULT_LINES)) {
		ls_fail(err, errlen, "--cost measures with the timer on one CPU while its workloads run, until they end: -i/-k/-u, -c, -p, -P, --json, --stress and --cost-* only");
		return -1;
	}
	if (check_exporter(o, err, errlen) || check_survey(o, given, err, errlen))
		return -1;
	if (p->threads && (p->source != LATSCOPE_SRC_TIMER || p->context == LS_CTX_GPIOD ||
			   p->latmon_host[0] || p->monitor || o->cost.asked)) {
		ls_fail(err, errlen, "--threads %u: responders of the timer (-i, -k, -u) only, not with GPIO, --gpiod, -z, --monitor or --cost",
			p->threads);
		return -1;
	}
	default_context(o);
	if (check_modes(o, given, err, errlen))
		return -1;
	if (o->priority_given && p->context == LATSCOPE_CTX_IRQ && !p->monitor) {
		ls_fail(err, errlen, "-P %d with -i: the timer interrupt handler answers, no thread has a priority; -P is for -k, -u and --gpiod",
			p->priority);
		return -1;
	}
	src = ls_source_of(p);
	if (src->check && src->check(p, err, errlen))
		return -1;
	if (p->checkpoint_s && !(p->plot_path && strcmp(p->plot_path, "-")) &&
	    !(p->json_path && strcmp(p->json_path, "-"))) {
		ls_fail(err, errlen, "--checkpoint rewrites the -g or --json file during the run: give one of them a file name");
		return -1;
	}
	if (p->force && !p->plot_path && !p->json_path) {
		ls_fail(err, errlen, "--force lets -g or --json overwrite an existing file: give one of them");
		return -1;
	}
	if (p->stress && p->stress_cmd) {
		ls_fail(err, errlen, "--stress %s and --stress-cmd: give one load, not both",
			p->stress);
		return -1;
	}
	if (p->monitor && !p->calibrate && p->timeout_s) {
		ls_fail(err, errlen, "-T with --monitor: a monitor serves until Ctrl-C; --max-run bounds each client's run");
		return -1;
	}
	if (p->latmon_port && !p->latmon_host[0] && !p->monitor) {
		ls_fail(err, errlen, "--latmon-port %u: give the monitor's host with -z or -Z",
			p->latmon_port);
		return -1;
	}
	if (p->plot_path && p->json_path && !strcmp(p->plot_path, "-") &&
	    !strcmp(p->json_path, "-")) {
		ls_fail(err, errlen, "--plot - and --json - cannot both go to stdout");
		return -1;
	}
	return 0;
}

enum ls_parse ls_parse_args(int argc, char **argv, struct ls_options *options,
			    char *err, size_t errlen)
{
	char shorts[3 * NR_OPTS + 2];
	struct option longs[NR_OPTS + 1];
	bool given[NR_OPTS] = { false };
	const struct opt *o;
	int c, ret;

	getopt_tables(shorts, longs);
	join_cmdline(argc, argv, options->p.cmdline, sizeof(options->p.cmdline));
	optind = 0;	/* 0, not 1: glibc then resets its whole state */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		o = opt_of(c);
		if (!o) {
			bad_option(argv[optind - 1], shorts, err, errlen);
			return LS_PARSE_ERROR;
		}
		given[o - opts] = true;
		if (o->kind == OPT_ENDS && o->value == LS_PARSE_HELP && optarg &&
		    !ls_help_topic(optarg)) {
			char names[160];

			ls_help_pages(names, sizeof(names));
			ls_fail(err, errlen, "--help=%.40s: the pages are %s", optarg, names);
			return LS_PARSE_ERROR;
		}
		if (o->kind == OPT_ENDS && optind < argc) {
			char names[160] = "";

			if (o->value == LS_PARSE_HELP && !ls_help_topic(argv[optind]))
				ls_help_pages(names, sizeof(names));
			ls_fail(err, errlen, "unexpected argument '%.40s' after --%s%s%.40s%s%s",
				argv[optind], o->name,
				o->value == LS_PARSE_HELP ? ": a mode's page is --help=" : "",
				o->value == LS_PARSE_HELP && !names[0] ? argv[optind] : "",
				o->value == LS_PARSE_HELP && names[0] ? "<page>; the pages are " : "",
				names);
			return LS_PARSE_ERROR;
		}
		if (o->kind == OPT_ENDS) {
			options->help_topic = o->value == LS_PARSE_HELP ? optarg : NULL;
			return (enum ls_parse)o->value;
		}
		if (o->word && optarg && optarg[0] == '-' && optarg[1]) {
			dash_value(o, optarg, err, errlen);
			return LS_PARSE_ERROR;
		}
		ret = apply(o, optarg, options, err, errlen);
		if (ret == BAD_VALUE)
			bad_value(o, optarg, err, errlen);
		if (!ret && is_survey_gpio(o->name))
			ret = keep_survey_gpio(options, o->name, optarg, err, errlen);
		if (ret)
			return LS_PARSE_ERROR;
	}
	if (optind < argc) {
		stray_argument(argv, optind, err, errlen);
		return LS_PARSE_ERROR;
	}
	if (options->restore_setup && argc > 2) {
		ls_fail(err, errlen, "--restore-setup sets back what a latscope that died with --apply-setup left changed, and nothing else: give it alone");
		return LS_PARSE_ERROR;
	}
	return check_together(options, given, err, errlen) ? LS_PARSE_ERROR : LS_PARSE_RUN;
}
