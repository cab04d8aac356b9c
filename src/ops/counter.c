// SPDX-License-Identifier: MIT
/* What both atomics share: the server's counter, the client's one try. */
#include <inttypes.h>
#include <stdio.h>

#include "op_halves.h"
#include "sock.h"

int op_counter_server(struct op_ctx *ctx, uint64_t start)
{
	int ret;

	ctx->res->buf->atomic_counter = start;
	printf("Counter on the server starts at %" PRIu64 "\n", start);
	/* The counter is set: the client may work on it. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	/* The client is done: every atomic has completed. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	printf("Counter on the server is now %" PRIu64 "\n",
	       ctx->res->buf->atomic_counter);
	return 0;
}

int op_atomic(struct op_ctx *ctx, const struct send_request *req,
	      enum ibv_wc_opcode expected, uint64_t *old)
{
	int ret = post_send(ctx->res, ctx->conn->qp, req);

	if (!ret)
		ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, req,
				      expected, NULL);
	if (ret)
		return ret;
	*old = ctx->res->buf->atomic_counter;
	return 0;
}
