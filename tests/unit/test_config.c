// SPDX-License-Identifier: MIT
/* config_parse: defaults, every option, and the one-line rejections. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "parse_args.h"
#include "qp.h"

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static void test_defaults(void **state)
{
	struct parse_result r = parse_lessons(NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_null(r.cfg.server_name);
	assert_int_equal(r.cfg.tcp_port, 19875);
	assert_null(r.cfg.ib_devname);
	assert_int_equal(r.cfg.ib_port, 1);
	assert_int_equal(r.cfg.gid_idx, -1);
	assert_int_equal(r.lessons.transport, TRANSPORT_RC);
	assert_int_equal(r.lessons.ops.count, 3);
	assert_int_equal(r.lessons.ops.ids[0], OP_SEND);
	assert_int_equal(r.lessons.ops.ids[1], OP_READ);
	assert_int_equal(r.lessons.ops.ids[2], OP_WRITE);
	assert_int_equal(r.cfg.timeout_sec, 10);
	assert_int_equal(r.cfg.connect_timeout_sec, 5);
	assert_int_equal(r.cfg.accept_timeout_sec, 60);
	assert_false(r.cfg.use_events);
	assert_false(r.cfg.use_rdma_cm);
	assert_false(r.cfg.verbose);
	/* a lesson's sender gives up on a peer with no receive posted */
	assert_int_equal(qp_rnr_retry(&r.cfg), QP_RNR_RETRY);
	assert_string_equal(r.err, "");
	free_result(&r);
}

static void test_every_option(void **state)
{
	struct parse_result r = parse_lessons(
		"-p", "2000", "--ib-dev", "rxe0", "-i", "2", "-g", "3", "-o",
		"write,send", "-t", "7", "--connect-timeout", "8",
		"--accept-timeout", "9", "-v", "192.0.2.1", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_string_equal(r.cfg.server_name, "192.0.2.1");
	assert_int_equal(r.cfg.tcp_port, 2000);
	assert_string_equal(r.cfg.ib_devname, "rxe0");
	assert_int_equal(r.cfg.ib_port, 2);
	assert_int_equal(r.cfg.gid_idx, 3);
	assert_int_equal(r.lessons.ops.count, 2);
	assert_int_equal(r.lessons.ops.ids[0], OP_WRITE);
	assert_int_equal(r.lessons.ops.ids[1], OP_SEND);
	assert_int_equal(r.cfg.timeout_sec, 7);
	assert_int_equal(r.cfg.connect_timeout_sec, 8);
	assert_int_equal(r.cfg.accept_timeout_sec, 9);
	assert_true(r.cfg.verbose);
	free_result(&r);
}

/* Repeated calls start from scratch: getopt's state is reset each time. */
static void test_parse_twice(void **state)
{
	struct parse_result first =
		parse_lessons("-v", "-p", "1234", "host", (char *)NULL);
	struct parse_result second = parse_lessons("-p", "4321", (char *)NULL);

	(void)state;
	assert_int_equal(first.ret, 0);
	assert_int_equal(second.ret, 0);
	assert_int_equal(second.cfg.tcp_port, 4321);
	assert_null(second.cfg.server_name);
	assert_false(second.cfg.verbose);
	free_result(&first);
	free_result(&second);
}

static void test_help_and_version(void **state)
{
	struct parse_result help = parse("--help", (char *)NULL);
	struct parse_result version = parse("-V", (char *)NULL);

	(void)state;
	assert_int_equal(help.ret, 1);
	assert_non_null(strstr(help.out, "usage: rdma_rc_example"));
	assert_non_null(strstr(help.out, "--connect-timeout"));
	assert_non_null(strstr(help.out, "--tclass"));
	/* the lessons' options are rdma_lessons's help, not the example's */
	assert_null(strstr(help.out, "--ops"));
	assert_null(strstr(help.out, "--rdma-cm"));
	assert_null(strstr(help.out, "operations:"));
	assert_string_equal(help.err, "");
	assert_int_equal(version.ret, 1);
	assert_non_null(strstr(version.out, "rdma_rc_example "));
	free_result(&help);
	free_result(&version);
}

/* One rejected command line: -EINVAL, one line on err naming @needles. */
static void check_rejected(const char *option, const char *value,
			   const char *needle1, const char *needle2)
{
	struct parse_result r = parse_lessons(option, value, (char *)NULL);

	assert_int_equal(r.ret, -EINVAL);
	assert_int_equal(count_lines(r.err), 1);
	if (!strstr(r.err, needle1) || !strstr(r.err, needle2))
		fail_msg("'%s %s': expected '%s' and '%s' in: %s", option,
			 value ? value : "", needle1, needle2, r.err);
	assert_string_equal(r.out, "");
	free_result(&r);
}

static void test_bad_values(void **state)
{
	(void)state;
	check_rejected("-p", "0", "--port", "'0'");
	check_rejected("--port", "70000", "--port", "'70000'");
	check_rejected("-p", "19875x", "--port", "'19875x'");
	check_rejected("-p", "", "--port", "''");
	check_rejected("-p", " 1", "--port", "' 1'");
	check_rejected("-i", "0", "--ib-port", "'0'");
	check_rejected("-i", "-1", "--ib-port", "'-1'");
	check_rejected("-g", "-1", "--gid-idx", "'-1'");
	check_rejected("-g", "abc", "--gid-idx", "'abc'");
	check_rejected("-g", "256", "--gid-idx", "'256'");
	check_rejected("-t", "0", "--timeout", "'0'");
	check_rejected("--connect-timeout", "-5", "--connect-timeout", "'-5'");
	check_rejected("--accept-timeout", "1.5", "--accept-timeout", "'1.5'");
	check_rejected("--sl", "16", "--sl", "'16'");
	check_rejected("--sl", "x", "--sl", "'x'");
	check_rejected("--tclass", "256", "--tclass", "'256'");
	check_rejected("--tclass", "-1", "--tclass", "'-1'");
	check_rejected("-S", "1", "-S (--sl) is spelled --sl", "here");
	check_rejected("-o", "send,foo", "--ops", "'foo'");
	check_rejected("-o", "send,,read", "--ops", "''");
	check_rejected("-o", "", "--ops", "''");
	check_rejected("--bogus", NULL, "unknown option", "--bogus");
	check_rejected("-Z", NULL, "unknown option", "-Z");
	/* another program's option, named as its own */
	check_rejected("-x", "1", "-x (--gid-index) is spelled -g, --gid-idx",
		       "here");
	check_rejected("--tx-depth", "8", "--tx-depth is rdma_bench's",
		       "not rdma_lessons's");
	check_rejected("-p", NULL, "needs a value", "-p");
	/* getopt_long names these by their val: the line must not */
	check_rejected("--verbose=1", NULL, "--verbose takes no value",
		       "'--verbose=1'");
	check_rejected("--c", NULL, "is ambiguous", "--connection");
	check_rejected("host1", "host2", "unexpected argument", "host2");
}

/* An empty SERVER is a usage error, not a name for the resolver. */
static void test_empty_server_name(void **state)
{
	struct parse_result r = parse_lessons("-p", "2000", "", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(
		r.err,
		"rdma_lessons: invalid server name '' (expected a host name or an IP address; leave it out to be the server)\n");
	assert_string_equal(r.out, "");
	free_result(&r);
}

static void test_too_many_ops(void **state)
{
	char list[OPS_MAX * 5 + 8] = "send";
	int i;

	(void)state;
	for (i = 1; i <= OPS_MAX; i++)
		strncat(list, ",send", sizeof(list) - strlen(list) - 1);
	check_rejected("-o", list, "--ops", "more than 16");
}

/* r refused @args... with exactly the line @line. */
static void expect_refusal(struct parse_result r, const char *line)
{
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(r.err, line);
	free_result(&r);
}

/* --clients and --srq: the server's; what they do not go with. */
static void test_server_options(void **state)
{
	struct parse_result r = parse_lessons("--clients", "8", "--srq", "-o",
					      "send,hello", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.lessons.clients, 8);
	assert_true(r.lessons.use_srq);
	free_result(&r);
	/* the client runs hello as any other operation */
	r = parse_lessons("-o", "hello", "192.0.2.1", (char *)NULL);
	assert_int_equal(r.ret, 0);
	free_result(&r);
	check_rejected("--clients", "9", "--clients", "'9'");
	check_rejected("--clients", "0", "--clients", "'0'");
	expect_refusal(
		parse_lessons("--srq", "192.0.2.1", (char *)NULL),
		"rdma_lessons: invalid option --srq for a client: it is the server's (a client connects as any other, and does not know how the server receives)\n");
	/* RDMA_CM listens for each client's request */
	r = parse_lessons("--clients", "2", "-R", (char *)NULL);
	assert_int_equal(r.ret, 0);
	free_result(&r);
	expect_refusal(
		parse_lessons("-o", "hello", "-c", "ud", "192.0.2.1",
			      (char *)NULL),
		"rdma_lessons: invalid option --ops with --connection ud: the server for several clients connects RC QPs\n");
	expect_refusal(
		parse_lessons("--srq", "-o", "hello,sge", (char *)NULL),
		"rdma_lessons: invalid --ops value 'hello,sge' with --srq: operation sge needs a receive queue of the server's QP for the client, and with --srq the QPs have none: every receive comes from the shared queue\n");
}

/* --new-api: either side, any lesson; not the server for several clients. */
static void test_new_api(void **state)
{
	struct parse_result r = parse_lessons("--new-api", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_true(r.lessons.new_api);
	free_result(&r);
	r = parse_lessons("-o", "hello", "--new-api", "192.0.2.1",
			  (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_true(r.lessons.new_api);
	free_result(&r);
	r = parse_lessons("192.0.2.1", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_false(r.lessons.new_api);
	free_result(&r);
	expect_refusal(
		parse_lessons("--new-api", "--clients", "2", (char *)NULL),
		"rdma_lessons: invalid option --new-api with --clients: the server for several clients posts with ibv_post_send and polls with ibv_poll_cq\n");
	expect_refusal(
		parse_lessons("--srq", "--new-api", (char *)NULL),
		"rdma_lessons: invalid option --new-api with --srq: the server for several clients posts with ibv_post_send and polls with ibv_poll_cq\n");
}

/* --manual-peer: the manual's flow only, over RC and its TCP exchange. */
static void test_manual_peer(void **state)
{
	struct parse_result r = parse_lessons("--manual-peer", "-o",
					      "send,read,write", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_true(r.lessons.manual_peer);
	free_result(&r);
	r = parse_lessons("--manual-peer", "--new-api", "192.0.2.1",
			  (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_true(r.lessons.manual_peer);
	free_result(&r);
	expect_refusal(
		parse_lessons("--manual-peer", "-o", "send", (char *)NULL),
		"rdma_lessons: invalid option --manual-peer with --ops: the manual's program runs SEND, READ and WRITE over RC, connected by its TCP exchange, for one client\n");
	expect_refusal(
		parse_lessons("-c", "ud", "--manual-peer", (char *)NULL),
		"rdma_lessons: invalid option --manual-peer with --connection: the manual's program runs SEND, READ and WRITE over RC, connected by its TCP exchange, for one client\n");
	expect_refusal(
		parse_lessons("--manual-peer", "-R", "192.0.2.1", (char *)NULL),
		"rdma_lessons: invalid option --manual-peer with --rdma-cm: the manual's program runs SEND, READ and WRITE over RC, connected by its TCP exchange, for one client\n");
	expect_refusal(
		parse_lessons("--manual-peer", "--clients", "2", (char *)NULL),
		"rdma_lessons: invalid option --manual-peer with --clients: the manual's program runs SEND, READ and WRITE over RC, connected by its TCP exchange, for one client\n");
}

/*
 * --sl and --tclass: in the address over the TCP exchange; with -R the
 * traffic class is RDMA_CM's type of service, and --sl has no place.
 * rdma_check takes them alike.
 */
/*
 * rdma_rc_example is the manual's flow alone: each option that moved to
 * rdma_lessons is refused in one line naming rdma_lessons, and nothing is
 * printed on stdout.
 */
static void test_example_refuses_lessons(void **state)
{
	static const struct {
		const char *option, *value, *line;
	} moved[] = {
		{"-o", "send",
		 "rdma_rc_example: option -o (--ops) is rdma_lessons's, not rdma_rc_example's\n"},
		{"--ops", "send",
		 "rdma_rc_example: option --ops is rdma_lessons's, not rdma_rc_example's\n"},
		{"-c", "ud",
		 "rdma_rc_example: option -c (--connection) is rdma_lessons's and rdma_bench's, not rdma_rc_example's\n"},
		{"-R", NULL,
		 "rdma_rc_example: option -R (--rdma-cm) is rdma_lessons's and rdma_check's, not rdma_rc_example's\n"},
		{"-e", NULL,
		 "rdma_rc_example: option -e (--events) is rdma_lessons's, rdma_check's and rdma_bench's, not rdma_rc_example's\n"},
		{"--new-api", NULL,
		 "rdma_rc_example: option --new-api is rdma_lessons's and rdma_bench's, not rdma_rc_example's\n"},
		{"--manual-peer", NULL,
		 "rdma_rc_example: option --manual-peer is rdma_lessons's, not rdma_rc_example's\n"},
		{"--clients", "2",
		 "rdma_rc_example: option --clients is rdma_lessons's, not rdma_rc_example's\n"},
		{"--srq", NULL,
		 "rdma_rc_example: option --srq is rdma_lessons's, not rdma_rc_example's\n"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		struct parse_result r =
			parse(moved[i].option, moved[i].value, (char *)NULL);

		assert_int_equal(r.ret, -EINVAL);
		assert_string_equal(r.err, moved[i].line);
		assert_string_equal(r.out, "");
		free_result(&r);
	}
}

/* The example's own options, each applied, and its defaults the manual's. */
static void test_example_options(void **state)
{
	struct parse_result r = parse(
		"-d", "mlx5_0", "-i", "2", "-g", "3", "-p", "20000", "--tclass",
		"96", "--sl", "2", "-t", "7", "-v", "host", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(r.cfg.program, PROGRAM_RC_EXAMPLE);
	assert_string_equal(r.cfg.ib_devname, "mlx5_0");
	assert_int_equal(r.cfg.ib_port, 2);
	assert_int_equal(r.cfg.gid_idx, 3);
	assert_int_equal(r.cfg.tcp_port, 20000);
	assert_int_equal(r.cfg.traffic_class, 96);
	assert_int_equal(r.cfg.sl, 2);
	assert_int_equal(r.cfg.timeout_sec, 7);
	assert_true(r.cfg.verbose);
	assert_string_equal(r.cfg.server_name, "host");
	/* the manual's connection: the TCP exchange, busy polling */
	assert_false(r.cfg.use_rdma_cm);
	assert_false(r.cfg.use_events);
	free_result(&r);
}

static void test_path_options(void **state)
{
	struct parse_result r =
		parse_lessons("--sl", "2", "--tclass", "96", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.cfg.sl, 2);
	assert_int_equal(r.cfg.traffic_class, 96);
	assert_int_equal(r.cfg.tos, -1);
	free_result(&r);
	r = parse_lessons("-R", "--tclass", "104", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.cfg.tos, 104);
	free_result(&r);
	r = parse_check("--pair", "--tclass", "96", "--sl", "1", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.cfg.traffic_class, 96);
	assert_int_equal(r.cfg.sl, 1);
	free_result(&r);
	expect_refusal(
		parse_lessons("-R", "--sl", "1", (char *)NULL),
		"rdma_lessons: option --sl does not go with -R: RDMA_CM takes the SL from the type of service, which --tclass sets\n");
	expect_refusal(
		parse_check("-R", "--sl", "3", (char *)NULL),
		"rdma_check: option --sl does not go with -R: RDMA_CM takes the SL from the type of service, which --tclass sets\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_option),
		cmocka_unit_test(test_parse_twice),
		cmocka_unit_test(test_help_and_version),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_too_many_ops),
		cmocka_unit_test(test_empty_server_name),
		cmocka_unit_test(test_server_options),
		cmocka_unit_test(test_new_api),
		cmocka_unit_test(test_manual_peer),
		cmocka_unit_test(test_example_refuses_lessons),
		cmocka_unit_test(test_example_options),
		cmocka_unit_test(test_path_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
