// SPDX-License-Identifier: MIT
/*
 * Who sent a UD message: the 40 bytes in front of every UD receive.
 * On InfiniBand and RoCE v1, and RoCE v2 over IPv6, they are the GRH,
 * whose source GID is the sender. On RoCE v2 over IPv4 the first 20 bytes
 * are zero and the packet's IPv4 header fills the last 20.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "mc_resources.h"
#include "mc_xfer.h"

#define IPV4_HDR_SIZE	 20
#define IPV4_HDR_OFFSET	 (MC_GRH_SIZE - IPV4_HDR_SIZE)
#define IPV4_SRC_OFFSET	 12 /* saddr within the IPv4 header */
#define IP_VERSION_SHIFT 4  /* the version is the first nibble */
#define IP_VERSION_4	 4

static bool is_roce_v2_ipv4(const unsigned char *b)
{
	unsigned int i;

	for (i = 0; i < IPV4_HDR_OFFSET; i++)
		if (b[i])
			return false;
	return b[IPV4_HDR_OFFSET] >> IP_VERSION_SHIFT == IP_VERSION_4;
}

void mc_grh_source(const void *grh, char *out, size_t len)
{
	const unsigned char *b = grh;
	struct ibv_grh g;

	if (is_roce_v2_ipv4(b)) {
		if (!inet_ntop(AF_INET, b + IPV4_HDR_OFFSET + IPV4_SRC_OFFSET,
			       out, (socklen_t)len))
			snprintf(out, len, "?");
		return;
	}
	memcpy(&g, grh, sizeof(g)); /* the buffer need not be aligned */
	if (!inet_ntop(AF_INET6, g.sgid.raw, out, (socklen_t)len))
		snprintf(out, len, "?");
}
