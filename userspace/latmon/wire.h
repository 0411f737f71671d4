/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latscope CLI: the latmon wire protocol (Zephyr's latmon, EVL's latmus),
 * frames only: packing and checking the request a client sends, the data
 * records and the histogram a monitor sends back. TCP, all fields 32-bit
 * in network byte order, no padding. The connection is the caller's.
 */
#ifndef LATSCOPE_LATMON_WIRE_H
#define LATSCOPE_LATMON_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

#define LS_LATMON_PORT			2306
#define LS_LATMON_MIN_PERIOD_US		10U	/* as -p: the driver's shortest */
#define LS_LATMON_MAX_PERIOD_US		1000000U
#define LS_LATMON_REQUEST_SIZE		8	/* period_usecs, histogram_cells */
#define LS_LATMON_DATA_SIZE		24	/* sum hi, sum lo, min, max, overruns, samples */

/* A period starts a measurement, period 0 stops it. */
struct ls_latmon_request {
	uint32_t period_us;	/* LS_LATMON_{MIN,MAX}_PERIOD_US, or 0: stop */
	uint32_t cells;		/* 1 us cells, at most LS_LATMON_MAX_CELLS; 0: none */
};

/* A bulk of samples, in ns; samples == 0 ends the stream. */
struct ls_latmon_data {
	int64_t sum_ns;		/* sent as two signed 32-bit halves */
	int32_t min_ns;
	int32_t max_ns;
	uint32_t overruns;
	uint32_t samples;
};

/* --latmon-port, else LS_LATMON_PORT: the client's and the monitor's. */
unsigned int ls_latmon_port(const struct ls_params *p);

void ls_latmon_request_pack(const struct ls_latmon_request *req,
			    unsigned char out[LS_LATMON_REQUEST_SIZE]);
int ls_latmon_request_unpack(const unsigned char in[LS_LATMON_REQUEST_SIZE],
			     struct ls_latmon_request *req, char *err, size_t errlen);
void ls_latmon_data_pack(const struct ls_latmon_data *d,
			 unsigned char out[LS_LATMON_DATA_SIZE]);
int ls_latmon_data_unpack(const unsigned char in[LS_LATMON_DATA_SIZE],
			  struct ls_latmon_data *d, char *err, size_t errlen);
void ls_latmon_cells_pack(const uint32_t *cells, uint32_t n, unsigned char *out);
void ls_latmon_cells_unpack(const unsigned char *in, uint32_t n, uint32_t *cells);

#endif /* LATSCOPE_LATMON_WIRE_H */
