/* SPDX-License-Identifier: MIT */
/*
 * The manual's three operations, each a server half and a client half:
 * SEND/RECEIVE, RDMA READ and RDMA WRITE, on a connected QP (and SEND on
 * UD too, for rdma_lessons -c ud). rdma_rc_example runs them in its main;
 * rdma_lessons lists them in its table of operations.
 */
#ifndef OPERATIONS_H
#define OPERATIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>

#include "post.h"
#include "qp.h"
#include "resources.h"

/* What an operation works on: made by the steps before it. */
struct op_ctx {
	struct resources *res;
	const struct connection *conn;
	int sock; /* the TCP connection, for the syncs between steps */
	int timeout_ms;
	/*
	 * A client of a server of several clients: how much longer than
	 * timeout_ms the server's first go may take, while it waits for the
	 * others (this side's --accept-timeout, meant to be the server's).
	 */
	int gather_ms;
	/* What a lesson prints of each message received (on UD, the
	 * sender's GID: ud_print_grh_source); NULL: nothing more. */
	void (*received)(const struct op_ctx *ctx, const struct ibv_wc *wc);
};

/* The wr_id of each operation's work requests: its number in -o's list. */
enum op_wr_id {
	WR_ID_SEND = 1,
	WR_ID_READ = 2,
	WR_ID_WRITE = 3,
};

/* The manual's three messages (SEND, then READ and WRITE), as ours reads. */
#define SEND_MESSAGE  "SEND operation"
#define READ_MESSAGE  "RDMA read operation"
#define WRITE_MESSAGE "RDMA write operation"

/* The server SENDs a message; the client's receive, posted before RTR,
 * takes it and the client prints it. */
int op_send_server(struct op_ctx *ctx);
int op_send_client(struct op_ctx *ctx);

/* The client RDMA READs the server's buffer; the server's CPU is idle. */
int op_read_server(struct op_ctx *ctx);
int op_read_client(struct op_ctx *ctx);

/* The client RDMA WRITEs into the server's buffer, unannounced. */
int op_write_server(struct op_ctx *ctx);
int op_write_client(struct op_ctx *ctx);

/*
 * The server's half of SEND and SEND with immediate (@req: opcode, wr_id,
 * immediate data): put @text in our message area as @req's buffer (on UD
 * addressed to the client), post it, poll for its completion, then wait
 * until the client has printed it.
 */
int op_send_message(struct op_ctx *ctx, struct send_request *req,
		    const char *text);

/*
 * The client's half up to the message: poll for the completion (@wc) of
 * the receive posted before RTR, and what ctx->received prints of it.
 */
int op_receive_message(struct op_ctx *ctx, struct ibv_wc *wc);

/*
 * The client printed the message: the server may send into the same place
 * again, as every receive of the client's takes its message there.
 */
int op_message_printed(struct op_ctx *ctx);

/*
 * On UD (rdma_lessons -c ud), where the datagram goes: the peer's address
 * handle, QP number and Q_Key. A connected QP has no address handle.
 */
static inline void op_address_send(const struct op_ctx *ctx,
				   struct send_request *req)
{
	if (!ctx->res->ah)
		return;
	req->ah = ctx->res->ah;
	req->remote_qpn = ctx->conn->remote.qp_num;
	req->remote_qkey = ctx->conn->remote_qkey;
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
