/* SPDX-License-Identifier: MIT */
/* Private to src/ops: the halves of each operation, for the table in ops.c. */
#ifndef OP_HALVES_H
#define OP_HALVES_H

#include <err.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "completion.h"
#include "operations.h"
#include "ops/ops.h"
#include "post.h"

int op_send_imm_server(struct op_ctx *ctx);
int op_send_imm_client(struct op_ctx *ctx);
int op_write_imm_server(struct op_ctx *ctx);
int op_write_imm_client(struct op_ctx *ctx);
int op_fetch_add_server(struct op_ctx *ctx);
int op_fetch_add_client(struct op_ctx *ctx);
int op_cmp_swap_server(struct op_ctx *ctx);
int op_cmp_swap_client(struct op_ctx *ctx);
int op_mw_server(struct op_ctx *ctx);
int op_mw_client(struct op_ctx *ctx);
int op_rnr_server(struct op_ctx *ctx);
int op_rnr_client(struct op_ctx *ctx);
int op_sge_server(struct op_ctx *ctx);
int op_sge_client(struct op_ctx *ctx);
int op_two_mr_server(struct op_ctx *ctx);
int op_two_mr_client(struct op_ctx *ctx);

/* The most rkeys one area is sent with (two_mr: read-only, read-write). */
#define OP_AREA_KEYS 2

/* A remote area the server opens to the client, as the client uses it. */
struct op_area {
	uint64_t addr;
	uint32_t length;
	uint32_t rkey[OP_AREA_KEYS]; /* mw: the window's in rkey[0] */
};

/* The server tells the client of @area, over the TCP connection... */
int op_send_area(struct op_ctx *ctx, const struct op_area *area);

/* ...and the client learns it. */
int op_receive_area(struct op_ctx *ctx, struct op_area *area);

/*
 * The responder refused an access (mw, two_mr): wait a little for the
 * async event it raises, say if none came, and print our QP's state.
 */
int op_show_responder_error(struct op_ctx *ctx);

/*
 * The server half both atomics share: set our counter to @start, let the
 * client work on it between two syncs, then show what it became.
 */
int op_counter_server(struct op_ctx *ctx, uint64_t start);

/*
 * An atomic (@req) on the peer's counter: post it, wait for its completion
 * of kind @expected, and give the value the counter had before in *@old.
 */
int op_atomic(struct op_ctx *ctx, const struct send_request *req,
	      enum ibv_wc_opcode expected, uint64_t *old);

/* Our 8-byte counter, as a scatter/gather element (atomics return into it). */
static inline struct ibv_sge op_local_counter(const struct op_ctx *ctx)
{
	return (struct ibv_sge){
		.addr = (uintptr_t)&ctx->res->buf->atomic_counter,
		.length = sizeof(ctx->res->buf->atomic_counter),
		.lkey = ctx->res->mr->lkey,
	};
}

/* The peer's counter: 8-byte aligned, as atomics require. */
static inline uint64_t op_remote_counter(const struct op_ctx *ctx)
{
	return ctx->conn->remote.addr +
	       offsetof(struct rc_buffer, atomic_counter);
}

/* Query our QP's state and @mask attributes into *@attr; one line on failure. */
static inline int op_query_qp(const struct op_ctx *ctx, int mask,
			      struct ibv_qp_attr *attr)
{
	struct ibv_qp_init_attr init;
	int ret = ibv_query_qp(ctx->conn->qp, attr, mask | IBV_QP_STATE, &init);

	if (ret) {
		warnx("failed to query QP 0x%06x: %s", ctx->conn->qp->qp_num,
		      strerror(ret));
		return -ret;
	}
	return 0;
}

#endif
