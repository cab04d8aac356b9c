// SPDX-License-Identifier: MIT
/*
 * -c and -R: parsing, which operations each transport runs, what is refused
 * and in which words; the UD size limit. (The GRH source of a UD receive:
 * test_grh.c.)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cm/cm.h"
#include "config.h"
#include "parse_args.h"
#include "ops/transport.h"
#include "operations.h"

static void test_connection_values(void **state)
{
	struct parse_result r;

	(void)state;
	r = parse_lessons("-c", "rc", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.lessons.transport, TRANSPORT_RC);
	assert_int_equal(r.lessons.ops.count, 3);
	assert_string_equal(r.out, "");
	free_result(&r);

	r = parse_lessons("--connection", "uc", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.lessons.transport, TRANSPORT_UC);
	free_result(&r);

	r = parse_lessons("--connection=ud", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.lessons.transport, TRANSPORT_UD);
	free_result(&r);

	r = parse_lessons("-c", "UC", (char *)NULL);
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(
		r.err,
		"rdma_lessons: invalid --connection value 'UC' (expected rc, uc or ud)\n");
	free_result(&r);

	r = parse_lessons("-c", (char *)NULL);
	assert_int_equal(r.ret, -EINVAL);
	free_result(&r);
}

/* The default list: each transport keeps what it can run, says what not. */
static void test_default_ops_fitted(void **state)
{
	struct parse_result r;

	(void)state;
	r = parse_lessons("-c", "uc", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.lessons.ops.count, 2);
	assert_int_equal(r.lessons.ops.ids[0], OP_SEND);
	assert_int_equal(r.lessons.ops.ids[1], OP_WRITE);
	assert_string_equal(r.out, "UC has no RDMA READ: skipping read\n");
	assert_string_equal(r.err, "");
	free_result(&r);

	r = parse_lessons("-c", "ud", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.lessons.ops.count, 1);
	assert_int_equal(r.lessons.ops.ids[0], OP_SEND);
	assert_string_equal(r.out,
			    "UD has only SEND/RECEIVE: skipping read\n"
			    "UD has only SEND/RECEIVE: skipping write\n");
	free_result(&r);
}

/* An explicit list is run as given or refused in one line, in any order. */
static void test_explicit_ops(void **state)
{
	struct parse_result r;

	(void)state;
	r = parse_lessons("--ops", "send,read", "-c", "uc", (char *)NULL);
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(
		r.err,
		"rdma_lessons: invalid --ops value 'send,read' for --connection uc: UC has no RDMA READ (operation read)\n");
	assert_string_equal(r.out, "");
	free_result(&r);

	r = parse_lessons("-c", "ud", "-o", "write", (char *)NULL);
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(
		r.err,
		"rdma_lessons: invalid --ops value 'write' for --connection ud: UD has only SEND/RECEIVE (operation write)\n");
	free_result(&r);

	r = parse_lessons("-c", "uc", "-o", "write,send", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.lessons.ops.count, 2);
	assert_string_equal(r.out, "");
	free_result(&r);

	r = parse_lessons("-c", "ud", "-o", "send,send", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.lessons.ops.count, 2);
	free_result(&r);
}

static void test_rdma_cm_option(void **state)
{
	struct parse_result r;

	(void)state;
	r = parse_lessons("-R", "192.0.2.1", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_true(r.cfg.use_rdma_cm);
	assert_string_equal(r.cfg.server_name, "192.0.2.1");
	free_result(&r);

	r = parse_lessons("--rdma-cm", "-c", "rc", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_true(r.cfg.use_rdma_cm);
	free_result(&r);

	r = parse_lessons("-c", "uc", "-R", (char *)NULL);
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(
		r.err,
		"rdma_lessons: invalid --connection value 'uc' with --rdma-cm: RDMA_CM connects RC QPs and resolves UD ones here, not UC\n");
	free_result(&r);

	/* UD through the CM's UDP port space: the operations UD runs */
	r = parse_lessons("-R", "-c", "ud", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_true(r.cfg.use_rdma_cm);
	assert_int_equal(r.lessons.transport, TRANSPORT_UD);
	assert_string_equal(r.err, "");
	free_result(&r);

	/* -d is kept, to be checked against the device the CM resolves */
	r = parse_lessons("-R", "-d", "rxe0", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_string_equal(r.cfg.ib_devname, "rxe0");
	assert_true(r.cfg.use_rdma_cm);
	assert_string_equal(r.err, "");
	free_result(&r);

	r = parse_lessons("-g", "1", "-R", (char *)NULL);
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(
		r.err,
		"rdma_lessons: invalid --gid-idx value '1' with --rdma-cm: RDMA_CM finds the GID from the address\n");
	free_result(&r);

	/* -i 1 is the default, and refused all the same: it was asked for */
	r = parse_lessons("-i", "1", "--rdma-cm", (char *)NULL);
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(
		r.err,
		"rdma_lessons: invalid --ib-port value '1' with --rdma-cm: RDMA_CM finds the port from the address\n");
	free_result(&r);
}

/* -R: RDMA_CM takes -p, the program's own socket the port after it. */
static void test_rdma_cm_sync_port(void **state)
{
	struct parse_result r;

	(void)state;
	r = parse_lessons("-p", "20010", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(config_sock_port(&r.cfg), 20010);
	free_result(&r);

	r = parse_lessons("-R", "-p", "20010", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.cfg.tcp_port, 20010);
	assert_int_equal(config_sock_port(&r.cfg), 20011);
	free_result(&r);

	r = parse_lessons("-R", "-p", "65534", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(config_sock_port(&r.cfg), 65535);
	free_result(&r);

	/* without -R, 65535 is a port like any other */
	r = parse_lessons("-p", "65535", (char *)NULL);
	assert_int_equal(r.ret, 0);
	free_result(&r);

	r = parse_lessons("-p", "65535", "-R", "192.0.2.1", (char *)NULL);
	assert_int_equal(r.ret, -EINVAL);
	assert_string_equal(
		r.err,
		"rdma_lessons: invalid --port value '65535' with --rdma-cm: the syncs take the TCP port after it, since RDMA_CM owns the TCP port itself on iWARP, and none comes after 65535\n");
	assert_string_equal(r.out, "");
	free_result(&r);
}

/* Every row of the table against every transport, by its flags. */
static void test_refusal_by_flags(void **state)
{
	size_t count, i;
	const struct op_desc *ops = ops_table(&count);

	(void)state;
	for (i = 0; i < count; i++) {
		const struct op_desc *op = &ops[i];
		bool uc_ok = !(op->flags & (OP_NEEDS_RDMA_READ |
					    OP_NEEDS_ATOMICS | OP_NEEDS_RC));

		assert_null(transport_refusal(TRANSPORT_RC, op));
		assert_int_equal(transport_refusal(TRANSPORT_UC, op) == NULL,
				 uc_ok);
		assert_int_equal(transport_refusal(TRANSPORT_UD, op) == NULL,
				 (op->flags & OP_RUNS_ON_UD) != 0);
	}
	assert_string_equal(transport_refusal(TRANSPORT_UC, op_find(OP_READ)),
			    "UC has no RDMA READ");
	assert_null(transport_refusal(TRANSPORT_UD, op_find(OP_SEND)));
	assert_string_equal(
		transport_refusal(TRANSPORT_UC, op_find(OP_RNR)),
		"UC has no acknowledgements (no RNR or access NAK)");
	assert_null(transport_refusal(TRANSPORT_UC, op_find(OP_WRITE_IMM)));
	assert_null(transport_refusal(TRANSPORT_UD, op_find(OP_SEND_IMM)));
}

/* The private data of connect and accept: round trip and rejections. */
static void test_cm_private_data(void **state)
{
	struct qp_info in = {
		.addr = 0x0123456789abcdefull,
		.len = 4096,
		.rkey = 0x1d88,
		.transport = TRANSPORT_RC,
		.flags = QP_INFO_HAS_ATOMICS,
		.qp_num = 0x000123,
		.sync_port = 40123,
	};
	uint8_t buf[CM_REQ_PRIVATE_DATA_MAX] = {0};
	struct qp_info out;
	const char *why = NULL;

	(void)state;
	cm_priv_encode(&in, buf);
	/* Network byte order: the magic's first byte is 'R'. */
	assert_int_equal(CM_PRIV_SIZE, 30);
	assert_int_equal(buf[0], 'R');
	assert_int_equal(buf[4], CM_PRIV_VERSION);
	/* The CM pads the REQ's private data to 56 bytes: still accepted. */
	assert_int_equal(cm_priv_decode(buf, sizeof(buf), &out, &why), 0);
	assert_true(out.addr == in.addr);
	assert_int_equal(out.len, in.len);
	assert_int_equal(out.rkey, in.rkey);
	assert_int_equal(out.flags, in.flags);
	assert_int_equal(out.transport, TRANSPORT_RC);
	/* iWARP's CM names no QP: ours travels here */
	assert_int_equal(out.qp_num, 0x000123);
	/* which TCP connection is this client's, for a server of several */
	assert_int_equal(out.sync_port, 40123);

	assert_int_equal(cm_priv_decode(buf, CM_PRIV_SIZE - 1, &out, &why),
			 -EPROTO);
	assert_string_equal(why, "private data too short");
	assert_int_equal(cm_priv_decode(NULL, 0, &out, &why), -EPROTO);
	buf[0] ^= 0xff;
	assert_int_equal(cm_priv_decode(buf, CM_PRIV_SIZE, &out, &why),
			 -EPROTO);
	assert_string_equal(why,
			    "private data of none of this project's programs");
	buf[0] ^= 0xff;
	buf[4] = 5; /* version 5 carried the operations */
	assert_int_equal(cm_priv_decode(buf, CM_PRIV_SIZE, &out, &why),
			 -EPROTO);
	assert_string_equal(why, "private data of another version");
}

/* The private data as the peer would send it, with one field changed. */
static void expect_priv_refused(const struct qp_info *in, const char *reason)
{
	uint8_t buf[CM_PRIV_SIZE];
	struct qp_info out;
	const char *why = NULL;

	cm_priv_encode(in, buf);
	assert_int_equal(cm_priv_decode(buf, sizeof(buf), &out, &why), -EPROTO);
	assert_non_null(why);
	assert_string_equal(why, reason);
}

/*
 * -R's peer meets the TCP message's checks of the fields the private data
 * carries; what it leaves to the CM (PSN, MTU, READ depth) is not asked.
 */
static void test_cm_private_data_fields(void **state)
{
	const struct qp_info good = {
		.addr = 0x1000,
		.len = 64,
		.rkey = 7,
		.transport = TRANSPORT_RC,
		.flags = QP_INFO_HAS_GID,
		.qp_num = 0x000011,
	};
	struct qp_info in = good, out;
	uint8_t buf[CM_PRIV_SIZE];
	const char *why = NULL;

	(void)state;
	cm_priv_encode(&good, buf);
	assert_int_equal(cm_priv_decode(buf, sizeof(buf), &out, &why), 0);
	assert_null(why);
	assert_int_equal(out.mtu, 0);
	assert_int_equal(out.max_dest_rd_atomic, 0);

	in.flags = QP_INFO_KNOWN_FLAGS + 1;
	expect_priv_refused(&in, "unknown flags");
	in = good;
	in.transport = TRANSPORT_UD + 1;
	expect_priv_refused(&in, "unknown transport");
	in = good;
	in.qp_num = QP_INFO_24BIT_MASK + 1;
	expect_priv_refused(&in, "QP number is not a valid 24-bit QP number");
	in = good;
	in.qp_num = 0;
	expect_priv_refused(&in, "QP number is not a valid 24-bit QP number");
	in = good;
	in.len = 0;
	expect_priv_refused(&in, "buffer length is zero");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connection_values),
		cmocka_unit_test(test_default_ops_fitted),
		cmocka_unit_test(test_explicit_ops),
		cmocka_unit_test(test_rdma_cm_option),
		cmocka_unit_test(test_rdma_cm_sync_port),
		cmocka_unit_test(test_refusal_by_flags),
		cmocka_unit_test(test_cm_private_data),
		cmocka_unit_test(test_cm_private_data_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
