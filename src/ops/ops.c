// SPDX-License-Identifier: MIT
/* The operations table: adding an operation is one file and one row here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

size_t ops_receives_before_rtr(const struct config *cfg)
{
	size_t i, count = 0;

	for (i = 0; i < cfg->op_count; i++) {
		const struct op_desc *op = op_find(cfg->ops[i]);

		if (op && (op->flags & OP_RECV_BEFORE_RTR))
			count++;
	}
	return count;
}

/* Refuse what the device cannot do before anything is sent. */
static int check_supported(const struct op_desc *op, struct op_ctx *ctx)
{
	if ((op->flags & OP_NEEDS_ATOMICS) &&
	    (!resources_have_atomics(ctx->res) ||
	     !(ctx->conn->remote.flags & QP_INFO_HAS_ATOMICS))) {
		fprintf(stderr, "failed to run operation %s: %s\n", op->name,
			strerror(EOPNOTSUPP));
		return -EOPNOTSUPP;
	}
	return 0;
}

int ops_run(const struct config *cfg, struct op_ctx *ctx)
{
	size_t i;
	int ret;

	for (i = 0; i < cfg->op_count; i++) {
		const struct op_desc *op = op_find(cfg->ops[i]);

		if (!op)
			return -EINVAL;
		ret = check_supported(op, ctx);
		if (ret)
			return ret;
		trace_step(&ctx->res->trace, "operation %s (%s half)", op->name,
			   cfg->server_name ? "client" : "server");
		ret = cfg->server_name ? op->client(ctx) : op->server(ctx);
		if (ret)
			return ret;
	}
	return 0;
}
