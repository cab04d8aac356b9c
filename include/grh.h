/* SPDX-License-Identifier: MIT */
/*
 * The 40 bytes in front of every UD receive: who sent the message. Shared
 * by rdma_rc_example (-c ud) and rdma_mc_example.
 */
#ifndef GRH_H
#define GRH_H

#include <stdbool.h>

#include <infiniband/verbs.h>

/* A UD receive buffer starts with this many bytes for the GRH. */
#define GRH_SIZE 40

/*
 * The sender's GID from the GRH area @grh (GRH_SIZE bytes, any alignment).
 * On InfiniBand, RoCE v1 and RoCE v2 over IPv6 the area is the GRH and its
 * source GID is copied. On RoCE v2 over IPv4 the first 20 bytes are zero
 * and the last 20 hold the packet's IPv4 header: its source address comes
 * back as the IPv4-mapped GID ::ffff:a.b.c.d. Returns true for that layout.
 */
bool grh_source_gid(const void *grh, union ibv_gid *sgid);

#endif
