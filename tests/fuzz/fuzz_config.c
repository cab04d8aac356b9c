// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the command line. The input is split at NUL bytes into
 * argv; each program's parser must accept or refuse it (-EINVAL, one line),
 * never crash or read past an argument.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "check/check.h"
#include "config.h"
#include "ops/options.h"
#include "options.h"

/* More arguments than any real command line of this program needs. */
#define FUZZ_MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A result config_parse may give, and what a parsed command line holds. */
static void check_result(int ret, const struct config *cfg)
{
	assert(ret == 0 || ret == 1 || ret == -EINVAL);
	if (ret == 0) {
		assert(cfg->tcp_port >= 1);
		assert(cfg->ib_port >= 1);
		assert(cfg->timeout_sec >= 1);
	}
}

/* The same argv through each program's parser, as each main calls it. */
static void parse_as_each_program(int argc, char **argv, FILE *sink)
{
	struct bench_config bench;
	struct check_config check;
	struct config_tool tool;
	struct lessons lessons;
	struct config cfg;
	int ret;

	check_result(parse_command_line(&cfg, argc, argv, sink, sink), &cfg);
	ret = ops_parse_command_line(&cfg, &lessons, argc, argv, sink, sink);
	check_result(ret, &cfg);
	if (ret == 0)
		assert(lessons.ops.count >= 1 && lessons.ops.count <= OPS_MAX &&
		       lessons.clients >= 1 &&
		       lessons.clients <= OPS_CLIENTS_MAX);
	check_result(
		bench_parse_command_line(&cfg, &bench, argc, argv, sink, sink),
		&cfg);
	check_config_tool(&check, &tool);
	check_result(config_parse(&cfg, &tool, argc, argv, sink, sink), &cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[FUZZ_MAX_ARGS + 2];
	char program[] = "rdma_rc_example";
	char *text, *p, *end;
	FILE *sink;
	int argc = 0;

	/* a copy with a final NUL, so the last argument ends too */
	text = malloc(size + 1);
	sink = fopen("/dev/null", "w");
	if (!text || !sink)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	argv[argc++] = program;
	for (p = text, end = text + size; p <= end && argc <= FUZZ_MAX_ARGS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	parse_as_each_program(argc, argv, sink);
	fclose(sink);
	free(text);
	return 0;
}
