/* SPDX-License-Identifier: MIT */
/* The parameter message (bench_sync.c). */
#ifndef BENCH_SYNC_H
#define BENCH_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

#define BENCH_PARAMS_WIRE_SIZE 24

/* What both sides must agree on before measuring. */
struct bench_params {
	uint8_t mode;
	uint8_t op;
	uint8_t all_sizes;
	uint32_t size;
	uint32_t iters;
	uint16_t tx_depth; /* BENCH_DEPTH_MAX fits in 16 bits */
	uint16_t cq_mod;
	uint16_t duration; /* seconds, BENCH_DURATION_MAX fits; 0: -n */
	bool bidir;
	bool infinite; /* --run_infinitely; duration is the period */
	bool reversed; /* --reversed: the server sends */
	uint8_t qps;   /* -q, 1 to BENCH_QPS_MAX */
};

void bench_params_from_config(const struct bench_config *bc,
			      struct bench_params *p);
void bench_params_encode(const struct bench_params *p,
			 uint8_t out[BENCH_PARAMS_WIRE_SIZE]);
/* -EPROTO (wrong magic or version) with a reason in *@why. */
int bench_params_decode(const uint8_t in[BENCH_PARAMS_WIRE_SIZE],
			struct bench_params *p, const char **why);
/*
 * 0 if @remote is the same benchmark as @local; else -EPROTO and a line
 * naming the first difference in @why (room for @len bytes).
 */
int bench_params_match(const struct bench_params *local,
		       const struct bench_params *remote, char *why,
		       size_t len);

#endif
