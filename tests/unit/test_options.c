// SPDX-License-Identifier: MIT
/*
 * The three programs' option tables side by side: each refuses another's
 * option in one line that names whose it is, and --help shows exactly the
 * rows of its table (nothing it would ignore).
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "owners/tables.h"
#include "parse_args.h"

/* Each program's table, as its main hands it to config_parse. */
static const struct config_option *table_of(enum program_id program)
{
	return owners_table_of(program);
}

static const struct config_option *row_named(const struct config_option *t,
					     const char *name)
{
	for (; t->name || t->help; t++)
		if (t->name && strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

static struct parse_result parse_as(enum program_id program, const char *a,
				    const char *b)
{
	switch (program) {
	case PROGRAM_RC_EXAMPLE:
		return parse(a, b, (char *)NULL);
	case PROGRAM_LESSONS:
		return parse_lessons(a, b, (char *)NULL);
	case PROGRAM_BENCH:
		return parse_bench("bw", a, b, (char *)NULL);
	case PROGRAM_CHECK:
	default:
		return parse_check(a, b, (char *)NULL);
	}
}

/*
 * Every option of one program that another lacks, typed to the other:
 * refused in one line that names the option and whose it is (or how it is
 * spelled there), never "unknown option". perftest's options that
 * rdma_bench takes and that ask for nothing (rows without help) are
 * perftest's, not ours: they are left out.
 */
static void others_options_are_named(void **state)
{
	enum program_id owner, asker;

	(void)state;
	for (owner = 0; owner < PROGRAM_COUNT; owner++) {
		const struct config_option *o = table_of(owner);

		for (; o->name || o->help; o++) {
			char typed[64];

			if (!o->name || !o->help)
				continue;
			snprintf(typed, sizeof(typed), "--%s", o->name);
			for (asker = 0; asker < PROGRAM_COUNT; asker++) {
				struct parse_result r;

				if (asker == owner ||
				    row_named(table_of(asker), o->name))
					continue;
				r = parse_as(asker, typed,
					     o->has_arg ? "1" : NULL);
				if (r.ret != -EINVAL || !strstr(r.err, typed) ||
				    strstr(r.err, "unknown option") ||
				    !strchr(r.err, '\n') ||
				    strchr(r.err, '\n')[1] != '\0')
					fail_msg("%s given %s (%s's): %d '%s'",
						 program_name(asker), typed,
						 program_name(owner), r.ret,
						 r.err);
				free_result(&r);
			}
		}
	}
}

/* --help lists each row that has help, and only those. */
static void help_is_the_table(void **state)
{
	enum program_id p;

	(void)state;
	for (p = 0; p < PROGRAM_COUNT; p++) {
		struct parse_result r = parse_as(p, "--help", NULL);
		const struct config_option *o = table_of(p);
		size_t rows = 0, lines = 0;
		const char *line;

		assert_int_equal(r.ret, 1);
		for (; o->name || o->help; o++) {
			char spelled[64];

			if (!o->name)
				continue;
			if (o->letter)
				snprintf(spelled, sizeof(spelled),
					 "\n  -%c, --%s", o->letter, o->name);
			else
				snprintf(spelled, sizeof(spelled),
					 "\n      --%s", o->name);
			if (!o->help) {
				if (strstr(r.out, spelled))
					fail_msg(
						"%s --help lists %s, which changes nothing",
						program_name(p), o->name);
				continue;
			}
			rows++;
			if (!strstr(r.out, spelled))
				fail_msg("%s --help lacks%s", program_name(p),
					 spelled);
		}
		/* as many option lines as rows: none from elsewhere */
		for (line = r.out; (line = strstr(line, "\n  ")); line++)
			lines += line[3] == '-' ||
				 strncmp(line + 3, "    --", 6) == 0;
		assert_int_equal(lines, rows);
		free_result(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(others_options_are_named),
		cmocka_unit_test(help_is_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
