// SPDX-License-Identifier: MIT
/*
 * SEND with immediate: like SEND, plus 32 bits that arrive in the
 * receiver's completion (wc.imm_data, flagged IBV_WC_WITH_IMM), not in its
 * buffer. They travel in network byte order: the receiver converts back.
 */
#include <arpa/inet.h>
#include <inttypes.h>

#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "sock.h"

#define SEND_IMM_MESSAGE "SEND with immediate"
/* Any 32-bit value; this one is easy to spot in the output. */
#define SEND_IMM_DATA 0x1234abcdu

int op_send_imm_server(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND_WITH_IMM,
		.wr_id = OP_SEND_IMM,
		.sge = op_local_msg(ctx),
		.imm_data = SEND_IMM_DATA,
	};
	int ret;

	op_set_msg(ctx, SEND_IMM_MESSAGE);
	req.sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
	ret = op_address_send(ctx, &req);
	if (ret)
		return ret;
	printf("going to send the message: '%s' with immediate data 0x%08x\n",
	       op_msg(ctx), SEND_IMM_DATA);
	ret = op_post_and_wait(ctx, &req, IBV_WC_SEND);
	if (ret)
		return ret;
	/*
	 * Every receive of the client's takes its message at the same place:
	 * send nothing more until the client has printed this one.
	 */
	return sock_sync(ctx->sock, ctx->timeout_ms);
}

int op_send_imm_client(struct op_ctx *ctx)
{
	struct ibv_wc wc;
	int ret;

	/* The receive was posted before RTR (OP_RECV_BEFORE_RTR). */
	ret = poll_completion(ctx->res->cq, ctx->timeout_ms, IBV_WC_RECV, &wc,
			      &ctx->res->trace);
	if (ret)
		return ret;
	if (!(wc.wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr,
			"failed to find immediate data in the RECV completion of wr_id %" PRIu64
			": %s\n",
			wc.wr_id, strerror(EPROTO));
		return -EPROTO;
	}
	/* UD: the 40 bytes in front of the message say who sent it. */
	if (ctx->conn->local.transport == TRANSPORT_UD &&
	    (wc.wc_flags & IBV_WC_GRH))
		ud_print_grh_source(ctx->res->buf->grh);
	printf("Message is: '%s', immediate data 0x%08x\n", op_msg(ctx),
	       ntohl(wc.imm_data));
	/* Printed: the server may send into the same place again. */
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
