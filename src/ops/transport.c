// SPDX-License-Identifier: MIT
/* Which operations each transport can run; the choice of -c and --ops. */
#include <errno.h>
#include <string.h>

#include "ops/transport.h"

int transport_parse(const char *text, enum transport *transport)
{
	if (strcmp(text, "rc") == 0)
		*transport = TRANSPORT_RC;
	else if (strcmp(text, "uc") == 0)
		*transport = TRANSPORT_UC;
	else if (strcmp(text, "ud") == 0)
		*transport = TRANSPORT_UD;
	else
		return -EINVAL;
	return 0;
}

/* The transport as -c spells it. */
static const char *option_value(enum transport transport)
{
	switch (transport) {
	case TRANSPORT_RC:
		return "rc";
	case TRANSPORT_UC:
		return "uc";
	case TRANSPORT_UD:
		return "ud";
	}
	return "?";
}

const char *transport_refusal(enum transport transport,
			      const struct op_desc *op)
{
	switch (transport) {
	case TRANSPORT_RC:
		return NULL;
	case TRANSPORT_UC:
		/* UC has no responder resources: nothing comes back. */
		if (op->flags & OP_NEEDS_RDMA_READ)
			return "UC has no RDMA READ";
		if (op->flags & OP_NEEDS_ATOMICS)
			return "UC has no atomic operations";
		/* A refused UC packet is dropped: the sender never hears. */
		if (op->flags & OP_NEEDS_RC)
			return "UC has no acknowledgements (no RNR or access NAK)";
		return NULL;
	case TRANSPORT_UD:
		/* No connection, so no remote memory: datagrams only. */
		if (!(op->flags & OP_RUNS_ON_UD))
			return "UD has only SEND/RECEIVE";
		return NULL;
	}
	return "unknown transport";
}

/* The default list: keep what the transport runs, name what it skips. */
static void drop_unsupported(enum transport transport, struct ops_list *ops,
			     FILE *out)
{
	size_t i, kept = 0;

	for (i = 0; i < ops->count; i++) {
		const struct op_desc *op = op_find(ops->ids[i]);
		const char *why = op ? transport_refusal(transport, op) : NULL;

		if (why)
			fprintf(out, "%s: skipping %s\n", why, op->name);
		else
			ops->ids[kept++] = ops->ids[i];
	}
	ops->count = kept;
}

/* An explicit list: every operation must run, or nothing does. */
static int check_explicit(const struct config *cfg, enum transport transport,
			  const struct ops_list *ops, const char *ops_arg,
			  FILE *err)
{
	size_t i;

	for (i = 0; i < ops->count; i++) {
		const struct op_desc *op = op_find(ops->ids[i]);
		const char *why = op ? transport_refusal(transport, op) : NULL;

		if (why) {
			fprintf(err,
				"%s: invalid --ops value '%s' for --connection %s: %s (operation %s)\n",
				program_name(cfg->program), ops_arg,
				option_value(transport), why, op->name);
			return -EINVAL;
		}
	}
	return 0;
}

int transport_fit(const struct config *cfg, enum transport transport,
		  struct ops_list *ops, const char *ops_arg, FILE *out,
		  FILE *err)
{
	if (cfg->use_rdma_cm && transport == TRANSPORT_UC) {
		/* RDMA_PS_TCP connects RC QPs, RDMA_PS_UDP resolves UD ones. */
		fprintf(err,
			"%s: invalid --connection value '%s' with --rdma-cm: RDMA_CM connects RC QPs and resolves UD ones here, not UC\n",
			program_name(cfg->program), option_value(transport));
		return -EINVAL;
	}
	/*
	 * The CM finds port and GID from the address: -i and -g would be
	 * lost. -d is kept as a check: src/cm refuses a device the CM
	 * resolved that is not the one named.
	 */
	if (cfg->use_rdma_cm && cfg->ib_port_given) {
		fprintf(err,
			"%s: invalid --ib-port value '%u' with --rdma-cm: RDMA_CM finds the port from the address\n",
			program_name(cfg->program), cfg->ib_port);
		return -EINVAL;
	}
	/* -R: RDMA_CM listens on -p, the program's own socket on the next. */
	if (cfg->use_rdma_cm && cfg->tcp_port == UINT16_MAX) {
		fprintf(err,
			"%s: invalid --port value '%u' with --rdma-cm: the syncs take the TCP port after it, since RDMA_CM owns the TCP port itself on iWARP, and none comes after %u\n",
			program_name(cfg->program), cfg->tcp_port, UINT16_MAX);
		return -EINVAL;
	}
	if (cfg->use_rdma_cm && cfg->gid_idx >= 0) {
		fprintf(err,
			"%s: invalid --gid-idx value '%d' with --rdma-cm: RDMA_CM finds the GID from the address\n",
			program_name(cfg->program), cfg->gid_idx);
		return -EINVAL;
	}
	if (ops_arg)
		return check_explicit(cfg, transport, ops, ops_arg, err);
	drop_unsupported(transport, ops, out);
	return 0;
}
