// SPDX-License-Identifier: MIT
/* RDMA WRITE: the client writes into the server's buffer, unannounced. */
#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "sock.h"

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
		.wr_id = OP_WRITE,
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
