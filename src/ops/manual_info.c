// SPDX-License-Identifier: MIT
/* --manual-peer: the manual's connection data, its struct cm_con_data_t. */
#include <err.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/program.h"
#include "common/wire.h"
#include "device.h"
#include "ops/manual_info.h"
#include "resources.h"
#include "sock.h"

/* Offsets in the manual's struct cm_con_data_t (ops/manual_info.h). */
enum manual_info_offset {
	MANUAL_OFF_ADDR = 0,
	MANUAL_OFF_RKEY = 8,
	MANUAL_OFF_QP_NUM = 12,
	MANUAL_OFF_LID = 16,
	MANUAL_OFF_GID = 18,
	MANUAL_OFF_END = 34,
};

_Static_assert(MANUAL_OFF_END == MANUAL_INFO_SIZE,
	       "the manual's struct: layout and size agree");

void manual_info_encode(const struct qp_info *info,
			uint8_t out[MANUAL_INFO_SIZE])
{
	put_u64(out + MANUAL_OFF_ADDR, info->addr);
	put_u32(out + MANUAL_OFF_RKEY, info->rkey);
	put_u32(out + MANUAL_OFF_QP_NUM, info->qp_num);
	put_u16(out + MANUAL_OFF_LID, info->lid);
	memcpy(out + MANUAL_OFF_GID, info->gid, sizeof(info->gid));
}

/* The manual's GID or LID, judged by what our own side uses. */
static int check_manual_address(const struct qp_info *local,
				const struct qp_info *info, const char **why)
{
	static const uint8_t zero[sizeof(info->gid)];
	union ibv_gid ours, theirs;

	if (!(local->flags & QP_INFO_HAS_GID)) {
		if (info->lid == 0) {
			*why = "the peer sent LID 0, and without a GID its packets need a LID: is it on this fabric?";
			return -EINVAL;
		}
		return 0;
	}
	if (memcmp(info->gid, zero, sizeof(zero)) == 0) {
		*why = "the peer sent no GID (the manual's program sends zeros without -g): give it -g N, the index of its RoCE v2 GID of the address it connects with";
		return -EINVAL;
	}
	memcpy(ours.raw, local->gid, sizeof(ours.raw));
	memcpy(theirs.raw, info->gid, sizeof(theirs.raw));
	if (local->gid_type == IBV_GID_TYPE_ROCE_V2 &&
	    gid_is_ipv4_mapped(&ours) != gid_is_ipv4_mapped(&theirs)) {
		*why = "one GID is IPv4 and the other IPv6, and RoCE v2 does not route between them: give the manual's program -g N of a GID of the same IP version as ours";
		return -EINVAL;
	}
	return 0;
}

int manual_info_decode(const uint8_t in[MANUAL_INFO_SIZE],
		       const struct qp_info *local, struct qp_info *info,
		       const char **why)
{
	uint8_t ours;
	int ret;

	/* Our own message starts with one of our magic numbers; the manual's
	 * with its buffer's address, whose top bytes are zero on Linux. */
	if (program_of_magic(get_u32(in), &ours) == 0) {
		*why = "the peer runs one of this project's programs, not the manual's: drop --manual-peer, or run the manual's program there";
		return -EPROTO;
	}
	*info = (struct qp_info){
		.program = local->program,
		.addr = get_u64(in + MANUAL_OFF_ADDR),
		.len = MANUAL_MSG_SIZE,
		.rkey = get_u32(in + MANUAL_OFF_RKEY),
		.qp_num = get_u32(in + MANUAL_OFF_QP_NUM),
		.psn = 0,
		.lid = get_u16(in + MANUAL_OFF_LID),
		.transport = TRANSPORT_RC,
		.flags = local->flags & QP_INFO_HAS_GID,
		.mtu = IBV_MTU_256,
		.max_dest_rd_atomic = 1,
		.gid_type = local->gid_type,
		.sl = local->sl,
		.traffic_class = local->traffic_class,
	};
	memcpy(info->gid, in + MANUAL_OFF_GID, sizeof(info->gid));
	/* What the manual sends is what RDMA_CM's private data carries: no
	 * PSN, MTU or READ depth of its own to check. */
	ret = qp_info_check(info, QP_INFO_FROM_CM, why);
	return ret ? ret : check_manual_address(local, info, why);
}

int manual_trade_info(int sock, struct qp_info *local, struct qp_info *remote,
		      int timeout_ms)
{
	uint8_t out[MANUAL_INFO_SIZE], in[MANUAL_INFO_SIZE];
	const char *why = NULL;
	int ret;

	/* The manual's QP starts at PSN 0 and expects ours to; it reads and
	 * writes at the address sent, our message. */
	local->psn = 0;
	local->addr += offsetof(struct rc_buffer, msg);
	manual_info_encode(local, out);
	/* As the manual's sock_sync_data: write ours, then read theirs. */
	ret = sock_sync_data(sock, out, in, sizeof(out), timeout_ms);
	if (!ret)
		ret = manual_info_decode(in, local, remote, &why);
	if (ret && why)
		warnx("failed to accept the manual's program's connection data: %s (%s)",
		      why, strerror(-ret));
	return ret;
}
