// SPDX-License-Identifier: MIT
/*
 * Who sent a multicast message, as text: the GRH's source GID
 * (src/extras/grh.c), printed as the plain IPv4 address when it came in an
 * IPv4 header.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include "extras/grh.h"
#include "mc/mc_resources.h"
#include "mc/mc_xfer.h"

/* The IPv4 address is the last 4 bytes of an IPv4-mapped GID. */
#define GID_V4_OFFSET 12

_Static_assert(MC_GRH_SIZE == GRH_SIZE, "one GRH size for both programs");

void mc_grh_source(const void *grh, char *out, size_t len)
{
	const char *text = NULL;
	union ibv_gid sgid;

	switch (grh_source_gid(grh, &sgid)) {
	case GRH_HEADER_IPV4:
		text = inet_ntop(AF_INET, &sgid.raw[GID_V4_OFFSET], out,
				 (socklen_t)len);
		break;
	case GRH_HEADER_IPV6:
		text = inet_ntop(AF_INET6, sgid.raw, out, (socklen_t)len);
		break;
	case GRH_HEADER_UNKNOWN:
		snprintf(out, len, "(unknown header)");
		return;
	}
	if (!text)
		snprintf(out, len, "?");
}
