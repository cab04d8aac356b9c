// SPDX-License-Identifier: MIT
/* The halves that SEND and SEND with immediate share. */

#include "op_halves.h"
#include "sock.h"

/*
 * Put @text in our message area as @req's buffer, address it on UD, and
 * say what is sent.
 */
static int prepare_message(struct op_ctx *ctx, struct send_request *req,
			   const char *text)
{
	int ret;

	op_set_msg(ctx, text);
	req->sge = op_local_msg(ctx);
	/* The text and its '\0', not the whole area. */
	req->sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
	ret = op_address_send(ctx, req);
	if (ret)
		return ret;
	if (req->opcode == IBV_WR_SEND_WITH_IMM)
		printf("going to send the message: '%s' with immediate data 0x%08x\n",
		       op_msg(ctx), req->imm_data);
	else
		printf("going to send the message: '%s'\n", op_msg(ctx));
	return 0;
}

int op_send_message(struct op_ctx *ctx, struct send_request *req,
		    const char *text)
{
	int ret;

	ret = prepare_message(ctx, req, text);
	if (ret)
		return ret;
	ret = post_send(ctx->res, ctx->conn->qp, req);
	if (ret)
		return ret;
	ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, req,
			      IBV_WC_SEND, NULL);
	if (ret)
		return ret;
	/* Until the client has printed it: its next receive lands there too. */
	return sock_sync(ctx->sock, ctx->timeout_ms);
}

int op_receive_message(struct op_ctx *ctx, struct ibv_wc *wc)
{
	int ret;

	/* The receive was posted before RTR (connect_qp). */
	ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, NULL,
			      IBV_WC_RECV, wc);
	if (ret)
		return ret;
	/* UD: the 40 bytes in front of the message say who sent it. */
	if (ctx->conn->local.transport == TRANSPORT_UD &&
	    (wc->wc_flags & IBV_WC_GRH))
		ud_print_grh_source(ctx->res->buf->grh);
	return 0;
}

int op_message_printed(struct op_ctx *ctx)
{
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
