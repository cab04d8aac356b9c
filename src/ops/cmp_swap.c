// SPDX-License-Identifier: MIT
/*
 * Atomic compare and swap: the server's counter is replaced by the new
 * value only if it equals the expected one; either way the client gets the
 * value it found. Run twice: once expecting the right value (swapped), then
 * expecting the same value again, which is no longer there (unchanged).
 */
#include <inttypes.h>

#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "sock.h"

/* The server's counter starts here; the two attempts. */
#define CMP_SWAP_START 42
static const struct cmp_swap_try {
	uint64_t compare;
	uint64_t swap;
} cmp_swap_tries[] = {
	{.compare = CMP_SWAP_START, .swap = 7},	 /* right: swapped */
	{.compare = CMP_SWAP_START, .swap = 99}, /* now wrong: unchanged */
};

#define CMP_SWAP_COUNT (sizeof(cmp_swap_tries) / sizeof(cmp_swap_tries[0]))

int op_cmp_swap_server(struct op_ctx *ctx)
{
	return op_counter_server(ctx, CMP_SWAP_START);
}

/* One CMP_AND_SWP; the counter's old value into *@old. */
static int cmp_swap(struct op_ctx *ctx, const struct cmp_swap_try *attempt,
		    uint64_t *old)
{
	struct send_request req = {
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.wr_id = OP_CMP_SWAP,
		.sge = op_local_counter(ctx),
		.remote_addr = op_remote_counter(ctx),
		.rkey = ctx->conn->remote.rkey,
		.compare_add = attempt->compare,
		.swap = attempt->swap,
	};

	return op_atomic(ctx, &req, IBV_WC_COMP_SWAP, old);
}

int op_cmp_swap_client(struct op_ctx *ctx)
{
	const struct cmp_swap_try *attempt;
	uint64_t old;
	size_t i;
	int ret;

	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	for (i = 0; i < CMP_SWAP_COUNT; i++) {
		attempt = &cmp_swap_tries[i];
		ret = cmp_swap(ctx, attempt, &old);
		if (ret)
			return ret;
		/* The swap happened if and only if the old value matched. */
		printf("cmp_swap expecting %" PRIu64 ", new %" PRIu64
		       ": old value %" PRIu64 ", %s\n",
		       attempt->compare, attempt->swap, old,
		       old == attempt->compare ? "swapped" : "not swapped");
	}
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
