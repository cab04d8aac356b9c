// SPDX-License-Identifier: MIT
/* The unit tests' way to call config_parse and see what it printed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "parse_args.h"

/* More arguments than any test gives. */
#define MAX_ARGS 32

struct parse_result parse(const char *first, ...)
{
	char *argv[MAX_ARGS + 1] = {(char *)"rdma_rc_example"};
	struct parse_result r = {0};
	struct config_mode mode, check_mode;
	const struct config_mode *modes[] = {&mode, &check_mode, NULL};
	size_t out_len, err_len;
	FILE *out = open_memstream(&r.out, &out_len);
	FILE *err = open_memstream(&r.err, &err_len);
	const char *arg = first;
	va_list ap;
	int argc = 1;

	va_start(ap, first);
	while (arg && argc < MAX_ARGS) {
		argv[argc++] = (char *)arg;
		arg = va_arg(ap, const char *);
	}
	va_end(ap);
	argv[argc] = NULL;
	/* main's way: the bench and check options beside the flow's */
	bench_config_mode(&r.bench, &mode);
	check_config_mode(&r.check, &check_mode);
	r.ret = config_parse(&r.cfg, modes, argc, argv, out, err);
	fclose(out);
	fclose(err);
	return r;
}

void free_result(struct parse_result *r)
{
	free(r->out);
	free(r->err);
}
