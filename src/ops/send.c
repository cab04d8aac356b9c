// SPDX-License-Identifier: MIT
/* SEND/RECEIVE: the server sends, the client's posted receive takes it. */
#include "op_halves.h"
#include "sock.h"

#define SEND_MESSAGE "SEND operation"

int op_send_server(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND,
		.wr_id = OP_SEND,
	};
	int ret;

	ret = op_prepare_message(ctx, &req, SEND_MESSAGE);
	if (ret)
		return ret;
	ret = post_send(ctx->conn->qp, &req, &ctx->res->trace);
	if (ret)
		return ret;
	ret = poll_completion(ctx->res->cq, ctx->timeout_ms, &req, IBV_WC_SEND,
			      NULL, &ctx->res->trace);
	if (ret)
		return ret;
	/* Until the client has printed it: its next receive lands there too. */
	return sock_sync(ctx->sock, ctx->timeout_ms);
}

int op_send_client(struct op_ctx *ctx)
{
	struct ibv_wc wc;
	int ret;

	/* The receive was posted before RTR (connect_qp). */
	ret = poll_completion(ctx->res->cq, ctx->timeout_ms, NULL, IBV_WC_RECV,
			      &wc, &ctx->res->trace);
	if (ret)
		return ret;
	op_show_sender(ctx, &wc);
	printf("Message is: '%s'\n", op_msg(ctx));
	return op_message_printed(ctx);
}
