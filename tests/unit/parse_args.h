/* SPDX-License-Identifier: MIT */
#ifndef PARSE_ARGS_H
#define PARSE_ARGS_H

#include "bench/bench.h"
#include "check/check.h"
#include "config.h"

/* What one config_parse call returned and printed. */
struct parse_result {
	int ret;
	struct config cfg;
	struct bench_config bench;
	struct check_config check;
	char *out;
	char *err;
};

/*
 * Run config_parse on a NULL-terminated list of arguments (after the
 * program name), capturing its help and error output.
 */
struct parse_result parse(const char *first, ...);

/* Free what parse() captured. */
void free_result(struct parse_result *r);

#endif
