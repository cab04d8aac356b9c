// SPDX-License-Identifier: MIT
/*
 * --manual-peer: the manual's flow as the manual's own program runs it,
 * so that its program can be the peer. After the connection's sync ('Q',
 * in connect_qp) the server SENDs; both sync on 'R' once the server's
 * buffer holds the READ message; the client READs it and WRITEs its own;
 * both sync on 'W' before the server prints what arrived. Each transfer
 * is the manual's 16 bytes (MANUAL_MSG_SIZE), all its buffer holds: of a
 * longer text, the first 16 bytes and no '\0'.
 */

#include "op_halves.h"
#include "completion.h"
#include "exchange.h"
#include "ops/manual_info.h"
#include "post.h"
#include "sock.h"

/* The manual's syncs after the connection's, by the byte each sends. */
#define SYNC_READ_READY 'R'
#define SYNC_WRITTEN	'W'

/* Our message area, as much of it as the manual's buffer holds. */
static struct ibv_sge manual_sge(const struct op_ctx *ctx)
{
	struct ibv_sge sge = op_local_msg(ctx);

	sge.length = MANUAL_MSG_SIZE;
	return sge;
}

/* "@what: 'text'", of the 16 bytes that moved, up to a '\0' if any. */
static void print_moved(struct op_ctx *ctx, const char *what)
{
	printf("%s: '%.*s'\n", what, MANUAL_MSG_SIZE, ctx->res->buf->msg);
}

/* Post @req and wait for its completion, of @expected. */
static int post_and_poll(struct op_ctx *ctx, struct send_request *req,
			 enum ibv_wc_opcode expected)
{
	int ret;

	ret = post_send(ctx->res, ctx->conn->qp, req);
	if (ret)
		return ret;
	return poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, req,
			       expected, NULL);
}

int op_manual_server(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND,
		.wr_id = OP_SEND,
		.sge = manual_sge(ctx),
	};
	int ret;

	op_set_msg(ctx, SEND_MESSAGE);
	printf("going to send the message: '%s'\n", op_msg(ctx));
	ret = post_and_poll(ctx, &req, IBV_WC_SEND);
	if (ret)
		return ret;
	/* The client may read once the buffer holds the READ message... */
	op_set_msg(ctx, READ_MESSAGE);
	ret = sock_sync_token(ctx->sock, SYNC_READ_READY, ctx->timeout_ms);
	/* ...and says when it has read it and written its own. */
	if (!ret)
		ret = sock_sync_token(ctx->sock, SYNC_WRITTEN, ctx->timeout_ms);
	if (!ret)
		print_moved(ctx, "Contents of server buffer");
	return ret;
}

int op_manual_client(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_RDMA_READ,
		.wr_id = OP_READ,
		.sge = manual_sge(ctx),
		/* the manual sends the address of its message itself */
		.remote_addr = ctx->conn->remote.addr,
		.rkey = ctx->conn->remote.rkey,
	};
	int ret;

	/* The receive was posted before RTR (connect_qp). */
	ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, NULL,
			      IBV_WC_RECV, NULL);
	if (ret)
		return ret;
	print_moved(ctx, "Message is");
	ret = sock_sync_token(ctx->sock, SYNC_READ_READY, ctx->timeout_ms);
	if (!ret)
		ret = post_and_poll(ctx, &req, IBV_WC_RDMA_READ);
	if (ret)
		return ret;
	print_moved(ctx, "Contents of server's buffer");
	op_set_msg(ctx, WRITE_MESSAGE);
	print_moved(ctx, "Now replacing it with");
	req.opcode = IBV_WR_RDMA_WRITE;
	req.wr_id = OP_WRITE;
	ret = post_and_poll(ctx, &req, IBV_WC_RDMA_WRITE);
	if (ret)
		return ret;
	return sock_sync_token(ctx->sock, SYNC_WRITTEN, ctx->timeout_ms);
}
