// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: the exporter front-end. It plugs the exporter's sink into
 * one run after another: a run that fails (the driver unloaded, a
 * measured CPU offline, a GPIO line taken) is said on stderr, shown as
 * latscope_measuring 0, and started again every LS_SERVE_RETRY_S seconds
 * until it measures; SIGTERM, SIGINT or SIGHUP end it, as -T does. With
 * --monitor it watches the latmon monitor's runs, one per client.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latmon/latmon.h"
#include "output/output.h"
#include "serve/serve.h"

/*
 * --serve's value: "PORT", ":PORT", "ADDR:PORT" or "[ADDR6]:PORT", or
 * NULL or "" for every address at LS_SERVE_PORT. Numeric addresses only
 * (inet_pton()): no resolver is asked at the start of a daemon, and a
 * static build has none.
 */
int ls_serve_parse_addr(const char *s, struct ls_serve_addr *a, char *err, size_t errlen)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;
	const char *port = s, *host = "";
	unsigned long long n = LS_SERVE_PORT;
	char buf[64] = "";
	size_t hlen = 0;
	bool v6 = false;

	memset(a, 0, sizeof(*a));
	if (s && s[0] == '[') {
		const char *end = strstr(s, "]:");

		if (!end)
			goto bad;
		hlen = (size_t)(end - s - 1);
		host = s + 1;
		port = end + 2;
		v6 = true;
	} else if (s && strchr(s, ':')) {
		port = strrchr(s, ':') + 1;
		hlen = (size_t)(port - 1 - s);
		host = s;
		if (memchr(s, ':', hlen))
			goto bad;	/* an IPv6 address goes in brackets */
	}
	if (hlen >= sizeof(buf))
		goto bad;
	memcpy(buf, host, hlen);
	if (s && *s && ls_parse_uint(port, 1, 65535, &n))
		goto bad;
	if (!buf[0] || v6) {
		/* No address: every one, IPv6 and (dual stack) IPv4. */
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)n);
		if (buf[0] && inet_pton(AF_INET6, buf, &s6->sin6_addr) != 1) {
			ls_fail(err, errlen, "--serve '%s': '%s' is no IPv6 address", s, buf);
			return -1;
		}
		a->len = sizeof(*s6);
		snprintf(a->text, sizeof(a->text), "[%s]:%llu", buf[0] ? buf : "::", n);
		return 0;
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)n);
	if (inet_pton(AF_INET, buf, &s4->sin_addr) != 1) {
		ls_fail(err, errlen, "--serve '%s': '%s' is no IPv4 address (an IPv6 one goes in brackets: [::1]:%llu)",
			s, buf, n);
		return -1;
	}
	a->len = sizeof(*s4);
	snprintf(a->text, sizeof(a->text), "%s:%llu", buf, n);
	return 0;
bad:
	ls_fail(err, errlen,
		"--serve '%.40s%s': give PORT, ADDR:PORT or [ADDR6]:PORT, a port from 1 to 65535",
		s, strlen(s) > 40 ? "..." : "");
	return -1;
}

/* The CPUs not measured, where the exporter's threads go; empty if none is left. */
static void others_of(const struct ls_params *p, const struct ls_sysinfo *sys, cpu_set_t *out)
{
	cpu_set_t measured;
	char err[256];
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int cpu;

	CPU_ZERO(out);
	if (ls_pick_cpus(p, sys, &measured, err, sizeof(err)))
		return;		/* the run says why */
	for (cpu = 0; cpu < n && cpu < CPU_SETSIZE; cpu++)
		if (!CPU_ISSET(cpu, &measured))
			CPU_SET(cpu, out);
}

/*
 * Waits @secs for a signal that ends the exporter, until @end_ns at most
 * (CLOCK_MONOTONIC, 0: none): 1 if a signal came, 2 if the end did, else
 * 0.
 */
static int wait_or_signal(const sigset_t *signals, unsigned int secs, __u64 end_ns)
{
	struct timespec left = { .tv_sec = secs };
	__u64 now = ls_now_ns();
	int sig;

	if (end_ns && now + secs * 1000000000ULL >= end_ns) {
		if (now >= end_ns)
			return 2;
		left.tv_sec = (time_t)((end_ns - now) / 1000000000ULL);
		left.tv_nsec = (long)((end_ns - now) % 1000000000ULL);
	}
	/* SIGUSR1 is the logger's of the run that ended: not a stop. */
	do {
		sig = sigtimedwait(signals, NULL, &left);
	} while ((sig < 0 && errno == EINTR) || sig == SIGUSR1);
	if (sig > 0)
		return 1;
	return end_ns && ls_now_ns() >= end_ns ? 2 : 0;
}

/*
 * One run after another until a signal or -T's end: 1 if -T ended it,
 * 0 if a signal did; *@started tells whether any run got to measure.
 * Each run's results (-g, --json) are written when it ends.
 */
static int measure(struct ls_exporter *ex, const struct ls_params *p,
		   const struct ls_sysinfo *sys, const sigset_t *signals, bool *started)
{
	/* The timeline for -g and --json, then the exporter's figures. */
	const struct ls_sink sinks[] = {
		{ .second = ls_timeline_second },
		{ .second = ls_exporter_second, .priv = ex, .cpu_second = ls_exporter_cpu_second },
	};
	const struct ls_plug plug = { .sinks = sinks, .nr_sinks = ARRAY_SIZE(sinks),
				      .snapshots = true };
	__u64 end_ns = ls_now_ns() + p->timeout_s * 1000000000ULL;
	char err[512], said[512] = "";
	struct ls_params rp = *p;

	for (;;) {
		struct ls_report r = { .params = &rp, .sys = sys };
		int ret;

		/* -T bounds the exporter's measuring, not each run's. */
		if (p->timeout_s) {
			__u64 now = ls_now_ns();

			if (now >= end_ns)
				return 1;
			rp.timeout_s = (end_ns - now + 999999999ULL) / 1000000000ULL;
		}
		err[0] = '\0';
		ret = ls_run(&rp, &r, &plug, err, sizeof(err));
		/* Collected after the stop unless it never started. */
		ls_exporter_run_ended(ex, ret == LS_EXIT_SETUP ? NULL : &r);
		if (ret != LS_EXIT_SETUP)
			*started = true;
		if (ret != LS_EXIT_SETUP && (p->plot_path || p->json_path))
			ls_write_files(&r, false);
		ls_report_free(&r);
		/* A signal, or -T: the alarm comes after end_ns. */
		if (ret == LS_EXIT_OK)
			return p->timeout_s && ls_now_ns() >= end_ns;
		/* Said when it changes, not every try. */
		if (!err[0])
			snprintf(err, sizeof(err), "the run ended (exit code %d)", ret);
		if (strcmp(err, said))
			fprintf(stderr, "latscope: not measuring: %s; trying again every %d s\n",
				err, LS_SERVE_RETRY_S);
		memcpy(said, err, sizeof(said));
		fflush(stderr);
		switch (wait_or_signal(signals, LS_SERVE_RETRY_S, p->timeout_s ? end_ns : 0)) {
		case 1:
			return 0;
		case 2:
			return 1;
		}
	}
}

/* The end of one of the monitor's runs (a client's): its figures carried. */
static void monitor_run_ended(void *priv, const struct ls_report *r)
{
	ls_exporter_run_ended(priv, r);
}

/*
 * --monitor: the exporter watches the monitor's runs, one per client
 * request; between them it does not measure. Until a signal.
 */
static int watch_monitor(struct ls_exporter *ex, const struct ls_params *p,
			 const struct ls_door_params *dp, const struct ls_sysinfo *sys)
{
	const struct ls_monitor_watch watch = {
		.sink = { .second = ls_exporter_second, .priv = ex,
			  .cpu_second = ls_exporter_cpu_second },
		.snapshots = true,
		.ended = monitor_run_ended,
		.priv = ex,
	};

	return ls_monitor_serve(p, dp, sys, &watch);
}

/* After -T: the last figures stay served until a signal. */
static void hold(const sigset_t *signals)
{
	int sig;

	fprintf(stderr, "latscope: -T is over: serving the last figures until stopped\n");
	fflush(stderr);
	do {
		if (sigwait(signals, &sig))
			sig = 0;
	} while (sig == SIGUSR1 || sig == SIGALRM || !sig);
}

/**
 * ls_serve() - the exporter: measure, and show the figures, until a signal
 * @p: what each run is asked
 * @sp: the exporter's own options
 * @dp: the monitor's door, with --monitor
 * @sys: the board
 *
 * With -T, it measures that long; over HTTP it then serves the last
 * figures (latscope_measuring 0) until a signal, a text file alone ends.
 *
 * Return: an exit code: LS_EXIT_OK after a signal (or -T), LS_EXIT_SETUP
 * if the HTTP server or the text file could not start, or if -T ended
 * with no run ever started (no driver, a CPU offline all along).
 */
int ls_serve(const struct ls_params *p, const struct ls_serve_params *sp,
	     const struct ls_door_params *dp, const struct ls_sysinfo *sys)
{
	struct ls_exporter *ex = calloc(1, sizeof(*ex));
	struct ls_textfile *text = NULL;
	struct ls_http *http = NULL;
	sigset_t signals, old_signals;
	struct ls_serve_addr addr;
	char err[512] = "";
	bool started = false;
	cpu_set_t others;
	int ret = LS_EXIT_OK;

	if (!ex || ls_exporter_init(ex, p, sp, sys, err, sizeof(err))) {
		fprintf(stderr, "latscope: %s\n", ex ? err : "out of memory for the exporter");
		free(ex);
		return LS_EXIT_SETUP;
	}
	others_of(p, sys, &others);
	/* Blocked before any thread starts: only this one takes them. */
	ls_block_signals(&signals, &old_signals);
	if (sp->http && !ls_serve_parse_addr(sp->addr, &addr, err, sizeof(err)))
		http = ls_http_start(ex, &addr, &others, err, sizeof(err));
	if (sp->http && !http)
		ret = LS_EXIT_SETUP;
	else if (http)
		fprintf(stderr, "latscope: serving http://%s/metrics\n", addr.text);
	if (ret == LS_EXIT_OK && sp->textfile) {
		text = ls_textfile_start(ex, sp->textfile, sp->textfile_s, &others, err,
					 sizeof(err));
		if (!text)
			ret = LS_EXIT_SETUP;
	}
	if (ret != LS_EXIT_OK) {
		fprintf(stderr, "latscope: %s\n", err);
	} else if (p->monitor) {
		ret = watch_monitor(ex, p, dp, sys);
	} else if (measure(ex, p, sys, &signals, &started)) {
		/* -T is over. No run ever started: say so, and not with 0. */
		if (!started) {
			fprintf(stderr, "latscope: -T is over and nothing was measured\n");
			ret = LS_EXIT_SETUP;
		} else if (http) {
			hold(&signals);
		}
	}
	ls_textfile_stop(text);
	ls_http_stop(http);
	ls_unblock_signals(&signals, &old_signals);
	ls_exporter_free(ex);
	free(ex);
	return ret;
}
