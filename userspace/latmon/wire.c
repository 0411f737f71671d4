// SPDX-License-Identifier: GPL-2.0
/*
 * latscope CLI: latmon frames, packed and checked (see wire.h). A frame
 * a peer sent is checked before anything uses it: a bad one is one error
 * line naming the field and its value, and nothing of it is kept.
 */
#include <stdio.h>

#include "core/core.h"
#include "latmon/wire.h"

unsigned int ls_latmon_port(const struct ls_params *p)
{
	return p->latmon_port ? p->latmon_port : LS_LATMON_PORT;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void ls_latmon_request_pack(const struct ls_latmon_request *req,
			    unsigned char out[LS_LATMON_REQUEST_SIZE])
{
	put32(out, req->period_us);
	put32(out + 4, req->cells);
}

/* A request as a monitor takes it: a period to start, 0 to stop. */
int ls_latmon_request_unpack(const unsigned char in[LS_LATMON_REQUEST_SIZE],
			     struct ls_latmon_request *req, char *err, size_t errlen)
{
	struct ls_latmon_request r = { get32(in), get32(in + 4) };

	if (r.period_us > LS_LATMON_MAX_PERIOD_US) {
		ls_fail(err, errlen, "latmon request: period %u us is past %u us",
			r.period_us, LS_LATMON_MAX_PERIOD_US);
		return -1;
	}
	if (r.period_us && r.period_us < LS_LATMON_MIN_PERIOD_US) {
		ls_fail(err, errlen, "latmon request: period %u us is below %u us",
			r.period_us, LS_LATMON_MIN_PERIOD_US);
		return -1;
	}
	/* latmus asks for 0 cells when it writes no histogram. */
	if (r.cells > LS_LATMON_MAX_CELLS) {
		ls_fail(err, errlen, "latmon request: %u histogram cells, not 0 to %u",
			r.cells, LS_LATMON_MAX_CELLS);
		return -1;
	}
	*req = r;
	return 0;
}

void ls_latmon_data_pack(const struct ls_latmon_data *d,
			 unsigned char out[LS_LATMON_DATA_SIZE])
{
	uint64_t sum = (uint64_t)d->sum_ns;

	put32(out, (uint32_t)(sum >> 32));
	put32(out + 4, (uint32_t)sum);
	put32(out + 8, (uint32_t)d->min_ns);
	put32(out + 12, (uint32_t)d->max_ns);
	put32(out + 16, d->overruns);
	put32(out + 20, d->samples);
}

/*
 * A data record as a client takes it. A bulk must add up: min <= max, and
 * a sum within samples * [min, max]. An end record (samples 0) is taken
 * whatever its other fields hold, as latmus takes it.
 */
int ls_latmon_data_unpack(const unsigned char in[LS_LATMON_DATA_SIZE],
			  struct ls_latmon_data *d, char *err, size_t errlen)
{
	struct ls_latmon_data r = {
		.sum_ns = (int64_t)((uint64_t)get32(in) << 32 | get32(in + 4)),
		.min_ns = (int32_t)get32(in + 8),
		.max_ns = (int32_t)get32(in + 12),
		.overruns = get32(in + 16),
		.samples = get32(in + 20),
	};

	if (r.samples && r.min_ns > r.max_ns) {
		ls_fail(err, errlen, "latmon data: min %d ns above max %d ns",
			r.min_ns, r.max_ns);
		return -1;
	}
	/* |min|, |max| < 2^31 and samples < 2^32: the products fit. */
	if (r.samples && (r.sum_ns < (int64_t)r.min_ns * r.samples ||
			  r.sum_ns > (int64_t)r.max_ns * r.samples)) {
		ls_fail(err, errlen,
			"latmon data: sum %lld ns is not %u samples between %d and %d ns",
			(long long)r.sum_ns, r.samples, r.min_ns, r.max_ns);
		return -1;
	}
	*d = r;
	return 0;
}

/* Histogram cells, one u32 each. */
void ls_latmon_cells_pack(const uint32_t *cells, uint32_t n, unsigned char *out)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		put32(out + 4 * (size_t)i, cells[i]);
}

void ls_latmon_cells_unpack(const unsigned char *in, uint32_t n, uint32_t *cells)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		cells[i] = get32(in + 4 * (size_t)i);
}
