// SPDX-License-Identifier: MIT
/* The operations table: adding an operation is one file and one row here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "extras/device_lessons.h"
#include "op_halves.h"

static const struct op_desc op_table[] = {
	{
		.id = OP_SEND,
		.name = "send",
		.teaches =
			"SEND/RECEIVE: the receiver must have a receive posted",
		.flags = OP_RECV_BEFORE_RTR | OP_RUNS_ON_UD,
		.server = op_send_server,
		.client = op_send_client,
	},
	{
		.id = OP_READ,
		.name = "read",
		.teaches =
			"RDMA READ: fetch the peer's memory, its CPU is not involved",
		.flags = OP_NEEDS_RDMA_READ,
		.server = op_read_server,
		.client = op_read_client,
	},
	{
		.id = OP_WRITE,
		.name = "write",
		.teaches =
			"RDMA WRITE: place data in the peer's memory, no completion there",
		.flags = 0,
		.server = op_write_server,
		.client = op_write_client,
	},
	{
		.id = OP_SEND_IMM,
		.name = "send_imm",
		.teaches =
			"SEND with immediate: 32 bits of data in the receiver's completion",
		.flags = OP_RECV_BEFORE_RTR | OP_RUNS_ON_UD | OP_NEEDS_IMM,
		.server = op_send_imm_server,
		.client = op_send_imm_client,
	},
	{
		.id = OP_WRITE_IMM,
		.name = "write_imm",
		.teaches =
			"RDMA WRITE with immediate: a WRITE that consumes a receive there",
		.flags = OP_NEEDS_IMM | OP_SERVER_RECEIVES,
		.server = op_write_imm_server,
		.client = op_write_imm_client,
	},
	{
		.id = OP_FETCH_ADD,
		.name = "fetch_add",
		.teaches =
			"atomic fetch and add on the peer's 64-bit counter, old value back",
		.flags = OP_NEEDS_ATOMICS | OP_NEEDS_RC,
		.server = op_fetch_add_server,
		.client = op_fetch_add_client,
	},
	{
		.id = OP_CMP_SWAP,
		.name = "cmp_swap",
		.teaches =
			"atomic compare and swap: swaps only if the counter is as expected",
		.flags = OP_NEEDS_ATOMICS | OP_NEEDS_RC,
		.server = op_cmp_swap_server,
		.client = op_cmp_swap_client,
	},
	{
		.id = OP_MW,
		.name = "mw",
		.teaches =
			"memory window: remote access granted, then revoked (access error)",
		.flags = OP_NEEDS_MW | OP_NEEDS_RC | OP_LEAVES_QP_IN_ERROR,
		.server = op_mw_server,
		.client = op_mw_client,
	},
	{
		.id = OP_RNR,
		.name = "rnr",
		.teaches =
			"receiver not ready: a SEND with no receive posted is NAKed, retried",
		.flags = OP_NEEDS_RC | OP_NEEDS_RNR_NAK |
			 OP_LEAVES_QP_IN_ERROR | OP_SERVER_RECEIVES,
		.server = op_rnr_server,
		.client = op_rnr_client,
	},
	{
		.id = OP_SGE,
		.name = "sge",
		.teaches =
			"scatter/gather: one SEND gathered from 3 SGEs, scattered into 2",
		.flags = OP_NEEDS_SGE_LIST | OP_SERVER_RECEIVES,
		.server = op_sge_server,
		.client = op_sge_client,
	},
	{
		.id = OP_TWO_MR,
		.name = "two_mr",
		.teaches =
			"one buffer registered twice: a read-only rkey refuses a WRITE",
		.flags = OP_NEEDS_RDMA_READ | OP_NEEDS_RC |
			 OP_NEEDS_ACCESS_NAK | OP_LEAVES_QP_IN_ERROR,
		.server = op_two_mr_server,
		.client = op_two_mr_client,
	},
	{
		.id = OP_HELLO,
		.name = "hello",
		.teaches =
			"clients SEND 8 messages; a server may take them from one SRQ",
		.flags = OP_SERVED_TOGETHER,
		.server = NULL,
		.client = op_hello_client,
	},
};

#define OP_TABLE_SIZE (sizeof(op_table) / sizeof(op_table[0]))

const struct op_desc *ops_table(size_t *count)
{
	*count = OP_TABLE_SIZE;
	return op_table;
}

const struct op_desc *op_find(enum op_id id)
{
	size_t i;

	for (i = 0; i < OP_TABLE_SIZE; i++)
		if (op_table[i].id == id)
			return &op_table[i];
	return NULL;
}

const struct op_desc *op_find_by_name(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < OP_TABLE_SIZE; i++)
		if (strlen(op_table[i].name) == len &&
		    strncmp(op_table[i].name, name, len) == 0)
			return &op_table[i];
	return NULL;
}

int ops_check_order(const enum op_id *ops, size_t count,
		    const struct op_desc **bad)
{
	size_t i;

	/* The last one may leave the QP in error: nothing runs after it. */
	for (i = 0; i + 1 < count; i++) {
		const struct op_desc *op = op_find(ops[i]);

		if (op && (op->flags & OP_LEAVES_QP_IN_ERROR)) {
			*bad = op;
			return -EINVAL;
		}
	}
	return 0;
}

/* A client posts at most one receive per operation before RTR. */
_Static_assert(OPS_MAX <= RESOURCES_RECV_WR,
	       "a QP's receive queue holds the early receives of any list");

size_t ops_receives_before_rtr(const struct ops_list *ops)
{
	size_t i, count = 0;

	for (i = 0; i < ops->count; i++) {
		const struct op_desc *op = op_find(ops->ids[i]);

		if (op && (op->flags & OP_RECV_BEFORE_RTR))
			count++;
	}
	return count;
}

/* Name @op in @field of the needs if it has @flag. */
static void need_if(const struct op_desc *op, unsigned int flag,
		    char field[DEVICE_LESSON_MAX])
{
	char lesson[DEVICE_LESSON_MAX];

	if (!(op->flags & flag))
		return;
	snprintf(lesson, sizeof(lesson), "operation %s", op->name);
	device_needs_add(field, lesson);
}

void ops_device_needs(const struct ops_list *ops, struct device_needs *needs)
{
	size_t i;

	needs->refuse = device_lesson_refusal;
	for (i = 0; i < ops->count; i++) {
		const struct op_desc *op = op_find(ops->ids[i]);

		if (!op)
			continue;
		need_if(op, OP_NEEDS_ATOMICS, needs->atomics);
		need_if(op, OP_NEEDS_RDMA_READ | OP_NEEDS_ATOMICS,
			needs->rd_atomic);
		need_if(op, OP_NEEDS_MW, needs->mw);
		need_if(op, OP_NEEDS_IMM, needs->immediate);
		need_if(op, OP_NEEDS_RNR_NAK, needs->rnr_nak);
		need_if(op, OP_NEEDS_ACCESS_NAK, needs->access_nak);
		need_if(op, OP_NEEDS_SGE_LIST, needs->sge_list);
		if (op->flags & OP_NEEDS_SGE_LIST)
			needs->max_sge = OP_SGE_MAX;
	}
}

void ops_trace_start(const struct op_ctx *ctx, enum op_id id, bool client)
{
	const struct op_desc *op = op_find(id);

	trace_step(&ctx->res->trace, "operation %s (%s half)",
		   op ? op->name : "?", client ? "client" : "server");
}

int ops_run_lesson(struct op_ctx *ctx, enum op_id id, bool client)
{
	const struct op_desc *op = op_find(id);

	if (!op || (!client && !op->server))
		return -EINVAL;
	return client ? op->client(ctx) : op->server(ctx);
}
