// SPDX-License-Identifier: MIT
/*
 * -R: what RDMA_CM's connect request and reply carry for us, the buffer
 * address and rkey, in network byte order (see cm.h).
 */
#include <errno.h>
#include <string.h>

#include "cm/cm.h"
#include "common/wire.h"
#include "exchange.h"

_Static_assert(CM_PRIV_SIZE <= CM_REQ_PRIVATE_DATA_MAX,
	       "the private data fits an RDMA_CM connect request");

/* Byte offsets of the private data's fields (see cm.h). */
enum cm_priv_offset {
	PRIV_MAGIC = 0,
	PRIV_VERSION = 4,
	PRIV_TRANSPORT = 5,
	PRIV_FLAGS = 6,
	PRIV_ADDR = 8, /* byte 7 is zero */
	PRIV_LEN = 16,
	PRIV_RKEY = 20,
	PRIV_QPN = 24,
	PRIV_SYNC_PORT = 28,
	PRIV_END = 30,
};
_Static_assert(PRIV_END == CM_PRIV_SIZE, "private data layout and size");

void cm_priv_encode(const struct qp_info *info, uint8_t out[CM_PRIV_SIZE])
{
	memset(out, 0, CM_PRIV_SIZE);
	put_u32(out + PRIV_MAGIC,
		program_magic((enum program_id)info->program));
	out[PRIV_VERSION] = CM_PRIV_VERSION;
	out[PRIV_TRANSPORT] = info->transport;
	out[PRIV_FLAGS] = info->flags;
	put_u64(out + PRIV_ADDR, info->addr);
	put_u32(out + PRIV_LEN, info->len);
	put_u32(out + PRIV_RKEY, info->rkey);
	put_u32(out + PRIV_QPN, info->qp_num);
	put_u16(out + PRIV_SYNC_PORT, info->sync_port);
}

int cm_priv_decode(const uint8_t *buf, size_t len, struct qp_info *info,
		   const char **why)
{
	uint8_t program;

	if (!buf || len < CM_PRIV_SIZE) {
		*why = "private data too short";
		return -EPROTO;
	}
	if (program_of_magic(get_u32(buf + PRIV_MAGIC), &program)) {
		*why = "private data of none of this project's programs";
		return -EPROTO;
	}
	if (buf[PRIV_VERSION] != CM_PRIV_VERSION) {
		*why = "private data of another version";
		return -EPROTO;
	}
	*info = (struct qp_info){
		.program = program,
		.addr = get_u64(buf + PRIV_ADDR),
		.len = get_u32(buf + PRIV_LEN),
		.rkey = get_u32(buf + PRIV_RKEY),
		.transport = buf[PRIV_TRANSPORT],
		.flags = buf[PRIV_FLAGS],
		.qp_num = get_u32(buf + PRIV_QPN),
		.sync_port = get_u16(buf + PRIV_SYNC_PORT),
	};
	/* The TCP message's checks, of the fields this one carries. */
	if (qp_info_check(info, QP_INFO_FROM_CM, why))
		return -EPROTO; /* cm.h: every refusal of the private data */
	return 0;
}
