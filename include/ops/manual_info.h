/* SPDX-License-Identifier: MIT */
/*
 * rdma_lessons --manual-peer: the connection data the manual's
 * RDMA_RC_example sends instead of our QP-info message, its struct
 * cm_con_data_t, packed, in network byte order and with no header:
 *
 *   buffer address u64, rkey u32, QP number u32, LID u16, GID 16 bytes
 *
 * Its QP starts both PSNs at 0, takes one READ in flight, and its buffer
 * holds MANUAL_MSG_SIZE bytes (its MSG_SIZE: "SEND operation " and the
 * '\0'), which is all its READ and WRITE move.
 */
#ifndef OPS_MANUAL_INFO_H
#define OPS_MANUAL_INFO_H

#include <stdint.h>

#include "exchange.h"

#define MANUAL_INFO_SIZE 34
#define MANUAL_MSG_SIZE	 16

/* Write @info's address, rkey, QP number, LID and GID as the manual does. */
void manual_info_encode(const struct qp_info *info,
			uint8_t out[MANUAL_INFO_SIZE]);

/*
 * Read the manual's struct into @info, with what its QP uses and does not
 * send (PSN 0, path MTU 256, one READ in flight, RC, a buffer of
 * MANUAL_MSG_SIZE bytes), and its GID as one of the kind of @local's.
 * Returns 0, or -EINVAL with *@why: a QP number out of range, no GID (the
 * manual sends zeros without -g) where we use one, a GID of the other IP
 * version, LID 0 where we use none.
 */
int manual_info_decode(const uint8_t in[MANUAL_INFO_SIZE],
		       const struct qp_info *local, struct qp_info *info,
		       const char **why);

/*
 * The QP-info trade of connect_qp with the manual's program as the peer
 * (resources_sizes.trade_info): our data as its struct, at PSN 0 and our
 * message's address, where its READ and WRITE go; then its struct,
 * checked as manual_info_decode says. 0, or -errno after one line.
 */
int manual_trade_info(int sock, struct qp_info *local, struct qp_info *remote,
		      int timeout_ms);

#endif
