// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/run/: the libgpiod shim, the pulse-in
 * interrupt's thread on a fake /proc, the driver check, the load presets
 * and their lifecycle, the signals left after a run.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/engine.h"
#include "run/gpiod_compat.h"
#include "unit.h"

/*
 * libgpiod through gpiod_compat.c, as far as a machine without a GPIO
 * chip can go: the generation built in, and a request for a chip that is
 * not there, or a file that is not a chip, fails with the errno a caller
 * names, allocating nothing that leaks (valgrind-clean).
 */
void test_gpiod_compat(void)
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

/* The IRQ thread of a line, found in a /proc built for the test. */
void test_irq_thread(const char *dir)
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

/* --stress parsing, and every preset command written out in the man page. */
void test_stress(const char *man_path)
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
void test_stress_lifecycle(const char *dir)
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

void test_driver_check(void)
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
void test_signals_after_run(void)
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
