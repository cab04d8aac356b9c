// SPDX-License-Identifier: MIT
/*
 * SEND with immediate: like SEND, plus 32 bits that arrive in the
 * receiver's completion (wc.imm_data, flagged IBV_WC_WITH_IMM), not in its
 * buffer. They travel in network byte order: the receiver converts back.
 */
#include <err.h>
#include <arpa/inet.h>
#include <inttypes.h>

#include "op_halves.h"
#include "sock.h"

#define SEND_IMM_MESSAGE "SEND with immediate"
/* Any 32-bit value; this one is easy to spot in the output. */
#define SEND_IMM_DATA 0x1234abcdu

int op_send_imm_server(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND_WITH_IMM,
		.wr_id = OP_SEND_IMM,
		.imm_data = SEND_IMM_DATA,
	};

	return op_send_message(ctx, &req, SEND_IMM_MESSAGE);
}

int op_send_imm_client(struct op_ctx *ctx)
{
	struct ibv_wc wc;
	int ret;

	ret = op_receive_message(ctx, &wc);
	if (ret)
		return ret;
	if (!(wc.wc_flags & IBV_WC_WITH_IMM)) {
		warnx("failed to find immediate data in the RECV completion of wr_id %" PRIu64
		      ": %s",
		      wc.wr_id, strerror(EPROTO));
		return -EPROTO;
	}
	printf("Message is: '%s', immediate data 0x%08x\n", op_msg(ctx),
	       ntohl(wc.imm_data));
	return op_message_printed(ctx);
}
