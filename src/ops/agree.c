// SPDX-License-Identifier: MIT
/*
 * Both sides run the same operations: once the QP is connected, each sends
 * its list (-o, after -c dropped what the transport cannot run) over the
 * TCP socket and compares it with the peer's; then both refuse what a
 * device on either side cannot do. The QP-info message says nothing of
 * operations: they are this program's, not the steps'.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops.h"
#include "sock.h"

void ops_list_encode(const struct ops_list *ops,
		     uint8_t out[OPS_LIST_WIRE_SIZE])
{
	size_t i;

	memset(out, 0, OPS_LIST_WIRE_SIZE);
	out[0] = (uint8_t)ops->count;
	for (i = 0; i < ops->count && i < OPS_MAX; i++)
		out[1 + i] = (uint8_t)ops->ids[i];
}

int ops_list_decode(const uint8_t in[OPS_LIST_WIRE_SIZE], struct ops_list *ops,
		    const char **why)
{
	size_t i;

	*ops = (struct ops_list){.count = in[0]};
	if (ops->count == 0 || ops->count > OPS_MAX) {
		*why = "operation count out of range";
		return -EPROTO;
	}
	for (i = 0; i < OPS_MAX; i++) {
		uint8_t id = in[1 + i];

		if (i >= ops->count && id != 0) {
			*why = "operation id past the operation count";
			return -EPROTO;
		}
		if (i < ops->count && !op_find((enum op_id)id)) {
			*why = "unknown operation id";
			return -EPROTO;
		}
		if (i < ops->count)
			ops->ids[i] = (enum op_id)id;
	}
	return 0;
}

void ops_list_format(const struct ops_list *ops, char *text, size_t size)
{
	size_t i, used = 0;

	if (size)
		text[0] = '\0';
	for (i = 0; i < ops->count && used < size; i++) {
		const struct op_desc *op = op_find(ops->ids[i]);
		int n = snprintf(text + used, size - used, "%s%s", i ? "," : "",
				 op ? op->name : "?");

		if (n < 0)
			return;
		used += (size_t)n;
	}
}

/* The longest list as text: OPS_MAX names and their commas. */
#define OPS_TEXT_MAX (OPS_MAX * 12)

int ops_agree_list(const struct ops_list *ops, int sock, int timeout_ms)
{
	uint8_t mine[OPS_LIST_WIRE_SIZE], theirs[OPS_LIST_WIRE_SIZE];
	char here[OPS_TEXT_MAX], there[OPS_TEXT_MAX];
	struct ops_list peer;
	const char *why = NULL;
	int ret;

	ops_list_encode(ops, mine);
	ret = sock_sync_data(sock, mine, theirs, sizeof(mine), timeout_ms);
	if (ret)
		return ret;
	if (ops_list_decode(theirs, &peer, &why)) {
		warnx("failed to agree with the peer on the operations: %s (%s)",
		      why, strerror(EPROTO));
		return -EPROTO;
	}
	if (memcmp(mine, theirs, sizeof(mine)) == 0)
		return 0;
	ops_list_format(ops, here, sizeof(here));
	ops_list_format(&peer, there, sizeof(there));
	warnx("failed to agree with the peer on the operations: it runs -o %s, this side -o %s; give both the same -o and -c",
	      there, here);
	return -EPROTO;
}

/* Refuse one operation the transport or a device cannot do, in one line. */
static int refuse(const struct op_desc *op, const char *why)
{
	warnx("failed to run operation %s: %s (%s)", op->name, why,
	      strerror(EOPNOTSUPP));
	return -EOPNOTSUPP;
}

/*
 * Both sides decide alike from what both devices said in the QP-info
 * exchange, so both refuse the same list before anything is sent.
 */
static int check_supported(const struct op_desc *op, const struct op_ctx *ctx)
{
	const struct qp_info *local = &ctx->conn->local;
	const struct qp_info *remote = &ctx->conn->remote;
	unsigned int both = local->flags & remote->flags;

	if ((op->flags & OP_NEEDS_ATOMICS) && !(both & QP_INFO_HAS_ATOMICS))
		return refuse(op, "a device has no remote atomics");
	if ((op->flags & OP_NEEDS_MW) && !(both & QP_INFO_HAS_MW))
		return refuse(op, "a device has no memory windows");
	return 0;
}

int ops_agree(const struct ops_list *ops, const struct op_ctx *ctx)
{
	size_t i;
	int ret;

	ret = ops_agree_list(ops, ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	for (i = 0; i < ops->count; i++) {
		const struct op_desc *op = op_find(ops->ids[i]);

		if (!op)
			return -EINVAL;
		ret = check_supported(op, ctx);
		if (ret)
			return ret;
	}
	return 0;
}
