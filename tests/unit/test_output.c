// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/output/: latmus's line formats (exact
 * strings), the plot file, the summary and the JSON file (written to
 * argv[1], parsed back by tests/unit/run.sh).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/output.h"
#include "run/run.h"
#include "unit.h"

void test_lines(void)
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

void test_plot(void)
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
void test_plot_rows_add_up(void)
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
/* 1:1, N:N and M:N, as the summary, the plot and the JSON name them. */
void test_scenarios(void)
{
	struct ls_params p;
	struct ls_sysinfo si;
	struct ls_cpu_result cpu[2];
	static struct sample_bufs b;
	struct ls_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	sample_report(&r, &p, &si, cpu, &b);
	check(!strcmp(ls_scenario(&r), "N:N") && ls_report_cpus(&r) == 2,
	      "scenario: two responders on two CPUs", "%s", ls_scenario(&r));
	cpu[1].cpu = cpu[0].cpu;	/* both on CPU1: M:N */
	check(!strcmp(ls_scenario(&r), "M:N") && ls_report_cpus(&r) == 1,
	      "scenario: two responders on one CPU", "%s", ls_scenario(&r));
	f = open_memstream(&buf, &len);
	ls_print_summary(f, &r);
	ls_write_plot(f, &r);
	fclose(f);
	check(buf && strstr(buf, "CPU| M:N: 2 responders on 1 CPUs, each its own session, one priority\n") &&
	      strstr(buf, "CPU| thread 1 on CPU1-noisol: ") &&
	      strstr(buf, "# scenario: M:N, 2 responders on 1 CPU\n") &&
	      strstr(buf, "# columns: latency (us), sample count thread0@CPU1 thread1@CPU1\n"),
	      "scenario: M:N in the summary and the plot", "\n%s", buf ? buf : "");
	free(buf);
	r.nr_cpus = 1;
	check(!strcmp(ls_scenario(&r), "1:1"), "scenario: one responder", "%s", ls_scenario(&r));
}

void test_summary_no_sample(void)
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
void test_gpio_edge_used(void)
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

void test_json(const char *path)
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

/*
 * The recorder's records: WHY| lines worst first over the CPUs, with the
 * parts the context has, the interrupted task and code, the longest
 * items; the JSON's "worst" array whole; what was not seen said. A
 * task that named itself "bad\xff" (prctl(PR_SET_NAME) takes any bytes)
 * is a culprit: the JSON stays UTF-8, and goes to @dir/why.json, which
 * tests/unit/run.sh decodes strictly and gives to latscope-report.
 */
void test_why(const char *dir)
{
	struct ls_params p;
	struct ls_sysinfo si;
	struct ls_cpu_result cpu[2];
	static struct sample_bufs b;
	static struct latscope_why why[2][2];
	struct ls_report r;
	char *buf = NULL, path[512];
	size_t len = 0;
	FILE *f;

	sample_report(&r, &p, &si, cpu, &b);
	p.context = LATSCOPE_CTX_KERNEL;
	p.why = LS_WHY_RECORDS;
	memset(why, 0, sizeof(why));
	/* CPU1: a kworker ran non-preemptible while the responder waited. */
	why[0][0] = (struct latscope_why){
		.latency_ns = 412300, .ideal_ns = 5000000000ULL, .realtime_ns = 0,
		.irq_ns = 3100, .wake_ns = 9400, .sched_ns = 391000, .run_ns = 8800,
		.window_ns = 412300, .pid = 88, .policy = 0, .prio = 0,
		.flags = LATSCOPE_WHY_HAS_IRQ | LATSCOPE_WHY_HAS_WAKE | LATSCOPE_WHY_HAS_RUN,
		.idle_state = -1, .nr_items = 2, .more_items = 1, .more_ns = 1000,
	};
	snprintf(why[0][0].comm, sizeof(why[0][0].comm), "kworker/1:2");
	snprintf(why[0][0].where, sizeof(why[0][0].where), "ext4_writepages+0x1a4/0x300");
	why[0][0].item[0] = (struct latscope_why_item){
		.kind = LATSCOPE_WHY_TASK, .id = 88, .count = 1, .duration_ns = 391000,
		.blocking_ns = 391000, .flags = LATSCOPE_WHY_ITEM_BEFORE,
	};
	snprintf(why[0][0].item[0].name, sizeof(why[0][0].item[0].name), "kworker/1:2");
	why[0][0].item[1] = (struct latscope_why_item){
		.kind = LATSCOPE_WHY_IRQ, .id = 27, .count = 2, .duration_ns = 24000,
	};
	snprintf(why[0][0].item[1].name, sizeof(why[0][0].item[1].name), "eth0");
	/* CPU3: idle, nothing known of what ran, the record cut. */
	why[1][0] = (struct latscope_why){
		.latency_ns = 500000, .irq_ns = 500000, .window_ns = 100000,
		.flags = LATSCOPE_WHY_HAS_IRQ | LATSCOPE_WHY_IDLE | LATSCOPE_WHY_CUT,
		.idle_state = 1, .unknown_ns = 500000,
	};
	why[1][1] = (struct latscope_why){ .latency_ns = 1000, .flags = LATSCOPE_WHY_NO_WHERE,
					   .nr_items = 1 };
	why[1][1].item[0] = (struct latscope_why_item){
		.kind = LATSCOPE_WHY_TASK, .id = 4242, .count = 1, .duration_ns = 900,
	};
	snprintf(why[1][1].item[0].name, sizeof(why[1][1].item[0].name), "bad\xff");
	cpu[0].why = why[0];
	cpu[0].has_why = true;
	cpu[0].res.why_count = 1;
	cpu[0].res.why_seen = 0x3f;
	cpu[1].why = why[1];
	cpu[1].has_why = true;
	cpu[1].res.why_count = 2;
	cpu[1].res.why_seen = 0x37;

	f = open_memstream(&buf, &len);
	ls_print_summary(f, &r);
	fclose(f);
	check(strstr(buf, "WHY| 500.0 us at ? CPU3: irq 500.0 + wake ? + sched ? + run ? | interrupted idle | 500.0 us not known | record cut: it covers the last 100.0 us\n"
			  "WHY| 412.3 us at ? CPU1: irq 3.1 + wake 9.4 + sched 391.0 + run 8.8 | interrupted kworker/1:2 (88, OTHER) in ext4_writepages+0x1a4/0x300 | kworker/1:2 (88, OTHER) ran 391.0 us, 391.0 non-preemptible | irq 27 eth0 x2 24.0 us | 1 more\n"
			  "WHY| 1.0 us at ? CPU3:") != NULL,
	      "why: WHY| lines worst first, over the CPUs", "%s", buf);
	check(strstr(buf, "WHY| not seen on this kernel: NMIs\n") != NULL,
	      "why: what a CPU's recorder did not see is said", "%s", buf);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	check(!ls_write_json(f, &r), "why: json written", " ");
	fclose(f);
	check(strstr(buf, "\"worst\": [\n    {\n      \"cpu\": 3,\n      \"latency_ns\": 500000,") &&
	      strstr(buf, "\"parts\": {\"irq_ns\": 3100, \"wake_ns\": 9400, \"sched_ns\": 391000, \"run_ns\": 8800},") &&
	      strstr(buf, "\"parts\": {\"irq_ns\": 500000, \"wake_ns\": null, \"sched_ns\": null, \"run_ns\": null},") &&
	      strstr(buf, "\"flags\": [\"cut\", \"idle\"],") &&
	      strstr(buf, "\"interrupted\": {\"pid\": 88, \"comm\": \"kworker/1:2\", \"policy\": \"OTHER\", \"prio\": 0, \"user_mode\": false, \"where\": \"ext4_writepages+0x1a4/0x300\"},") &&
	      strstr(buf, "{\"kind\": \"irq\", \"id\": 27, \"name\": \"eth0\", \"count\": 2, \"duration_ns\": 24000, \"blocking_ns\": 0, \"began_before\": false, \"went_on\": false}\n"),
	      "why: the worst array", "%s", buf);
	check(strstr(buf, "{\"kind\": \"task\", \"id\": 4242, \"name\": \"bad\\ufffd\",") &&
	      strstr(buf, "| bad\\ufffd (4242, OTHER) ran 0.9 us\"") && !strchr(buf, '\xff'),
	      "why: a culprit named bad\\xff is written bad\\ufffd", "%s", buf);
	free(buf);
	if (dir) {
		snprintf(path, sizeof(path), "%s/why.json", dir);
		f = fopen(path, "w");
		check(f && !ls_write_json(f, &r), "why: why.json written", "%s", path);
		if (f)
			fclose(f);
	}
}

/*
 * Strings in the JSON are UTF-8 whatever the bytes: each ill-formed part
 * one U+FFFD (as Python's errors="replace" reads the same bytes), control
 * characters, quotes and backslashes escaped, valid characters as they are.
 */
void test_json_strings(void)
{
	static const struct { const char *in, *want, *what; } cases[] = {
		{ "kworker/1:2", "\"kworker/1:2\"", "plain" },
		{ "bad\xff", "\"bad\\ufffd\"", "a byte that is no UTF-8" },
		{ "a\"b\\c\x01\t\n\x1f", "\"a\\\"b\\\\c\\u0001\\u0009\\u000a\\u001f\"",
		  "quote, backslash, controls" },
		{ "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\x7f",
		  "\"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\x7f\"",
		  "2-, 3- and 4-byte characters and DEL as they are" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"", "an overlong '/'" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "a surrogate" },
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "past U+10FFFF" },
		{ "\xe2\x82x", "\"\\ufffdx\"", "a character cut, then one" },
		{ "\xf0\x9f\x98", "\"\\ufffd\"", "a character cut at the end" },
		{ "comm-of-15-by\xc3", "\"comm-of-15-by\\ufffd\"", "a name cut mid-character" },
		{ "\x80\xbf\xfe\xff", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		  "stray continuation bytes, 0xfe, 0xff" },
	};
	char *buf, name[128];
	size_t len, i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		buf = NULL;
		f = open_memstream(&buf, &len);
		ls_json_string(f, cases[i].in);
		fclose(f);
		snprintf(name, sizeof(name), "json string: %s", cases[i].what);
		check_str(buf, cases[i].want, name);
		free(buf);
	}
}

/* A stand-in for latscope-evt: a shell script @body in @dir/@name. */
static void stand_in(char *path, size_t len, const char *dir, const char *name,
		     const char *body)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "#!/bin/sh\n%s\n", body);
		fclose(f);
	}
	chmod(path, 0755);
}

/* Whether @path holds @text. */
static bool file_has(const char *path, const char *text)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

/*
 * The EVT estimate's plumbing (run/evt.c): the run's JSON to
 * latscope-evt's standard input, its two lines back, the "evt" member of
 * the JSON; a stand-in (LATSCOPE_EVT) for each way it may answer, then
 * latscope-evt itself (@evt) on 700 s of exponential maxima when Debian's
 * python3 has SciPy.
 */
void test_evt(const char *dir, const char *evt)
{
	char prog[512], body[600], json[512];
	struct ls_params p;
	struct ls_sysinfo si;
	struct ls_cpu_result cpu[2];
	static struct sample_bufs b;
	static struct ls_timeline t;
	struct ls_report r;
	unsigned int x = 12345;
	FILE *f;
	__u64 s;

	sample_report(&r, &p, &si, cpu, &b);
	ls_timeline_init(&t);
	for (s = 0; s < 700; s++) {
		/* Gumbel maxima (60.7 us, 3 us) of a fixed LCG: no clock, no seed. */
		x = x * 1103515245u + 12345u;
		second(&t, s, 1000, 0, 40000, 43000,
		       60700 + (__s64)(-3000.0 * log(-log(((x >> 8) + 1.0) / 16777218.0))));
	}
	r.timeline = &t;
	r.duration_s = 700;

	snprintf(json, sizeof(json), "%s/evt-in.json", dir);
	snprintf(body, sizeof(body), "/bin/cat > %s\necho 'EVT| stand-in'\necho '{\"status\": \"ok\"}'", json);
	stand_in(prog, sizeof(prog), dir, "evt-ok", body);
	setenv("LATSCOPE_EVT", prog, 1);
	ls_evt_estimate(&r);
	check_str(r.evt_line, "EVT| stand-in", "evt: the first line is the EVT| line");
	check(r.evt_json && !strcmp(r.evt_json, "{\"status\": \"ok\"}"), "evt: the second is kept",
	      "%s", r.evt_json ? r.evt_json : "(null)");
	check(file_has(json, "\"timeline\": {") && file_has(json, "\"duration_s\": 700,"),
	      "evt: it read the run's JSON", " ");
	snprintf(json, sizeof(json), "%s/evt-out.json", dir);
	f = fopen(json, "w");
	check(f && !ls_write_json(f, &r), "evt: JSON written", " ");
	if (f)
		fclose(f);
	check(file_has(json, "\n  \"evt\": {\"status\": \"ok\"},\n"), "evt: in the run's JSON", " ");

	stand_in(prog, sizeof(prog), dir, "evt-fail", "/bin/cat >/dev/null; echo 'bad' >&2; exit 1");
	setenv("LATSCOPE_EVT", prog, 1);
	ls_evt_estimate(&r);
	check(!r.evt_json && strstr(r.evt_line, "EVT| no estimate: ") == r.evt_line &&
	      strstr(r.evt_line, "failed"), "evt: a failure said, no estimate", "%s", r.evt_line);
	stand_in(prog, sizeof(prog), dir, "evt-garbage", "/bin/cat >/dev/null; echo hello");
	setenv("LATSCOPE_EVT", prog, 1);
	ls_evt_estimate(&r);
	check(!r.evt_json && strstr(r.evt_line, "EVT| no estimate: ") == r.evt_line,
	      "evt: output not of two lines refused", "%s", r.evt_line);
	stand_in(prog, sizeof(prog), dir, "evt-deaf", "echo 'EVT| did not read'; echo '{}'");
	setenv("LATSCOPE_EVT", prog, 1);
	ls_evt_estimate(&r);
	check(r.evt_json != NULL, "evt: a program that does not read its input is no trouble",
	      "%s", r.evt_line);
	setenv("LATSCOPE_EVT", "/nonexistent/latscope-evt", 1);
	ls_evt_estimate(&r);
	check(!r.evt_json && strstr(r.evt_line, "was not found"), "evt: not there, said",
	      "%s", r.evt_line);
	r.duration_s = LS_EVT_MIN_SECONDS - 1;
	stand_in(prog, sizeof(prog), dir, "evt-ok2", "/bin/cat >/dev/null; echo 'EVT| x'; echo '{}'");
	setenv("LATSCOPE_EVT", prog, 1);
	ls_evt_estimate(&r);
	check(!r.evt_json && !r.evt_line[0], "evt: a run under the minimum gets no line", "%s",
	      r.evt_line);
	r.duration_s = 700;

	/* latscope-evt itself on this run, where SciPy is. */
	if (evt && !system("/usr/bin/python3 -c 'import scipy' 2>/dev/null")) {
		setenv("LATSCOPE_EVT", evt, 1);
		ls_evt_estimate(&r);
		check(!strncmp(r.evt_line, "EVT| 1e-3/h: ", 13) && r.evt_json &&
		      strstr(r.evt_json, "\"status\":\"ok\""),
		      "evt: latscope-evt bounds 700 s of Gumbel maxima", "%s", r.evt_line);
	}
	unsetenv("LATSCOPE_EVT");
	free(r.evt_json);
}
