// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: command-line parsing into struct ls_params. latmus's
 * options, same letters, meanings and defaults, plus latscope's own. No
 * side effects: every bad value comes back as one message naming it.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "latscope.h"

enum {
	OPT_CPUS = 256,
	OPT_JSON,
	OPT_FORCE,
	OPT_HELP,
	OPT_VERSION,
	OPT_PULSE_OUT,
	OPT_GPIO_DT,
	OPT_IRQ_PRIO,
	OPT_STRESS,
	OPT_STRESS_CMD,
	OPT_CHECKPOINT,
};

static const char short_opts[] = "p:P:c:T:g:H:ikuA:qv::l:b:I:O:z:Z:";

static const struct option long_opts[] = {
	{ "period",		required_argument,	NULL, 'p' },
	{ "priority",		required_argument,	NULL, 'P' },
	{ "cpu",		required_argument,	NULL, 'c' },
	{ "timeout",		required_argument,	NULL, 'T' },
	{ "plot",		required_argument,	NULL, 'g' },
	{ "histogram",		required_argument,	NULL, 'H' },
	{ "irq",		no_argument,		NULL, 'i' },
	{ "kernel",		no_argument,		NULL, 'k' },
	{ "user",		no_argument,		NULL, 'u' },
	{ "maxlat-abort",	required_argument,	NULL, 'A' },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ "verbose",		optional_argument,	NULL, 'v' },
	{ "lines",		required_argument,	NULL, 'l' },
	{ "breaktrace",		required_argument,	NULL, 'b' },
	{ "gpio-in",		required_argument,	NULL, 'I' },
	{ "gpio-out",		required_argument,	NULL, 'O' },
	{ "inband-gpio",	required_argument,	NULL, 'z' },
	{ "oob-gpio",		required_argument,	NULL, 'Z' },
	{ "pulse-out",		required_argument,	NULL, OPT_PULSE_OUT },
	{ "gpio-dt",		optional_argument,	NULL, OPT_GPIO_DT },
	{ "irq-prio",		required_argument,	NULL, OPT_IRQ_PRIO },
	{ "stress",		required_argument,	NULL, OPT_STRESS },
	{ "stress-cmd",		required_argument,	NULL, OPT_STRESS_CMD },
	{ "checkpoint",		required_argument,	NULL, OPT_CHECKPOINT },
	{ "cpus",		required_argument,	NULL, OPT_CPUS },
	{ "json",		required_argument,	NULL, OPT_JSON },
	{ "force",		no_argument,		NULL, OPT_FORCE },
	{ "help",		no_argument,		NULL, OPT_HELP },
	{ "version",		no_argument,		NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

static const char *const context_names[] = {
	[LATSCOPE_CTX_IRQ] = "irq",
	[LATSCOPE_CTX_KERNEL] = "kernel",
	[LATSCOPE_CTX_USER] = "user",
};

const char *ls_context_name(unsigned int context)
{
	return context <= LATSCOPE_CTX_USER ? context_names[context] : "?";
}

/* The context as RTT, the plot file and the JSON name it. */
const char *ls_run_context(const struct ls_params *p)
{
	if (p->gpio)
		return p->context == LATSCOPE_CTX_KERNEL ? "gpio-kernel" : "gpio-user";
	return ls_context_name(p->context);
}

void ls_params_init(struct ls_params *p)
{
	memset(p, 0, sizeof(*p));
	p->context = LATSCOPE_CTX_USER;
	p->period_us = 1000;
	p->priority = 90;
	p->hist_cells = LATSCOPE_DEFAULT_HIST_CELLS;
	p->gpio_edge = LATSCOPE_EDGE_RISING;
	p->verbosity = 1;
	p->lines = 21;
	CPU_ZERO(&p->cpus);
}

/* A whole decimal number in [min, max], nothing else around it. */
static int parse_uint(const char *s, unsigned long long min,
		      unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
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
	if (parse_uint(num, 1, 100ULL * 86400, &v) || v * mult > 100ULL * 86400)
		return -EINVAL;
	*secs = v * mult;
	return 0;
}

/* "1,3-5": CPU numbers and ranges, each below CPU_SETSIZE. */
int ls_parse_cpu_list(const char *s, cpu_set_t *set)
{
	char buf[256], *tok, *save = NULL, *dash;
	unsigned long long lo, hi, c;

	CPU_ZERO(set);
	if (!s || !*s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,"))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash) {
			*dash = '\0';
			if (parse_uint(tok, 0, CPU_SETSIZE - 1, &lo) ||
			    parse_uint(dash + 1, 0, CPU_SETSIZE - 1, &hi) || hi < lo)
				return -EINVAL;
		} else {
			if (parse_uint(tok, 0, CPU_SETSIZE - 1, &lo))
				return -EINVAL;
			hi = lo;
		}
		for (c = lo; c <= hi; c++)
			CPU_SET(c, set);
	}
	return 0;
}

/* The inverse of ls_parse_cpu_list(), ranges folded: "1,3-5". */
void ls_format_cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
	int c = 0, start;
	size_t used = 0;

	buf[0] = '\0';
	while (c < CPU_SETSIZE) {
		if (!CPU_ISSET(c, set)) {
			c++;
			continue;
		}
		start = c;
		while (c + 1 < CPU_SETSIZE && CPU_ISSET(c + 1, set))
			c++;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 start == c ? "%s%d" : "%s%d-%d",
				 used ? "," : "", start, c);
		c++;
	}
}

static void join_cmdline(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < argc && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

static int parse_one(int c, const char *arg, struct ls_params *p, char *err,
		     size_t errlen)
{
	unsigned long long v;

	switch (c) {
	case 'p':
		if (parse_uint(arg, LATSCOPE_MIN_PERIOD_NS / 1000,
			       LATSCOPE_MAX_PERIOD_NS / 1000, &v))
			goto bad;
		p->period_us = v;
		return 0;
	case 'P':
		if (parse_uint(arg, 1, LATSCOPE_MAX_PRIORITY, &v))
			goto bad;
		p->priority = v;
		return 0;
	case 'c':
		if (parse_uint(arg, 0, CPU_SETSIZE - 1, &v))
			goto bad;
		CPU_ZERO(&p->cpus);
		CPU_SET(v, &p->cpus);
		p->cpus_all = false;
		return 0;
	case OPT_CPUS:
		if (!strcmp(arg, "all")) {
			p->cpus_all = true;
			CPU_ZERO(&p->cpus);
			return 0;
		}
		if (ls_parse_cpu_list(arg, &p->cpus))
			goto bad;
		p->cpus_all = false;
		return 0;
	case 'T':
		if (ls_parse_duration(arg, &p->timeout_s))
			goto bad;
		return 0;
	case 'H':
		if (parse_uint(arg, 1, LATSCOPE_MAX_HIST_CELLS, &v))
			goto bad;
		p->hist_cells = v;
		return 0;
	case 'A':
		if (parse_uint(arg, 1, 1000000000, &v))
			goto bad;
		p->abort_us = v;
		return 0;
	case 'b':
		if (parse_uint(arg, 1, 1000000000, &v))
			goto bad;
		p->breaktrace_us = v;
		return 0;
	case 'l':
		if (parse_uint(arg, 0, 1000000, &v))
			goto bad;
		p->lines = v;
		return 0;
	case 'I':
		p->gpio = true;
		return ls_gpio_parse("-I", arg, &p->pulse_in, &p->gpio_edge, err, errlen);
	case 'O':
		p->gpio = true;
		return ls_gpio_parse("-O", arg, &p->ack_out, NULL, err, errlen);
	case OPT_PULSE_OUT:
		p->gpio = true;
		return ls_gpio_parse("--pulse-out", arg, &p->pulse_out, NULL, err, errlen);
	case OPT_GPIO_DT:
		p->gpio = true;
		p->gpio_dt = true;
		p->gpio_edge = 0;	/* the device's latscope,edge */
		if (arg && ls_gpio_parse_edge(arg, &p->gpio_edge)) {
			ls_fail(err, errlen, "--gpio-dt=%s: edge '%s' is not rising-edge, falling-edge or both-edges",
				arg, arg);
			return -1;
		}
		return 0;
	case OPT_IRQ_PRIO:
		if (parse_uint(arg, 1, LATSCOPE_MAX_PRIORITY, &v))
			goto bad;
		p->irq_thread_prio = v;
		return 0;
	case OPT_CHECKPOINT: {
		char buf[32];

		/* A bare number is minutes; 30s, 5m, 2h as -T. */
		snprintf(buf, sizeof(buf), "%s%s", arg,
			 arg[0] && isdigit((unsigned char)arg[strlen(arg) - 1]) ? "m" : "");
		if (ls_parse_duration(buf, &p->checkpoint_s) || !p->checkpoint_s)
			goto bad;
		return 0;
	}
	case OPT_STRESS:
		if (!ls_stress_preset(arg)) {
			char names[128];

			ls_stress_names(names, sizeof(names));
			ls_fail(err, errlen, "--stress %s: no such preset (presets: %s)", arg, names);
			return -1;
		}
		p->stress = arg;
		return 0;
	case OPT_STRESS_CMD:
		if (!arg[0] || strlen(arg) >= sizeof(((struct ls_stress *)0)->cmd[0])) {
			ls_fail(err, errlen, "--stress-cmd: give a command of 1 to %zu characters",
				sizeof(((struct ls_stress *)0)->cmd[0]) - 1);
			return -1;
		}
		p->stress_cmd = arg;
		return 0;
	case 'z':
	case 'Z':
		p->gpio = true;
		if (strcmp(arg, "-")) {
			ls_fail(err, errlen,
				"-%c %s: talking to a latmon monitor is not supported yet; give '-' instead of a host and read the monitor's own figures",
				c, arg);
			return -1;
		}
		if (c == 'Z')
			p->oob_note = true;
		return 0;
	case 'v':
		if (!arg) {
			p->verbosity = 2;
			return 0;
		}
		if (parse_uint(arg, 0, 9, &v))
			goto bad;
		p->verbosity = v;
		return 0;
	default:
		return -1;
	}
bad:
	ls_fail(err, errlen, "invalid value '%s' for %s", arg ? arg : "",
		c == OPT_CPUS ? "--cpus (a list such as 1,3-5, or all)" :
		c == 'p' ? "-p/--period (microseconds, 10 to 1000000)" :
		c == 'P' ? "-P/--priority (1 to 99)" :
		c == OPT_IRQ_PRIO ? "--irq-prio (1 to 99)" :
		c == 'c' ? "-c/--cpu (a CPU number)" :
		c == 'T' ? "-T/--timeout (e.g. 30, 30s, 5m, 2h, 1d; at most 100 days)" :
		c == 'H' ? "-H/--histogram (1 to 65536 cells)" :
		c == 'A' ? "-A/--maxlat-abort (microseconds, at least 1)" :
		c == 'b' ? "-b/--breaktrace (microseconds, at least 1)" :
		c == OPT_CHECKPOINT ? "--checkpoint (minutes, or 30s, 5m, 2h)" :
		c == 'l' ? "-l/--lines (0 or more)" : "-v/--verbose (0 to 9)");
	return -1;
}

static bool same_line(const struct ls_gpio_spec *a, const struct ls_gpio_spec *b)
{
	return a->offset == b->offset && !strcmp(a->dev, b->dev);
}

/* What GPIO mode needs of the other options. */
static int check_gpio(const struct ls_params *p, char *err, size_t errlen)
{
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

enum ls_parse ls_parse_args(int argc, char **argv, struct ls_params *p,
			    char *err, size_t errlen)
{
	int c;

	join_cmdline(argc, argv, p->cmdline, sizeof(p->cmdline));
	optind = 0;	/* 0, not 1: glibc then resets its whole state */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			p->context = LATSCOPE_CTX_IRQ;
			break;
		case 'k':
			p->context = LATSCOPE_CTX_KERNEL;
			break;
		case 'u':
			p->context = LATSCOPE_CTX_USER;
			break;
		case 'q':
			p->verbosity = 0;
			break;
		case 'g':
			p->plot_path = optarg;
			break;
		case OPT_JSON:
			p->json_path = optarg;
			break;
		case OPT_FORCE:
			p->force = true;
			break;
		case OPT_HELP:
			return LS_PARSE_HELP;
		case OPT_VERSION:
			return LS_PARSE_VERSION;
		case '?':
		case ':':
			/* A long option without a letter is named as given. */
			if (optopt && optopt < OPT_CPUS)
				ls_fail(err, errlen, "option -%c %s", optopt,
					strchr(short_opts, optopt) ? "needs a value" : "is unknown");
			else
				ls_fail(err, errlen, "option '%s' is unknown or needs a value",
					argv[optind - 1]);
			return LS_PARSE_ERROR;
		default:
			if (parse_one(c, optarg, p, err, errlen))
				return LS_PARSE_ERROR;
			break;
		}
	}
	if (optind < argc) {
		ls_fail(err, errlen, "unexpected argument '%s'", argv[optind]);
		return LS_PARSE_ERROR;
	}
	if (p->gpio && check_gpio(p, err, errlen))
		return LS_PARSE_ERROR;
	if (p->checkpoint_s && !(p->plot_path && strcmp(p->plot_path, "-")) &&
	    !(p->json_path && strcmp(p->json_path, "-"))) {
		ls_fail(err, errlen, "--checkpoint rewrites the -g or --json file during the run: give one of them a file name");
		return LS_PARSE_ERROR;
	}
	if (p->stress && p->stress_cmd) {
		ls_fail(err, errlen, "--stress %s and --stress-cmd: give one load, not both", p->stress);
		return LS_PARSE_ERROR;
	}
	if (p->irq_thread_prio && !p->gpio) {
		ls_fail(err, errlen, "--irq-prio applies to GPIO mode (-I, -O or --gpio-dt)");
		return LS_PARSE_ERROR;
	}
	if (p->plot_path && p->json_path && !strcmp(p->plot_path, "-") &&
	    !strcmp(p->json_path, "-")) {
		ls_fail(err, errlen, "--plot - and --json - cannot both go to stdout");
		return LS_PARSE_ERROR;
	}
	return LS_PARSE_RUN;
}

void ls_usage(FILE *f)
{
	fputs(
"usage: latscope [options]\n"
"Measures how late this system answers timer or GPIO events, latmus style.\n"
"\n"
"  -i --irq                 measure in the timer interrupt handler\n"
"  -k --kernel              measure in a SCHED_FIFO kernel thread\n"
"  -u --user                measure in a SCHED_FIFO user thread [default]\n"
"  -p --period=<us>         sampling period, 10 to 1000000 [=1000]\n"
"  -P --priority=<prio>     responder SCHED_FIFO priority, 1 to 99 [=90]\n"
"  -c --cpu=<n>             measure on CPU n [=first isolated, else last online]\n"
"     --cpus=<list>|all     measure on several CPUs at once, e.g. 1,3-5\n"
"     --stress=<preset>    run a load during the run, off the measured CPUs:\n"
"                          none, grinder, neighbour or classic (man latscope)\n"
"     --stress-cmd=<cmd>   run 'sh -c <cmd>' as the load instead\n"
"  -T --timeout=<t>[smhd]   stop after <t> (warm-up not counted) [=until Ctrl-C]\n"
"  -A --maxlat-abort=<us>   stop if a latency exceeds <us>, exit 102\n"
"  -b --breaktrace=<us>     stop ftrace at the first latency above <us>, exit 104\n"
"  -I --gpio-in=<chip>,<n>[,<edge>]  GPIO mode: pulse-in line, edge rising-edge,\n"
"                          falling-edge or both-edges [=rising-edge]\n"
"  -O --gpio-out=<chip>,<n> GPIO mode: ack-out line, toggled once per answer\n"
"     --pulse-out=<chip>,<n>  loopback: the line pulsed at each period, wired to -I\n"
"     --gpio-dt[=<edge>]   GPIO mode on the lines of the device tree's latscope\n"
"                          node (loopback if it has pulse-out-gpios); edge as\n"
"                          -I [=the node's latscope,edge, else rising-edge]\n"
"     --irq-prio=<prio>    GPIO mode: run the thread that delivers the pulse-in\n"
"                          interrupt, if any, at SCHED_FIFO <prio> for the run\n"
"  -z --inband-gpio=-       remote GPIO mode (a monitor drives -I); '-': no latmon\n"
"                          host (talking to latmon is not supported yet)\n"
"  -Z --oob-gpio=-          as -z: no out-of-band stage here, measured in-band\n"
"  -H --histogram=<cells>   histogram cells of 1 us, 1 to 65536 [=200]; past\n"
"                          them a log tail of 1/16 precision (see PCT below)\n"
"  -g --plot=<file>         write the histogram for gnuplot ('-': stdout)\n"
"     --json=<file>         write the whole result as JSON ('-': stdout)\n"
"     --force               overwrite an existing plot or JSON file\n"
"     --checkpoint=<time>   rewrite the -g and --json files every <time> during\n"
"                          the run (minutes, or 30s, 5m, 2h)\n"
"  -l --lines=<n>           repeat the RTH header every <n> lines, 0: once [=21]\n"
"  -q --quiet               print the summary only\n"
"  -v --verbose[=<level>]   more output (split, percentiles per CPU) [=2]\n"
"     --help               this text\n"
"     --version            the program's version\n"
"\n"
"PCT| gives the 99 to 99.9999th percentiles in us: N is the upper edge of a\n"
"1 us cell; <=N(-P%) a value past the cells, in the log tail: at most N, at\n"
"least P % less (P is 5.9 at most); <=N only the maximum bounds it (a driver\n"
"without the tail).\n"
"\n"
"Exit status: 0 success, 1 device failure during the run or a file that could\n"
"not be written (it is then printed on stdout), 2 usage error,\n"
"3 setup failure (no /dev/latscope, permission, CPU, ABI, output file),\n"
"102 -A threshold crossed, 103 inconsistent results, 104 -b threshold crossed.\n",
	      f);
}
