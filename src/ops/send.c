// SPDX-License-Identifier: MIT
/* SEND/RECEIVE: the server sends, the client's posted receive takes it. */
#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "sock.h"

#define SEND_MESSAGE "SEND operation"

int op_send_server(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND,
		.wr_id = OP_SEND,
		.sge = op_local_msg(ctx),
	};
	int ret;

	op_set_msg(ctx, SEND_MESSAGE);
	/* The text and its '\0', not the whole area. */
	req.sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
	ret = op_address_send(ctx, &req);
	if (ret)
		return ret;
	printf("going to send the message: '%s'\n", op_msg(ctx));
	ret = op_post_and_wait(ctx, &req, IBV_WC_SEND);
	if (ret)
		return ret;
	/*
	 * Every receive of the client's takes its message at the same place:
	 * send nothing more until the client has printed this one.
	 */
	return sock_sync(ctx->sock, ctx->timeout_ms);
}

int op_send_client(struct op_ctx *ctx)
{
	struct ibv_wc wc;
	int ret;

	/* The receive was posted before RTR (OP_RECV_BEFORE_RTR). */
	ret = poll_completion(ctx->res->cq, ctx->timeout_ms, IBV_WC_RECV, &wc,
			      &ctx->res->trace);
	if (ret)
		return ret;
	/* UD: the 40 bytes in front of the message say who sent it. */
	if (ctx->conn->local.transport == TRANSPORT_UD &&
	    (wc.wc_flags & IBV_WC_GRH))
		ud_print_grh_source(ctx->res->buf->grh);
	printf("Message is: '%s'\n", op_msg(ctx));
	/* Printed: the server may send into the same place again. */
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
