// SPDX-License-Identifier: MIT
/*
 * The check mode's pure parts: its options beside the others, the lines
 * and the verdict a user reads, the JSON file, what a failed operation
 * means.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/check.h"
#include "check/check_priv.h"
#include "config.h"
#include "parse_args.h"

static void check_defaults(void **state)
{
	struct parse_result r = parse_check(NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.cfg.program, PROGRAM_CHECK);
	assert_false(r.check.pair);
	assert_null(r.check.json_path);
	free_result(&r);
}

static void check_alone_client_and_server(void **state)
{
	struct parse_result alone = parse_check((char *)NULL);
	struct parse_result server =
		parse_check("--pair", "-p", "19981", (char *)NULL);
	struct parse_result client = parse_check("--json", "c.json", "-g", "1",
						 "host", (char *)NULL);

	(void)state;
	assert_int_equal(alone.ret, 0);
	assert_false(alone.check.pair);
	assert_null(alone.cfg.server_name);
	assert_int_equal(server.ret, 0);
	assert_true(server.check.pair);
	assert_int_equal(server.cfg.tcp_port, 19981);
	assert_int_equal(client.ret, 0);
	assert_string_equal(client.cfg.server_name, "host");
	assert_string_equal(client.check.json_path, "c.json");
	assert_int_equal(client.cfg.gid_idx, 1);
	free_result(&alone);
	free_result(&server);
	free_result(&client);
}

/* One usage error: -EINVAL, nothing on stdout, exactly @line on stderr. */
static void expect_refused(struct parse_result r, const char *line)
{
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(r.err, line);
	assert_string_equal(r.out, "");
	free_result(&r);
}

static void check_bad_combinations(void **state)
{
	(void)state;
	expect_refused(parse_check("--bench", "lat", (char *)NULL),
		       "rdma_check: unknown option '--bench'\n");
	expect_refused(
		parse("--pair", (char *)NULL),
		"rdma_rc_example: option --pair is rdma_check's, not rdma_rc_example's\n");
	expect_refused(
		parse_check("--pair", "host", (char *)NULL),
		"rdma_check: option --pair makes this side the server: give it no SERVER\n");
	/* the check runs its own operations, over RC */
	expect_refused(
		parse_check("-c", "ud", (char *)NULL),
		"rdma_check: option -c (--connection) is rdma_lessons's and rdma_bench's, not rdma_check's\n");
	expect_refused(
		parse_check("--ops", "send", (char *)NULL),
		"rdma_check: option --ops is rdma_lessons's, not rdma_check's\n");
	expect_refused(
		parse_check("-s", "64", (char *)NULL),
		"rdma_check: option -s (--size) is rdma_bench's, not rdma_check's\n");
	expect_refused(
		parse("--json", "x.json", (char *)NULL),
		"rdma_rc_example: option --json is rdma_check's, not rdma_rc_example's\n");
	expect_refused(
		parse_check("--json", "", (char *)NULL),
		"rdma_check: invalid --json value '' (expected a file name)\n");
	/* a file it could not write at the end is refused before any check */
	expect_refused(
		parse_check("--json", "/nonexistent/c.json", (char *)NULL),
		"rdma_check: invalid --json value '/nonexistent/c.json' (cannot write it: No such file or directory)\n");
	expect_refused(
		parse_check("--json", "/", (char *)NULL),
		"rdma_check: invalid --json value '/' (cannot write it: Is a directory)\n");
}

static void check_help_lists_the_mode(void **state)
{
	struct parse_result r = parse_check("--help", (char *)NULL);
	struct parse_result example = parse("--help", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 1);
	assert_non_null(strstr(
		r.out, "usage: rdma_check [options] [--pair | SERVER]\n"));
	assert_non_null(strstr(r.out, "      --pair "));
	assert_non_null(strstr(r.out, "      --json FILE "));
	/* the manual's program has neither */
	assert_int_equal(example.ret, 1);
	assert_null(strstr(example.out, "--pair"));
	assert_null(strstr(example.out, "--json"));
	free_result(&r);
	free_result(&example);
}

/* What the report printed, into a string the test frees. */
struct printed {
	char *text;
	size_t len;
	FILE *f;
};

static void printed_open(struct printed *p)
{
	p->text = NULL;
	p->f = open_memstream(&p->text, &p->len);
	assert_non_null(p->f);
}

static void printed_close(struct printed *p)
{
	fclose(p->f);
}

static void lines_name_status_value_and_fix(void **state)
{
	struct check_report r;
	struct printed p;

	(void)state;
	printed_open(&p);
	check_report_init(&r, p.f);
	check_add(&r, "port", CHECK_PASS, NULL, "port %d: %s", 1, "active");
	check_add(&r, "mtu", CHECK_FAIL, "ip link set eth0 mtu 1500",
		  "active %d bytes", 256);
	printed_close(&p);
	assert_string_equal(
		p.text,
		"PASS port        port 1: active\n"
		"FAIL mtu         active 256 bytes; fix: ip link set eth0 mtu 1500\n");
	assert_int_equal(r.count, 2);
	assert_string_equal(r.items[1].fix, "ip link set eth0 mtu 1500");
	free(p.text);
}

static void port_rate_reads_width_and_speed_codes(void **state)
{
	char text[64];

	(void)state;
	check_port_rate(1, 1, text, sizeof(text)); /* soft-RoCE's */
	assert_string_equal(text, "2.5 Gb/s (1X 2.5 Gb/s)");
	check_port_rate(2, 32, text, sizeof(text)); /* EDR, or 100GbE */
	assert_string_equal(text, "100 Gb/s (4X 25 Gb/s)");
	check_port_rate(8, 16, text, sizeof(text)); /* 12X FDR */
	assert_string_equal(text, "168 Gb/s (12X 14 Gb/s)");
	check_port_rate(16, 64, text, sizeof(text)); /* 2X HDR */
	assert_string_equal(text, "100 Gb/s (2X 50 Gb/s)");
	check_port_rate(3, 1, text, sizeof(text));
	assert_string_equal(text, "rate unknown (width code 3, speed code 1)");
	check_port_rate(1, 0, text, sizeof(text));
	assert_string_equal(text, "rate unknown (width code 1, speed code 0)");
}

static void verdict_passes_with_warnings_fails_on_one_fail(void **state)
{
	struct check_report r;
	struct printed p;

	(void)state;
	check_report_init(&r, NULL);
	check_add(&r, "atomics", CHECK_WARN, "x", "none");
	check_add(&r, "port", CHECK_PASS, NULL, "active");
	assert_true(check_passed(&r));
	printed_open(&p);
	check_print_verdict(&r, "this host", p.f);
	printed_close(&p);
	assert_string_equal(
		p.text,
		"verdict: PASS: this host can do RDMA with these options (2 checks, warnings: 1)\n");
	free(p.text);

	check_add(&r, "gid", CHECK_FAIL, "-g 1", "empty");
	check_add(&r, "tcp", CHECK_FAIL, NULL, "refused");
	assert_false(check_passed(&r));
	printed_open(&p);
	check_print_verdict(&r, "these two hosts", p.f);
	printed_close(&p);
	assert_string_equal(
		p.text,
		"verdict: FAIL: these two hosts cannot do RDMA with these options (failed: gid, tcp; warnings: 1)\n");
	free(p.text);
}

static void json_has_every_check_escaped(void **state)
{
	struct check_report r;
	struct printed p;

	(void)state;
	check_report_init(&r, NULL);
	check_add(&r, "gid", CHECK_FAIL, "-g 1", "entry \"5\" is empty\\");
	check_add(&r, "port", CHECK_PASS, NULL, "active");
	printed_open(&p);
	check_write_json(&r, "this host", p.f);
	printed_close(&p);
	assert_string_equal(
		p.text,
		"{\"verdict\": \"FAIL\", \"scope\": \"this host\", \"checks\": [\n"
		"  {\"name\": \"gid\", \"status\": \"FAIL\", \"value\": \"entry \\\"5\\\" is empty\\\\\", \"fix\": \"-g 1\"},\n"
		"  {\"name\": \"port\", \"status\": \"PASS\", \"value\": \"active\", \"fix\": null}\n"
		"], \"features\": [\n]}\n");
	free(p.text);
}

/*
 * What ibv_query_device_ex answers on real NICs, from their ibv_devinfo -v
 * (public reports): a ConnectX-6 (mlx5, InfiniBand, firmware 20.37) and an
 * E810 (irdma, RoCE v2, firmware 1.54). ibv_devinfo shows no dma-buf: the
 * tests give each provider's answer both ways.
 */
static struct ibv_device_attr_ex connectx6(void)
{
	struct ibv_device_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.orig_attr.device_cap_flags = 0x21361c36; /* XRC among them */
	a.odp_caps.general_caps = IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT;
	a.odp_caps.per_transport_caps.rc_odp_caps =
		IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
		IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
	a.odp_caps.per_transport_caps.ud_odp_caps = IBV_ODP_SUPPORT_SEND;
	a.completion_timestamp_mask = 0x7fffffffffffffffull;
	a.hca_core_clock = 156250;
	a.tm_caps.max_num_tags = 127;
	a.tm_caps.flags = IBV_TM_CAP_RC;
	a.max_dm_size = 131072;
	return a;
}

static struct ibv_device_attr_ex e810(void)
{
	struct ibv_device_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.orig_attr.device_cap_flags = 0x00229000; /* no XRC */
	a.completion_timestamp_mask = 0x1ffff;	   /* and no clock rate */
	return a;
}

static char *features_of(const struct ibv_device_attr_ex *attr, int dmabuf_err,
			 bool mlx5)
{
	struct check_report r;
	struct printed p;

	printed_open(&p);
	check_report_init(&r, p.f);
	check_features(&r, attr, dmabuf_err, mlx5);
	printed_close(&p);
	/* not checks: the verdict counts none of them */
	assert_int_equal(r.count, 0);
	assert_int_equal(r.feature_count, 7);
	return p.text;
}

static void features_of_real_nics(void **state)
{
	struct ibv_device_attr_ex cx6 = connectx6(), ice = e810(), none;
	char *text;

	(void)state;
	text = features_of(&cx6, EBADF, true);
	assert_string_equal(
		text,
		"HAS  xrc         XRC (ibv_open_xrcd): one receive queue serves the QPs of several processes\n"
		"HAS  dc          DC (mlx5dv_create_qp: DCI and DCT): one QP sends to many peers, each named by its DCT number, instead of a connected QP per peer\n"
		"HAS  odp         on-demand paging (IBV_ACCESS_ON_DEMAND, and implicit: the whole address space): memory registered unpinned, paged in as the device touches it; RC: send, recv, write, read, atomic, srq; UD: send\n"
		"HAS  timestamps  completion timestamps (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP): when the device completed each request, 63 bits, its clock 156250 kHz\n"
		"HAS  device-mem  device memory (ibv_alloc_dm): 128 KiB on the device itself, registered and used as any buffer\n"
		"HAS  tag-match   tag matching (ibv_post_srq_ops): the device matches up to 127 MPI tags to receives, on RC\n"
		"HAS  dma-buf     dma-buf (ibv_reg_dmabuf_mr): another driver's memory, a GPU's, registered by its file descriptor\n");
	free(text);
	text = features_of(&ice, EOPNOTSUPP, false);
	assert_non_null(strstr(
		text,
		"NONE xrc         no XRC: each QP receives on its own queue or an SRQ\n"
		"NONE dc          no DC (mlx5's dynamically connected transport): a connected QP per peer, or UD\n"));
	assert_non_null(strstr(
		text,
		"HAS  timestamps  completion timestamps (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP): when the device completed each request, 17 bits, no clock rate: raw counts, not times\n"));
	assert_non_null(strstr(
		text,
		"NONE dma-buf     no dma-buf (ibv_reg_dmabuf_mr: Operation not supported): only the host's memory is registered\n"));
	free(text);
	/* a provider without the extended query: none at all */
	memset(&none, 0, sizeof(none));
	text = features_of(&none, EOPNOTSUPP, false);
	assert_null(strstr(text, "HAS "));
	assert_non_null(strstr(
		text,
		"NONE odp         no on-demand paging: a registration pins all its pages\n"));
	free(text);
}

static void features_in_the_json(void **state)
{
	struct ibv_device_attr_ex ice = e810();
	struct check_report r;
	struct printed p;

	(void)state;
	check_report_init(&r, NULL);
	check_features(&r, &ice, EOPNOTSUPP, false);
	printed_open(&p);
	check_write_json(&r, "this host", p.f);
	printed_close(&p);
	assert_non_null(strstr(
		p.text,
		"], \"features\": [\n  {\"name\": \"xrc\", \"present\": false, \"value\": \"no XRC: each QP receives on its own queue or an SRQ\"},\n"));
	assert_non_null(strstr(
		p.text, "{\"name\": \"timestamps\", \"present\": true, "));
	free(p.text);
}

static void a_long_value_is_cut_not_overrun(void **state)
{
	char longer[CHECK_VALUE_MAX * 2];
	struct check_report r;

	(void)state;
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	check_report_init(&r, NULL);
	check_add(&r, "gid-table", CHECK_PASS, NULL, "%s", longer);
	assert_int_equal(strlen(r.items[0].value), CHECK_VALUE_MAX - 1);
}

static void op_failures_name_the_cause(void **state)
{
	const char *fix;

	(void)state;
	assert_non_null(strstr(check_op_failure(-EHOSTUNREACH, &fix),
			       "retry exceeded"));
	assert_non_null(strstr(check_op_failure(-EHOSTUNREACH, &fix),
			       "no path between the GIDs"));
	assert_non_null(fix);
	assert_non_null(strstr(check_op_failure(-EAGAIN, &fix), "RNR"));
	assert_non_null(fix);
	assert_non_null(
		strstr(check_op_failure(-EACCES, &fix), "remote access error"));
	assert_non_null(fix);
	assert_non_null(strstr(check_op_failure(-ETIMEDOUT, &fix),
			       "no completion within the timeout (-t)"));
	assert_non_null(fix);
	assert_string_equal(check_op_failure(-ENOMEM, &fix), strerror(ENOMEM));
	assert_null(fix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_defaults),
		cmocka_unit_test(check_alone_client_and_server),
		cmocka_unit_test(check_bad_combinations),
		cmocka_unit_test(check_help_lists_the_mode),
		cmocka_unit_test(lines_name_status_value_and_fix),
		cmocka_unit_test(port_rate_reads_width_and_speed_codes),
		cmocka_unit_test(
			verdict_passes_with_warnings_fails_on_one_fail),
		cmocka_unit_test(json_has_every_check_escaped),
		cmocka_unit_test(a_long_value_is_cut_not_overrun),
		cmocka_unit_test(features_of_real_nics),
		cmocka_unit_test(features_in_the_json),
		cmocka_unit_test(op_failures_name_the_cause),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
