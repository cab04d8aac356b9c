// SPDX-License-Identifier: MIT
/*
 * The manual's three operations: the server SENDs a message, the client
 * RDMA READs the server's buffer and RDMA WRITEs a new text into it. Each
 * side posts with post_send, polls with poll_completion, and syncs over
 * the TCP connection where the other side must wait.
 */
#include <err.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/trace.h"
#include "completion.h"
#include "operations.h"
#include "post.h"
#include "sock.h"

/*
 * Put @text in our message area as @req's buffer, address it on UD, and
 * say what is sent.
 */
static void prepare_message(struct op_ctx *ctx, struct send_request *req,
			    const char *text)
{
	op_set_msg(ctx, text);
	req->sge = op_local_msg(ctx);
	/* The text and its '\0', not the whole area. */
	req->sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
	op_address_send(ctx, req);
	if (req->opcode == IBV_WR_SEND_WITH_IMM)
		printf("going to send the message: '%s' with immediate data 0x%08x\n",
		       op_msg(ctx), req->imm_data);
	else
		printf("going to send the message: '%s'\n", op_msg(ctx));
}

int op_send_message(struct op_ctx *ctx, struct send_request *req,
		    const char *text)
{
	int ret;

	prepare_message(ctx, req, text);
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
	if (ctx->received) /* rdma_lessons -c ud: who sent it */
		ctx->received(ctx, wc);
	return 0;
}

int op_message_printed(struct op_ctx *ctx)
{
	return sock_sync(ctx->sock, ctx->timeout_ms);
}

int op_send_server(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND,
		.wr_id = WR_ID_SEND,
	};

	/* post_send, poll_completion, then a sync (op_send_message) */
	return op_send_message(ctx, &req, SEND_MESSAGE);
}

int op_send_client(struct op_ctx *ctx)
{
	struct ibv_wc wc;
	int ret;

	ret = op_receive_message(ctx, &wc);
	if (ret)
		return ret;
	printf("Message is: '%s'\n", op_msg(ctx));
	return op_message_printed(ctx);
}

int op_read_server(struct op_ctx *ctx)
{
	int ret;

	op_set_msg(ctx, READ_MESSAGE);
	/* Tell the client the buffer is ready to be read... */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	/* ...and keep it unchanged until the client has read it. */
	return sock_sync(ctx->sock, ctx->timeout_ms);
}

int op_read_client(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_RDMA_READ,
		.wr_id = WR_ID_READ,
		.sge = op_local_msg(ctx),
		.remote_addr = op_remote_msg(ctx),
		.rkey = ctx->conn->remote.rkey,
	};
	int ret;

	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	ret = post_send(ctx->res, ctx->conn->qp, &req);
	if (ret)
		return ret;
	ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, &req,
			      IBV_WC_RDMA_READ, NULL);
	if (ret)
		return ret;
	printf("Contents of server's buffer: '%s'\n", op_msg(ctx));
	return sock_sync(ctx->sock, ctx->timeout_ms);
}

int op_write_server(struct op_ctx *ctx)
{
	int ret;

	/*
	 * An RDMA WRITE consumes no receive, so it makes no completion here:
	 * the client says when its own completed. On RC that completion
	 * means we acknowledged the data. On UC nothing is acknowledged: it
	 * means only that the packets left the client, and a lost one leaves
	 * our bytes as they were without anyone hearing of it. Only a
	 * completion on this side proves arrival: write_imm's receive.
	 */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	printf("Contents of server buffer: '%s'\n", op_msg(ctx));
	return 0;
}

int op_write_client(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_RDMA_WRITE,
		.wr_id = WR_ID_WRITE,
		.sge = op_local_msg(ctx),
		.remote_addr = op_remote_msg(ctx),
		.rkey = ctx->conn->remote.rkey,
	};
	int ret;

	op_set_msg(ctx, WRITE_MESSAGE);
	printf("Now replacing it with: '%s'\n", op_msg(ctx));
	ret = post_send(ctx->res, ctx->conn->qp, &req);
	if (ret)
		return ret;
	ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, &req,
			      IBV_WC_RDMA_WRITE, NULL);
	if (ret)
		return ret;
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
