// SPDX-License-Identifier: MIT
/* SEND/RECEIVE: the server sends, the client's posted receive takes it. */
#include "op_halves.h"

int op_send_server(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND,
		.wr_id = OP_SEND,
	};

	/* post_send, poll_completion, then a sync (src/ops/message.c) */
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
