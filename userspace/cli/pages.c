// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the modes' --help pages, one row each (help.c prints
 * them; options.c checks --help=PAGE against them). Apart from help.c so
 * that the parser can name the pages without using the printer, which
 * uses the parser's table for the options' letters.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static bool in_gpio(const struct ls_options *o)
{
	return o->p.source == LATSCOPE_SRC_GPIO;
}

static bool in_gpiod(const struct ls_options *o)
{
	return o->p.context == LS_CTX_GPIOD;
}

static bool in_latmon(const struct ls_options *o)
{
	return o->inband || o->p.oob_note;
}

static bool in_monitor(const struct ls_options *o)
{
	return o->p.monitor;
}

static bool in_noise(const struct ls_options *o)
{
	return o->p.noise;
}

static bool in_cost(const struct ls_options *o)
{
	return o->cost.asked;
}

static bool in_survey(const struct ls_options *o)
{
	return o->survey.dir || o->survey.plan_only || o->survey.resume;
}

static bool in_serve(const struct ls_options *o)
{
	return o->serve.http || o->serve.textfile;
}

static bool in_setup(const struct ls_options *o)
{
	return o->check_setup || o->apply_setup || o->restore_setup;
}

/*
 * One row per mode: its page's name, its line on the first page, and the
 * prose before and after its options, how a run asks for it and whether
 * one did. A new mode is a row here, and its options' rows in rows.c.
 */
static const struct ls_help_page pages[] = {
	{ "gpio", "GPIO events instead of the timer: -I, -O",
"latscope GPIO mode: the driver answers edges on a GPIO line instead of the\n"
"timer; -k or -u says which of its threads answers [=-u]. The options of\n"
"every run (latscope --help) apply.\n",
"Lines as the Raspberry Pi overlays set them (docs/guide/gpio.md):\n"
"  latscope -k -I gpiochip0,24 -O gpiochip0,23 --pulse-out gpiochip0,25 -T 1m\n"
"      loopback on one board: pulse-out wired to pulse-in (man latscope)\n"
"  latscope -k --gpio-dt -T 1m\n"
"      the same, the overlay loaded: it holds the lines for the driver\n",
	  "GPIO mode (-I, -O or --gpio-dt)", in_gpio },
	{ "gpiod", "the application's answer on libgpiod: --gpiod",
"latscope --gpiod: an application's SCHED_FIFO thread answers the edges on\n"
"the GPIO character device (libgpiod), no driver; latmus's inband-gpio test.\n"
"The options of every run (latscope --help) and -I, -O (--help=gpio) apply.\n",
"  latscope --gpiod -I gpiochip0,24 -O gpiochip0,23 --pulse-out gpiochip0,25 \\\n"
"      --ack-in gpiochip0,22 -T 1m\n"
"      one board: the driver's monitor times the application's answer\n",
	  "--gpiod", in_gpiod },
	{ "latmon", "timed by a latmon monitor on another board: -z",
"latscope -z: latmus's remote GPIO test. A latmon monitor on another board\n"
"(Zephyr's latmon, or latscope --monitor) pulses this board's -I at the\n"
"period, times the answer on -O, and sends its figures, which become the\n"
"run's. Answered by --gpiod unless -k or -u says otherwise.\n",
"Exit 4: the monitor was not reached; 5: it was lost during the run.\n"
"\n"
"  latscope -z 192.168.1.20 -I gpiochip0,24 -O gpiochip0,23 -T 10m\n",
	  "a latmon host (-z or -Z)", in_latmon },
	{ "monitor", "be the latmon monitor of another board: --monitor",
"latscope --monitor: be the latmon monitor of another board. Serves latmon\n"
"clients (latmus, latscope -z) on TCP, one at a time: pulses --pulse-out\n"
"at the period each asks for and times the answer on --ack-in in hard irq.\n"
"Its TCP port starts a run on request from any host that reaches it: keep\n"
"it on a test network, or admit the boards under test with --allow.\n",
"Lines as the latscope-monitor overlay sets them (docs/guide/gpio.md):\n"
"  latscope --monitor --pulse-out gpiochip0,25 --ack-in gpiochip0,24\n"
"  latscope --monitor --gpio-dt          (the overlay loaded)\n",
	  "--monitor", in_monitor },
	{ "noise", "the time a busy task loses: --noise",
"latscope --noise: what is taken from a task that never sleeps, as rtla\n"
"osnoise measures it. A busy thread on each measured CPU, -k (the driver's\n"
"kernel thread) or -u (a user thread) [=-u], reads the clock for the runtime\n"
"of each period (-p, [=1000000]); each gap of at least the threshold is\n"
"noise. NOI| each second: runtime, noise, the CPU left to the task, the\n"
"largest gap, and the gaps by what began in them (irq, softirq, thread, NMI,\n"
"unexplained: the hardware or a hypervisor). --why explains the worst gaps.\n"
"The thread is SCHED_OTHER unless -P gives it SCHED_FIFO.\n",
"  latscope --noise -k -c 3 -T 1m\n"
"  latscope --noise -k --irqs-off --noise-runtime 500000 -c 3 -T 1m\n"
"      interrupts off, as hwlatdetect: what is left is the hardware's\n",
	  "--noise", in_noise },
	{ "survey", "qualify a board in one command: --survey",
"latscope --survey DIR: one command that qualifies a board. The setup\n"
"verdict; each context (-u, -k, -i) quiet and under each --stress preset,\n"
"with the recorder (--why), -T shared by a plan (--survey-plan prints it):\n"
"from 20 minutes on, half of it one quiet -u run for the EVT bound; then\n"
"the cost suite. Each phase's files go into DIR, then the profile into\n"
"DIR/profile: profile.md and profile.html (one file, plots embedded).\n"
"Ctrl-C ends the phase that runs and writes the profile of what was\n"
"measured. latscope-report DIR_A DIR_B sets two surveys side by side.\n",
"  latscope --survey-plan -T 1h\n"
"  latscope --survey rt-board -c 3 -T 1h          (on each kernel)\n",
	  "--survey", in_survey },
	{ "cost", "what being measured costs other work: --cost",
"latscope --cost: the price of being measured. Runs fixed amounts of work,\n"
"--cost-repeat rounds: each plainly, then while a latscope run measures at\n"
"the period (-p) on one CPU (-c) in the context asked (-i, -k, -u); prints\n"
"the mean, spread and change of each with its 95 % interval, COST|.\n"
"Workloads: queens-1, queens-all (N-queens counted, one thread, one per\n"
"CPU), hackbench, switch and fork (stress-ng), fsync (4 KiB writes, each\n"
"synced), iperf3 (loopback); a missing tool skips its workload.\n",
"  latscope --cost -c 3 --json rt-cost.json       (on each kernel)\n",
	  "--cost", in_cost },
	{ "serve", "measure without end for Prometheus: --serve",
"latscope as a Prometheus exporter: measures without end on the CPUs and in\n"
"the context the options of every run give (timer, GPIO, --gpiod), and shows\n"
"the figures at GET /metrics (OpenMetrics when the scraper asks for it) or in\n"
"a file for node_exporter's textfile collector. With --monitor, the series\n"
"are the round trips of its clients' runs. A run that fails (no driver, a\n"
"CPU offline, the device released for rmmod) shows latscope_measuring 0 and\n"
"is started again every 2 s; counters only grow within one process. SIGTERM\n"
"or Ctrl-C ends it; -T ends the measuring, then --serve serves the last\n"
"figures until stopped. -g and --json write each run's results when it ends.\n"
"Not with --checkpoint, -A, -b, --cost, --check-setup, --apply-setup,\n"
"--calibrate or a latmon host.\n",
"  latscope --serve=127.0.0.1:19380 -k --cpus 1-3\n"
"  latscope --serve --monitor --pulse-out gpiochip0,25 --ack-in gpiochip0,24\n"
"  latscope --textfile=/var/lib/prometheus/node-exporter/latscope.prom -u\n",
	  "--serve or --textfile", in_serve },
	{ "setup", "is this board set up to be measured: --check-setup",
"latscope --check-setup: is this board set up to be measured? Reads the\n"
"setup for the run the options describe (-c/--cpus, -P, -i/-k/-u/--gpiod)\n"
"and prints one SET| line per factor (kernel, CPUs, IRQs, threads): its\n"
"verdict, what this board has and the fix. It changes nothing. Every run's\n"
"summary, plot file and JSON carry the same verdicts.\n",
"  latscope --check-setup -c 3 -P 90\n"
"  latscope --apply-setup -k -c 3 -T 10m\n",
	  "--check-setup or --apply-setup", in_setup },
	{ "report", "compare runs: latscope-report",
"latscope-report: tables and plots that compare latscope runs, from their\n"
"JSON files (latscope --json).\n"
"\n"
"  latscope-report [-o DIR] [--label LABEL]... RUN.json...\n",
"  latscope -u --stress classic -T 10m --json rt.json      (on each kernel)\n"
"  latscope-report -o cmp --label mainline --label rt main.json rt.json\n"
"\n"
"See latscope-report --help and man latscope-report.\n",
	  NULL, NULL },
};

const struct ls_help_page *ls_help_page(size_t i)
{
	return i < ARRAY_SIZE(pages) ? &pages[i] : NULL;
}

const struct ls_help_page *ls_help_page_named(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pages); i++)
		if (!strcmp(name, pages[i].name))
			return &pages[i];
	return NULL;
}

bool ls_help_topic(const char *topic)
{
	return !strcmp(topic, "all") || ls_help_page_named(topic);
}

/* "gpio, gpiod, ..., report and all": every page, for --help=bogus. */
void ls_help_pages(char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(pages) && used < len; i++)
		used += snprintf(buf + used, len - used, "%s, ", pages[i].name);
	if (used < len)
		snprintf(buf + (used >= 2 ? used - 2 : used), len - (used >= 2 ? used - 2 : used),
			 " and all");
}
