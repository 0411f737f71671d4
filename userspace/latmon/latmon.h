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

#include "core/latmon_wire.h"
#include "run/run.h"

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
	char why[200];
};

/* client.c: a run's link to the monitor at -z HOST, state in a ls_latmon_conn. */
extern const struct ls_link_ops ls_latmon_client_ops;

/* monitor.c: serves clients one after the other, until a signal. */
int ls_monitor_serve(const struct ls_params *p, const struct ls_sysinfo *sys);

#endif /* LATSCOPE_LATMON_H */
