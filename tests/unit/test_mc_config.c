// SPDX-License-Identifier: MIT
/*
 * Unit tests of rdma_mc_example's pure parts: option parsing (each bad
 * value refused with one line naming the option and the value, each
 * option getopt_long rejects named as typed) and the message text. The
 * sender read from the 40 bytes before a receive is in test_grh.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mc/mc_config.h"
#include "mc/mc_xfer.h"

#define ARGV_MAX 16
#define ERR_MAX	 512

/* Parse a NULL-terminated argument list; the error text into @err. */
static int parse(struct mc_config *cfg, char *err, const char *arg0, ...)
{
	char prog[] = "rdma_mc_example";
	char *argv[ARGV_MAX] = {prog, (char *)arg0};
	int argc = arg0 ? 2 : 1;
	FILE *f = fmemopen(err, ERR_MAX, "w");
	va_list ap;
	int ret;

	va_start(ap, arg0);
	while (arg0 && argc < ARGV_MAX - 1 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	memset(err, 0, ERR_MAX);
	ret = mc_config_parse(argc, argv, cfg, f);
	fclose(f);
	return ret;
}

static void test_defaults(void **state)
{
	struct mc_config cfg;
	char err[ERR_MAX];

	(void)state;
	assert_int_equal(parse(&cfg, err, NULL), 0);
	assert_string_equal(cfg.group_str, MC_DEFAULT_GROUP);
	assert_int_equal(cfg.group.ss_family, AF_INET);
	assert_false(cfg.has_bind_addr);
	assert_false(cfg.send);
	assert_int_equal(cfg.count, MC_DEFAULT_COUNT);
	assert_int_equal(cfg.size, MC_DEFAULT_SIZE);
	assert_int_equal(cfg.timeout_s, MC_DEFAULT_TIMEOUT);
	assert_false(cfg.trace.on);
	assert_string_equal(err, "");
}

static void test_all_options(void **state)
{
	struct mc_config cfg;
	char err[ERR_MAX];

	(void)state;
	assert_int_equal(parse(&cfg, err, "-m", "ff0e::1234", "--bind-addr",
			       "fe80::1", "-s", "-C", "3", "--size", "1024",
			       "-t", "7", "-v", (char *)NULL),
			 0);
	assert_string_equal(cfg.group_str, "ff0e::1234");
	assert_int_equal(cfg.group.ss_family, AF_INET6);
	assert_true(cfg.has_bind_addr);
	assert_string_equal(cfg.bind_str, "fe80::1");
	assert_true(cfg.send);
	assert_int_equal(cfg.count, 3);
	assert_int_equal(cfg.size, 1024);
	assert_int_equal(cfg.timeout_s, 7);
	assert_true(cfg.trace.on);
}

/* Each bad input: -EINVAL and exactly this one line, after the name. */
static void expect_refused(const char *opt, const char *val, const char *line)
{
	struct mc_config cfg;
	char err[ERR_MAX], want[ERR_MAX];

	snprintf(want, sizeof(want), "rdma_mc_example: %s", line);
	assert_int_equal(parse(&cfg, err, opt, val, (char *)NULL), -EINVAL);
	assert_string_equal(err, want);
}

static void test_bad_values(void **state)
{
	(void)state;
	expect_refused(
		"-C", "0",
		"invalid -C/--count '0': expected a whole number from 1 to 1000000\n");
	expect_refused(
		"-C", "-3",
		"invalid -C/--count '-3': expected a whole number from 1 to 1000000\n");
	expect_refused(
		"--count", "5x",
		"invalid -C/--count '5x': expected a whole number from 1 to 1000000\n");
	expect_refused(
		"-S", "79",
		"invalid -S/--size '79': expected a whole number from 80 to 4096\n");
	expect_refused(
		"-S", "4097",
		"invalid -S/--size '4097': expected a whole number from 80 to 4096\n");
	expect_refused(
		"-t", "99999999999999999999",
		"invalid -t/--timeout '99999999999999999999': expected a whole number from 1 to 3600\n");
	expect_refused(
		"-m", "192.0.2.1",
		"invalid -m/--mcast-addr '192.0.2.1': not a multicast address (IPv4 224.0.0.0/4, IPv6 ff00::/8)\n");
	expect_refused(
		"-m", "group.example",
		"invalid -m/--mcast-addr 'group.example': not a numeric IPv4 or IPv6 address\n");
	expect_refused(
		"-b", "::1",
		"invalid -b/--bind-addr '::1': not the address family of group 239.1.1.1\n");
	expect_refused("-x", NULL, "unknown option '-x'\n");
	expect_refused("--bogus", NULL, "unknown option '--bogus'\n");
	expect_refused("-C", NULL, "option '-C' needs a value\n");
	expect_refused("-s", "extra", "unexpected argument 'extra'\n");
}

/* What getopt_long rejects, named as the user typed it. */
static void test_rejected_options(void **state)
{
	(void)state;
	expect_refused("-vx", NULL, "unknown option '-x'\n");
	expect_refused("--verbose", "-xv", "unknown option '-x'\n");
	expect_refused("--count", NULL, "option '--count' needs a value\n");
	expect_refused("-vC", NULL, "option '-C' needs a value\n");
	/* glibc's optopt is then the option's letter: not "unknown '-s'" */
	expect_refused("--send=1", NULL,
		       "option '--send=1': --send takes no value\n");
	expect_refused("--help=x", NULL,
		       "option '--help=x': --help takes no value\n");
	expect_refused("--se=1", NULL,
		       "option '--se=1': --send takes no value\n");
	/* optopt 0 for both an unknown and an ambiguous long option */
	expect_refused("--s", NULL,
		       "option '--s' is ambiguous: --send, --size\n");
	expect_refused("--ver", "1",
		       "option '--ver' is ambiguous: --verbose, --version\n");
	expect_refused("--sizes", "100", "unknown option '--sizes'\n");
	expect_refused("-\xc3\xa9", NULL, "unknown option byte 0xc3\n");
}

static void test_help_and_version(void **state)
{
	struct mc_config cfg;
	char err[ERR_MAX];

	(void)state;
	assert_int_equal(parse(&cfg, err, "-h", (char *)NULL), 0);
	assert_true(cfg.show_help);
	assert_int_equal(parse(&cfg, err, "--version", (char *)NULL), 0);
	assert_true(cfg.show_version);
	assert_false(cfg.show_help); /* a second parse starts over */
}

static void test_message_format(void **state)
{
	char buf[MC_MSG_MIN_SIZE];
	char longest[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(
		mc_message_format(buf, sizeof(buf), 3, 10, "192.0.2.1"), 0);
	assert_string_equal(buf, "message 3 of 10 from 192.0.2.1");
	assert_int_equal(buf[sizeof(buf) - 1], 0);

	/* The minimum size holds the longest text the options allow. */
	memset(longest, '9', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	assert_int_equal(mc_message_format(buf, sizeof(buf), MC_MAX_COUNT,
					   MC_MAX_COUNT, longest),
			 0);
	assert_int_equal(mc_message_format(buf, 10, 1, 1, "192.0.2.1"),
			 -EMSGSIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_help_and_version),
		cmocka_unit_test(test_message_format),
		cmocka_unit_test(test_rejected_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
