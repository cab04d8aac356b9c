// SPDX-License-Identifier: MIT
/*
 * The sender of a UD message from the 40 bytes in front of a receive
 * (src/extras/grh.c, and its text in rdma_mc_example): hand-built headers
 * of each kind, including an IPv4 header behind 20 bytes of garbage, one
 * whose checksum is wrong and one whose checksum rxe left 0.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "extras/grh.h"
#include "mc/mc_xfer.h"

#define IPV4_AT 20 /* RoCE v2 over IPv4: the header in the last 20 bytes */

/*
 * An IPv4 header as a RoCE v2 packet from 192.0.2.2 to the group 239.1.1.1
 * carries it: version 4, 5 words, total length 188, id 0x1234, don't
 * fragment, TTL 64, UDP; checksum 0x75f8, worked out by hand (the one's
 * complement of the one's complement sum of the other nine 16-bit words).
 */
static const unsigned char ipv4_header[20] = {
	0x45, 0x00, 0x00, 0xbc, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11,
	0x75, 0xf8, 0xc0, 0x00, 0x02, 0x02, 0xef, 0x01, 0x01, 0x01,
};

static const char *gid_text(const union ibv_gid *gid, char *buf, size_t len)
{
	return inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len);
}

static void test_ipv4_behind_garbage(void **state)
{
	unsigned char area[GRH_SIZE + 1];
	unsigned char *grh = area + 1; /* unaligned, as any buffer may be */
	char text[INET6_ADDRSTRLEN];
	union ibv_gid gid;

	(void)state;
	/* Nothing promises the first 20 bytes: here 0x6?, as a GRH starts. */
	memset(area, 0x6a, sizeof(area));
	memcpy(grh + IPV4_AT, ipv4_header, sizeof(ipv4_header));
	assert_int_equal(grh_source_gid(grh, &gid), GRH_HEADER_IPV4);
	assert_string_equal(gid_text(&gid, text, sizeof(text)),
			    "::ffff:192.0.2.2");

	/* rxe zeroes them: that reads the same. */
	memset(grh, 0, IPV4_AT);
	assert_int_equal(grh_source_gid(grh, &gid), GRH_HEADER_IPV4);
	assert_string_equal(gid_text(&gid, text, sizeof(text)),
			    "::ffff:192.0.2.2");
}

static void test_ipv4_bad_checksum(void **state)
{
	unsigned char grh[GRH_SIZE];
	char text[INET6_ADDRSTRLEN];
	union ibv_gid gid;

	(void)state;
	memset(grh, 0x11, sizeof(grh));
	memcpy(grh + IPV4_AT, ipv4_header, sizeof(ipv4_header));
	grh[IPV4_AT + 11] ^= 0x01; /* one bit of the checksum */

	/* With a GRH's version nibble in front: it is a GRH. */
	grh[0] = 0x60;
	assert_int_equal(grh_source_gid(grh, &gid), GRH_HEADER_IPV6);
	assert_string_equal(gid_text(&gid, text, sizeof(text)),
			    "1111:1111:1111:1111:1111:1111:4500:bc");

	/* Without one, nothing but IPv4 fits. */
	grh[0] = 0x11;
	assert_int_equal(grh_source_gid(grh, &gid), GRH_HEADER_IPV4);
	assert_string_equal(gid_text(&gid, text, sizeof(text)),
			    "::ffff:192.0.2.2");
}

/*
 * What rxe wrote for a packet looped back to its own port (seen on one
 * guest): 20 zero bytes, then an IPv4 header from 192.0.2.1 to itself
 * whose checksum is left 0.
 */
static const unsigned char rxe_loopback_ipv4[20] = {
	0x45, 0x00, 0x00, 0x44, 0x12, 0x9a, 0x40, 0x00, 0x40, 0x11,
	0x00, 0x00, 0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x01,
};

static void test_ipv4_no_checksum(void **state)
{
	unsigned char grh[GRH_SIZE] = {0};
	char text[INET6_ADDRSTRLEN];
	union ibv_gid gid;

	(void)state;
	memcpy(grh + IPV4_AT, rxe_loopback_ipv4, sizeof(rxe_loopback_ipv4));
	assert_int_equal(grh_source_gid(grh, &gid), GRH_HEADER_IPV4);
	assert_string_equal(gid_text(&gid, text, sizeof(text)),
			    "::ffff:192.0.2.1");
}

static void test_ipv4_with_options(void **state)
{
	unsigned char grh[GRH_SIZE] = {0};
	union ibv_gid gid;

	(void)state;
	/* IHL 6: RoCE v2 sends no IP options, so this is no RoCE header. */
	memcpy(grh + IPV4_AT, ipv4_header, sizeof(ipv4_header));
	grh[IPV4_AT] = 0x46;
	grh[IPV4_AT + 10] = 0x74; /* checksum right again for 0x46 */
	assert_int_equal(grh_source_gid(grh, &gid), GRH_HEADER_UNKNOWN);
}

static void test_ipv6_grh(void **state)
{
	unsigned char area[GRH_SIZE + 1] = {0};
	unsigned char *grh = area + 1;
	char text[INET6_ADDRSTRLEN];
	union ibv_gid gid;

	(void)state;
	/* Version 6; the source GID at byte 8, the destination at 24. */
	grh[0] = 0x60;
	inet_pton(AF_INET6, "fe80::5054:ff:fec0:201", grh + 8);
	inet_pton(AF_INET6, "ff0e::1234", grh + 24);
	assert_int_equal(grh_source_gid(grh, &gid), GRH_HEADER_IPV6);
	assert_string_equal(gid_text(&gid, text, sizeof(text)),
			    "fe80::5054:ff:fec0:201");

	/* RoCE v2 over IPv6 with IPv4-mapped GIDs: still a GRH. */
	memset(area, 0, sizeof(area));
	grh[0] = 0x60;
	inet_pton(AF_INET6, "::ffff:192.0.2.9", grh + 8);
	assert_int_equal(grh_source_gid(grh, &gid), GRH_HEADER_IPV6);
	assert_string_equal(gid_text(&gid, text, sizeof(text)),
			    "::ffff:192.0.2.9");
}

/* rdma_mc_example prints the plain IPv4 address, or the GID. */
static void test_mc_source_text(void **state)
{
	unsigned char grh[GRH_SIZE];
	char out[INET6_ADDRSTRLEN];

	(void)state;
	memset(grh, 0xa5, IPV4_AT);
	memcpy(grh + IPV4_AT, ipv4_header, sizeof(ipv4_header));
	mc_grh_source(grh, out, sizeof(out));
	assert_string_equal(out, "192.0.2.2");

	memset(grh, 0, sizeof(grh));
	grh[0] = 0x60;
	inet_pton(AF_INET6, "fe80::5054:ff:fec0:201", grh + 8);
	mc_grh_source(grh, out, sizeof(out));
	assert_string_equal(out, "fe80::5054:ff:fec0:201");

	memset(grh, 0, sizeof(grh));
	mc_grh_source(grh, out, sizeof(out));
	assert_string_equal(out, "(unknown header)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_behind_garbage),
		cmocka_unit_test(test_ipv4_bad_checksum),
		cmocka_unit_test(test_ipv4_no_checksum),
		cmocka_unit_test(test_ipv4_with_options),
		cmocka_unit_test(test_ipv6_grh),
		cmocka_unit_test(test_mc_source_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
