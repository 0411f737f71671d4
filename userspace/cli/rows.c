// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: one row per line an option has on a --help page: the
 * page, the long name as the parser's table has it, the value and the
 * description. help.c prints them; options.c reads from them which modes
 * an option belongs to. Apart from both, so that neither uses the other
 * for it.
 */
#include <stdio.h>

#include "cli/cli.h"

/*
 * Pages "who" and "run" are the first page's: options every run takes.
 * An option whose rows are all on modes' pages belongs to those modes:
 * the parser refuses it in a run of none of them (options.c).
 */
static const struct ls_help_row rows[] = {
	/* The first page: who answers. */
	{ "who", "irq", "", "the timer interrupt handler" },
	{ "who", "kernel", "", "a SCHED_FIFO kernel thread" },
	{ "who", "user", "", "a SCHED_FIFO user thread [default]" },
	/* The first page: every run. */
	{ "run", "period", "=<us>", "sampling period, 10 to 1000000 [=1000]" },
	{ "run", "priority", "=<prio>", "responder SCHED_FIFO priority, 1 to 99 [=90]" },
	{ "run", "cpu", "=<n>", "measure on CPU n [=first isolated, else last online]" },
	{ "run", "cpus", "=<list>|all", "several CPUs at once, e.g. 1,3-5: one responder each" },
	{ "run", "threads", "=<n>", "n responders dealt over the CPUs [=one per CPU]" },
	{ "run", "timeout", "=<t>[smhd]", "stop after <t> [=Ctrl-C]; also --duration=<t>" },
	{ "run", "maxlat-abort", "=<us>", "stop if a latency exceeds <us>, exit 102" },
	{ "run", "breaktrace", "=<us>", "stop ftrace above <us> (cyclictest's -b), exit 104" },
	{ "run", "why", "[=<n>]", "explain <n> worst per CPU (WHY|) [=8]; --no-why" },
	{ "run", "histogram", "=<cells>", "1 us cells, 1 to 65536 [=200], then a log tail" },
	{ "run", "plot", "=<file>", "write latmus's histogram file ('-': stdout)" },
	{ "run", "json", "=<file>", "write the whole result as JSON ('-': stdout)" },
	{ "run", "force", "", "overwrite an existing plot or JSON file" },
	{ "run", "checkpoint", "=<time>", "rewrite -g and --json every <time> (minutes, 30s)" },
	{ "run", "stress", "=<preset>", "a load off the measured CPUs: none, grinder,\n"
					"neighbour, classic; --stress-cmd=<cmd>: your own" },
	{ "run", "thermal-zone", "=<n>", "the zone HOT| reads, or none [=the CPU's or SoC's]" },
	{ "run", "lines", "=<n>", "repeat the RTH header every <n> lines, 0: once [=21]" },
	{ "run", "quiet", "", "print the summary only" },
	{ "run", "verbose", "[=<level>]", "more output (split, percentiles per CPU) [=2]" },
	{ "run", "help", "[=<mode>]", "this text, or a mode's page; --help=all: every page" },
	{ "run", "version", "", "the program's version" },

	{ "gpio", "gpio-in", "=<chip>,<n>[,<edge>]",
	  "pulse-in line, edge rising-edge, falling-edge or\nboth-edges [=rising-edge]" },
	{ "gpio", "gpio-out", "=<chip>,<n>", "ack-out line, one answer per event" },
	{ "gpio", "ack", "=pulse|toggle", "how an answer shows on ack-out: pulse (idle high,\n"
					  "low then high, as latmus) or one toggle\n"
					  "[=pulse with a latmon host, else toggle]" },
	{ "gpio", "pulse-out", "=<chip>,<n>", "loopback: the line pulsed at each period, wired to\n"
					      "-I; with --ack-in, the one-board monitor's" },
	{ "gpio", "gpio-dt", "[=<edge>]", "the lines of the device tree's latscope node\n"
					  "(loopback if it has pulse-out-gpios); edge as -I\n"
					  "[=the node's latscope,edge, else rising-edge]" },
	{ "gpio", "irq-prio", "=<prio>", "run the thread that delivers the pulse-in\n"
					 "interrupt, if any, at SCHED_FIFO <prio> for the run" },

	{ "gpiod", "gpiod", "", "answer in the application's thread; the default\n"
				"with -z and with --ack-in (one board)" },
	{ "gpiod", "ack-in", "=<chip>,<n>[,<edge>]",
	  "with --pulse-out: one board, the driver's monitor\n"
	  "pulses --pulse-out and times this board's -O on\nthis line [=falling-edge]" },
	{ "gpiod", "pulse-out", "=<chip>,<n>", "the one-board monitor's pulse line, wired to -I" },
	{ "gpiod", "irq-prio", "=<prio>", "run irq/N-latscope-pulse, the thread that delivers\n"
					  "the pulse-in interrupt, at SCHED_FIFO <prio>" },

	{ "latmon", "inband-gpio", "=<host>", "the monitor at <host>; 'broadcast': the first\n"
					      "monitor that announces itself; '-': none, only\n"
					      "this board's figures" },
	{ "latmon", "oob-gpio", "=<host>", "as -z: no out-of-band stage here, measured in-band" },
	{ "latmon", "latmon-port", "=<port>", "the monitor's TCP port [=2306]" },
	{ "latmon", NULL, "-I, -O, --ack", "as in --help=gpio; --ack is pulse by default here" },

	{ "monitor", "monitor", "", "serve latmon clients" },
	{ "monitor", "pulse-out", "=<chip>,<n>", "the line to the other board's pulse-in" },
	{ "monitor", "ack-in", "=<chip>,<n>[,<edge>]",
	  "the line from the other board's ack-out, and the\nedge timed [=falling-edge]" },
	{ "monitor", "gpio-dt", "", "the lines of the device tree's latscope node in\n"
				   "the monitor role (the latscope-monitor overlay)" },
	{ "monitor", "pulse-edge", "=rising-edge|falling-edge",
	  "the edge each pulse starts with [=rising-edge]" },
	{ "monitor", "latmon-port", "=<port>", "the TCP port [=2306]" },
	{ "monitor", "listen", "=<ipv4>", "serve on this address only [=any]" },
	{ "monitor", "allow", "=<addr>[/<prefix>][,...]",
	  "serve only clients in these IPv4 networks\n[=any host]" },
	{ "monitor", "max-run", "=<t>[smhd]", "end a client's run after <t> if it has not\n"
					      "stopped it, and close the client [=no bound]" },
	{ "monitor", "announce-to", "=<ipv4>|none", "where the address goes by UDP every 5 s while\n"
						   "idle [=255.255.255.255]" },
	{ "monitor", "calibrate", "", "--pulse-out wired to --ack-in: time the fixture\n"
				      "itself for -T, no network" },
	{ "monitor", "subtract", "=<us>", "take the fixture's delay (whole us) off what\n"
					  "clients get, records and histogram" },

	{ "noise", "noise", "", "measure the gaps a busy task sees, not timer events" },
	{ "noise", "noise-runtime", "=<us>", "read for this long in each period, 100 to the\n"
					     "period [=the whole period]" },
	{ "noise", "noise-threshold", "=<us>", "the shortest gap that is noise [=5]" },
	{ "noise", "irqs-off", "", "-k only: read with interrupts off (CAP_SYS_ADMIN);\n"
				  "needs --noise-runtime, at most 500000 and -p / 2" },
	{ "noise", NULL, "-k, -u, -c, --cpus, -P", "where the busy task runs (-k: CAP_SYS_ADMIN);\n"
						  "-P: SCHED_FIFO [=SCHED_OTHER]" },

	{ "survey", "survey", "=<dir>", "qualify the board: every context quiet and under\n"
					"each load, the setup verdict, the cost suite,\n"
					"the profile; into <dir>, a new directory" },
	{ "survey", "survey-plan", "", "print the plan for -T and exit" },
	{ "survey", "resume", "", "carry on the survey in <dir> (the same -T and\n"
				  "--survey-skip): the phases not done run" },
	{ "survey", "survey-skip", "=<list>", "leave out the phases of these words: setup, cost,\n"
					      "user, kernel, irq, quiet, grinder, neighbour,\n"
					      "classic, timer, gpio, latmon" },
	{ "survey", NULL, "-T <t>", "the timer runs' total, 2 min or more [=1h]" },
	{ "survey", NULL, "-c, -p, -P, --cpus", "as in every run, for every phase" },
	{ "survey", NULL, "--apply-setup", "set up the board for the whole survey, set back\n"
					   "at its end" },
	{ "survey", NULL, "-I, -O, --pulse-out, ...", "GPIO lines (--help=gpio): the driver's GPIO runs\n"
						 "too, its kernel and user threads under each load;\n"
						 "with -z HOST, the latmon round trips instead" },
	{ "survey", "cost-scale", "=<pct>", "the cost suite's work [=10 under an hour, 100]" },
	{ "survey", "cost-repeat", "=<n>", "the cost suite's rounds [=3]" },
	{ "survey", "cost-min-run", "=<ms>", "the cost suite's shortest timing [=1000]" },

	{ "cost", "cost", "", "run the suite instead of a measurement" },
	{ "cost", "cost-repeat", "=<n>", "runs of each workload, each way, 1 to 100 [=5]" },
	{ "cost", "cost-scale", "=<pct>", "the work of each run, percent of the default [=100]" },
	{ "cost", "cost-only", "=<list>", "these workloads only, e.g. queens-1,fsync" },
	{ "cost", "cost-dir", "=<dir>", "where fsync writes [=.]" },
	{ "cost", "cost-min-run", "=<ms>", "each timing at least this long: the work run as\n"
					    "often as its warm-up says; 0: once [=1000]" },
	{ "cost", "cost-aa", "", "the A/A control: the second pass plain too, nothing\n"
				 "measured; any difference is noise" },
	{ "cost", "json", "=<file>", "the suite as JSON; the measuring run's own JSON\n"
				     "goes beside it, <file>-latency.json" },
	{ "cost", "stress", "=<preset>", "a third pass while this load runs, nothing measured" },

	{ "serve", "serve", "[=[<addr>:]<port>]", "serve HTTP there; an IPv6 address in brackets,\n"
						  "[::1]:19380 [=every address, port 19380]" },
	{ "serve", "textfile", "=<file>", "write the metrics to <file> (e.g. in node_exporter's\n"
					  "--collector.textfile.directory), whole, by rename" },
	{ "serve", "textfile-every", "=<t>[smh]", "how often [=15s]" },
	{ "serve", "window", "=<s>", "latscope_latency_window_max_seconds covers the last\n"
				     "<s> seconds, 1 to 3600 [=60]" },
	{ "serve", "buckets", "=<list>", "the histogram's bucket bounds in us, increasing,\n"
					 "at most 32 [=1,2,5,10,...,100000]" },

	{ "setup", "check-setup", "", "measure nothing: the verdicts; exit 6 if a factor\n"
				      "costs latency" },
	{ "setup", "apply-setup", "", "for the run, set the measured CPUs' governor to\n"
				      "performance, move IRQs off them, stop RT\n"
				      "throttling; set back at its end (with\n"
				      "--check-setup: held until Ctrl-C)" },
	{ "setup", "restore-setup", "", "set back what a killed --apply-setup run left\n"
					"changed (the undo journal in /run/latscope)" },
};

const struct ls_help_row *ls_help_row(size_t i)
{
	return i < ARRAY_SIZE(rows) ? &rows[i] : NULL;
}
