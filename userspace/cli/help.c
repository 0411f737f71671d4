// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: --help, by mode. The first page has the timer contexts
 * and the options every run takes, then one line per mode; each mode's
 * page (--help=gpio, gpiod, latmon, monitor, cost, serve, setup, report)
 * is complete for it, and --help=all is every page. --help after a
 * mode's options shows that mode's page (latscope --monitor --help).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char main_page[] =
"usage: latscope [options]: how late this system answers timer or GPIO events\n"
"\n"
"Who answers (one of them):\n"
"  -i --irq                the timer interrupt handler\n"
"  -k --kernel             a SCHED_FIFO kernel thread\n"
"  -u --user               a SCHED_FIFO user thread [default]\n"
"\n"
"Every run:\n"
"  -p --period=<us>        sampling period, 10 to 1000000 [=1000]\n"
"  -P --priority=<prio>    responder SCHED_FIFO priority, 1 to 99 [=90]\n"
"  -c --cpu=<n>            measure on CPU n [=first isolated, else last online]\n"
"     --cpus=<list>|all    several CPUs at once, e.g. 1,3-5: one responder each\n"
"     --threads=<n>        n responders dealt over the CPUs [=one per CPU]\n"
"  -T --timeout=<t>[smhd]  stop after <t> [=Ctrl-C]; also --duration=<t>\n"
"  -A --maxlat-abort=<us>  stop if a latency exceeds <us>, exit 102\n"
"  -b --breaktrace=<us>    stop ftrace above <us> (cyclictest's -b), exit 104\n"
"     --why[=<n>]          explain the <n> worst samples per CPU (WHY|) [=8];\n"
"                          --no-why: no recorder [the default]\n"
"  -H --histogram=<cells>  1 us cells, 1 to 65536 [=200], then a log tail\n"
"  -g --plot=<file>        write latmus's histogram file ('-': stdout)\n"
"     --json=<file>        write the whole result as JSON ('-': stdout)\n"
"     --force              overwrite an existing plot or JSON file\n"
"     --checkpoint=<time>  rewrite -g and --json every <time> (minutes, 30s)\n"
"     --stress=<preset>    a load off the measured CPUs: none, grinder,\n"
"                          neighbour, classic; --stress-cmd=<cmd>: your own\n"
"     --thermal-zone=<n>   the zone HOT| reads, or none [=the CPU's or SoC's]\n"
"  -l --lines=<n>          repeat the RTH header every <n> lines, 0: once [=21]\n"
"  -q --quiet              print the summary only\n"
"  -v --verbose[=<level>]  more output (split, percentiles per CPU) [=2]\n"
"     --help[=<mode>]      this text, or a mode's page; --help=all: every page\n"
"     --version            the program's version\n"
"\n"
"Modes, each with its page:\n"
"  --help=gpio             GPIO events instead of the timer: -I, -O\n"
"  --help=gpiod            the application's answer on libgpiod: --gpiod\n"
"  --help=latmon           timed by a latmon monitor on another board: -z\n"
"  --help=monitor          be the latmon monitor of another board: --monitor\n"
"  --help=cost             what being measured costs other work: --cost\n"
"  --help=serve            measure without end for Prometheus: --serve\n"
"  --help=setup            is this board set up to be measured: --check-setup\n"
"  --help=report           compare runs: latscope-report\n"
"\n"
"Exit status: 0 ok, 1 device failed or a file not written, 2 usage error,\n"
"3 setup (device, permission, CPU, file), 4 latmon monitor not reached, 5 lost,\n"
"6 --check-setup: a factor costs latency, 102 -A, 103 weird results, 104 -b.\n";

static const char gpio_page[] =
"latscope GPIO mode: the driver answers edges on a GPIO line instead of the\n"
"timer; -k or -u says which of its threads answers [=-u]. The options of\n"
"every run (latscope --help) apply.\n"
"\n"
"  -I --gpio-in=<chip>,<n>[,<edge>]\n"
"                          pulse-in line, edge rising-edge, falling-edge or\n"
"                          both-edges [=rising-edge]\n"
"  -O --gpio-out=<chip>,<n>\n"
"                          ack-out line, one answer per event\n"
"     --ack=pulse|toggle   how an answer shows on ack-out: pulse (idle high,\n"
"                          low then high, as latmus) or one toggle\n"
"                          [=pulse with a latmon host, else toggle]\n"
"     --pulse-out=<chip>,<n>\n"
"                          loopback: the line pulsed at each period, wired to\n"
"                          -I; with --ack-in, the one-board monitor's\n"
"     --gpio-dt[=<edge>]   the lines of the device tree's latscope node\n"
"                          (loopback if it has pulse-out-gpios); edge as -I\n"
"                          [=the node's latscope,edge, else rising-edge]\n"
"     --irq-prio=<prio>    run the thread that delivers the pulse-in\n"
"                          interrupt, if any, at SCHED_FIFO <prio> for the run\n"
"\n"
"Lines as the Raspberry Pi overlays set them (docs/guide/gpio.md):\n"
"  latscope -k -I gpiochip0,24 -O gpiochip0,23 --pulse-out gpiochip0,25 -T 1m\n"
"      loopback on one board: pulse-out wired to pulse-in (man latscope)\n";

static const char gpiod_page[] =
"latscope --gpiod: an application's SCHED_FIFO thread answers the edges on\n"
"the GPIO character device (libgpiod), no driver; latmus's inband-gpio test.\n"
"The options of every run (latscope --help) and -I, -O (--help=gpio) apply.\n"
"\n"
"     --gpiod              answer in the application's thread; the default\n"
"                          with -z and with --ack-in (one board)\n"
"     --ack-in=<chip>,<n>[,<edge>]\n"
"                          with --pulse-out: one board, the driver's monitor\n"
"                          pulses --pulse-out and times this board's -O on\n"
"                          this line [=falling-edge]\n"
"     --pulse-out=<chip>,<n>\n"
"                          the one-board monitor's pulse line, wired to -I\n"
"     --irq-prio=<prio>    run irq/N-latscope-pulse, the thread that delivers\n"
"                          the pulse-in interrupt, at SCHED_FIFO <prio>\n"
"\n"
"  latscope --gpiod -I gpiochip0,24 -O gpiochip0,23 --pulse-out gpiochip0,25 \\\n"
"      --ack-in gpiochip0,22 -T 1m\n"
"      one board: the driver's monitor times the application's answer\n";

static const char latmon_page[] =
"latscope -z: latmus's remote GPIO test. A latmon monitor on another board\n"
"(Zephyr's latmon, or latscope --monitor) pulses this board's -I at the\n"
"period, times the answer on -O, and sends its figures, which become the\n"
"run's. Answered by --gpiod unless -k or -u says otherwise.\n"
"\n"
"  -z --inband-gpio=<host> the monitor at <host>; 'broadcast': the first\n"
"                          monitor that announces itself; '-': none, only\n"
"                          this board's figures\n"
"  -Z --oob-gpio=<host>    as -z: no out-of-band stage here, measured in-band\n"
"     --latmon-port=<port> the monitor's TCP port [=2306]\n"
"  -I, -O, --ack           as in --help=gpio; --ack is pulse by default here\n"
"\n"
"Exit 4: the monitor was not reached; 5: it was lost during the run.\n"
"\n"
"  latscope -z 192.168.1.20 -I gpiochip0,24 -O gpiochip0,23 -T 10m\n";

static const char monitor_page[] =
"latscope --monitor: be the latmon monitor of another board. Serves latmon\n"
"clients (latmus, latscope -z) on TCP, one at a time: pulses --pulse-out\n"
"at the period each asks for and times the answer on --ack-in in hard irq.\n"
"Its TCP port starts a run on request from any host that reaches it: keep\n"
"it on a test network, or admit the boards under test with --allow.\n"
"\n"
"     --monitor            serve latmon clients\n"
"     --pulse-out=<chip>,<n>\n"
"                          the line to the other board's pulse-in\n"
"     --ack-in=<chip>,<n>[,<edge>]\n"
"                          the line from the other board's ack-out, and the\n"
"                          edge timed [=falling-edge]\n"
"     --pulse-edge=rising-edge|falling-edge\n"
"                          the edge each pulse starts with [=rising-edge]\n"
"     --latmon-port=<port> the TCP port [=2306]\n"
"     --listen=<ipv4>      serve on this address only [=any]\n"
"     --allow=<addr>[/<prefix>][,...]\n"
"                          serve only clients in these IPv4 networks\n"
"                          [=any host]\n"
"     --max-run=<t>[smhd]  end a client's run after <t> if it has not\n"
"                          stopped it, and close the client [=no bound]\n"
"     --announce-to=<ipv4>|none\n"
"                          where the address goes by UDP every 5 s while\n"
"                          idle [=255.255.255.255]\n"
"     --calibrate          --pulse-out wired to --ack-in: time the fixture\n"
"                          itself for -T, no network\n"
"     --subtract=<us>      take the fixture's delay (whole us) off what\n"
"                          clients get, records and histogram\n"
"\n"
"Lines as the latscope-monitor overlay sets them (docs/guide/gpio.md):\n"
"  latscope --monitor --pulse-out gpiochip0,25 --ack-in gpiochip0,24\n";

static const char cost_page[] =
"latscope --cost: the price of being measured. Runs fixed amounts of work,\n"
"each timed --cost-repeat times, plainly, then as many times again while a\n"
"latscope run measures at the period (-p) on one CPU (-c) in the context\n"
"asked (-i, -k, -u); prints the mean, spread and change of each, COST|.\n"
"Workloads: queens-1, queens-all (N-queens counted, one thread, one per\n"
"CPU), hackbench, switch and fork (stress-ng), fsync (4 KiB writes, each\n"
"synced), iperf3 (loopback); a missing tool skips its workload.\n"
"\n"
"     --cost               run the suite instead of a measurement\n"
"     --cost-repeat=<n>    runs of each workload, each way, 1 to 100 [=5]\n"
"     --cost-scale=<pct>   the work of each run, percent of the default [=100]\n"
"     --cost-only=<list>   these workloads only, e.g. queens-1,fsync\n"
"     --cost-dir=<dir>     where fsync writes [=.]\n"
"     --json=<file>        the suite as JSON; the measuring run's own JSON\n"
"                          goes beside it, <file>-latency.json\n"
"     --stress=<preset>    a third pass while this load runs, nothing measured\n"
"\n"
"  latscope --cost -c 3 --json rt-cost.json       (on each kernel)\n";

static const char serve_page[] =
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
"--calibrate or a latmon host.\n"
"\n"
"     --serve[=[<addr>:]<port>]\n"
"                          serve HTTP there; an IPv6 address in brackets,\n"
"                          [::1]:19380 [=every address, port 19380]\n"
"     --textfile=<file>    write the metrics to <file> (e.g. in node_exporter's\n"
"                          --collector.textfile.directory), whole, by rename\n"
"     --textfile-every=<t>[smh]\n"
"                          how often [=15s]\n"
"     --window=<s>         latscope_latency_window_max_seconds covers the last\n"
"                          <s> seconds, 1 to 3600 [=60]\n"
"     --buckets=<list>     the histogram's bucket bounds in us, increasing,\n"
"                          at most 32 [=1,2,5,10,...,100000]\n"
"\n"
"  latscope --serve=127.0.0.1:19380 -k --cpus 1-3\n"
"  latscope --serve --monitor --pulse-out gpiochip0,25 --ack-in gpiochip0,24\n"
"  latscope --textfile=/var/lib/prometheus/node-exporter/latscope.prom -u\n";

static const char setup_page[] =
"latscope --check-setup: is this board set up to be measured? Reads the\n"
"setup for the run the options describe (-c/--cpus, -P, -i/-k/-u/--gpiod)\n"
"and prints one SET| line per factor (kernel, CPUs, IRQs, threads): its\n"
"verdict, what this board has and the fix. It changes nothing. Every run's\n"
"summary, plot file and JSON carry the same verdicts.\n"
"\n"
"     --check-setup        measure nothing: the verdicts; exit 6 if a factor\n"
"                          costs latency\n"
"     --apply-setup        for the run, set the measured CPUs' governor to\n"
"                          performance, move IRQs off them, stop RT\n"
"                          throttling; set back at its end (with\n"
"                          --check-setup: held until Ctrl-C)\n"
"     --restore-setup      set back what a killed --apply-setup run left\n"
"                          changed (the undo journal in /run/latscope)\n"
"\n"
"  latscope --check-setup -c 3 -P 90\n"
"  latscope --apply-setup -k -c 3 -T 10m\n";

static const char report_page[] =
"latscope-report: tables and plots that compare latscope runs, from their\n"
"JSON files (latscope --json).\n"
"\n"
"  latscope-report [-o DIR] [--label LABEL]... RUN.json...\n"
"\n"
"  latscope -u --stress classic -T 10m --json rt.json      (on each kernel)\n"
"  latscope-report -o cmp --label mainline --label rt main.json rt.json\n"
"\n"
"See latscope-report --help and man latscope-report.\n";

static const struct {
	const char *name;
	const char *text;
} pages[] = {
	{ "gpio", gpio_page },
	{ "gpiod", gpiod_page },
	{ "latmon", latmon_page },
	{ "monitor", monitor_page },
	{ "cost", cost_page },
	{ "serve", serve_page },
	{ "setup", setup_page },
	{ "report", report_page },
};

bool ls_help_topic(const char *topic)
{
	size_t i;

	if (!strcmp(topic, "all"))
		return true;
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		if (!strcmp(topic, pages[i].name))
			return true;
	return false;
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

/* The page --help shows after a mode's options, when it names none. */
static const char *page_of(const struct ls_params *p)
{
	if (p->monitor)
		return "monitor";
	if (p->cost)
		return "cost";
	if (p->serve || p->textfile)
		return "serve";
	if (p->check_setup || p->apply_setup || p->restore_setup)
		return "setup";
	if (p->context == LS_CTX_GPIOD && p->context_given)
		return "gpiod";
	if (p->latmon_host[0] || p->inband)
		return "latmon";
	if (p->source == LATSCOPE_SRC_GPIO)
		return "gpio";
	return NULL;
}

void ls_usage(FILE *f, const struct ls_params *p)
{
	const char *topic = p && p->help_topic ? p->help_topic : p ? page_of(p) : NULL;
	bool all = topic && !strcmp(topic, "all");
	size_t i;

	if (!topic || all)
		fputs(main_page, f);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		if (!all && !(topic && !strcmp(topic, pages[i].name)))
			continue;
		if (all)
			fputc('\n', f);
		fputs(pages[i].text, f);
	}
}
