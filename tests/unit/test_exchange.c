// SPDX-License-Identifier: MIT
/* The QP-info message: round trip, and every kind of bad message refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/verbs.h>

#include "exchange.h"
#include "ops/manual_info.h"

/* Offsets of a few fields, as documented in exchange.h. */
#define AT_MAGIC     0
#define AT_VERSION   4
#define AT_BODY_LEN  6
#define AT_QP_NUM    24
#define AT_TRANSPORT 50
#define AT_FLAGS     51
#define AT_MTU	     52
#define AT_RD_ATOMIC 53
#define AT_GID_TYPE  54
#define AT_SL	     55
#define AT_TCLASS    56

static struct qp_info sample(void)
{
	struct qp_info info = {
		.addr = 0x0123456789abcdefull,
		.len = 4096,
		.rkey = 0xdeadbeef,
		.qp_num = 0x000011,
		.psn = 0xabcdef,
		.lid = 0x1234,
		.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1},
		.transport = TRANSPORT_RC,
		.flags = QP_INFO_HAS_ATOMICS | QP_INFO_HAS_GID,
		.mtu = IBV_MTU_1024,
		.max_dest_rd_atomic = 16,
		.gid_type = IBV_GID_TYPE_ROCE_V2,
		.sl = 2,
		.traffic_class = 96,
	};

	return info;
}

static void encode_sample(uint8_t wire[QP_INFO_WIRE_SIZE])
{
	struct qp_info info = sample();

	qp_info_encode(&info, wire);
}

/* Decode @wire[0..len) and expect @want, with some reason. */
static void expect_refused(const uint8_t *wire, size_t len, int want)
{
	struct qp_info info;
	const char *why = NULL;

	assert_int_equal(qp_info_decode(wire, len, &info, &why), want);
	assert_non_null(why);
}

static void test_round_trip(void **state)
{
	uint8_t wire[QP_INFO_WIRE_SIZE];
	struct qp_info in = sample(), out;
	const char *why = NULL;

	(void)state;
	qp_info_encode(&in, wire);
	assert_int_equal(qp_info_decode(wire, sizeof(wire), &out, &why), 0);
	assert_null(why);
	/* Field by field: the struct's padding bytes carry nothing. */
	assert_int_equal(out.addr, in.addr);
	assert_int_equal(out.len, in.len);
	assert_int_equal(out.rkey, in.rkey);
	assert_int_equal(out.qp_num, in.qp_num);
	assert_int_equal(out.psn, in.psn);
	assert_int_equal(out.lid, in.lid);
	assert_memory_equal(out.gid, in.gid, sizeof(in.gid));
	assert_int_equal(out.transport, in.transport);
	assert_int_equal(out.flags, in.flags);
	assert_int_equal(out.mtu, in.mtu);
	assert_int_equal(out.max_dest_rd_atomic, in.max_dest_rd_atomic);
	assert_int_equal(out.gid_type, in.gid_type);
	assert_int_equal(out.sl, in.sl);
	assert_int_equal(out.traffic_class, in.traffic_class);
}

static void test_network_byte_order(void **state)
{
	uint8_t wire[QP_INFO_WIRE_SIZE];

	(void)state;
	encode_sample(wire);
	/* "RCEX", version 5, body 49, QP number 0x000011, MTU 1024, ... */
	assert_int_equal(QP_INFO_WIRE_SIZE, 57);
	assert_memory_equal(wire, "RCEX", 4);
	assert_int_equal(wire[AT_VERSION], 0);
	assert_int_equal(wire[AT_VERSION + 1], 5);
	assert_int_equal(wire[AT_BODY_LEN + 1], 49);
	assert_int_equal(wire[AT_SL], 2);
	assert_int_equal(wire[AT_TCLASS], 96);
	assert_int_equal(wire[AT_TRANSPORT], TRANSPORT_RC);
	assert_int_equal(wire[AT_QP_NUM + 3], 0x11);
	assert_int_equal(wire[AT_MTU], 3);
	/* ... max dest rd atomic 16, a RoCE v2 GID */
	assert_int_equal(wire[AT_FLAGS], QP_INFO_HAS_ATOMICS | QP_INFO_HAS_GID);
	assert_int_equal(wire[AT_RD_ATOMIC], 16);
	assert_int_equal(wire[AT_GID_TYPE], 2);
}

static void test_short(void **state)
{
	uint8_t wire[QP_INFO_WIRE_SIZE];

	(void)state;
	encode_sample(wire);
	expect_refused(wire, 0, -ENODATA);
	expect_refused(wire, QP_INFO_HEADER_SIZE - 1, -ENODATA);
	expect_refused(wire, QP_INFO_WIRE_SIZE - 1, -ENODATA);
}

static void test_oversized(void **state)
{
	uint8_t wire[QP_INFO_WIRE_SIZE + 8] = {0};

	(void)state;
	encode_sample(wire);
	expect_refused(wire, sizeof(wire), -EMSGSIZE);
	/* A header announcing a longer body is refused before reading it. */
	wire[AT_BODY_LEN + 1] = QP_INFO_BODY_SIZE + 8;
	expect_refused(wire, QP_INFO_WIRE_SIZE, -EBADMSG);
}

static void test_wrong_magic_and_version(void **state)
{
	uint8_t wire[QP_INFO_WIRE_SIZE];

	(void)state;
	encode_sample(wire);
	wire[AT_MAGIC] ^= 0xff;
	expect_refused(wire, sizeof(wire), -EPROTO);
	encode_sample(wire);
	wire[AT_VERSION + 1] = 1; /* version 1 had no MTU */
	expect_refused(wire, sizeof(wire), -EPROTONOSUPPORT);
	encode_sample(wire);
	wire[AT_VERSION + 1] = 2; /* version 2 had no READ depth, GID type */
	expect_refused(wire, sizeof(wire), -EPROTONOSUPPORT);
	encode_sample(wire);
	wire[AT_VERSION + 1] = 3; /* version 3 carried the operations */
	expect_refused(wire, sizeof(wire), -EPROTONOSUPPORT);
	encode_sample(wire);
	wire[AT_VERSION + 1] = 4; /* version 4 had no SL, traffic class */
	expect_refused(wire, sizeof(wire), -EPROTONOSUPPORT);
}

static void test_bad_fields(void **state)
{
	uint8_t wire[QP_INFO_WIRE_SIZE];

	(void)state;
	encode_sample(wire);
	wire[AT_QP_NUM] = 1; /* QP number above 24 bits */
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_TRANSPORT] = 9;
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_FLAGS] = 0x80;
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_MTU] = 0; /* no such MTU */
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_MTU] = 6; /* past IBV_MTU_4096 */
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_RD_ATOMIC] = 0; /* would never answer a READ */
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_GID_TYPE] = 3; /* past IBV_GID_TYPE_ROCE_V2 */
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_FLAGS] &= (uint8_t)~QP_INFO_HAS_GID; /* a type, but no GID */
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_SL] = 16; /* the LRH has 4 bits for it */
	expect_refused(wire, sizeof(wire), -EINVAL);
	encode_sample(wire);
	wire[AT_FLAGS] |= 1; /* bit 0 was a flag no one read: unused now */
	expect_refused(wire, sizeof(wire), -EINVAL);
}

/* The flag says a GRH is to be sent, but the GID to send it to is zeros. */
static void test_zero_gid(void **state)
{
	uint8_t wire[QP_INFO_WIRE_SIZE];
	struct qp_info info = sample(), out;
	const char *why = NULL;

	(void)state;
	memset(info.gid, 0, sizeof(info.gid));
	qp_info_encode(&info, wire);
	assert_int_equal(qp_info_decode(wire, sizeof(wire), &out, &why),
			 -EINVAL);
	assert_string_equal(
		why, "the flag says a GID is sent, and the GID is all zeros");
	/* Without the flag (InfiniBand, no GRH) zeros are what is sent. */
	info.flags &= (uint8_t)~QP_INFO_HAS_GID;
	info.gid_type = 0;
	qp_info_encode(&info, wire);
	assert_int_equal(qp_info_decode(wire, sizeof(wire), &out, &why), 0);
}

/* One check for both ways: the CM's leaves out only the path's fields. */
static void test_check_by_source(void **state)
{
	struct qp_info info = sample();
	const char *why = NULL;

	(void)state;
	assert_int_equal(qp_info_check(&info, QP_INFO_FROM_TCP, &why), 0);
	assert_int_equal(qp_info_check(&info, QP_INFO_FROM_CM, &why), 0);
	assert_null(why);
	/* The PSN, MTU and READ depth travel in the CM's own messages. */
	info.psn = QP_INFO_24BIT_MASK + 1;
	info.mtu = 0;
	info.max_dest_rd_atomic = 0;
	assert_int_equal(qp_info_check(&info, QP_INFO_FROM_CM, &why), 0);
	assert_int_equal(qp_info_check(&info, QP_INFO_FROM_TCP, &why), -EINVAL);
	assert_string_equal(why, "PSN does not fit in 24 bits");
	/* The transport travels both ways. */
	info = sample();
	info.transport = TRANSPORT_UD + 1;
	assert_int_equal(qp_info_check(&info, QP_INFO_FROM_CM, &why), -EINVAL);
	assert_string_equal(why, "unknown transport");
}

static void test_match(void **state)
{
	struct qp_info local = sample(), remote = sample();
	const char *why = NULL;

	(void)state;
	assert_int_equal(qp_info_match(&local, &remote, &why), 0);
	remote.transport = TRANSPORT_UC;
	assert_int_equal(qp_info_match(&local, &remote, &why), -EPROTO);
	assert_string_equal(why, "the peer uses another transport");
}

/*
 * Each program sends its own magic number: the message says who sent it,
 * and a peer running another program is refused with both names.
 */
static void test_program_identity(void **state)
{
	uint8_t wire[QP_INFO_WIRE_SIZE];
	struct qp_info local = sample(), remote = sample(), decoded;
	const char *why = NULL;

	(void)state;
	remote.program = PROGRAM_BENCH;
	qp_info_encode(&remote, wire);
	assert_int_equal(wire[0] << 24 | wire[1] << 16 | wire[2] << 8 | wire[3],
			 program_magic(PROGRAM_BENCH));
	assert_int_equal(qp_info_decode(wire, sizeof(wire), &decoded, &why), 0);
	assert_int_equal(decoded.program, PROGRAM_BENCH);
	assert_int_equal(qp_info_match(&local, &decoded, &why), -EPROTO);
	assert_string_equal(
		why,
		"the peer runs rdma_bench, this side rdma_rc_example: run the same program on both sides");
	local.program = PROGRAM_CHECK;
	assert_int_equal(qp_info_match(&local, &decoded, &why), -EPROTO);
	assert_string_equal(
		why,
		"the peer runs rdma_bench, this side rdma_check: run the same program on both sides");
	/* The example and its lessons are two programs, each its own peer. */
	remote.program = PROGRAM_LESSONS;
	local.program = PROGRAM_RC_EXAMPLE;
	assert_int_equal(qp_info_match(&local, &remote, &why), -EPROTO);
	assert_string_equal(
		why,
		"the peer runs rdma_lessons, this side rdma_rc_example: run the same program on both sides");
	/* A magic number of none of ours: not ours at all. */
	wire[3] = 'Z';
	assert_int_equal(qp_info_decode(wire, sizeof(wire), &decoded, &why),
			 -EPROTO);
	assert_non_null(strstr(why, "wrong magic number"));
}

/* RoCE v2 GIDs: 192.0.2.1 as ::ffff:192.0.2.1, and an IPv6 link-local. */
static const uint8_t ipv4_gid[16] = {0, 0, 0,	 0,    0,   0, 0, 0,
				     0, 0, 0xff, 0xff, 192, 0, 2, 1};
static const uint8_t ipv6_gid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				     0x02, 0,	 0, 0, 0, 0, 0, 1};

/* Both with a GRH and GIDs of one type, or neither: else refused. */
static void test_match_path(void **state)
{
	struct qp_info local = sample(), remote = sample();
	const char *why = NULL;

	(void)state;
	assert_int_equal(qp_info_match_path(&local, &remote, &why), 0);
	/* One fabric class for both sides' packets: --sl and --tclass. */
	remote.sl = 0;
	assert_int_equal(qp_info_match_path(&local, &remote, &why), -EPROTO);
	assert_string_equal(
		why,
		"the peer uses another SL or traffic class: give both sides the same --sl and --tclass");
	remote = sample();
	remote.traffic_class = 0;
	assert_int_equal(qp_info_match_path(&local, &remote, &why), -EPROTO);
	remote = sample();
	remote.flags &= ~QP_INFO_HAS_GID;
	assert_int_equal(qp_info_match_path(&local, &remote, &why), -EPROTO);
	assert_string_equal(
		why,
		"we use a GID (-g) and the peer does not: give -g on both sides");
	assert_int_equal(qp_info_match_path(&remote, &local, &why), -EPROTO);
	assert_string_equal(
		why,
		"the peer uses a GID (-g) and we do not: give -g on both sides");
	local.flags &= ~QP_INFO_HAS_GID;
	assert_int_equal(qp_info_match_path(&local, &remote, &why), 0);
	local = sample();
	remote = sample();
	remote.gid_type = IBV_GID_TYPE_ROCE_V1;
	why = NULL;
	assert_int_equal(qp_info_match_path(&local, &remote, &why), -EPROTO);
	assert_non_null(strstr(why, "another type"));
	/* RoCE v2: an IPv4-mapped GID against an IPv6 link-local one */
	local = sample();
	remote = sample();
	local.gid_type = IBV_GID_TYPE_ROCE_V2;
	remote.gid_type = IBV_GID_TYPE_ROCE_V2;
	memcpy(local.gid, ipv4_gid, sizeof(ipv4_gid));
	memcpy(remote.gid, ipv6_gid, sizeof(ipv6_gid));
	why = NULL;
	assert_int_equal(qp_info_match_path(&local, &remote, &why), -EPROTO);
	assert_non_null(strstr(why, "one GID is IPv4 and the other IPv6"));
	assert_int_equal(qp_info_match_path(&remote, &local, &why), -EPROTO);
	memcpy(remote.gid, ipv4_gid, sizeof(ipv4_gid));
	assert_int_equal(qp_info_match_path(&local, &remote, &why), 0);
}

/* --manual-peer: the manual's packed struct, byte for byte, both ways. */
static void test_manual_struct(void **state)
{
	struct qp_info local = sample(), remote;
	/* what the manual's program sends: address 0x55d0c0ffee00, rkey
	 * 0x1234, QP 0x11, LID 0, the GID ::ffff:192.0.2.2, all big-endian */
	const uint8_t theirs[MANUAL_INFO_SIZE] = {
		0x00, 0x00, 0x55, 0xd0, 0xc0, 0xff, 0xee, 0x00, /* addr */
		0x00, 0x00, 0x12, 0x34,				/* rkey */
		0x00, 0x00, 0x00, 0x11,				/* qp_num */
		0x00, 0x00,					/* lid */
		0,    0,    0,	  0,	0,    0,    0,	  0,
		0,    0,    0xff, 0xff, 192,  0,    2,	  2};
	uint8_t out[MANUAL_INFO_SIZE];
	const char *why = NULL;

	(void)state;
	local.gid_type = IBV_GID_TYPE_ROCE_V2;
	manual_info_encode(&local, out);
	assert_memory_equal(out, "\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
	assert_memory_equal(out + 8, "\xde\xad\xbe\xef\x00\x00\x00\x11", 8);
	assert_memory_equal(out + 16, "\x12\x34", 2);
	assert_memory_equal(out + 18, local.gid, 16);

	assert_int_equal(manual_info_decode(theirs, &local, &remote, &why), 0);
	assert_true(remote.addr == 0x55d0c0ffee00ull);
	assert_int_equal(remote.rkey, 0x1234);
	assert_int_equal(remote.qp_num, 0x11);
	assert_int_equal(remote.lid, 0);
	assert_memory_equal(remote.gid, theirs + 18, 16);
	/* what the manual's QP uses and does not say */
	assert_int_equal(remote.psn, 0);
	assert_int_equal(remote.mtu, IBV_MTU_256);
	assert_int_equal(remote.max_dest_rd_atomic, 1);
	assert_int_equal(remote.len, MANUAL_MSG_SIZE);
	assert_int_equal(remote.transport, TRANSPORT_RC);
	assert_int_equal(remote.gid_type, IBV_GID_TYPE_ROCE_V2);
	assert_int_equal(qp_info_match_path(&local, &remote, &why), 0);
}

/* What the manual's struct may not carry, each refused with its reason. */
static void test_manual_struct_refused(void **state)
{
	struct qp_info local = sample(), remote;
	uint8_t in[MANUAL_INFO_SIZE], ours[QP_INFO_WIRE_SIZE];
	const char *why = NULL;

	(void)state;
	local.gid_type = IBV_GID_TYPE_ROCE_V2;
	manual_info_encode(&local, in);
	/* without -g the manual sends a GID of zeros */
	memset(in + 18, 0, 16);
	assert_int_equal(manual_info_decode(in, &local, &remote, &why),
			 -EINVAL);
	assert_non_null(strstr(why, "give it -g N"));
	/* an IPv6 GID against our IPv4 one */
	in[18] = 0xfe;
	in[19] = 0x80;
	assert_int_equal(manual_info_decode(in, &local, &remote, &why),
			 -EINVAL);
	assert_non_null(strstr(why, "IPv4 and the other IPv6"));
	/* QP number 0 */
	manual_info_encode(&local, in);
	memset(in + 12, 0, 4);
	assert_int_equal(manual_info_decode(in, &local, &remote, &why),
			 -EINVAL);
	assert_non_null(strstr(why, "QP number"));
	/* one of ours, not the manual's program */
	qp_info_encode(&local, ours);
	memcpy(in, ours, sizeof(in));
	assert_int_equal(manual_info_decode(in, &local, &remote, &why),
			 -EPROTO);
	assert_non_null(strstr(why, "drop --manual-peer"));
	/* without a GID (InfiniBand), LID 0 reaches nothing */
	local.flags &= (uint8_t)~QP_INFO_HAS_GID;
	local.gid_type = 0;
	manual_info_encode(&local, in);
	memset(in + 16, 0, 2);
	assert_int_equal(manual_info_decode(in, &local, &remote, &why),
			 -EINVAL);
	assert_non_null(strstr(why, "LID 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_network_byte_order),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_wrong_magic_and_version),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_check_by_source),
		cmocka_unit_test(test_zero_gid),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_program_identity),
		cmocka_unit_test(test_match_path),
		cmocka_unit_test(test_manual_struct),
		cmocka_unit_test(test_manual_struct_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
