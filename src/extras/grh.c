// SPDX-License-Identifier: MIT
/*
 * Who sent a UD message: the source address in the 40 bytes in front of a
 * receive. The completion does not say which header they hold, so the
 * bytes are tested. Nothing promises what the 20 bytes in front of an
 * IPv4 header hold, so a version nibble of 6 there does not make a GRH
 * when the IPv4 header's checksum is right. Nor is the checksum always
 * filled in: rxe leaves it 0 on a packet it loops back to its own port.
 */
#include <stdint.h>
#include <string.h>

#include "extras/grh.h"

#define IPV4_HDR_SIZE	20
#define IPV4_HDR_OFFSET (GRH_SIZE - IPV4_HDR_SIZE)
#define IPV4_SRC_OFFSET 12 /* saddr within the IPv4 header */
#define IPV4_ADDR_SIZE	4
/* Version 4 and a header length of 5 32-bit words: RoCE v2 has no options. */
#define IPV4_VERSION_IHL 0x45
#define IP_VERSION_SHIFT 4 /* the version is the first nibble */
#define IP_VERSION_6	 6
#define GRH_SGID_OFFSET	 8 /* after version/class/flow, length, next, hops */
/* ::ffff:a.b.c.d: ten zero bytes, two 0xff, then the IPv4 address. */
#define GID_V4_MAPPED_PREFIX 10
#define U16_MASK	     0xffffU

/*
 * The IPv4 header checksum (RFC 791) is the one's complement of the one's
 * complement sum of the header's 16-bit words. Summed with the checksum
 * field in place, a correct header therefore adds up to 0xffff.
 */
static bool ipv4_checksum_ok(const unsigned char *h)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < IPV4_HDR_SIZE; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum > U16_MASK) /* fold the carries back in */
		sum = (sum & U16_MASK) + (sum >> 16);
	return sum == U16_MASK;
}

static bool looks_like_ipv4(const unsigned char *h)
{
	return h[0] == IPV4_VERSION_IHL;
}

static bool looks_like_grh(const unsigned char *b)
{
	return b[0] >> IP_VERSION_SHIFT == IP_VERSION_6;
}

static void ipv4_mapped_gid(const unsigned char *ipv4_addr, union ibv_gid *gid)
{
	memset(gid->raw, 0, sizeof(gid->raw));
	gid->raw[GID_V4_MAPPED_PREFIX] = 0xff;
	gid->raw[GID_V4_MAPPED_PREFIX + 1] = 0xff;
	memcpy(&gid->raw[GID_V4_MAPPED_PREFIX + 2], ipv4_addr, IPV4_ADDR_SIZE);
}

enum grh_header grh_source_gid(const void *grh, union ibv_gid *sgid)
{
	const unsigned char *b = grh;
	const unsigned char *ipv4 = b + IPV4_HDR_OFFSET;

	if (looks_like_ipv4(ipv4) &&
	    (ipv4_checksum_ok(ipv4) || !looks_like_grh(b))) {
		ipv4_mapped_gid(ipv4 + IPV4_SRC_OFFSET, sgid);
		return GRH_HEADER_IPV4;
	}
	if (looks_like_grh(b)) {
		/* byte by byte: the buffer need not be aligned */
		memcpy(sgid->raw, b + GRH_SGID_OFFSET, sizeof(sgid->raw));
		return GRH_HEADER_IPV6;
	}
	memset(sgid->raw, 0, sizeof(sgid->raw));
	return GRH_HEADER_UNKNOWN;
}
