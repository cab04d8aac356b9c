// SPDX-License-Identifier: MIT
/*
 * opt_error_text, on its own option table: every way getopt_long rejects
 * an option, and long options whose val is no character (>= 256), which
 * must never be printed as one.
 */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/opt_error.h"

#define ARGV_MAX 8

enum { OPT_WAIT = 256, OPT_QUIET };

static const struct option options[] = {
	{.name = "wait", .has_arg = required_argument, .val = OPT_WAIT},
	{.name = "quiet", .has_arg = no_argument, .val = OPT_QUIET},
	{.name = "quick", .has_arg = no_argument, .val = 'k'},
	{.name = "verbose", .has_arg = no_argument, .val = 'v'},
	{0},
};

/*
 * Parse up to the first option getopt_long rejects and return the text
 * for it; "" when it rejects none.
 */
static const char *first_error(char *text, const char *arg1, const char *arg2)
{
	char a0[] = "prog", a1[32] = "", a2[32] = "";
	char *argv[ARGV_MAX] = {a0, a1, a2};
	int argc = arg2 ? 3 : 2;
	int opt;

	strncpy(a1, arg1, sizeof(a1) - 1);
	if (arg2)
		strncpy(a2, arg2, sizeof(a2) - 1);
	else
		argv[2] = NULL;
	text[0] = '\0';
	optind = 0; /* glibc: start over */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":vk", options, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			opt_error_text(text, OPT_ERROR_MAX, opt, argv, options);
			break;
		}
	}
	return text;
}

static void test_long_vals_above_255(void **state)
{
	char text[OPT_ERROR_MAX];

	(void)state;
	assert_string_equal(first_error(text, "--quiet=yes", NULL),
			    "option '--quiet=yes': --quiet takes no value");
	assert_string_equal(first_error(text, "--wait", NULL),
			    "option '--wait' needs a value");
	assert_string_equal(first_error(text, "--qui", NULL),
			    "option '--qui' is ambiguous: --quiet, --quick");
	assert_string_equal(first_error(text, "--quick=1", NULL),
			    "option '--quick=1': --quick takes no value");
}

static void test_short_options(void **state)
{
	char text[OPT_ERROR_MAX];

	(void)state;
	assert_string_equal(first_error(text, "-vz", NULL),
			    "unknown option '-z'");
	assert_string_equal(first_error(text, "--wait=5", "-zv"),
			    "unknown option '-z'");
	assert_string_equal(first_error(text, "-v", "-\x01"),
			    "unknown option byte 0x01");
	assert_string_equal(first_error(text, "-v", "--wait=5"), "");
}

static void test_cut_to_size(void **state)
{
	char text[OPT_ERROR_MAX];
	char a0[] = "prog", a1[] = "--q";
	char *argv[] = {a0, a1, NULL};
	char small[16];

	(void)state;
	/* A long line is cut, never overflowed. */
	assert_string_equal(first_error(text, "--q", NULL),
			    "option '--q' is ambiguous: --quiet, --quick");
	optind = 2; /* as getopt_long left it after "--q" */
	optopt = 0;
	opt_error_text(small, sizeof(small), '?', argv, options);
	assert_string_equal(small, "option '--q' is");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_vals_above_255),
		cmocka_unit_test(test_short_options),
		cmocka_unit_test(test_cut_to_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
