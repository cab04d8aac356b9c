// SPDX-License-Identifier: MIT
/*
 * RDMA WRITE with immediate: the data goes where the writer says, as with
 * a plain WRITE, but the target also gets a completion, on a receive it
 * posted (IBV_WC_RECV_RDMA_WITH_IMM, with the immediate data). So the
 * target learns that the data is there without a message of its own; the
 * receive needs no buffer. The client writes, the server is the target.
 */
#include <arpa/inet.h>

#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "sock.h"

#define WRITE_IMM_MESSAGE "RDMA write with immediate"
/* Any 32-bit value, other than send_imm's so the two are not confused. */
#define WRITE_IMM_DATA 0x5678ef01u

int op_write_imm_server(struct op_ctx *ctx)
{
	struct ibv_wc wc;
	int ret;

	ret = post_receive(ctx->conn->qp, NULL, OP_WRITE_IMM, &ctx->res->trace);
	if (ret)
		return ret;
	/* The receive is posted: now the client may write. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, NULL,
			      IBV_WC_RECV_RDMA_WITH_IMM, &wc);
	if (ret)
		return ret;
	printf("RDMA write with immediate arrived: %u bytes, immediate data 0x%08x\n",
	       wc.byte_len, ntohl(wc.imm_data));
	printf("Contents of server buffer: '%s'\n", op_msg(ctx));
	return 0;
}

int op_write_imm_client(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.wr_id = OP_WRITE_IMM,
		.sge = op_local_msg(ctx),
		.remote_addr = op_remote_msg(ctx),
		.rkey = ctx->conn->remote.rkey,
		.imm_data = WRITE_IMM_DATA,
	};
	int ret;

	op_set_msg(ctx, WRITE_IMM_MESSAGE);
	req.sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
	/* Wait until the server has posted the receive this WRITE consumes. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	printf("Now writing: '%s' with immediate data 0x%08x\n", op_msg(ctx),
	       WRITE_IMM_DATA);
	/* On UC this completion means sent, not received: no ack comes. */
	ret = post_send(ctx->res, ctx->conn->qp, &req);
	if (ret)
		return ret;
	return poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, &req,
			       IBV_WC_RDMA_WRITE, NULL);
}
