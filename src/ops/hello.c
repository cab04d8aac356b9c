// SPDX-License-Identifier: MIT
/*
 * hello: the client SENDs to the server, which needs a receive posted for
 * each message. The client neither knows nor cares where the server takes
 * those receives from: a receive queue of the QP it made for this client,
 * or (--srq) one shared receive queue that all its clients' QPs draw on.
 * The server's half is in src/serve: it runs across all its clients.
 *
 * The server says when to send: before each message the client waits for
 * the server's go (a sync), so that the server, which has a receive for
 * one message a client a round, is never sent more than it has posted.
 */
#include <unistd.h>

#include "op_halves.h"
#include "sock.h"

int op_hello_client(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND,
		.wr_id = OP_HELLO,
		.sge = op_local_msg(ctx),
	};
	char text[RC_MSG_SIZE];
	unsigned int i;
	int ret;

	for (i = 1; i <= HELLO_MESSAGES; i++) {
		/* The server's go: its receive for this message is posted.
		 * The first comes once all its clients are in. */
		ret = sock_sync(ctx->sock,
				i == 1 ? ctx->timeout_ms + ctx->gather_ms
				       : ctx->timeout_ms);
		if (ret)
			return ret;
		snprintf(text, sizeof(text), "hello %u of %u from pid %ld", i,
			 HELLO_MESSAGES, (long)getpid());
		op_set_msg(ctx, text);
		req.sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
		printf("sending: '%s'\n", op_msg(ctx));
		ret = post_send(ctx->res, ctx->conn->qp, &req);
		if (ret)
			return ret;
		/* RC: the server's device acknowledged it, a receive took it. */
		ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock,
				      &req, IBV_WC_SEND, NULL);
		if (ret)
			return ret;
	}
	return 0;
}
