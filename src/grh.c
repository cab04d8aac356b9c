// SPDX-License-Identifier: MIT
/* Who sent a UD message: the source GID from the GRH area of a receive. */
#include <string.h>

#include "grh.h"

#define IPV4_HDR_SIZE	 20
#define IPV4_HDR_OFFSET	 (GRH_SIZE - IPV4_HDR_SIZE)
#define IPV4_SRC_OFFSET	 12 /* saddr within the IPv4 header */
#define IPV4_ADDR_SIZE	 4
#define IP_VERSION_SHIFT 4 /* the version is the first nibble */
#define IP_VERSION_4	 4
/* ::ffff:a.b.c.d: ten zero bytes, two 0xff, then the IPv4 address. */
#define GID_V4_MAPPED_PREFIX 10

static bool is_roce_v2_ipv4(const unsigned char *b)
{
	unsigned int i;

	for (i = 0; i < IPV4_HDR_OFFSET; i++)
		if (b[i])
			return false;
	return b[IPV4_HDR_OFFSET] >> IP_VERSION_SHIFT == IP_VERSION_4;
}

bool grh_source_gid(const void *grh, union ibv_gid *sgid)
{
	const unsigned char *b = grh;
	struct ibv_grh g;

	if (is_roce_v2_ipv4(b)) {
		memset(sgid->raw, 0, sizeof(sgid->raw));
		sgid->raw[GID_V4_MAPPED_PREFIX] = 0xff;
		sgid->raw[GID_V4_MAPPED_PREFIX + 1] = 0xff;
		memcpy(&sgid->raw[GID_V4_MAPPED_PREFIX + 2],
		       b + IPV4_HDR_OFFSET + IPV4_SRC_OFFSET, IPV4_ADDR_SIZE);
		return true;
	}
	memcpy(&g, grh, sizeof(g)); /* the buffer need not be aligned */
	*sgid = g.sgid;
	return false;
}
