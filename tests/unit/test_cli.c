// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the latscope CLI's pure parts: option, duration and CPU
 * list parsing, latmus's line formats (exact strings), statistics from a
 * histogram, the plot file and the JSON file (written to argv[1], parsed
 * back by tests/unit/run.sh). Ends with "N passed, N failed".
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/latmon_wire.h"
#include "output/output.h"
#include "run/engine.h"
#include "run/gpiod_compat.h"

static int passed, failed;

__attribute__((format(printf, 3, 4)))
static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("not ok - %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void check_str(const char *got, const char *want, const char *name)
{
	check(!strcmp(got, want), name, "\n     got '%s'\n    want '%s'", got, want);
}

/* Parses a command line given as one string. */
static enum ls_parse parse(const char *line, struct ls_params *p, char *err)
{
	static char buf[512];	/* ls_params keeps pointers into argv */
	char *argv[32], *save = NULL, *tok;
	int argc = 0;

	snprintf(buf, sizeof(buf), "latscope %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	ls_params_init(p);
	err[0] = '\0';
	return ls_parse_args(argc, argv, p, err, 256);
}

static void test_options(void)
{
	struct ls_params p;
	char err[256];

	check(parse("", &p, err) == LS_PARSE_RUN, "no options", "%s", err);
	check(p.context == LATSCOPE_CTX_USER && p.period_us == 1000 && p.priority == 90 &&
	      p.hist_cells == 200 && p.lines == 21 && p.verbosity == 1 && !p.timeout_s &&
	      !CPU_COUNT(&p.cpus), "latmus defaults", "period %u prio %d", p.period_us,
	      p.priority);

	check(parse("-i -p 250 -P 80 -c 3 -T 2m -H 500 -A 40 -q -l 10 -g out.plot", &p, err) ==
	      LS_PARSE_RUN, "short options", "%s", err);
	check(p.context == LATSCOPE_CTX_IRQ && p.period_us == 250 && p.priority == 80 &&
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
	check(parse("--cpus all", &p, err) == LS_PARSE_RUN && p.cpus_all, "--cpus all", "%s", err);
	check(parse("-u", &p, err) == LS_PARSE_RUN && p.context == LATSCOPE_CTX_USER, "-u", "%s", err);

	static const struct { const char *line, *named; } bad[] = {
		{ "-p 0", "'0'" }, { "-p 9", "'9'" }, { "-p 1000001", "'1000001'" },
		{ "-p 12abc", "'12abc'" }, { "-p -5", "'-5'" }, { "-P 0", "'0'" },
		{ "-P 100", "'100'" }, { "-c x", "'x'" }, { "-c 1024", "'1024'" },
		{ "-T 0", "'0'" }, { "-T 5x", "'5x'" }, { "-T m", "'m'" }, { "-T 101d", "'101d'" },
		{ "-H 0", "'0'" }, { "-H 65537", "'65537'" }, { "-A 0", "'0'" },
		{ "-b 0", "'0'" }, { "-l x", "'x'" }, { "--cpus 1,,2", "'1,,2'" },
		{ "--cpus 3-1", "'3-1'" }, { "--cpus ''", "''" }, { "--cpus 1-", "'1-'" },
		{ "--verbose=10", "'10'" }, { "-Q", "-Q" }, { "--bogus", "--bogus" },
		{ "-p", "-p" }, { "extra", "'extra'" }, { "-g - --json -", "stdout" },
		{ "--json", "option '--json' is unknown or needs a value" },
		{ "--cpus", "option '--cpus' is unknown or needs a value" },
		{ "--quiet=1", "option '--quiet' takes no value" },
		{ "--force=yes", "option '--force' takes no value" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum ls_parse r = parse(bad[i].line, &p, err);

		check(r == LS_PARSE_ERROR && strstr(err, bad[i].named), bad[i].line,
		      "result %d, message '%s' should name %s", r, err, bad[i].named);
	}
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
	};
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		parse(exact[i].line, &p, err);
		check_str(err, exact[i].message, exact[i].line);
	}
	check(parse("-v", &p, err) == LS_PARSE_RUN && p.verbosity == 2, "-v alone is level 2",
	      "%d", p.verbosity);
	check(parse("-v -q", &p, err) == LS_PARSE_RUN && p.verbosity == 0, "-q after -v", "%d",
	      p.verbosity);
	check(parse("--help", &p, err) == LS_PARSE_HELP, "--help", " ");
	check(parse("--version", &p, err) == LS_PARSE_VERSION, "--version", " ");
}

static void test_gpio_options(void)
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

	static const struct { const char *line, *named; } bad[] = {
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
		{ "--subtract 5", "belong to --monitor" },
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
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum ls_parse r = parse(bad[i].line, &p, err);

		check(r == LS_PARSE_ERROR && strstr(err, bad[i].named), bad[i].line,
		      "result %d, message '%s' should name %s", r, err, bad[i].named);
	}
}

/* --gpiod, the application's responder: when it is the context, and its rules. */
static void test_gpiod_options(void)
{
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
	check(parse("--gpiod -I a,1 -O a,2", &p, err) == LS_PARSE_RUN &&
	      p.context == LS_CTX_GPIOD && p.context_given, "--gpiod", "%s", err);
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

	static const struct { const char *line, *named; } bad[] = {
		{ "--gpiod", "needs both -I" },
		{ "--gpiod -k -I a,1 -O a,2 --ack-in a,3 --pulse-out a,4", "--ack-in belongs" },
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
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum ls_parse r = parse(bad[i].line, &p, err);

		check(r == LS_PARSE_ERROR && strstr(err, bad[i].named), bad[i].line,
		      "result %d, message '%s' should name %s", r, err, bad[i].named);
	}
}

/*
 * libgpiod through gpiod_compat.c, as far as a machine without a GPIO
 * chip can go: the generation built in, and a request for a chip that is
 * not there, or a file that is not a chip, fails with the errno a caller
 * names, allocating nothing that leaks (valgrind-clean).
 */
static void test_gpiod_compat(void)
{
	struct ls_gpio_spec spec = { .given = true, .offset = 3 };
	char buf[64], err[256];
	struct ls_gpiod_line *l;

	ls_gpiod_version(buf, sizeof(buf));
#if LS_TEST_GPIOD_API == 1
	check(!strncmp(buf, "libgpiod 1.", 11), "libgpiod 1.x built in", "%s", buf);
#else
	check(!strncmp(buf, "libgpiod 2.", 11), "libgpiod 2.x built in", "%s", buf);
#endif
	errno = 0;
	l = ls_gpiod_request_events("/nonexistent/gpiochip9", 3, LATSCOPE_EDGE_RISING,
				    LS_GPIOD_PULSE_LABEL);
	check(!l && errno == ENOENT, "events of a chip not there: ENOENT", "%p %d", (void *)l, errno);
	errno = 0;
	l = ls_gpiod_request_output("/dev/null", 3, 1, LS_GPIOD_ACK_LABEL);
	check(!l && errno && errno != ENOENT, "output on a file not a chip fails", "%p %d",
	      (void *)l, errno);
	ls_gpiod_release(NULL);

	strcpy(spec.dev, "/nonexistent/gpiochip9");
	strcpy(spec.spec, "gpiochip9,3");
	ls_gpiod_request_error("pulse-in", &spec, ENXIO, err, sizeof(err));
	check_str(err, "pulse-in gpiochip9,3 cannot raise an interrupt: give a line whose chip has one",
		  "ENXIO: no interrupt");
	ls_gpiod_request_error("pulse-in", &spec, ENODEV, err, sizeof(err));
	check(strstr(err, "cannot raise an interrupt") != NULL, "ENODEV (v1): no interrupt", "%s", err);
	ls_gpiod_request_error("ack-out", &spec, EBUSY, err, sizeof(err));
	check(strstr(err, "ack-out gpiochip9,3: no GPIO chip /nonexistent/gpiochip9") == err,
	      "EBUSY on a chip gone since: the chip named", "%s", err);
	ls_gpiod_request_error("ack-out", &spec, ENOSYS, err, sizeof(err));
	check(strstr(err, "without libgpiod") != NULL, "ENOSYS: built without", "%s", err);
	ls_gpiod_request_error("ack-out", &spec, EIO, err, sizeof(err));
	check(strstr(err, strerror(EIO)) != NULL, "other errors by name", "%s", err);
}

/* ls_acc_add() keeps figures as the driver's statistics do. */
static void test_acc(void)
{
	__u64 cells[10] = { 0 }, tail[LATSCOPE_TAIL_BUCKETS] = { 0 };
	struct ls_acc a = { .cells = cells, .tail = tail, .nr_cells = 10, .cell_ns = 1000 };
	unsigned __int128 sq;

	ls_acc_add(&a, 1500, 100);
	ls_acc_add(&a, -20, 200);
	ls_acc_add(&a, 25000, 300);
	ls_acc_add(&a, 9999, 400);
	ls_acc_add(&a, 25000, 500);	/* a tie keeps the first peak */
	check(a.st.samples == 5 && a.st.min_ns == -20 && a.st.max_ns == 25000 &&
	      a.st.peak_ns == 300 && a.st.sum_ns == 1500 - 20 + 25000 + 9999 + 25000,
	      "acc: samples, min, max, peak, sum", "%llu %lld %lld %llu %lld",
	      (unsigned long long)a.st.samples, (long long)a.st.min_ns,
	      (long long)a.st.max_ns, (unsigned long long)a.st.peak_ns, (long long)a.st.sum_ns);
	check(a.st.underflow == 1 && a.st.overflow == 2 && cells[1] == 1 && cells[9] == 1 &&
	      tail[latscope_tail_index(25000)] == 2, "acc: cells, underflow, overflow, tail",
	      "%llu %llu", (unsigned long long)a.st.underflow, (unsigned long long)a.st.overflow);
	sq = (unsigned __int128)a.st.sum_sq_hi << 64 | a.st.sum_sq_lo;
	check(sq == 1500ULL * 1500 + 400 + 2 * 25000ULL * 25000 + 9999ULL * 9999,
	      "acc: sum of squares", "%llu", (unsigned long long)a.st.sum_sq_lo);
	/* A square past 64 bits carries into the high half. */
	memset(&a.st, 0, sizeof(a.st));
	ls_acc_add(&a, 5000000000LL, 1);
	ls_acc_add(&a, 5000000000LL, 2);
	sq = (unsigned __int128)a.st.sum_sq_hi << 64 | a.st.sum_sq_lo;
	check(a.st.sum_sq_hi && sq == (unsigned __int128)2 * 5000000000ULL * 5000000000ULL,
	      "acc: sum of squares past 64 bits", "%llu:%llu", (unsigned long long)a.st.sum_sq_hi,
	      (unsigned long long)a.st.sum_sq_lo);
}

/* Writes @text to @dir/@name, making its directories. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The IRQ thread of a line, found in a /proc built for the test. */
static void test_irq_thread(const char *dir)
{
	struct ls_irq_thread t;
	char proc[512];
	int irqs[4], n;

	snprintf(proc, sizeof(proc), "%s/proc", dir);
	put_file(proc, "irq/45/latscope-pulse/.keep", "");
	put_file(proc, "irq/46/latscope-ack-x/.keep", "");
	put_file(proc, "irq/7/other/.keep", "");
	put_file(proc, "irq/default_smp_affinity", "3\n");
	/* The thread, as 6.12 names it (full) and a user process faking the name. */
	put_file(proc, "120/comm", "irq/45-latscope-pulse\n");
	put_file(proc, "120/stat", "120 (irq/45-latscope-pulse) S 2 0 0 0 -1 2129984 0 0\n");
	put_file(proc, "300/comm", "irq/45-latscope-pulse\n");
	put_file(proc, "300/stat", "300 (irq/45-latscope-pulse) S 1 300 300 0 -1 4194560 0 0\n");
	put_file(proc, "121/comm", "irq/46-latscope\n");
	put_file(proc, "121/stat", "121 (irq/46-latscope) S 2 0 0 0 -1 2129984 0 0\n");

	n = ls_irqs_named(proc, "latscope-pulse", irqs, 4);
	check(n == 1 && irqs[0] == 45, "irq named for the label", "%d %d", n, n ? irqs[0] : -1);
	check(ls_irqs_named(proc, "nothing", irqs, 4) == 0, "no irq of that name", "found");
	check(!ls_irq_thread_find(proc, 45, "latscope-pulse", &t) && t.pid == 120 &&
	      !strcmp(t.comm, "irq/45-latscope-pulse"),
	      "its thread: the kernel thread, not the user process named alike", "%d %s", t.pid,
	      t.comm);
	check(!ls_irq_thread_find(proc, 46, "latscope-ack-x", &t) && t.pid == 121,
	      "a name cut at 15 characters (6.1) matches", "%d", t.pid);
	check(!ls_irq_thread_find(proc, 7, "other", &t) && t.pid == 0,
	      "an irq without a thread: pid 0", "%d", t.pid);
	put_file(proc, "122/comm", "irq/45-s-latscope-pulse\n");
	put_file(proc, "122/stat", "122 (irq/45-s-latscope-pulse) S 2 0 0 0 -1 2129984 0 0\n");
	check(ls_irq_thread_find(proc, 45, "latscope-pulse", &t) == -1 && t.pid == 0,
	      "two threads match: none chosen", "%d", t.pid);
	check(ls_irq_comm_matches("irq/45-latscope", 45, "latscope-pulse") &&
	      !ls_irq_comm_matches("irq/45-latscop", 45, "latscope-pulse") &&
	      !ls_irq_comm_matches("irq/451-latscope-pulse", 45, "latscope-pulse") &&
	      !ls_irq_comm_matches("irq/4-latscope-pulse", 45, "latscope-pulse"),
	      "thread names: whole or cut at 15, of that irq only", "mismatch");
	t.raised = false;
	check(ls_irq_thread_restore(&t) == 0 && !t.restored, "nothing raised: nothing to give back",
	      "restored");
	t.pid = 0;
	check(ls_irq_thread_raise(&t, 80) == -1 && errno == ESRCH, "no thread: ESRCH", "%d", errno);
}

/* The source table: each row where its id says, and the rules it drives. */
static void test_sources(void)
{
	struct ls_params p;
	char err[256];
	unsigned int id;

	for (id = LATSCOPE_SRC_TIMER; id <= LATSCOPE_SRC_GPIO; id++)
		check(ls_source(id) && ls_source(id)->id == id && ls_source(id)->name &&
		      ls_source(id)->contexts, "source row", "%u", id);
	check(!ls_source(LATSCOPE_SRC_GPIO + 1), "no row past the last source", " ");
	check(parse("-i -p 250", &p, err) == LS_PARSE_RUN && ls_period_us(&p) == 250 &&
	      !ls_responder_priority(&p) && !strcmp(ls_run_context(&p), "irq"),
	      "timer, irq context: a period, no responder thread", "%s", err);
	check(parse("-k -p 500 -I a,1 -O a,2 --pulse-out a,3", &p, err) == LS_PARSE_RUN &&
	      ls_period_us(&p) == 500 && ls_responder_priority(&p) == 90,
	      "GPIO loopback: the period it pulses at", "%s", err);
	check(parse("-u -p 500 -z - -I a,1 -O a,2", &p, err) == LS_PARSE_RUN &&
	      ls_period_us(&p) == 0 && !strcmp(ls_run_context(&p), "gpio-user"),
	      "GPIO remote: no period of its own", "%s", err);
	check(parse("-u -p 500 -z 127.0.0.1 -I a,1 -O a,2", &p, err) == LS_PARSE_RUN &&
	      ls_period_us(&p) == 500 && !strcmp(p.latmon_host, "127.0.0.1") &&
	      !p.latmon_port && p.ack == LS_ACK_AUTO,
	      "GPIO with a latmon host: the period it asks the monitor for", "%s", err);
	check(parse("-Z broadcast --latmon-port 2400 --ack toggle -I a,1 -O a,2", &p, err) ==
	      LS_PARSE_RUN && !strcmp(p.latmon_host, "broadcast") && p.latmon_port == 2400 &&
	      p.ack == LS_ACK_TOGGLE && p.oob_note,
	      "-Z broadcast, its port and the ack style", "%s", err);
	check(parse("-z host -z - -I a,1 -O a,2", &p, err) == LS_PARSE_RUN && !p.latmon_host[0],
	      "a later -z - drops the host", "%s", err);
	check(parse("--monitor --pulse-out a,1 --ack-in a,2 --pulse-edge falling-edge --subtract 3 --listen 127.0.0.1 --announce-to none",
		    &p, err) == LS_PARSE_RUN && p.monitor && p.context == LATSCOPE_CTX_IRQ &&
	      p.pulse_edge == LATSCOPE_EDGE_FALLING && p.subtract_us == 3 &&
	      ls_ack_in_edge(&p) == LATSCOPE_EDGE_FALLING && !strcmp(p.announce_to, "none") &&
	      ls_period_us(&p) == 1000 && !strcmp(ls_run_context(&p), "gpio-monitor"),
	      "--monitor: its lines, edges, the subtraction, the context", "%s", err);
	check(parse("--monitor --gpio-dt=rising-edge", &p, err) == LS_PARSE_RUN && p.gpio_dt &&
	      ls_ack_in_edge(&p) == LATSCOPE_EDGE_RISING,
	      "--monitor --gpio-dt: the device tree's lines, the edge given", "%s", err);
	check(parse("--monitor --gpio-dt", &p, err) == LS_PARSE_RUN &&
	      ls_ack_in_edge(&p) == LATSCOPE_EDGE_FALLING,
	      "--monitor --gpio-dt: falling by default", "%s", err);
}

static void test_durations(void)
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

static void test_cpu_lists(void)
{
	static const char *const round_trip[] = { "0", "1,3-5", "0-3", "2,4,6", "0-1,7,9-12" };
	static const char *const bad[] = { "", ",", "1,", ",1", "a", "1-", "-1", "3-1", "1;2", "1024" };
	char buf[256];
	cpu_set_t set;
	size_t i;

	for (i = 0; i < sizeof(round_trip) / sizeof(round_trip[0]); i++) {
		check(!ls_parse_cpu_list(round_trip[i], &set), round_trip[i], "refused");
		ls_format_cpu_list(&set, buf, sizeof(buf));
		check_str(buf, round_trip[i], "CPU list round trip");
	}
	check(!ls_parse_cpu_list("5,1-2", &set) && CPU_COUNT(&set) == 3, "unordered list", " ");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(ls_parse_cpu_list(bad[i], &set) != 0, bad[i], "accepted");
}

static void test_lines(void)
{
	char buf[256];

	ls_fmt_rtt(buf, sizeof(buf), 3725, "user", 1000, 90, "1", false);
	check_str(buf, "RTT|  01:02:05  (user, 1000 us period, priority 90, CPU1-noisol)\n", "RTT user");
	ls_fmt_rtt(buf, sizeof(buf), 0, "irq", 100, 0, "3", true);
	check_str(buf, "RTT|  00:00:00  (irq, 100 us period, CPU3)\n", "RTT irq has no priority");
	ls_fmt_rth(buf, sizeof(buf));
	check_str(buf, "RTH|----lat min|----lat avg|----lat max|-overrun|---msw|---lat best|--lat worst\n",
		  "RTH");
	ls_fmt_rtd(buf, sizeof(buf), 1.5, 2.25, 10.125, 3, 1.0, 12.5);
	check_str(buf, "RTD|      1.500|      2.250|     10.125|       3|     0|      1.000|     12.500\n",
		  "RTD");
	ls_fmt_rtd(buf, sizeof(buf), -0.25, 0.5, 1234.5678, 0, -0.25, 1234.5678);
	check_str(buf, "RTD|     -0.250|      0.500|   1234.568|       0|     0|     -0.250|   1234.568\n",
		  "RTD negative and rounding");
	ls_fmt_hhmmss(buf, sizeof(buf), 360061);
	check_str(buf, "100:01:01", "hh:mm:ss past 99 hours");
	ls_fmt_rts(buf, sizeof(buf), 1.0, 2.0, 30.0, 7, 3661, 7200);
	check_str(buf, "---|-----------|-----------|-----------|--------|------|-------------------------\n"
		  "RTS|      1.000|      2.000|     30.000|       7|     0|    01:01:01/02:00:00\n", "RTS");
}

/* 100 samples: 90 in cell 1, 9 in cell 5, 1 past the histogram at 50 us. */
static struct latscope_stats sample_stats(__u64 *cells)
{
	struct latscope_stats st = { 0 };
	int i;

	memset(cells, 0, 10 * sizeof(*cells));
	cells[1] = 90;
	cells[5] = 9;
	st.samples = 100;
	st.overflow = 1;
	st.min_ns = 1000;
	st.max_ns = 50000;
	for (i = 0; i < 90; i++) {
		st.sum_ns += 1500;
		st.sum_sq_lo += 1500ULL * 1500;
	}
	for (i = 0; i < 9; i++) {
		st.sum_ns += 5500;
		st.sum_sq_lo += 5500ULL * 5500;
	}
	st.sum_ns += 50000;
	st.sum_sq_lo += 50000ULL * 50000;
	return st;
}

static void test_stats(void)
{
	static __u64 tail[LATSCOPE_TAIL_BUCKETS];
	__u64 cells[10];
	struct latscope_stats st = sample_stats(cells), a, b;
	struct ls_hist h = { .cells = cells, .nr_cells = 10, .cell_ns = 1000 };
	struct ls_summary s;
	double mean, var;
	char buf[64];

	ls_summarize(&st, &h, &s);
	mean = (90 * 1500.0 + 9 * 5500.0 + 50000.0) / 100;
	var = (90 * 1500.0 * 1500 + 9 * 5500.0 * 5500 + 50000.0 * 50000) / 100 - mean * mean;
	check(fabs(s.avg - mean) < 1e-6, "average", "got %f, want %f", s.avg, mean);
	check(fabs(s.stddev - sqrt(var)) < 1e-6, "stddev", "got %f, want %f", s.stddev, sqrt(var));
	/* 99th: rank 99 is the last sample of cell 5, upper edge 6 us. */
	check(s.pct[0].hi == 6000 && s.pct[0].lo == 5000 && s.pct[0].kind == LS_PCT_CELL,
	      "99th percentile", "got %f", s.pct[0].hi);
	/* 99.9th: rank 100 is past the histogram; no tail: bounded by the max. */
	check(s.pct[1].hi == 50000 && s.pct[1].kind == LS_PCT_MAX,
	      "99.9th percentile past the histogram", "got %f kind %d", s.pct[1].hi, s.pct[1].kind);
	ls_fmt_pct(buf, sizeof(buf), &s.pct[1]);
	check_str(buf, "<=50.000", "percentile bounded by the max");
	/* With the tail: the bucket [49152, 51200) ns, clipped to the max. */
	tail[latscope_tail_index(50000)] = 1;
	h.tail = tail;
	ls_summarize(&st, &h, &s);
	check(s.pct[1].lo == 49152 && s.pct[1].hi == 50000 && s.pct[1].kind == LS_PCT_TAIL,
	      "99.9th percentile in the tail", "got [%f, %f] kind %d", s.pct[1].lo, s.pct[1].hi,
	      s.pct[1].kind);
	ls_fmt_pct(buf, sizeof(buf), &s.pct[1]);
	check_str(buf, "<=50.000(-1.7%)", "percentile in a tail bucket");

	/* A 128-bit sum of squares: the high half counts 2^64 each. */
	memset(&a, 0, sizeof(a));
	a.samples = 2;
	a.sum_ns = 2 * 4294967296LL;
	a.sum_sq_hi = 2;	/* two samples of 2^32 ns: 2 * 2^64 */
	a.min_ns = a.max_ns = 4294967296LL;
	ls_summarize(&a, NULL, &s);
	check(fabs(s.stddev) < 1e-3, "stddev with 128-bit squares", "got %f", s.stddev);

	/* Merging keeps the extremes and carries the squares' low half. */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.samples = 1, a.min_ns = a.max_ns = 10, a.sum_ns = 10, a.sum_sq_lo = UINT64_MAX, a.peak_ns = 1;
	b.samples = 1, b.min_ns = b.max_ns = 20, b.sum_ns = 20, b.sum_sq_lo = 2, b.peak_ns = 2;
	ls_merge_stats(&a, &b);
	check(a.samples == 2 && a.min_ns == 10 && a.max_ns == 20 && a.peak_ns == 2 &&
	      a.sum_sq_hi == 1 && a.sum_sq_lo == 1, "merge", "hi %llu lo %llu",
	      (unsigned long long)a.sum_sq_hi, (unsigned long long)a.sum_sq_lo);

	/* Extremes: an empty side takes the other's, even when negative. */
	{
		__s64 min = 0, max = 0;

		check(ls_merge_extremes(&min, &max, true, -7, -3) && min == -7 && max == -3,
		      "extremes into an empty block", "[%lld, %lld]", (long long)min, (long long)max);
		check(!ls_merge_extremes(&min, &max, false, -5, -4) && min == -7 && max == -3,
		      "extremes inside", "[%lld, %lld]", (long long)min, (long long)max);
		check(ls_merge_extremes(&min, &max, false, -9, 2) && min == -9 && max == 2,
		      "extremes widened", "[%lld, %lld]", (long long)min, (long long)max);
	}
}

/* The tail's buckets, as the uapi header defines them (see KUnit's twin). */
static void test_tail_buckets(void)
{
	unsigned int i, k, bad = 0;
	__u64 lo, next;

	for (i = 0; i < LATSCOPE_TAIL_BUCKETS; i++) {
		lo = latscope_tail_lo(i);
		next = latscope_tail_lo(i + 1);
		bad += next <= lo || latscope_tail_index(lo) != i || latscope_tail_index(next - 1) != i ||
		       (i >= 16 && (next - lo) * 16 > lo);
	}
	check(!bad, "tail: every bucket's bounds and width", "%u bad", bad);
	for (k = 4; k < 63; k++)
		bad += latscope_tail_index(1ULL << k) != (k - 3) * 16 ||
		       latscope_tail_index((1ULL << k) - 1) != (k - 3) * 16 - 1;
	check(!bad, "tail: power-of-two edges", "%u bad", bad);
	check(latscope_tail_lo(LATSCOPE_TAIL_BUCKETS) == 1ULL << 63 &&
	      latscope_tail_index(INT64_MAX) == LATSCOPE_TAIL_BUCKETS - 1 &&
	      latscope_tail_index(UINT64_MAX) == LATSCOPE_TAIL_BUCKETS - 1 && latscope_tail_index(0) == 0,
	      "tail: 0 and the largest values", "%u", latscope_tail_index(INT64_MAX));
}

/*
 * The KUnit distribution, here through the CLI's percentiles: a million
 * samples 100000 * n / (n - i) ns, half in a 200 us histogram. Each
 * percentile's range holds the exact value, and its upper bound is at
 * most 1/16 above it.
 */
static void test_tail_percentiles(void)
{
	static __u64 cells[200], tail[LATSCOPE_TAIL_BUCKETS];
	const __u64 n = 1000000;
	struct latscope_stats st = { 0 };
	struct ls_hist h = { .cells = cells, .nr_cells = 200, .cell_ns = 1000, .tail = tail };
	struct ls_summary s;
	__u64 i, v, rank;
	double exact;
	int p;

	memset(cells, 0, sizeof(cells));
	memset(tail, 0, sizeof(tail));
	for (i = 0; i < n; i++) {
		v = 100000 * n / (n - i);
		if (v < 200000) {
			cells[v / 1000]++;
		} else {
			tail[latscope_tail_index(v)]++;
			st.overflow++;
		}
		st.samples++;
		st.sum_ns += v;
		st.max_ns = v;
	}
	st.min_ns = 100000;
	ls_summarize(&st, &h, &s);
	for (p = 0; p < LS_NR_PCT; p++) {
		rank = (__u64)ceil(n * ls_percentiles[p] / 100.0);
		exact = (double)(100000 * n / (n - (rank - 1)));
		check(s.pct[p].lo <= exact && exact <= s.pct[p].hi &&
		      s.pct[p].hi - exact <= exact / 16 && s.pct[p].kind == LS_PCT_TAIL,
		      "tail: percentile within 1/16", "p%g exact %.0f range [%.0f, %.0f] kind %d",
		      ls_percentiles[p], exact, s.pct[p].lo, s.pct[p].hi, s.pct[p].kind);
	}
}

/* The counters behind sample_report(): histograms, tails, totals. */
struct sample_bufs {
	__u64 cells[2][20];
	__u64 tail[2][2 * LATSCOPE_TAIL_BUCKETS];
	__u64 total[10 + LATSCOPE_TAIL_BUCKETS];
};

/* A two-CPU report built by hand; the sample past the histogram in a tail. */
static void sample_report(struct ls_report *r, struct ls_params *p, struct ls_sysinfo *si,
			  struct ls_cpu_result *cpu, struct sample_bufs *b)
{
	int i;

	ls_params_init(p);
	p->hist_cells = 10;
	snprintf(p->cmdline, sizeof(p->cmdline), "latscope --json \"x\"");
	memset(si, 0, sizeof(*si));
	snprintf(si->proc_version, sizeof(si->proc_version), "Linux version 6.12 test");
	snprintf(si->preemption, sizeof(si->preemption), "PREEMPT_RT");
	snprintf(si->governor, sizeof(si->governor), "performance");
	snprintf(si->sysname, sizeof(si->sysname), "Linux");
	memset(r, 0, sizeof(*r));
	memset(b, 0, sizeof(*b));
	r->params = p;
	r->sys = si;
	r->nr_cpus = 2;
	r->cpu = cpu;
	r->duration_s = 61;
	r->peak_s = 7;
	r->total_cells = b->total;
	r->total_tail = b->total + 10;
	r->has_tail = true;
	for (i = 0; i < 2; i++) {
		memset(&cpu[i], 0, sizeof(cpu[i]));
		cpu[i].cpu = 2 * i + 1;
		cpu[i].cells = b->cells[i];
		cpu[i].tail = b->tail[i];
		cpu[i].has_tail = true;
		cpu[i].res.latency = sample_stats(b->cells[i]);
		b->tail[i][latscope_tail_index(50000)] = 1;
		cpu[i].res.hist_cells = 10;
		cpu[i].res.hist_count = 1;
		cpu[i].res.overruns = i;
		ls_merge_stats(&r->total, &cpu[i].res.latency);
		ls_merge_cells(r->total_cells, b->cells[i], 10);
		ls_merge_cells(r->total_tail, b->tail[i], LATSCOPE_TAIL_BUCKETS);
	}
	r->total_overruns = 1;
}

static void test_plot(void)
{
	struct ls_params p;
	struct ls_sysinfo si;
	struct ls_cpu_result cpu[2];
	struct sample_bufs b;
	struct ls_report r;
	char *buf = NULL, *body;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sample_report(&r, &p, &si, cpu, &b);
	check(!ls_write_plot(f, &r), "plot written", " ");
	fclose(f);
	check(strstr(buf, "# sampling period: 1000 microseconds\n") != NULL, "plot: period", "%s", buf);
	check(strstr(buf, "# duration (hhmmss): 00:01:01\n# peak (hhmmss): 00:00:07\n") != NULL,
	      "plot: duration and peak", " ");
	check(strstr(buf, "# OVERRUNS: 1\n") && strstr(buf, "# sample count: 200\n") &&
	      strstr(buf, "# max latency: 50.000\n") && strstr(buf, "# preemption model: PREEMPT_RT\n") &&
	      strstr(buf, "# overflow (10 us and more): 2\n") && strstr(buf, "# 99% percentile: 6.000\n") &&
	      strstr(buf, "# 99.9% percentile: <=50.000(-1.7%)\n"),
	      "plot: header figures", "%s", buf);
	body = strstr(buf, "CPU1 CPU3\n");
	check(body && !strcmp(body + 10, "1 90 90\n2 0 0\n3 0 0\n4 0 0\n5 9 9\n10+ 1 1\n"),
	      "plot: one column per CPU, the samples past the histogram in a last '10+' row",
	      "%s", body ? body : buf);
	check(strstr(buf, "# rows -1 and 10+: the samples below 0 us, and at 10 us and more\n"),
	      "plot: the header says what rows -1 and 10+ hold", "%s", buf);
	free(buf);
}

/* Every count of every data row and column of a plot file, added up. */
static unsigned long long plot_rows_sum(const char *buf)
{
	unsigned long long sum = 0, v;
	const char *line;
	char *end;

	for (line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (*line == '#' || *line == '\n')
			continue;
		strtol(line, &end, 10);		/* the row's index, maybe "-1" or "N+" */
		if (*end == '+')
			end++;
		while (*end == ' ') {
			v = strtoull(end, &end, 10);
			sum += v;
		}
	}
	return sum;
}

/*
 * The rows add up to the header's sample count, with and without samples
 * below 0 and past the histogram, for one CPU and several.
 */
static void test_plot_rows_add_up(void)
{
	struct ls_params p;
	struct ls_sysinfo si;
	struct ls_cpu_result cpu[2];
	struct sample_bufs b;
	struct ls_report r;
	char name[96];
	int nr, under, over;

	for (nr = 1; nr <= 2; nr++)
		for (under = 0; under <= 1; under++)
			for (over = 0; over <= 1; over++) {
				char *buf = NULL, *count;
				size_t len = 0;
				FILE *f = open_memstream(&buf, &len);
				int i;

				sample_report(&r, &p, &si, cpu, &b);
				memset(&r.total, 0, sizeof(r.total));
				memset(b.total, 0, 10 * sizeof(*b.total));
				r.nr_cpus = nr;
				for (i = 0; i < nr; i++) {
					struct latscope_stats *st = &cpu[i].res.latency;

					st->samples -= st->overflow;
					st->overflow = over * (i + 2);
					/* the tail holds the overflow, at 50 us */
					b.tail[i][latscope_tail_index(50000)] = st->overflow;
					st->underflow = under * (i + 3);
					st->samples += st->overflow + st->underflow;
					ls_merge_stats(&r.total, st);
					ls_merge_cells(b.total, b.cells[i], 10);
				}
				ls_write_plot(f, &r);
				fclose(f);
				count = strstr(buf, "# sample count: ");
				snprintf(name, sizeof(name),
					 "plot rows add up: %d CPU(s), underflow %d, overflow %d",
					 nr, under, over);
				check(count && strtoull(count + 16, NULL, 10) == plot_rows_sum(buf) &&
				      plot_rows_sum(buf) == r.total.samples &&
				      !strstr(buf, "\n-1 ") == !under && !strstr(buf, "\n10+ ") == !over,
				      name, "%s", buf);
				free(buf);
			}
}

/* No sample at all (a miswired GPIO board): the GPIO| lines still say why. */
static void test_summary_no_sample(void)
{
	struct ls_params p;
	struct ls_sysinfo si;
	struct ls_cpu_result cpu;
	struct ls_report r;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	check(parse("-k -I gpiochip0,24 -O gpiochip0,23 --pulse-out gpiochip0,25", &p, err) ==
	      LS_PARSE_RUN, "no sample: options", "%s", err);
	memset(&si, 0, sizeof(si));
	memset(&r, 0, sizeof(r));
	memset(&cpu, 0, sizeof(cpu));
	cpu.res.gpio.lost = 3;
	cpu.res.gpio.irq = 42;
	r.params = &p;
	r.sys = &si;
	r.nr_cpus = 1;
	r.cpu = &cpu;
	ls_print_summary(f, &r);
	fclose(f);
	check(strstr(buf, "RTS| no sample was measured\n") &&
	      strstr(buf, "GPIO| loopback, pulse-out gpiochip0,25 -> pulse-in gpiochip0,24") &&
	      strstr(buf, "GPIO| 0 acks, 3 pulses lost, 0 stray edges; no arrival seen, irq 42\n"),
	      "no sample: GPIO lines still printed", "%s", buf);
	free(buf);
}

/* The edge printed is the one the driver says the run used. */
static void test_gpio_edge_used(void)
{
	struct latscope_gpio_result g = { .edge = LATSCOPE_EDGE_FALLING };
	struct ls_params p;
	char err[256], line[256];

	check(parse("-k --gpio-dt", &p, err) == LS_PARSE_RUN, "edge used: options", "%s", err);
	strcpy(p.pulse_in.spec, "latscope:pulse-in");
	strcpy(p.ack_out.spec, "latscope:ack-out");
	ls_gpio_describe(&p, &g, "", line, sizeof(line));
	check_str(line, "remote, pulse-in latscope:pulse-in (falling-edge), ack-out latscope:ack-out",
		  "edge used: the device's, from the result");
	g.edge = 0;	/* a driver that does not report it */
	check_str(ls_gpio_edge_used(&p, &g), "?", "edge used: unknown");
	check(parse("-k --gpio-dt=both-edges", &p, err) == LS_PARSE_RUN, "edge used: options", "%s", err);
	check_str(ls_gpio_edge_used(&p, NULL), "both-edges", "edge used: the one asked for");
}

static void second(struct ls_timeline *t, __u64 s, __u64 samples, __u64 overruns,
		   __s64 min, __s64 avg, __s64 max)
{
	struct latscope_bulk b = {
		.second = s, .samples = samples, .overruns = overruns,
		.min_ns = min, .avg_ns = avg, .max_ns = max,
	};

	ls_timeline_add(t, &b);
}

static void test_timeline(void)
{
	static struct ls_timeline t;
	__u64 s;

	ls_timeline_init(&t);
	second(&t, 0, 1000, 0, 2000, 3000, 9000);
	second(&t, 1, 0, 3, 0, 0, 0);		/* a stalled second: overruns only */
	second(&t, 4, 500, 1, 1000, 4000, 20000);	/* seconds 2-3 dropped */
	check(t.bucket_s == 1 && t.n == 3 && t.pt[1].second == 1 && t.pt[2].second == 4,
	      "timeline: one point a second, gaps kept", "bucket %u, %u points", t.bucket_s, t.n);
	check(t.pt[1].samples == 0 && t.pt[1].overruns == 3, "timeline: a second without sample",
	      "%llu samples", (unsigned long long)t.pt[1].samples);

	/* 24 hours: 86400 s fit 4096 points once they are 32 s wide. */
	ls_timeline_init(&t);
	for (s = 0; s < 86400; s++)
		second(&t, s, 1000, s % 7 == 0, 1000 + (__s64)s % 50, 2000, 3000 + (__s64)s);
	check(t.bucket_s == 32 && t.n == 2700, "timeline: 24 h in 2700 points of 32 s",
	      "bucket %u, %u points", t.bucket_s, t.n);
	/* Seconds 32-63: 50 is the one whose min is 1000; 35, 42 ... 63 overran. */
	check(t.pt[1].second == 32 && t.pt[1].samples == 32000 && t.pt[1].min_ns == 1000 &&
	      t.pt[1].max_ns == 3063 && t.pt[1].sum_ns == 32 * 2000 * 1000 && t.pt[1].overruns == 5,
	      "timeline: a merged point", "second %llu, %llu samples, min %lld max %lld overruns %llu",
	      (unsigned long long)t.pt[1].second, (unsigned long long)t.pt[1].samples,
	      (long long)t.pt[1].min_ns, (long long)t.pt[1].max_ns,
	      (unsigned long long)t.pt[1].overruns);
	check(t.pt[t.n - 1].second == 86400 - 32 && t.pt[t.n - 1].max_ns == 3000 + 86399,
	      "timeline: the last point", "second %llu max %lld",
	      (unsigned long long)t.pt[t.n - 1].second, (long long)t.pt[t.n - 1].max_ns);
}

/* --stress parsing, and every preset command written out in the man page. */
static void test_stress(const char *man_path)
{
	static const char *const presets[] = { "none", "grinder", "neighbour", "classic" };
	struct ls_params p;
	char err[256], cmd[700], man[65536];
	size_t n, i, k;
	FILE *f;

	check(parse("--stress grinder", &p, err) == LS_PARSE_RUN && !strcmp(p.stress, "grinder"),
	      "--stress grinder", "%s", err);
	check(parse("--stress-cmd yes", &p, err) == LS_PARSE_RUN && !strcmp(p.stress_cmd, "yes"),
	      "--stress-cmd", "%s", err);
	check(parse("--stress heavy", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "--stress heavy: no such preset (presets: none, grinder, neighbour, classic)"),
	      "--stress: an unknown preset named", "%s", err);
	check(parse("--checkpoint 5 -g x.plot", &p, err) == LS_PARSE_RUN && p.checkpoint_s == 300,
	      "--checkpoint in minutes", "%s %llu", err, p.checkpoint_s);
	check(parse("--checkpoint 30s --json x.json", &p, err) == LS_PARSE_RUN && p.checkpoint_s == 30,
	      "--checkpoint 30s", "%s %llu", err, p.checkpoint_s);
	check(parse("--checkpoint 0 -g x.plot", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "invalid value '0' for --checkpoint"), "--checkpoint 0", "%s", err);
	check(parse("--checkpoint 5 -g -", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "--checkpoint rewrites the -g or --json file"), "--checkpoint without a file",
	      "%s", err);
	check(parse("--stress none --stress-cmd yes", &p, err) == LS_PARSE_ERROR &&
	      strstr(err, "not both"), "--stress and --stress-cmd", "%s", err);

	f = fopen(man_path, "r");
	n = f ? fread(man, 1, sizeof(man) - 1, f) : 0;
	man[n] = '\0';
	if (f)
		fclose(f);
	check(n > 0, "man page read", "%s", man_path);
	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		const struct ls_preset *pr = ls_stress_preset(presets[i]);

		check(pr != NULL, "preset exists", "%s", presets[i]);
		for (k = 0; pr && k < LS_STRESS_MAX && pr->cmds[k]; k++) {
			const char *s = pr->cmds[k];
			size_t o = 0;

			/* %N reads N in the man page, %% reads %. */
			for (; *s && o + 1 < sizeof(cmd); s++) {
				if (s[0] == '%' && (s[1] == 'N' || s[1] == '%'))
					s++;
				cmd[o++] = *s;
			}
			cmd[o] = '\0';
			check(strstr(man, cmd) != NULL, "preset command in latscope.1", "%s: %s",
			      presets[i], cmd);
		}
	}
}

static pid_t read_pid(const char *path)
{
	FILE *f;
	int pid = 0, tries;

	for (tries = 0; tries < 200 && !pid; tries++) {
		f = fopen(path, "r");
		if (!f || fscanf(f, "%d", &pid) != 1)
			pid = 0;
		if (f)
			fclose(f);
		if (!pid)
			usleep(10000);
	}
	return pid;
}

/*
 * A load that escapes its process group (setsid) and one that keeps
 * running after its shell is gone: stopping it leaves neither behind.
 * The load runs at SCHED_OTHER on the CPUs it was given.
 */
static void test_stress_lifecycle(const char *dir)
{
	struct ls_params p;
	struct ls_stress st;
	char cmd[700], err[256], a[200], b[200];
	cpu_set_t cpus, got;
	pid_t pa, pb;

	snprintf(a, sizeof(a), "%.150s/escaped.pid", dir);
	snprintf(b, sizeof(b), "%.150s/shell.pid", dir);
	snprintf(cmd, sizeof(cmd),
		 "setsid sh -c 'echo $$ >%s; exec sleep 60' & sh -c 'echo $$ >%s; exec sleep 60' & wait",
		 a, b);
	ls_params_init(&p);
	p.stress_cmd = cmd;
	check(!ls_stress_prepare(&p, 1, &st, err, sizeof(err)) && st.ncmds == 1 &&
	      !strcmp(st.name, "custom"), "stress: custom load prepared", "%s", err);
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	check(!ls_stress_start(&st, &cpus, err, sizeof(err)), "stress: started", "%s", err);
	pa = read_pid(a);
	pb = read_pid(b);
	check(pa > 0 && pb > 0 && !kill(pa, 0) && !kill(pb, 0), "stress: both processes run",
	      "%d %d", pa, pb);
	check(pa > 0 && sched_getscheduler(pa) == SCHED_OTHER, "stress: SCHED_OTHER", "%d",
	      pa > 0 ? sched_getscheduler(pa) : -1);
	check(pa > 0 && !sched_getaffinity(pa, sizeof(got), &got) && CPU_EQUAL(&got, &cpus),
	      "stress: on the CPUs given", "%d CPUs", CPU_COUNT(&got));
	ls_stress_stop(&st);
	check(pa > 0 && kill(pa, 0) && errno == ESRCH, "stress: the escaped process is gone", "%d", pa);
	check(pb > 0 && kill(pb, 0) && errno == ESRCH, "stress: the shell's child is gone", "%d", pb);
	check(!st.running && st.alive_at_stop == 1, "stress: stopped once", "%d", st.alive_at_stop);
	ls_stress_stop(&st);	/* a second stop does nothing */

	p.stress_cmd = NULL;
	p.stress = "grinder";	/* rt-tests and coreutils are test dependencies */
	check(!ls_stress_prepare(&p, 3, &st, err, sizeof(err)) && st.ntools == 2 && st.ncmds == 2 &&
	      !strncmp(st.version[0], "hackbench V", 11) && !strncmp(st.version[1], "dd (coreutils)", 14),
	      "stress: grinder's tools found, versions read", "%s | %s | %s", err, st.version[0],
	      st.version[1]);
	setenv("PATH", dir, 1);	/* no hackbench there */
	check(ls_stress_prepare(&p, 1, &st, err, sizeof(err)) == -1 &&
	      !strcmp(err, "--stress grinder needs hackbench, which is not in PATH: install rt-tests"),
	      "stress: a missing tool named", "%s", err);
}

static void test_json(const char *path)
{
	struct ls_params p;
	struct ls_sysinfo si;
	struct ls_cpu_result cpu[2];
	static struct sample_bufs b;
	static struct ls_timeline t;
	struct ls_report r;
	FILE *f = fopen(path, "w");

	sample_report(&r, &p, &si, cpu, &b);
	ls_timeline_init(&t);
	second(&t, 0, 100, 0, 1000, 1500, 50000);
	second(&t, 1, 0, 2, 0, 0, 0);
	r.timeline = &t;
	check(f && !ls_write_json(f, &r), "json written", " ");
	if (f)
		fclose(f);
}

static void test_driver_check(void)
{
	struct latscope_info info = {
		.abi_version = LATSCOPE_ABI_VERSION,
		.setup_size = sizeof(struct latscope_setup),
		.version = "9.9",
	};
	const struct ls_source *timer = ls_source(LATSCOPE_SRC_TIMER), *gpio = ls_source(LATSCOPE_SRC_GPIO);
	char err[256] = "", want[256];

	check(!ls_check_driver(&info, gpio, err, sizeof(err)), "driver: matching ABI", "%s", err);
	info.abi_version = LATSCOPE_ABI_VERSION + 1;
	check(ls_check_driver(&info, timer, err, sizeof(err)) == -1, "driver: other ABI refused", "accepted");
	snprintf(want, sizeof(want),
		 "the loaded driver 9.9 speaks ABI %u, this latscope needs %u: load the matching latscope.ko",
		 LATSCOPE_ABI_VERSION + 1, LATSCOPE_ABI_VERSION);
	check_str(err, want, "driver: ABI mismatch message");
	info.abi_version = LATSCOPE_ABI_VERSION;
	info.setup_size = 88;	/* a timer-only driver's setup, before the GPIO fields */
	check(!ls_check_driver(&info, timer, err, sizeof(err)), "driver: timer run on a short setup", "%s", err);
	check(ls_check_driver(&info, gpio, err, sizeof(err)) == -1, "driver: GPIO run on a short setup refused",
	      "accepted");
	snprintf(want, sizeof(want),
		 "the loaded driver 9.9 has no GPIO source (setup size 88, need %zu): load the matching latscope.ko",
		 sizeof(struct latscope_setup));
	check_str(err, want, "driver: no GPIO source message");
}

/*
 * The signals that end a run, still pending when it ended (a second
 * Ctrl-C, the alarm, the logger's SIGUSR1 for the last partial second),
 * are taken at its end, not delivered: delivered, their default action
 * would kill this program, as it killed the CLI before its results were
 * written. The mask from before the run comes back.
 */
static void test_signals_after_run(void)
{
	sigset_t set, old, now, pending, before;

	sigemptyset(&before);
	sigaddset(&before, SIGUSR2);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	ls_block_signals(&set, &old);
	raise(SIGUSR1);
	raise(SIGINT);
	raise(SIGALRM);
	ls_unblock_signals(&set, &old);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	sigpending(&pending);
	check(!sigismember(&now, SIGUSR1) && !sigismember(&now, SIGINT) &&
	      sigismember(&now, SIGUSR2), "signals: the mask from before the run",
	      "USR1 %d INT %d USR2 %d", sigismember(&now, SIGUSR1),
	      sigismember(&now, SIGINT), sigismember(&now, SIGUSR2));
	check(!sigismember(&pending, SIGUSR1) && !sigismember(&pending, SIGINT) &&
	      !sigismember(&pending, SIGALRM), "signals: none left pending", "%s", "");
	sigemptyset(&before);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

/* latmon frames: the bytes on the wire, both ways, and what is refused. */
static void test_latmon_frames(void)
{
	static const unsigned char req_wire[] = { 0, 0, 0x03, 0xe8, 0, 0, 0x03, 0xe8 };
	static const unsigned char data_wire[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfc, 0x18,	/* sum -1000 */
		0xff, 0xff, 0xff, 0x9c, 0x00, 0x00, 0x01, 0x2c,	/* min -100, max 300 */
		0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x0a,	/* 2 overruns, 10 samples */
	};
	struct ls_latmon_request req = { 1000, 1000 }, back;
	struct ls_latmon_data d = { -1000, -100, 300, 2, 10 }, got;
	unsigned char buf[LS_LATMON_DATA_SIZE];
	uint32_t cells[3] = { 1, 0x01020304, 0xffffffff }, cells_back[3];
	char err[256] = "";

	ls_latmon_request_pack(&req, buf);
	check(!memcmp(buf, req_wire, sizeof(req_wire)), "latmon: request bytes", "%s", "");
	check(!ls_latmon_request_unpack(req_wire, &back, err, sizeof(err)) &&
	      back.period_us == 1000 && back.cells == 1000, "latmon: request back", "%s", err);
	ls_latmon_data_pack(&d, buf);
	check(!memcmp(buf, data_wire, sizeof(data_wire)), "latmon: data bytes", "%s", "");
	check(!ls_latmon_data_unpack(data_wire, &got, err, sizeof(err)) && got.sum_ns == -1000 &&
	      got.min_ns == -100 && got.max_ns == 300 && got.overruns == 2 && got.samples == 10,
	      "latmon: data back", "%s", err);
	d.sum_ns = 8400000000LL;	/* past 32 bits: both halves carry it */
	d.min_ns = 2000000000;
	d.max_ns = 2147483647;
	d.samples = 4;
	ls_latmon_data_pack(&d, buf);
	check(!ls_latmon_data_unpack(buf, &got, err, sizeof(err)) && got.sum_ns == d.sum_ns,
	      "latmon: 64-bit sum", "%s %lld", err, (long long)got.sum_ns);
	ls_latmon_cells_pack(cells, 3, buf);
	ls_latmon_cells_unpack(buf, 3, cells_back);
	check(buf[4] == 1 && buf[7] == 4 && !memcmp(cells, cells_back, sizeof(cells)),
	      "latmon: histogram cells", "%s", "");

	/* Refused, each with its value named. */
	req = (struct ls_latmon_request){ 1000001, 10 };
	ls_latmon_request_pack(&req, buf);
	check(ls_latmon_request_unpack(buf, &back, err, sizeof(err)) &&
	      strstr(err, "1000001"), "latmon: period too long", "%s", err);
	req = (struct ls_latmon_request){ 1000, 1001 };
	ls_latmon_request_pack(&req, buf);
	check(ls_latmon_request_unpack(buf, &back, err, sizeof(err)) &&
	      strstr(err, "1001 histogram cells"), "latmon: too many cells", "%s", err);
	req = (struct ls_latmon_request){ 0, 0 };
	ls_latmon_request_pack(&req, buf);
	check(!ls_latmon_request_unpack(buf, &back, err, sizeof(err)) && !back.period_us,
	      "latmon: the stop request", "%s", err);
	req = (struct ls_latmon_request){ 500, 0 };
	ls_latmon_request_pack(&req, buf);
	check(!ls_latmon_request_unpack(buf, &back, err, sizeof(err)) && back.period_us == 500 &&
	      !back.cells, "latmon: a request without a histogram (latmus without -g)", "%s", err);
	d = (struct ls_latmon_data){ 0, 500, 400, 0, 1 };
	ls_latmon_data_pack(&d, buf);
	check(ls_latmon_data_unpack(buf, &got, err, sizeof(err)) && strstr(err, "min 500"),
	      "latmon: min above max", "%s", err);
	d = (struct ls_latmon_data){ 5000, 100, 400, 0, 10 };
	ls_latmon_data_pack(&d, buf);
	check(ls_latmon_data_unpack(buf, &got, err, sizeof(err)) && strstr(err, "sum 5000"),
	      "latmon: sum out of bounds", "%s", err);
	memset(buf, 0, sizeof(buf));
	check(!ls_latmon_data_unpack(buf, &got, err, sizeof(err)) && !got.samples,
	      "latmon: the end record", "%s", err);
}

int main(int argc, char **argv)
{
	test_options();
	test_gpio_options();
	test_gpiod_options();
	test_gpiod_compat();
	test_acc();
	test_sources();
	test_durations();
	test_cpu_lists();
	test_lines();
	test_stats();
	test_tail_buckets();
	test_tail_percentiles();
	test_plot();
	test_plot_rows_add_up();
	test_summary_no_sample();
	test_driver_check();
	test_gpio_edge_used();
	test_timeline();
	test_signals_after_run();
	test_latmon_frames();
	if (argc > 1)
		test_json(argv[1]);
	if (argc > 2)
		test_stress(argv[2]);
	if (argc > 3)
		test_stress_lifecycle(argv[3]);
	if (argc > 3)
		test_irq_thread(argv[3]);
	printf("cli unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
