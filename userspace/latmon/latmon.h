/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI, latmon: both ends of the latmon protocol as links of a
 * run (struct ls_link_ops): the client of a latmon monitor (-z HOST,
 * client.c) and the monitor that serves latmon clients (--monitor,
 * monitor.c). The engine drives them through their ops and never names
 * them. Below: run/, output/, core/ (docs/design/layers.md).
 */
#ifndef LATSCOPE_LATMON_H
#define LATSCOPE_LATMON_H

#include "latmon/wire.h"
#include "run/run.h"

/* --allow: the IPv4 networks a monitor serves (allow.c); none: everyone. */
#define LS_ALLOW_MAX	16
struct ls_allow_net {
	uint32_t addr;			/* host byte order, host bits clear */
	uint32_t mask;
};

struct ls_allow {
	unsigned int n;
	struct ls_allow_net net[LS_ALLOW_MAX];
};

/* allow.c */
int ls_allow_parse(const char *s, struct ls_allow *allow, char *err, size_t errlen);
bool ls_allow_has(const struct ls_allow *allow, uint32_t addr);

/* --monitor's door: where it listens and announces, whom it serves, how long. */
struct ls_door_params {
	char listen_addr[64];		/* --listen: IPv4 to serve on, "": any */
	char announce_to[64];		/* --announce-to: IPv4, "none", "": broadcast */
	struct ls_allow allow;		/* --allow: clients served, none: all */
	unsigned long long max_run_s;	/* --max-run: a client's run at most, 0: no bound */
};

/*
 * What the client's data records add up to so far, client.c's: the run's
 * samples, overruns and latencies, and each second as the sinks get it
 * (its average times its samples) added up from the first, with the least
 * and the most of those prefix sums and after which record each came.
 */
struct ls_latmon_sums {
	__u64 records, samples, overruns;
	__s64 sum_ns;
	__s64 seconds_ns, least_ns, most_ns;
	__u64 least_at, most_at;
};

/* The connection to a latmon monitor (-z HOST), client.c's. */
struct ls_latmon_conn {
	int fd;				/* TCP to the monitor, or -1 */
	int wake[2];			/* pipe: the main thread asks for the stop */
	pthread_t thread;
	bool has_thread;
	bool stop_sent;			/* the zero request went out */
	__u64 stop_deadline_ns;		/* then the stream must end by this */
	int exit_code;			/* LS_EXIT_MONITOR_LOST once it failed */
	char err[320];			/* why */
	struct ls_latmon_figures *fig;	/* the report's */
	struct ls_latmon_sums sums;	/* of its records, checked */
};

/* A latmon client of --monitor, monitor.c's, for one run. */
struct ls_monitor_peer {
	int fd;				/* the client's connection */
	int wake[2];			/* pipe: the run is over, stop reading */
	int sigfd;			/* Ctrl-C and co. while no run waits for them */
	char name[64];			/* ADDRESS:PORT */
	pthread_t thread;		/* reads its stop while the run goes on */
	bool has_thread;
	bool stop_asked;		/* it sent a request: the run ends */
	atomic_bool gone;		/* it closed, broke or stopped reading */
	bool has_next;			/* that request starts a new run */
	struct ls_latmon_request next;
	__u64 overruns;			/* of seconds without a sample, not sent yet */
	bool overran;			/* its run reached --max-run */
	unsigned long long max_run_s;	/* --max-run, 0: no bound */
	unsigned int runs;		/* runs this monitor measured, for file names */
	char why[200];
};

/* door.c: the monitor's listening socket, and who may come in. */
struct ls_door {
	const struct ls_params *p;
	const struct ls_door_params *dp;
	int lfd;			/* listening, for the monitor's life */
	int stop[2];			/* pipe: the doorman's end */
	pthread_t thread;		/* the doorman: holds or refuses newcomers while busy */
	bool has_thread;
	char busy_with[64];		/* the client being served */
	int held;			/* the newcomer served next, or -1 */
	char held_name[64];
	__u64 held_since_ns;		/* refused LS_DOOR_HOLD_S later if still busy */
};

int ls_door_open(struct ls_door *d, const struct ls_params *p,
		 const struct ls_door_params *dp, char *err, size_t errlen);
/* Whether a newcomer waits: ls_door_accept() gives it without waiting. */
bool ls_door_held(const struct ls_door *d);
/* The newcomer held, else one client from the listening socket, --allow checked: its fd, or -1. */
int ls_door_accept(struct ls_door *d, char *name, size_t len);
/*
 * While @name is served, the first newcomer is held for LS_DOOR_HOLD_S
 * (served next if @name leaves by then), any other closed at once;
 * ls_door_free() ends it.
 */
int ls_door_busy(struct ls_door *d, const char *name);
void ls_door_free(struct ls_door *d);
void ls_door_close(struct ls_door *d);

/* client.c: whether @d's sums fit with those before: 0, or -1 and why. */
int ls_latmon_sums_add(struct ls_latmon_sums *s, const struct ls_latmon_data *d, char *why,
		       size_t len);

/* client.c: a run's link to the monitor at -z HOST, state in a ls_latmon_conn. */
extern const struct ls_link_ops ls_latmon_client_ops;

/*
 * What a front-end above (serve/, the exporter) adds to each of the
 * monitor's runs: one more sink of its seconds, the sessions' snapshots
 * each second if it asks, and @ended once each run is over (with its
 * results, or NULL if it never started). The monitor does not know who.
 */
struct ls_monitor_watch {
	struct ls_sink sink;
	bool snapshots;
	void (*ended)(void *priv, const struct ls_report *r);
	void *priv;
};

/* monitor.c: serves clients one after the other, until a signal; @watch may be NULL. */
int ls_monitor_serve(const struct ls_params *p, const struct ls_door_params *dp,
		     const struct ls_sysinfo *sys, const struct ls_monitor_watch *watch);

#endif /* LATSCOPE_LATMON_H */
