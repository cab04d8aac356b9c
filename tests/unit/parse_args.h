/* SPDX-License-Identifier: MIT */
#ifndef PARSE_ARGS_H
#define PARSE_ARGS_H

#include "bench/bench.h"
#include "check/check.h"
#include "config.h"
#include "ops/options.h"
#include "options.h"

/* What one config_parse call returned and printed. */
struct parse_result {
	int ret;
	struct config cfg;
	struct lessons lessons;
	struct bench_config bench;
	struct check_config check;
	char *out;
	char *err;
};

/*
 * Parse a NULL-terminated list of arguments (after the program name) as
 * rdma_rc_example's main does, capturing its help and error output;
 * parse_lessons, parse_bench and parse_check as rdma_lessons's,
 * rdma_bench's and rdma_check's do.
 */
struct parse_result parse(const char *first, ...);
struct parse_result parse_lessons(const char *first, ...);
struct parse_result parse_bench(const char *first, ...);
struct parse_result parse_check(const char *first, ...);

/* Free what parse() captured. */
void free_result(struct parse_result *r);

#endif
