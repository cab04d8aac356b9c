/* SPDX-License-Identifier: MIT */
#ifndef OPS_H
#define OPS_H

#include <stddef.h>

#include "config.h"
#include "op_id.h"
#include "qp.h"
#include "resources.h"

/* What an operation sees: the connected QP, both buffers, the TCP socket. */
struct op_ctx {
	struct resources *res;
	const struct connection *conn;
	int sock;
	int timeout_ms;
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
};

/* One row of the operations table. */
struct op_desc {
	enum op_id id;
	const char *name;
	const char *teaches;
	unsigned int flags;
	int (*server)(struct op_ctx *ctx);
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

/* How many receives the client posts before RTR for @cfg's operations. */
size_t ops_receives_before_rtr(const struct config *cfg);

/*
 * Add to @needs what @cfg's operations ask of the device (atomics, memory
 * windows, immediate data, the RNR NAK), each named by the first
 * operation that needs it, for the line that refuses it.
 */
void ops_device_needs(const struct config *cfg, struct device_needs *needs);

/* Run @cfg's operations in order, the server or the client half of each. */
int ops_run(const struct config *cfg, struct op_ctx *ctx);

#endif
