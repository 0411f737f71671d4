// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/cli/: option parsing (timer, GPIO, --gpiod,
 * latmon) into struct ls_params, durations.
 */
#include <string.h>

#include "cli/cli.h"
#include "unit.h"

void test_options(void)
{
	struct ls_options o;
	struct ls_params p;
	char err[256];

	check(parse("", &p, err) == LS_PARSE_RUN, "no options", "%s", err);
	check(p.context == LATSCOPE_CTX_USER && p.period_us == 1000 && p.priority == 90 &&
	      p.hist_cells == 200 && p.lines == 21 && p.verbosity == 1 && !p.timeout_s &&
	      !CPU_COUNT(&p.cpus), "latmus defaults", "period %u prio %d", p.period_us,
	      p.priority);

	check(parse("-k -p 250 -P 80 -c 3 -T 2m -H 500 -A 40 -q -l 10 -g out.plot", &p, err) ==
	      LS_PARSE_RUN, "short options", "%s", err);
	check(p.context == LATSCOPE_CTX_KERNEL && p.period_us == 250 && p.priority == 80 &&
	      CPU_ISSET(3, &p.cpus) && CPU_COUNT(&p.cpus) == 1 && p.timeout_s == 120 &&
	      p.hist_cells == 500 && p.abort_us == 40 && p.verbosity == 0 && p.lines == 10 &&
	      !strcmp(p.plot_path, "out.plot"), "short options set their fields", " ");

	check(parse("--kernel --period=100 --priority=99 --timeout=1h --json=r.json --force "
		    "--cpus=1,3-5 --breaktrace=200 --verbose", &p, err) == LS_PARSE_RUN,
	      "long options", "%s", err);
	check(p.context == LATSCOPE_CTX_KERNEL && p.period_us == 100 && p.priority == 99 &&
	      p.timeout_s == 3600 && !strcmp(p.json_path, "r.json") && p.force &&
	      CPU_COUNT(&p.cpus) == 4 && CPU_ISSET(5, &p.cpus) && !CPU_ISSET(2, &p.cpus) &&
	      p.breaktrace_us == 200 && p.verbosity == 2, "long options set their fields", " ");
	check(parse_options("--cpus all", &o, err) == LS_PARSE_RUN && o.p.cpus_all &&
	      !strcmp(o.cpus_opt, "--cpus"), "--cpus all", "%s", err);
	check(o.thermal_zone == LS_ZONE_AUTO, "--thermal-zone: by default, found", "%d",
	      o.thermal_zone);
	check(parse("-k --cpus 0,1 --threads 6", &p, err) == LS_PARSE_RUN && p.threads == 6,
	      "--threads 6", "%s", err);
	check(parse_options("--thermal-zone 3", &o, err) == LS_PARSE_RUN && o.thermal_zone == 3,
	      "--thermal-zone 3", "%s", err);
	check(parse_options("--thermal-zone none", &o, err) == LS_PARSE_RUN &&
	      o.thermal_zone == LS_ZONE_NONE, "--thermal-zone none", "%s", err);
	check(parse("-u", &p, err) == LS_PARSE_RUN && p.context == LATSCOPE_CTX_USER, "-u", "%s", err);
	check(parse("-i -i --duration 90", &p, err) == LS_PARSE_RUN && p.timeout_s == 90 &&
	      p.context == LATSCOPE_CTX_IRQ, "one context twice, --duration as -T", "%s", err);
	check(parse("-c 1 -c 2", &p, err) == LS_PARSE_RUN && CPU_ISSET(2, &p.cpus) &&
	      CPU_COUNT(&p.cpus) == 1, "-c twice: the last", "%s", err);
	check(parse("-g - -T 5", &p, err) == LS_PARSE_RUN && !strcmp(p.plot_path, "-"),
	      "-g - is stdout, not an option", "%s", err);

	static const struct refusal bad[] = {
		{ "-p 0", "'0'" }, { "-p 9", "'9'" }, { "-p 1000001", "'1000001'" },
		{ "-p 12abc", "'12abc'" }, { "-p -5", "'-5'" }, { "-P 0", "'0'" },
		{ "-P 100", "'100'" }, { "-c x", "'x'" }, { "-c 1024", "'1024'" },
		{ "-T 0", "'0'" }, { "-T 5x", "'5x'" }, { "-T m", "'m'" }, { "-T 101d", "'101d'" },
		{ "-H 0", "'0'" }, { "-H 65537", "'65537'" }, { "-A 0", "'0'" },
		{ "-b 0", "'0'" }, { "-l x", "'x'" }, { "--cpus 1,,2", "'1,,2'" },
		{ "--cpus 3-1", "'3-1'" }, { "--cpus ''", "''" }, { "--cpus 1-", "'1-'" },
		{ "--verbose=10", "'10'" }, { "-Q", "-Q" }, { "--bogus", "--bogus" },
		{ "--duration 0", "'0' for --duration" }, { "--duration 5x", "'5x'" },
		{ "-p", "-p" }, { "extra", "'extra'" }, { "-g - --json -", "stdout" },
		{ "--json", "option '--json' needs a value (a file name, or - for stdout)" },
		{ "--cpus", "option '--cpus' needs a value" },
		{ "--bogus", "option '--bogus' is unknown" },
		{ "--quiet=1", "option '--quiet' takes no value" },
		{ "--force=yes", "option '--force' takes no value" },
		{ "--thermal-zone x", "--thermal-zone 'x': give a zone number" },
		{ "--threads 0", "'0' for --threads" },
		{ "--threads 1025", "'1025' for --threads" },
		{ "--threads 4 -I a,1 -O a,2", "--threads 4: responders of the timer" },
		{ "--threads 4 --gpiod -I a,1 -O a,2", "--threads 4: responders of the timer" },
		{ "--threads 4 --cost", "--threads 4: responders of the timer" },
		{ "--thermal-zone -1", "--thermal-zone '-1'" },
		{ "--thermal-zone 10000", "--thermal-zone '10000'" },
	};
	check_refusals(bad, ARRAY_SIZE(bad));
	/* The whole message, as the option table words it. */
	static const struct { const char *line, *message; } exact[] = {
		{ "-p 0", "invalid value '0' for -p/--period (microseconds, 10 to 1000000)" },
		{ "-H 0", "invalid value '0' for -H/--histogram (1 to 65536 cells)" },
		{ "-A 0", "invalid value '0' for -A/--maxlat-abort (microseconds, at least 1)" },
		{ "-l x", "invalid value 'x' for -l/--lines (0 or more)" },
		{ "-c x", "invalid value 'x' for -c/--cpu (a CPU number)" },
		{ "--irq-prio 0", "invalid value '0' for --irq-prio (1 to 99)" },
		{ "--cpus 3-1", "invalid value '3-1' for --cpus (a list such as 1,3-5, or all)" },
		{ "-Q", "option -Q is unknown" },
		{ "-P", "option -P needs a value" },
		/* Two of a kind, and the habits of cyclictest, rtla and latmus users. */
		{ "-i -k", "-i and -k: give one context (who answers the events), not two" },
		{ "--cpus all -c 1",
		  "--cpus and -c: give the CPUs once (-c one CPU, --cpus a list or all)" },
		{ "-g -T 1", "-g/--plot '-T': that is an option, not a value: give -g/--plot a file name, or - for stdout (./-T for a file of that name)" },
		{ "-i 1000", "unexpected argument '1000': -i/--irq takes no value; the period is -p, e.g. -p 1000" },
		{ "-c 0-3", "-c/--cpu '0-3': one CPU number; a list or all is --cpus 0-3" },
		{ "-D 10", "option -D is unknown: the duration is -T, e.g. -T 10m (cyclictest's -D)" },
		{ "-h", "option -h is unknown: help is --help; the histogram's cells are -H" },
		{ "-g", "option -g needs a value (a file name, or - for stdout)" },
	};
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		parse(exact[i].line, &p, err);
		check_str(err, exact[i].message, exact[i].line);
	}
	check(parse("-v", &p, err) == LS_PARSE_RUN && p.verbosity == 2, "-v alone is level 2",
	      "%d", p.verbosity);
	check(parse("-v -q", &p, err) == LS_PARSE_RUN && p.verbosity == 0, "-q after -v", "%d",
	      p.verbosity);
	check(parse_options("--help", &o, err) == LS_PARSE_HELP && !o.help_topic, "--help", " ");
	check(parse_options("--help=monitor", &o, err) == LS_PARSE_HELP &&
	      !strcmp(o.help_topic, "monitor"), "--help=monitor", "%s", err);
	check(parse("--help=bogus", &p, err) == LS_PARSE_ERROR && strstr(err, "the pages are") &&
	      strstr(err, "serve, setup, report and all"), "--help=bogus: every page", "%s", err);
	check(parse("--help gpio", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "unexpected argument 'gpio' after --help: a mode's page is --help=gpio"),
	      "--help gpio: refused, naming --help=gpio", "%s", err);
	check(parse("-i -P 80", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "-P 80 with -i: the timer interrupt handler answers"),
	      "-i -P: refused, nothing uses the priority", "%s", err);
	check(parse("-i", &p, err) == LS_PARSE_RUN, "-i without -P", "%s", err);
	/* What a mode would silently ignore is refused. */
	check(parse("--check-setup -H 500", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "--check-setup reads the board"), "--check-setup -H: refused", "%s", err);
	check(parse("--check-setup --why -b 5", &p, err) == LS_PARSE_ERROR,
	      "--check-setup --why -b: refused", "%s", err);
	check(parse("--cost -H 500", &p, err) == LS_PARSE_ERROR && strstr(err, "--cost measures"),
	      "--cost -H: refused", "%s", err);
	check(parse("--cost --why", &p, err) == LS_PARSE_ERROR, "--cost --why: refused", "%s",
	      err);
	check(parse("--monitor --pulse-out a,1 --ack-in a,2 -p 500", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "each client's request sets the period"),
	      "--monitor -p: refused, the clients set it", "%s", err);
	check(parse("--monitor --calibrate --pulse-out a,1 --ack-in a,2 -p 500 -T 5", &p, err) ==
	      LS_PARSE_RUN, "--monitor --calibrate -p: taken", "%s", err);
	check(parse("--version", &p, err) == LS_PARSE_VERSION, "--version", " ");
}

void test_gpio_options(void)
{
	struct ls_params p;
	char err[256];

	check(parse("-k -I gpiochip0,24,falling-edge -O gpiochip0,23 --pulse-out gpiochip1,5",
		    &p, err) == LS_PARSE_RUN, "gpio loopback options", "%s", err);
	check(p.source == LATSCOPE_SRC_GPIO && p.pulse_in.given && p.pulse_in.offset == 24 &&
	      !strcmp(p.pulse_in.dev, "/dev/gpiochip0") &&
	      !strcmp(p.pulse_in.spec, "gpiochip0,24") && p.ack_out.offset == 23 &&
	      p.pulse_out.given && !strcmp(p.pulse_out.dev, "/dev/gpiochip1") &&
	      p.gpio_edge == LATSCOPE_EDGE_FALLING && !strcmp(ls_run_context(&p), "gpio-kernel"),
	      "gpio options set their fields", "%s %u", p.pulse_in.dev, p.gpio_edge);
	check(parse("-u -z - --gpio-in=/dev/gpiochip2,1 --gpio-out=gpiochip2,2", &p, err) ==
	      LS_PARSE_RUN && !p.pulse_out.given && p.gpio_edge == LATSCOPE_EDGE_RISING &&
	      !strcmp(p.pulse_in.dev, "/dev/gpiochip2") && !strcmp(ls_run_context(&p), "gpio-user"),
	      "gpio remote, rising edge by default", "%s", err);
	check(parse("-Z - -I a,1,both-edges -O a,2", &p, err) == LS_PARSE_RUN && p.oob_note &&
	      p.gpio_edge == LATSCOPE_EDGE_BOTH, "-Z: in-band, with a note", "%s", err);

	check(parse("-I a,1 -O a,2 --irq-prio 95", &p, err) == LS_PARSE_RUN &&
	      p.irq_thread_prio == 95, "--irq-prio", "%s", err);
	check(parse("-k --gpio-dt=falling-edge", &p, err) == LS_PARSE_RUN && p.gpio_dt &&
	      p.gpio_edge == LATSCOPE_EDGE_FALLING, "--gpio-dt with an edge", "%s", err);
	check(parse("-k -I a,1,both-edges --gpio-dt", &p, err) == LS_PARSE_ERROR, "--gpio-dt after -I",
	      "accepted");
	check(parse("-k --gpio-dt", &p, err) == LS_PARSE_RUN && p.gpio_edge == 0,
	      "--gpio-dt: the node's edge (0 to the driver)", "%s %u", err, p.gpio_edge);

	static const struct refusal bad[] = {
		{ "-I gpiochip0 -O a,1", "'gpiochip0'" },
		{ "-I a,x -O a,1", "'x'" },
		{ "-I a,-1 -O a,1", "'-1'" },
		{ "-I a,65535 -O a,1", "'65535'" },
		{ "-I a,1,up -O a,2", "'up'" },
		{ "-I a,1 -O a,2,rising-edge", "output line has no edge" },
		{ "-I a,1", "-O" },
		{ "-O a,1", "-I" },
		{ "-I a,1 -O a,1", "a,1" },
		{ "-I /dev/a,1 -O a,1", "a,1" },
		{ "-I a,1 -O a,2 --pulse-out a,2", "a,2" },
		{ "-i -I a,1 -O a,2", "-k" },
		{ "--cpus 0,1 -I a,1 -O a,2", "one CPU" },
		{ "-z a\tb -I a,1 -O a,2", "latmon host" },
		{ "-z 10.0.0.2 -I a,1 -O a,2 --pulse-out a,3", "pulse-out" },
		{ "-z 10.0.0.2 -I a,1 -O a,2 -H 1000", "at most 999" },
		{ "-z 10.0.0.2 -I a,1 -O a,2 --checkpoint 5 --json x", "--checkpoint" },
		{ "--latmon-port 2307 -z - -I a,1 -O a,2", "-z" },
		{ "--latmon-port 0 -z h -I a,1 -O a,2", "'0'" },
		{ "--latmon-port 65536 -z h -I a,1 -O a,2", "'65536'" },
		{ "--ack up -I a,1 -O a,2", "pulse or toggle" },
		{ "--subtract 5", "belongs to --monitor" },
		{ "--allow 10.0.0.0/8", "belongs to --monitor" },
		{ "--max-run 1h", "belongs to --monitor" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 -T 10", "--max-run bounds each client's run" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --max-run 0", "'0'" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --max-run 2x", "'2x'" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --allow 10.0.0.1/8", "host bits set (the network is 10.0.0.0/8)" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --allow 10.0.0.0/33", "the prefix is a length from 0 to 32" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --allow 10.0.0.0/", "the prefix is a length from 0 to 32" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --allow 10.0.0.0/-1", "the prefix is a length from 0 to 32" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --allow 10.0.0.0/8,", "'' is not ADDR" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --allow host.example", "'host.example' is not a dotted IPv4 address" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --allow ::1", "'::1' is not a dotted IPv4 address" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --allow 1.1.1.1,2.2.2.2,3.3.3.3,4.4.4.4,5.5.5.5,6.6.6.6,7.7.7.7,8.8.8.8,9.9.9.9,10.10.10.10,11.11.11.11,12.12.12.12,13.13.13.13,14.14.14.14,15.15.15.15,16.16.16.16,17.17.17.17", "at most 16 networks" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --subtract 0", "'0'" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --subtract 10001", "'10001'" },
		{ "--monitor --calibrate --pulse-out a,1 --ack-in a,2 --subtract 5", "--calibrate" },
		{ "--monitor --pulse-out a,1", "--ack-in" },
		{ "--monitor --pulse-out a,1 --ack-in a", "--ack-in 'a': expected <gpiochip>,<offset>" },
		{ "--monitor --pulse-out a,1 --ack-in a,2,up", "edge 'up'" },
		{ "--monitor --gpio-dt --pulse-out a,1", "leave out --pulse-out" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 -I a,3", "other board's" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --cpus 0,1", "one CPU" },
		{ "--monitor --pulse-out a,1 --ack-in a,2 --checkpoint 5 --json x", "--calibrate" },
		{ "--gpio-dt -I a,1", "leave out -I" },
		{ "--gpio-dt=up", "'up'" },
		{ "--irq-prio 95", "GPIO mode" },
		{ "--irq-prio 100 -I a,1 -O a,2", "'100'" },
	};
	check_refusals(bad, ARRAY_SIZE(bad));
}

/* --gpiod, the application's responder: when it is the context, and its rules. */
void test_gpiod_options(void)
{
	struct ls_options o;
	struct ls_params p;
	char err[256];

	check(parse("-z 10.0.0.2 -I gpiochip0,24,falling-edge -O gpiochip0,23", &p, err) ==
	      LS_PARSE_RUN && p.context == LS_CTX_GPIOD && !strcmp(ls_run_context(&p), "inband-gpio"),
	      "-z HOST alone: latmus's in-band test, the application's thread", "%s", err);
	check(parse("-z - -I a,1 -O a,2", &p, err) == LS_PARSE_RUN && p.context == LS_CTX_GPIOD &&
	      !ls_one_board(&p), "-z -: the application's thread, no monitor", "%s", err);
	check(parse("-k -z 10.0.0.2 -I a,1 -O a,2", &p, err) == LS_PARSE_RUN &&
	      p.context == LATSCOPE_CTX_KERNEL, "-k -z HOST: the driver's kernel thread", "%s", err);
	check(parse("-Z 10.0.0.2 -I a,1 -O a,2", &p, err) == LS_PARSE_RUN &&
	      p.context == LATSCOPE_CTX_USER, "-Z HOST: the driver's user thread", "%s", err);
	check(parse("-I a,1 -O a,2", &p, err) == LS_PARSE_RUN && p.context == LATSCOPE_CTX_USER,
	      "-I -O alone: the driver's user thread, as before", "%s", err);
	check(parse_options("--gpiod -I a,1 -O a,2", &o, err) == LS_PARSE_RUN &&
	      o.p.context == LS_CTX_GPIOD && o.context_given, "--gpiod", "%s", err);
	check(parse("-I a,1,falling-edge -O a,2 --pulse-out a,3 --ack-in a,4", &p, err) ==
	      LS_PARSE_RUN && p.context == LS_CTX_GPIOD && ls_one_board(&p) && ls_gpio_paced(&p),
	      "--pulse-out and --ack-in without --monitor: one board, the application's thread",
	      "%s", err);
	check(parse("-b 50 -I a,1 -O a,2 --pulse-out a,3 --ack-in a,4", &p, err) == LS_PARSE_RUN,
	      "-b with one board: the monitor is the driver's", "%s", err);
	check(parse("-k -b 50 -z - -I a,1 -O a,2", &p, err) == LS_PARSE_RUN,
	      "-b with the driver's thread", "%s", err);
	check(parse("--monitor -k --pulse-out a,1 --ack-in a,2", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "hard irq"), "--monitor -k refused", "%s", err);
	check(parse("-u --monitor --pulse-out a,1 --ack-in a,2", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "hard irq"), "-u --monitor refused", "%s", err);
	check(parse("--monitor --pulse-out a,1 --ack-in a,2", &p, err) == LS_PARSE_RUN &&
	      p.context == LATSCOPE_CTX_IRQ, "--monitor: hard irq", "%s", err);

	static const struct refusal bad[] = {
		{ "--gpiod", "needs both -I" },
		{ "--gpiod -k -I a,1 -O a,2 --ack-in a,3 --pulse-out a,4", "--gpiod and -k" },
		{ "--gpiod --gpio-dt", "character device" },
		{ "--gpiod -I a,1 -O a,2 --pulse-out a,3", "--ack-in" },
		{ "--gpiod -I a,1 -O a,2 --ack-in a,3", "--pulse-out" },
		{ "-k -I a,1 -O a,2 --pulse-out a,3 --ack-in a,4", "--ack-in belongs" },
		{ "-I a,1,both-edges -O a,2 --pulse-out a,3 --ack-in a,4", "both-edges" },
		{ "-I a,1 -O a,2 --pulse-out a,3 --ack-in a,4 --ack toggle", "ack pulse" },
		{ "-I a,1 -O a,2 --pulse-out a,3 --ack-in a,2", "a line of its own" },
		{ "-I a,1 -O a,2 --pulse-out a,3 --ack-in a,1", "a line of its own" },
		{ "-I a,1 -O a,2 --pulse-out a,3 --ack-in a,3", "a line of its own" },
		{ "-I a,1 -O a,2 --pulse-out a,1 --ack-in a,4", "each line" },
		{ "-z 10.0.0.2 -I a,1 -O a,2 --pulse-out a,3 --ack-in a,4", "not both" },
		{ "-z - -I a,1 -O a,1", "each line" },
		{ "--gpiod --cpus 0,1 -I a,1 -O a,2", "one CPU" },
		{ "--gpiod -I a,1 -O a,2 --irq-prio 0", "'0'" },
		{ "-b 50 -z - -I a,1 -O a,2", "-b 50: the driver stops ftrace" },
		{ "-b 50 -z 10.0.0.2 -I a,1 -O a,2", "use -A" },
	};
	check_refusals(bad, ARRAY_SIZE(bad));
}

/*
 * An option that only modes' --help pages show (rows.c) is refused in a
 * run of none of them, naming the modes and their pages, whatever its
 * value; in a run of one of them it is taken.
 */
/* Each mode's options land in its own part of struct ls_options, not in the run's. */
static void test_mode_parts(void)
{
	struct ls_options o;
	char err[256];

	check(parse_options("--serve=127.0.0.1:9000 --window 30 --buckets 1,2,5", &o, err) ==
	      LS_PARSE_RUN && o.serve.http && !strcmp(o.serve.addr, "127.0.0.1:9000") &&
	      o.serve.window_s == 30 && !strcmp(o.serve.buckets, "1,2,5") && !o.serve.textfile,
	      "--serve, --window, --buckets: the exporter's part", "%s", err);
	check(parse_options("--textfile x.prom", &o, err) == LS_PARSE_RUN && !o.serve.http &&
	      !strcmp(o.serve.textfile, "x.prom") && o.serve.textfile_s == 15,
	      "--textfile: every 15 s by default", "%s", err);
	check(parse_options("--monitor --pulse-out a,1 --ack-in a,2 --allow 10.0.0.0/8,192.168.1.7 --max-run 2h",
			    &o, err) == LS_PARSE_RUN && o.door.allow.n == 2 &&
	      o.door.allow.net[0].addr == 0x0a000000 && o.door.allow.net[0].mask == 0xff000000 &&
	      o.door.allow.net[1].mask == 0xffffffff && o.door.max_run_s == 7200 &&
	      !o.door.listen_addr[0], "--allow, --max-run: the monitor's door", "%s", err);
	check(parse_options("--check-setup --apply-setup -c 0", &o, err) == LS_PARSE_RUN &&
	      o.check_setup && o.apply_setup && !o.restore_setup && !o.cost.asked,
	      "--check-setup --apply-setup", "%s", err);
	check(parse_options("--restore-setup", &o, err) == LS_PARSE_RUN && o.restore_setup &&
	      !o.check_setup, "--restore-setup", "%s", err);
}

void test_mode_options(void)
{
	struct ls_params p;
	char err[256];

	static const struct refusal bad[] = {
		{ "--cost-repeat 5", "--cost-repeat belongs to --survey or --cost (latscope --help=survey, --help=cost)" },
		{ "--pulse-edge rising-edge", "--pulse-edge belongs to --monitor (latscope --help=monitor)" },
		{ "--buckets 1,2", "--buckets belongs to --serve or --textfile (latscope --help=serve)" },
		{ "--ack-in a,1", "--ack-in belongs to --gpiod or --monitor (latscope --help=gpiod, --help=monitor)" },
		{ "--latmon-port 2307", "--latmon-port belongs to a latmon host (-z or -Z) or --monitor" },
		{ "--irq-prio 50", "--irq-prio belongs to GPIO mode (-I, -O or --gpio-dt) or --gpiod" },
		{ "-k -I a,1 -O a,2 --pulse-out a,3 --ack-in a,4", "--ack-in belongs to --gpiod" },
		{ "--serve --subtract 5", "--subtract belongs to --monitor" },
		{ "--force", "--force lets -g or --json overwrite an existing file" },
		{ "--cost --force", "--force lets -g or --json" },
	};
	check_refusals(bad, ARRAY_SIZE(bad));
	static const char *const good[] = {
		"--serve -I a,1 -O a,2 --irq-prio 50",
		"--serve --window 30 --buckets 1,2,5",
		"--textfile x.prom --textfile-every 5",
		"--serve --monitor --pulse-out a,1 --ack-in a,2 --pulse-edge falling-edge --latmon-port 2400",
		"--gpiod -I a,1 -O a,2 --pulse-out a,3 --ack-in a,4 --irq-prio 80",
		"-z 10.0.0.2 --latmon-port 2400 -I a,1 -O a,2",
		"--cost --cost-repeat 3 --cost-scale 50 --cost-dir /tmp",
		"--force --json x",
		"--cost --force --json x",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		check(parse(good[i], &p, err) == LS_PARSE_RUN, good[i], "refused: %s", err);
	test_mode_parts();
}

void test_durations(void)
{
	static const struct { const char *s; unsigned long long secs; } ok[] = {
		{ "1", 1 }, { "30", 30 }, { "30s", 30 }, { "5m", 300 }, { "2h", 7200 },
		{ "1d", 86400 }, { "100d", 8640000 },
	};
	static const char *const bad[] = { "", "0", "s", "-1", "1.5", "1w", "10 s", "101d", "8640001" };
	unsigned long long v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		check(!ls_parse_duration(ok[i].s, &v) && v == ok[i].secs, ok[i].s,
		      "got %llu, want %llu", v, ok[i].secs);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(ls_parse_duration(bad[i], &v) != 0, bad[i], "accepted");
}
