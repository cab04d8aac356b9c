/* SPDX-License-Identifier: MIT */
/* Private to src/ops: the halves of each operation, for the table in ops.c. */
#ifndef OP_HALVES_H
#define OP_HALVES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ops.h"
#include "post.h"
#include "ud.h"

int op_send_server(struct op_ctx *ctx);
int op_send_client(struct op_ctx *ctx);
int op_read_server(struct op_ctx *ctx);
int op_read_client(struct op_ctx *ctx);
int op_write_server(struct op_ctx *ctx);
int op_write_client(struct op_ctx *ctx);

/*
 * On UD, address the send (AH, remote QPN, Q_Key) and check that it fits
 * one packet; on a connected QP, nothing to do.
 */
static inline int op_address_send(const struct op_ctx *ctx,
				  struct send_request *req)
{
	if (ctx->conn->local.transport != TRANSPORT_UD)
		return 0;
	req->ah = ctx->res->ah;
	req->remote_qpn = ctx->conn->remote.qp_num;
	req->remote_qkey = UD_QKEY;
	return ud_check_size(req->sge.length, ctx->res->mtu);
}

/* Our message area, as a scatter/gather element. */
static inline struct ibv_sge op_local_msg(const struct op_ctx *ctx)
{
	return (struct ibv_sge){
		.addr = (uintptr_t)ctx->res->buf->msg,
		.length = sizeof(ctx->res->buf->msg),
		.lkey = ctx->res->mr->lkey,
	};
}

/* The peer's message area: its buffer starts with struct rc_buffer. */
static inline uint64_t op_remote_msg(const struct op_ctx *ctx)
{
	return ctx->conn->remote.addr + offsetof(struct rc_buffer, msg);
}

/* Put @text in our message area, always '\0'-terminated. */
static inline void op_set_msg(struct op_ctx *ctx, const char *text)
{
	snprintf(ctx->res->buf->msg, sizeof(ctx->res->buf->msg), "%s", text);
}

/* Our message area as a printable string, however the peer filled it. */
static inline const char *op_msg(struct op_ctx *ctx)
{
	ctx->res->buf->msg[sizeof(ctx->res->buf->msg) - 1] = '\0';
	return ctx->res->buf->msg;
}

#endif
