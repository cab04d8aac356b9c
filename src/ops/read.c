// SPDX-License-Identifier: MIT
/* RDMA READ: the client reads the server's buffer; the server's CPU is idle. */
#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "sock.h"

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
		.wr_id = OP_READ,
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
