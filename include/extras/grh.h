/* SPDX-License-Identifier: MIT */
/*
 * The 40 bytes in front of every UD receive: who sent the message. Shared
 * by rdma_rc_example (-c ud) and rdma_mc_example.
 */
#ifndef GRH_H
#define GRH_H

#include <stdbool.h>

#include <infiniband/verbs.h>

/*
 * A UD receive buffer starts with this many bytes for the GRH, on every
 * link layer; the payload lands after them.
 */
#define GRH_SIZE 40

/* What the 40 bytes turned out to hold. */
enum grh_header {
	GRH_HEADER_UNKNOWN, /* neither header below: no source to read */
	GRH_HEADER_IPV6,    /* a GRH, or RoCE v2's IPv6 header: one layout */
	GRH_HEADER_IPV4,    /* RoCE v2 over IPv4: an IPv4 header at byte 20 */
};

/*
 * The sender's GID from the GRH area @grh (GRH_SIZE bytes, any alignment),
 * for a completion with IBV_WC_GRH set. RoCE v2 over IPv4 puts an IPv4
 * header in the last 20 bytes and nothing defined in the first 20; a GRH
 * or an IPv6 header (InfiniBand, RoCE v1, RoCE v2 over IPv6) starts with
 * version 6 in its first 4 bits. So the area is:
 *  - IPv4 when its last 20 bytes are a valid IPv4 header: version 4, no
 *    options, correct header checksum;
 *  - else a GRH when its first 4 bits are 6: the source GID is copied;
 *  - else IPv4 when the last 20 bytes start as that header (rxe leaves the
 *    checksum 0 on a packet looped back to its own port);
 *  - else unknown: *@sgid zeroed.
 * IPv4's source address comes back as the IPv4-mapped GID ::ffff:a.b.c.d.
 */
enum grh_header grh_source_gid(const void *grh, union ibv_gid *sgid);

#endif
