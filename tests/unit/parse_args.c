// SPDX-License-Identifier: MIT
/* The unit tests' way to call each program's parser and see what it printed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "parse_args.h"

/* More arguments than any test gives. */
#define MAX_ARGS 64

static struct parse_result parse_va(enum program_id program, const char *first,
				    va_list ap)
{
	char *argv[MAX_ARGS + 1] = {(char *)program_name(program)};
	struct parse_result r = {0};
	struct config_tool tool;
	size_t out_len, err_len;
	FILE *out = open_memstream(&r.out, &out_len);
	FILE *err = open_memstream(&r.err, &err_len);
	const char *arg = first;
	int argc = 1;

	while (arg && argc < MAX_ARGS) {
		argv[argc++] = (char *)arg;
		arg = va_arg(ap, const char *);
	}
	argv[argc] = NULL;
	/* Each main's way to parse its command line. */
	switch (program) {
	case PROGRAM_RC_EXAMPLE:
		r.ret = parse_command_line(&r.cfg, argc, argv, out, err);
		break;
	case PROGRAM_LESSONS:
		r.ret = ops_parse_command_line(&r.cfg, &r.lessons, argc, argv,
					       out, err);
		break;
	case PROGRAM_BENCH:
		r.ret = bench_parse_command_line(&r.cfg, &r.bench, argc, argv,
						 out, err);
		break;
	case PROGRAM_CHECK:
	default:
		check_config_tool(&r.check, &tool);
		r.ret = config_parse(&r.cfg, &tool, argc, argv, out, err);
		break;
	}
	fclose(out);
	fclose(err);
	return r;
}

struct parse_result parse(const char *first, ...)
{
	struct parse_result r;
	va_list ap;

	va_start(ap, first);
	r = parse_va(PROGRAM_RC_EXAMPLE, first, ap);
	va_end(ap);
	return r;
}

struct parse_result parse_lessons(const char *first, ...)
{
	struct parse_result r;
	va_list ap;

	va_start(ap, first);
	r = parse_va(PROGRAM_LESSONS, first, ap);
	va_end(ap);
	return r;
}

struct parse_result parse_bench(const char *first, ...)
{
	struct parse_result r;
	va_list ap;

	va_start(ap, first);
	r = parse_va(PROGRAM_BENCH, first, ap);
	va_end(ap);
	return r;
}

struct parse_result parse_check(const char *first, ...)
{
	struct parse_result r;
	va_list ap;

	va_start(ap, first);
	r = parse_va(PROGRAM_CHECK, first, ap);
	va_end(ap);
	return r;
}

void free_result(struct parse_result *r)
{
	free(r->out);
	free(r->err);
}
