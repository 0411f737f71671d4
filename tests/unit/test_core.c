// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/core/: the latency accumulator, the source
 * table, CPU lists, statistics from a histogram and its tail, the
 * timeline, the latmon frames.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "latmon/wire.h"
#include "unit.h"

/* ls_acc_add() keeps figures as the driver's statistics do. */
void test_acc(void)
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

/* The source table: each row where its id says, and the rules it drives. */
void test_sources(void)
{
	struct ls_options o;
	struct ls_params p;
	char err[256];
	unsigned int id;

	for (id = LATSCOPE_SRC_TIMER; id <= LATSCOPE_SRC_NOISE; id++)
		check(ls_source(id) && ls_source(id)->id == id && ls_source(id)->name &&
		      ls_source(id)->contexts, "source row", "%u", id);
	check(!ls_source(LATSCOPE_SRC_NOISE + 1), "no row past the last source", " ");
	check(parse("-i -p 250", &p, err) == LS_PARSE_RUN && ls_period_us(&p) == 250 &&
	      !ls_responder_priority(&p) && !strcmp(ls_run_context(&p), "irq"),
	      "timer, irq context: a period, no responder thread", "%s", err);
	/* -T counts from the first measured event: the lead before it. */
	check(parse("-k", &p, err) == LS_PARSE_RUN && ls_lead_s(&p) == 1,
	      "timer, 1 ms: -T counts from 1 s in", "%u", ls_lead_s(&p));
	check(parse("-k -p 1000000", &p, err) == LS_PARSE_RUN && ls_lead_s(&p) == 2,
	      "timer, 1 s: the first event a period in, then a period of warm-up", "%u",
	      ls_lead_s(&p));
	check(parse("--noise", &p, err) == LS_PARSE_RUN && ls_lead_s(&p) == 2,
	      "--noise, 1 s period: 2 s in", "%u", ls_lead_s(&p));
	check(parse("--noise -p 200000", &p, err) == LS_PARSE_RUN && ls_lead_s(&p) == 1,
	      "--noise, 200 ms: 0.2 + 1 s, to the nearest second", "%u", ls_lead_s(&p));
	check(parse("--noise -p 400000", &p, err) == LS_PARSE_RUN && ls_lead_s(&p) == 2,
	      "--noise, 400 ms: 0.4 + 1.2 s, to the nearest second", "%u", ls_lead_s(&p));
	check(parse("-u -p 500 -z - -I a,1 -O a,2", &p, err) == LS_PARSE_RUN && ls_lead_s(&p) == 1,
	      "GPIO remote, no period: the warm-up", "%u", ls_lead_s(&p));
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
	check(parse_options("--monitor --pulse-out a,1 --ack-in a,2 --pulse-edge falling-edge --subtract 3 --listen 127.0.0.1 --announce-to none",
		    &o, err) == LS_PARSE_RUN && o.p.monitor && o.p.context == LATSCOPE_CTX_IRQ &&
	      o.p.pulse_edge == LATSCOPE_EDGE_FALLING && o.p.subtract_us == 3 &&
	      ls_ack_in_edge(&o.p) == LATSCOPE_EDGE_FALLING && !strcmp(o.door.announce_to, "none") &&
	      !strcmp(o.door.listen_addr, "127.0.0.1") &&
	      ls_period_us(&o.p) == 1000 && !strcmp(ls_run_context(&o.p), "gpio-monitor"),
	      "--monitor: its lines, edges, the subtraction, the context", "%s", err);
	check(parse("--monitor --gpio-dt=rising-edge", &p, err) == LS_PARSE_RUN && p.gpio_dt &&
	      ls_ack_in_edge(&p) == LATSCOPE_EDGE_RISING,
	      "--monitor --gpio-dt: the device tree's lines, the edge given", "%s", err);
	check(parse("--monitor --gpio-dt", &p, err) == LS_PARSE_RUN &&
	      ls_ack_in_edge(&p) == LATSCOPE_EDGE_FALLING,
	      "--monitor --gpio-dt: falling by default", "%s", err);
}

void test_cpu_lists(void)
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

struct latscope_stats sample_stats(__u64 *cells)
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

void test_stats(void)
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
void test_tail_buckets(void)
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
void test_tail_percentiles(void)
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

void second(struct ls_timeline *t, __u64 s, __u64 samples, __u64 overruns,
	    __s64 min, __s64 avg, __s64 max)
{
	struct latscope_bulk b = {
		.second = s, .samples = samples, .overruns = overruns,
		.min_ns = min, .avg_ns = avg, .max_ns = max,
	};

	ls_timeline_add(t, &b);
}

void test_timeline(void)
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

	/*
	 * Seconds 2 and 3 each near +9.2e18 ns (2^32 - 1 samples of 2^31 - 1
	 * ns), second 1 near -9.2e18: once the points are 2 s wide, 2 and 3
	 * are one point, whose sum saturates instead of wrapping.
	 */
	ls_timeline_init(&t);
	for (s = 0; s <= LS_TIMELINE_POINTS; s++)
		second(&t, s, s >= 1 && s <= 3 ? 0xffffffffULL : 1, 0, 0,
		       s == 1 ? INT32_MIN : s == 2 || s == 3 ? INT32_MAX : 0, 0);
	check(t.bucket_s == 2 && t.pt[0].sum_ns == INT32_MIN * 0xffffffffLL &&
	      t.pt[1].second == 2 && t.pt[1].sum_ns == INT64_MAX,
	      "timeline: a point's sum saturates, not wraps", "bucket %u, sums %lld %lld",
	      t.bucket_s, (long long)t.pt[0].sum_ns, (long long)t.pt[1].sum_ns);
}

/* latmon frames: the bytes on the wire, both ways, and what is refused. */
void test_latmon_frames(void)
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
	req = (struct ls_latmon_request){ 9, 10 };
	ls_latmon_request_pack(&req, buf);
	check(ls_latmon_request_unpack(buf, &back, err, sizeof(err)) &&
	      strstr(err, "period 9 us is below 10 us"), "latmon: period too short", "%s", err);
	req = (struct ls_latmon_request){ 10, 10 };
	ls_latmon_request_pack(&req, buf);
	check(!ls_latmon_request_unpack(buf, &back, err, sizeof(err)) && back.period_us == 10,
	      "latmon: the shortest period", "%s", err);
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

/* --allow: the networks a monitor serves, and who is in them. */
void test_allow(void)
{
	struct ls_allow a = { 0 };
	char err[256] = "";

	check(ls_allow_has(&a, 0x0a000001), "allow: an empty list serves everyone", "%u", a.n);
	check(!ls_allow_parse("10.0.0.0/8,192.168.1.7,0.0.0.0/0", &a, err, sizeof(err)) &&
	      a.n == 3 && a.net[0].addr == 0x0a000000 && a.net[0].mask == 0xff000000 &&
	      a.net[1].mask == 0xffffffff && !a.net[2].mask, "allow: three networks", "%s", err);
	check(!ls_allow_parse("10.0.0.0/8,192.168.1.7", &a, err, sizeof(err)) &&
	      ls_allow_has(&a, 0x0affffff) && ls_allow_has(&a, 0xc0a80107) &&
	      !ls_allow_has(&a, 0xc0a80108) && !ls_allow_has(&a, 0x0b000000),
	      "allow: in and out", "%s", err);
	check(!ls_allow_parse("127.0.0.0/8", &a, err, sizeof(err)) && a.n == 1 &&
	      ls_allow_has(&a, 0x7f000001), "allow: loopback", "%s", err);
	check(ls_allow_parse("10.0.0.0/8,bad", &a, err, sizeof(err)) && a.n == 1 &&
	      a.net[0].addr == 0x7f000000, "allow: a bad list leaves the last good one", "%s", err);
	check(ls_allow_parse("10.1.0.0/8", &a, err, sizeof(err)) &&
	      strstr(err, "host bits set (the network is 10.0.0.0/8)"), "allow: host bits", "%s", err);
	check(ls_allow_parse("", &a, err, sizeof(err)) && strstr(err, "'' is not ADDR"),
	      "allow: empty", "%s", err);
	check(ls_allow_parse("1.2.3.4/8x", &a, err, sizeof(err)) &&
	      strstr(err, "the prefix is a length from 0 to 32"), "allow: bad prefix", "%s", err);
	check(ls_allow_parse("1.2.3.4/123456789012345678901234567890", &a, err, sizeof(err)) &&
	      strstr(err, "is not ADDR or ADDR/PREFIX"), "allow: an item too long", "%s", err);
}
