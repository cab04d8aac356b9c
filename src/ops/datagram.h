/* SPDX-License-Identifier: MIT */
/*
 * What SEND and SEND with immediate do differently over UD (-c ud): a
 * datagram is one packet, and its receive starts with the GRH area.
 */
#ifndef DATAGRAM_H
#define DATAGRAM_H

#include <stddef.h>

#include <infiniband/verbs.h>

/* 0 if @len bytes fit one packet of @mtu; else -EMSGSIZE after a line. */
int ud_check_size(size_t len, enum ibv_mtu mtu);

/* The "GRH source GID: ..." line, from the receive's first 40 bytes. */
void ud_print_grh_source(const void *grh);

#endif
