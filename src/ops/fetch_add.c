// SPDX-License-Identifier: MIT
/*
 * Atomic fetch and add: the client adds to the server's 64-bit counter and
 * gets the value from before each add back, into its own buffer. The
 * responder's adapter does the add; the server's CPU is not involved, and
 * two clients adding at once could not lose an update.
 */
#include <inttypes.h>

#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "sock.h"

/* Where the server's counter starts, and what the client adds to it. */
#define FETCH_ADD_START 1000
static const uint64_t fetch_add_amounts[] = {1, 10, 100};

#define FETCH_ADD_COUNT \
	(sizeof(fetch_add_amounts) / sizeof(fetch_add_amounts[0]))

int op_fetch_add_server(struct op_ctx *ctx)
{
	return op_counter_server(ctx, FETCH_ADD_START);
}

/* One FETCH_AND_ADD of @add; the counter's old value into *@old. */
static int fetch_add(struct op_ctx *ctx, uint64_t add, uint64_t *old)
{
	struct send_request req = {
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.wr_id = OP_FETCH_ADD,
		.sge = op_local_counter(ctx),
		.remote_addr = op_remote_counter(ctx),
		.rkey = ctx->conn->remote.rkey,
		.compare_add = add,
	};

	return op_atomic(ctx, &req, IBV_WC_FETCH_ADD, old);
}

int op_fetch_add_client(struct op_ctx *ctx)
{
	uint64_t old;
	size_t i;
	int ret;

	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	for (i = 0; i < FETCH_ADD_COUNT; i++) {
		ret = fetch_add(ctx, fetch_add_amounts[i], &old);
		if (ret)
			return ret;
		printf("fetch_add %" PRIu64 ": old value %" PRIu64 "\n",
		       fetch_add_amounts[i], old);
	}
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
