// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: what a GPIO run prints besides latmus's lines: the lines
 * and edge it used, how the driver handled the events (where arrivals
 * were stamped, the IRQ thread it raised, chips that may sleep), and the
 * acks, lost pulses and stray edges. The same facts go to the GPIO|
 * summary lines, the plot header and the JSON "gpio" object.
 */
#include <stdio.h>

#include "output/output.h"

/*
 * The edge of the run: the one the driver reports in @g (NULL: no result),
 * else the one asked for; "?" if neither says (--gpio-dt on a driver that
 * does not report it).
 */
const char *ls_gpio_edge_used(const struct ls_params *p,
			      const struct latscope_gpio_result *g)
{
	return ls_edge_name(g && g->edge ? g->edge : p->gpio_edge);
}

/*
 * "loopback, pulse-out X -> pulse-in Y (rising-edge), ack-out Z"; @lib:
 * the application's responder's library, as the report names it.
 */
void ls_gpio_describe(const struct ls_params *p, const struct latscope_gpio_result *g,
		      const char *lib, char *buf, size_t len)
{
	if (ls_one_board(p))
		snprintf(buf, len, "one board, application thread (%s): monitor pulse-out %s -> pulse-in %s (%s), ack-out %s -> monitor ack-in %s (%s)",
			 lib, p->pulse_out.spec, p->pulse_in.spec, ls_gpio_edge_used(p, g),
			 p->ack_out.spec, p->ack_in.spec, ls_edge_name(ls_ack_in_edge(p)));
	else if (p->context == LS_CTX_GPIOD)
		snprintf(buf, len, "application thread (%s), pulse-in %s (%s), ack-out %s",
			 lib, p->pulse_in.spec, ls_gpio_edge_used(p, g), p->ack_out.spec);
	else if (p->monitor)
		snprintf(buf, len, "monitor, pulse-out %s (%s pulses) -> ack-in %s (%s)",
			 p->pulse_out.spec, ls_edge_name(p->pulse_edge), p->ack_in.spec,
			 ls_edge_name(g && g->edge ? g->edge : ls_ack_in_edge(p)));
	else if (p->pulse_out.given)
		snprintf(buf, len, "loopback, pulse-out %s -> pulse-in %s (%s), ack-out %s",
			 p->pulse_out.spec, p->pulse_in.spec,
			 ls_gpio_edge_used(p, g), p->ack_out.spec);
	else
		snprintf(buf, len, "remote, pulse-in %s (%s), ack-out %s",
			 p->pulse_in.spec, ls_gpio_edge_used(p, g), p->ack_out.spec);
}

static const char *ls_policy_name(unsigned int policy)
{
	switch (policy) {
	case 0: return "SCHED_OTHER";
	case 1: return "SCHED_FIFO";
	case 2: return "SCHED_RR";
	case 3: return "SCHED_BATCH";
	case 5: return "SCHED_IDLE";
	case 6: return "SCHED_DEADLINE";
	default: return "policy ?";
	}
}

/*
 * Where the driver stamped arrivals and how it drove the lines; for the
 * application's thread, the interrupt thread that delivered its edges.
 */
void ls_gpio_paths(const struct ls_params *p, const struct ls_cpu_result *c,
		   char *buf, size_t len)
{
	const struct latscope_gpio_result *g = &c->res.gpio;
	size_t n;

	if (p->context == LS_CTX_GPIOD) {
		snprintf(buf, len, "%s", c->path_note);
		return;
	}

	if ((g->paths & LATSCOPE_GPIO_IN_THREAD) && (g->paths & LATSCOPE_GPIO_IN_HARDIRQ))
		n = snprintf(buf, len, "arrival stamped in hard irq and in thread %s (pid %d), irq %d",
			     g->irq_thread_comm, g->irq_thread_pid, g->irq);
	else if (g->paths & LATSCOPE_GPIO_IN_THREAD)
		n = snprintf(buf, len, "arrival stamped in thread %s (pid %d), irq %d",
			     g->irq_thread_comm, g->irq_thread_pid, g->irq);
	else if (g->paths & LATSCOPE_GPIO_IN_HARDIRQ)
		n = snprintf(buf, len, "arrival stamped in hard irq, irq %d", g->irq);
	else
		n = snprintf(buf, len, "no arrival seen, irq %d", g->irq);
	if (n < len && (g->paths & LATSCOPE_GPIO_THREAD_RAISED))
		n += snprintf(buf + n, len - n, "; %s ran at SCHED_FIFO %d for the run (it had %s %u, given back)",
			      g->irq_thread_comm, p->irq_thread_prio,
			      ls_policy_name(g->irq_thread_policy), g->irq_thread_rtprio);
	else if (n < len && p->irq_thread_prio)
		n += snprintf(buf + n, len - n, "; --irq-prio %d: %s", p->irq_thread_prio,
			      g->paths & LATSCOPE_GPIO_IN_THREAD ?
			      "the thread could not be raised" : "no IRQ thread to raise");
	if (n < len && (g->paths & LATSCOPE_GPIO_OUT_CANSLEEP))
		n += snprintf(buf + n, len - n, "; pulse-out chip may sleep: driven from a kernel thread");
	if (n < len && (g->paths & LATSCOPE_GPIO_ACK_CANSLEEP))
		snprintf(buf + n, len - n, "; ack-out chip may sleep");
}

/* The GPIO| lines: the lines and edge, then acks, losses and paths. */
void ls_gpio_print_summary(FILE *f, const struct ls_report *r)
{
	const struct ls_params *p = r->params;
	const struct latscope_gpio_result *g;
	char line[512];

	if (r->nr_cpus != 1)
		return;
	g = &r->cpu[0].res.gpio;
	ls_gpio_describe(p, g, r->gpiod_lib, line, sizeof(line));
	fprintf(f, "GPIO| %s\n", line);
	ls_gpio_paths(p, &r->cpu[0], line, sizeof(line));
	if (p->context == LS_CTX_GPIOD)
		fprintf(f, "GPIO| %llu acks; %s\n", (unsigned long long)g->acks, line);
	else
		fprintf(f, "GPIO| %llu acks, %llu pulses lost, %llu stray edges; %s\n",
			(unsigned long long)g->acks, (unsigned long long)g->lost,
			(unsigned long long)g->spurious, line);
	if (r->monitor) {
		g = &r->monitor->res.gpio;
		fprintf(f, "GPIO| monitor on CPU%d: %llu answers timed, %llu late (overruns), %llu pulses lost (no answer within a second), %llu stray edges\n",
			r->monitor->cpu,
			(unsigned long long)r->monitor->res.latency.samples,
			(unsigned long long)r->monitor->res.overruns,
			(unsigned long long)g->lost, (unsigned long long)g->spurious);
	}
	if (p->context == LS_CTX_GPIOD && !r->monitor && !r->latmon)
		fprintf(f, "GPIO| no monitor: the figures are edge to ack written on this board, a lower bound of what a monitor would time\n");
}

/* The plot header's "# gpio lines:" and "# gpio path:". */
void ls_gpio_write_plot(FILE *f, const struct ls_report *r)
{
	const struct ls_params *p = r->params;
	char line[512];

	if (r->monitor) {
		fprintf(f, "# measured by: this board's monitor on CPU%d, pulse-out to ack-in round trip\n",
			r->monitor->cpu);
		if (ls_local_part(r, line, sizeof(line)))
			fprintf(f, "# %s\n", line);
	} else if (p->context == LS_CTX_GPIOD && !r->latmon) {
		fprintf(f, "# measured by: this board only, edge to ack written (a lower bound)\n");
	}

	ls_gpio_describe(p, r->nr_cpus == 1 ? &r->cpu[0].res.gpio : NULL, r->gpiod_lib,
			 line, sizeof(line));
	fprintf(f, "# gpio lines: %s\n", line);
	if (r->nr_cpus == 1) {
		ls_gpio_paths(p, &r->cpu[0], line, sizeof(line));
		fprintf(f, "# gpio path: %s\n", line);
	}
}

/* The JSON file's "gpio" object. */
void ls_gpio_write_json(FILE *f, const struct ls_report *r)
{
	const struct ls_params *p = r->params;
	const struct latscope_gpio_result *g;

	if (r->nr_cpus != 1)
		return;
	g = &r->cpu[0].res.gpio;
	fputs("  \"gpio\": {\n", f);
	ls_json_key_string(f, "    ", "mode", p->monitor ? "monitor" :
			   ls_one_board(p) ? "one-board" :
			   p->pulse_out.given ? "loopback" : "remote", ",\n");
	if (p->context == LS_CTX_GPIOD) {
		ls_json_key_string(f, "    ", "responder", r->gpiod_lib, ",\n");
		ls_json_key_string(f, "    ", "irq_thread_note", r->cpu[0].path_note, ",\n");
		ls_json_key_string(f, "    ", "split",
				   "thread.0.latency: edge (the kernel's stamp) to ack written; thread.0.irq: edge to the thread running with the event",
				   ",\n");
	}
	if (ls_one_board(p))
		ls_json_key_string(f, "    ", "ack_in", p->ack_in.spec, ",\n");
	ls_json_key_string(f, "    ", "edge", ls_gpio_edge_used(p, g), ",\n");
	if (p->monitor) {
		ls_json_key_string(f, "    ", "ack_in", p->ack_in.spec, ",\n");
		ls_json_key_string(f, "    ", "pulse_edge", ls_edge_name(p->pulse_edge), ",\n");
	} else {
		ls_json_key_string(f, "    ", "pulse_in", p->pulse_in.spec, ",\n");
		ls_json_key_string(f, "    ", "ack_out", p->ack_out.spec, ",\n");
	}
	if (p->pulse_out.given)
		ls_json_key_string(f, "    ", "pulse_out", p->pulse_out.spec, ",\n");
	fprintf(f, "    \"acks\": %llu,\n    \"lost\": %llu,\n    \"spurious\": %llu,\n",
		(unsigned long long)g->acks, (unsigned long long)g->lost,
		(unsigned long long)g->spurious);
	fprintf(f, "    \"irq\": %d,\n", g->irq);
	fprintf(f, "    \"arrival_in_hardirq\": %s,\n    \"arrival_in_thread\": %s,\n",
		g->paths & LATSCOPE_GPIO_IN_HARDIRQ ? "true" : "false",
		g->paths & LATSCOPE_GPIO_IN_THREAD ? "true" : "false");
	ls_json_key_string(f, "    ", "irq_thread", g->irq_thread_comm, ",\n");
	fprintf(f, "    \"irq_thread_pid\": %d,\n", g->irq_thread_pid);
	fprintf(f, "    \"irq_thread_raised_to\": %d,\n",
		g->paths & LATSCOPE_GPIO_THREAD_RAISED ? p->irq_thread_prio : 0);
	fprintf(f, "    \"pulse_out_cansleep\": %s,\n    \"ack_out_cansleep\": %s\n  },\n",
		g->paths & LATSCOPE_GPIO_OUT_CANSLEEP ? "true" : "false",
		g->paths & LATSCOPE_GPIO_ACK_CANSLEEP ? "true" : "false");
}
