// SPDX-License-Identifier: MIT
/*
 * A remote area the server opens to the client for one lesson (mw: a
 * memory window; two_mr: one buffer under two registrations): where it
 * is, how long, and its rkeys, sent over the TCP connection.
 */
#include <endian.h>

#include "op_halves.h"
#include "sock.h"

/* The area on the wire: network byte order, no holes. */
struct area_wire {
	uint64_t addr;
	uint32_t length;
	uint32_t rkey[OP_AREA_KEYS];
};

int op_send_area(struct op_ctx *ctx, const struct op_area *area)
{
	struct area_wire out =
				 {
					 .addr = htobe64(area->addr),
					 .length = htobe32(area->length),
				 },
			 in;
	size_t i;

	for (i = 0; i < OP_AREA_KEYS; i++)
		out.rkey[i] = htobe32(area->rkey[i]);
	return sock_sync_data(ctx->sock, &out, &in, sizeof(out),
			      ctx->timeout_ms);
}

int op_receive_area(struct op_ctx *ctx, struct op_area *area)
{
	struct area_wire in, out = {0};
	size_t i;
	int ret;

	ret = sock_sync_data(ctx->sock, &out, &in, sizeof(in), ctx->timeout_ms);
	if (ret)
		return ret;
	area->addr = be64toh(in.addr);
	area->length = be32toh(in.length);
	for (i = 0; i < OP_AREA_KEYS; i++)
		area->rkey[i] = be32toh(in.rkey[i]);
	return 0;
}
