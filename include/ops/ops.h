/* SPDX-License-Identifier: MIT */
#ifndef OPS_H
#define OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "operations.h"
#include "ops/op_id.h"
#include "qp.h"
#include "resources.h"

/* The operations a run does, in order (-o). */
struct ops_list {
	enum op_id ids[OPS_MAX];
	size_t count;
};

enum op_flag {
	OP_NEEDS_RDMA_READ = 1 << 0,
	OP_NEEDS_ATOMICS = 1 << 1,
	OP_LEAVES_QP_IN_ERROR = 1 << 2,
	/* the client receives: its receive must be posted before RTR */
	OP_RECV_BEFORE_RTR = 1 << 3,
	/* a datagram fits: no remote memory, no connection (-c ud) */
	OP_RUNS_ON_UD = 1 << 4,
	/* the server binds a memory window */
	OP_NEEDS_MW = 1 << 5,
	/* relies on RC's acknowledgements (RNR NAK, remote access NAK) */
	OP_NEEDS_RC = 1 << 6,
	/* carries immediate data (iWARP's RDMAP has none) */
	OP_NEEDS_IMM = 1 << 7,
	/* the responder must NAK a SEND it has no receive for, and the
	 * sender retry it (IBV_DEVICE_RC_RNR_NAK_GEN; iWARP ends the
	 * connection instead) */
	OP_NEEDS_RNR_NAK = 1 << 8,
	/* posts work requests of up to OP_SGE_MAX SGEs (the QP is made for
	 * them, the device must allow them) */
	OP_NEEDS_SGE_LIST = 1 << 9,
	/* the writer must learn from its WRITE's completion that the
	 * responder refused it: an access NAK (iWARP has none) */
	OP_NEEDS_ACCESS_NAK = 1 << 10,
	/* it relies on the receive queue of the server's QP for the client:
	 * a receive the server posts there, or none on purpose (with --srq
	 * the QP has none: every receive comes from the shared queue) */
	OP_SERVER_RECEIVES = 1 << 11,
	/* its server half runs once for all the clients (src/serve), not
	 * client by client: the table has no server half for it */
	OP_SERVED_TOGETHER = 1 << 12,
};

/* The most SGEs an operation puts in one work request: sge's SEND. */
#define OP_SGE_MAX 3

/* One row of the operations table. */
struct op_desc {
	enum op_id id;
	const char *name;
	const char *teaches;
	unsigned int flags;
	int (*server)(struct op_ctx *ctx); /* NULL: OP_SERVED_TOGETHER */
	int (*client)(struct op_ctx *ctx);
};

/* The table, for listing; *@count rows. */
const struct op_desc *ops_table(size_t *count);
const struct op_desc *op_find(enum op_id id);
const struct op_desc *op_find_by_name(const char *name, size_t len);

/*
 * 0 if @ops (@count of them) can run in this order: an operation that
 * leaves the QP in the error state must be the last one. Otherwise
 * -EINVAL, with that operation in *@bad. Pure: unit tested.
 */
int ops_check_order(const enum op_id *ops, size_t count,
		    const struct op_desc **bad);

/* How many receives the client posts before RTR for @ops. */
size_t ops_receives_before_rtr(const struct ops_list *ops);

/*
 * Add to @needs what @ops ask of the device (atomics, memory windows,
 * immediate data, the RNR NAK, SGE lists), each named by the first
 * operation that needs it, for the line that refuses it.
 */
void ops_device_needs(const struct ops_list *ops, struct device_needs *needs);

/*
 * Before the first operation, over ctx->sock: agree with the peer on @ops
 * (ops_agree_list), then refuse, in one line, an operation that a device
 * on either side cannot do. Both sides decide alike from the QP-info
 * exchange, so both refuse the same list before anything is sent.
 */
int ops_agree(const struct ops_list *ops, const struct op_ctx *ctx);

/*
 * Send @ops to the peer on @sock and read its list, within @timeout_ms:
 * 0 if both are the same; else -EPROTO after one line naming both lists
 * (or what was wrong with the peer's message), or the socket's error.
 */
int ops_agree_list(const struct ops_list *ops, int sock, int timeout_ms);

/*
 * The list's message, both sides' the same size: count u8, then
 * OPS_MAX ids u8, those past the count zero. Pure: unit tested.
 */
#define OPS_LIST_WIRE_SIZE (1 + OPS_MAX)
void ops_list_encode(const struct ops_list *ops,
		     uint8_t out[OPS_LIST_WIRE_SIZE]);
/* 0, or -EPROTO with the reason in *@why. */
int ops_list_decode(const uint8_t in[OPS_LIST_WIRE_SIZE], struct ops_list *ops,
		    const char **why);

/* @ops as -o spells it ("send,read,write") into @text of @size bytes. */
void ops_list_format(const struct ops_list *ops, char *text, size_t size);

/* The -v line that starts operation @id, naming the half that runs. */
void ops_trace_start(const struct op_ctx *ctx, enum op_id id, bool client);

/* Run the client or the server half of operation @id through the table. */
int ops_run_lesson(struct op_ctx *ctx, enum op_id id, bool client);

/*
 * --manual-peer: the same three as the manual's own program runs them,
 * with its syncs and its 16-byte messages (src/ops/manual.c), so that it
 * can be the peer.
 */
int op_manual_server(struct op_ctx *ctx);
int op_manual_client(struct op_ctx *ctx);

/*
 * hello: each client SENDs HELLO_MESSAGES short messages, one a round;
 * before each, it waits for the server's go (a sync), so that no client
 * sends more than the server has receives for. The server's half is
 * src/serve's, across all its clients at once.
 */
#define HELLO_MESSAGES 8u
int op_hello_client(struct op_ctx *ctx);

#endif
