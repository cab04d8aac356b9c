// SPDX-License-Identifier: MIT
/*
 * rdma_lessons's command line: its table, the lessons' options (-o, -c,
 * --new-api, --manual-peer, --clients, --srq) and the checks that need
 * all of them.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "extras/config_rows.h"
#include "ops/options.h"
#include "ops/ops.h"
#include "ops/transport.h"

/* The example's own options, past the shared ones. */
enum ops_option {
	OPS_OPT_OPS = CONFIG_OPT_PROGRAM,
	OPS_OPT_CONNECTION,
	OPS_OPT_CLIENTS,
	OPS_OPT_SRQ,
	OPS_OPT_NEW_API,
	OPS_OPT_MANUAL_PEER,
};

#define NAME program_name(PROGRAM_LESSONS)

/* The manual's options (what connecting needs), then the lessons'. */
static const struct config_option example_options[] = {
	CONFIG_ROWS_CONNECTION,
	{NULL, 0, 0, 0, NULL, "what to run:"},
	{"ops", 'o', required_argument, OPS_OPT_OPS, "LIST",
	 "operations to run, in order\n(default send,read,write)"},
	{"connection", 'c', required_argument, OPS_OPT_CONNECTION, "TYPE",
	 "QP transport: rc, uc or ud (default rc;\n"
	 "with -R rc or ud)"},
	{"new-api", 0, no_argument, OPS_OPT_NEW_API, NULL,
	 "today's post and poll calls: the QP and CQ\n"
	 "from ibv_create_qp_ex and ibv_create_cq_ex,\n"
	 "SEND, READ, WRITE and the atomics posted\n"
	 "with ibv_wr_*, completions polled with\n"
	 "ibv_start_poll (docs/new-api.md)"},
	{"manual-peer", 0, no_argument, OPS_OPT_MANUAL_PEER, NULL,
	 "the peer is the manual's own RDMA_RC_example:\n"
	 "its exchange, its PSN 0, its 16-byte messages\n"
	 "and its syncs (the manual's flow only;\n"
	 "docs/manual-peer.md)"},
	{NULL, 0, 0, 0, NULL,
	 "the server, for several clients (each an ordinary client):"},
	{"clients", 0, required_argument, OPS_OPT_CLIENTS, "N",
	 "take N clients (1 to " CONFIG_STR(
		 OPS_CLIENTS_MAX) ", default 1), each\n"
				  "on a QP of its own, and run the operations\n"
				  "for all of them"},
	{"srq", 0, no_argument, OPS_OPT_SRQ, NULL,
	 "the clients' QPs take their receives from\n"
	 "one shared receive queue (SRQ)"},
	{0},
};

/* Under an operation that leaves the QP in the error state, in --help. */
#define LAST_ONLY_NOTE \
	"             must be last: leaves the QP in the error state\n"

/* The lessons, after the options in --help. */
static void print_operations(FILE *out)
{
	size_t count, i;
	const struct op_desc *ops = ops_table(&count);

	fprintf(out, "\noperations:\n");
	for (i = 0; i < count; i++)
		fprintf(out, "  %-9s  %s\n%s", ops[i].name, ops[i].teaches,
			ops[i].flags & OP_LEAVES_QP_IN_ERROR ? LAST_ONLY_NOTE
							     : "");
}

static void list_op_names(FILE *err)
{
	size_t count, i;
	const struct op_desc *ops = ops_table(&count);

	for (i = 0; i < count; i++)
		fprintf(err, "%s%s", i ? ", " : "", ops[i].name);
}

/* "send,read,write" -> @ops; argv is not modified. */
static int parse_ops(struct ops_list *ops, const char *list, FILE *err)
{
	const struct op_desc *bad;
	const char *name = list;
	size_t count = 0;

	for (;;) {
		size_t len = strcspn(name, ",");
		const struct op_desc *op = op_find_by_name(name, len);

		if (!op) {
			fprintf(err,
				"%s: invalid --ops value '%s': unknown operation '%.*s' (known: ",
				NAME, list, (int)len, name);
			list_op_names(err);
			fprintf(err, ")\n");
			return -EINVAL;
		}
		if (count == OPS_MAX) {
			fprintf(err,
				"%s: invalid --ops value '%s': more than %d operations\n",
				NAME, list, OPS_MAX);
			return -EINVAL;
		}
		ops->ids[count++] = op->id;
		if (name[len] == '\0')
			break;
		name += len + 1;
	}
	if (ops_check_order(ops->ids, count, &bad)) {
		fprintf(err,
			"%s: invalid --ops value '%s': %s leaves the QP in the error state, so it must be the last operation\n",
			NAME, list, bad->name);
		return -EINVAL;
	}
	ops->count = count;
	return 0;
}

static int parse_setting(void *settings, int id, const char *arg, FILE *err)
{
	struct ops_options *o = settings;
	struct lessons *l = o->lessons;
	unsigned long value = 0;
	int ret = 0;

	switch (id) {
	case OPS_OPT_OPS:
		o->ops_arg = arg;
		return parse_ops(&l->ops, arg, err);
	case OPS_OPT_CONNECTION:
		ret = transport_parse(arg, &l->transport);
		if (ret)
			fprintf(err,
				"%s: invalid --connection value '%s' (expected rc, uc or ud)\n",
				NAME, arg);
		return ret;
	case OPS_OPT_CLIENTS:
		ret = config_parse_number(PROGRAM_LESSONS, "--clients", arg, 1,
					  OPS_CLIENTS_MAX, &value, err);
		l->clients = (unsigned int)value;
		return ret;
	case OPS_OPT_SRQ:
		l->use_srq = true;
		return 0;
	case OPS_OPT_NEW_API:
		l->new_api = true;
		return 0;
	case OPS_OPT_MANUAL_PEER:
		l->manual_peer = true;
		return 0;
	}
	return -EINVAL;
}

/* True if @ops lists an operation with @flag. */
static bool lists_op_with(const struct ops_list *ops, unsigned int flag,
			  const struct op_desc **which)
{
	size_t i;

	for (i = 0; i < ops->count; i++) {
		const struct op_desc *op = op_find(ops->ids[i]);

		if (op && (op->flags & flag)) {
			*which = op;
			return true;
		}
	}
	return false;
}

/*
 * --clients, --srq and the operation the server for several clients runs
 * across all of them (hello): what they go with. That server connects RC
 * QPs (by the TCP exchange, or -R); a client does not know how the server
 * receives, which is the point of the lesson.
 */
static int check_server_options(const struct config *cfg,
				const struct lessons *l, const char *ops_arg,
				FILE *err)
{
	const char *option = l->use_srq ? "--srq" : "--clients";
	const struct op_desc *op;

	if ((l->clients > 1 || l->use_srq) && cfg->server_name) {
		fprintf(err,
			"%s: invalid option %s for a client: it is the server's (a client connects as any other, and does not know how the server receives)\n",
			NAME, option);
		return -EINVAL;
	}
	if (lists_op_with(&l->ops, OP_SERVED_TOGETHER, &op))
		option = "--ops";
	else if (l->clients == 1 && !l->use_srq)
		return 0;
	/* A client of that server is an ordinary one, on either API. */
	if (l->new_api && !cfg->server_name) {
		fprintf(err,
			"%s: invalid option --new-api with %s: the server for several clients posts with ibv_post_send and polls with ibv_poll_cq\n",
			NAME, option);
		return -EINVAL;
	}
	if (l->transport != TRANSPORT_RC) {
		fprintf(err,
			"%s: invalid option %s with --connection %s: the server for several clients connects RC QPs\n",
			NAME, option,
			l->transport == TRANSPORT_UC ? "uc" : "ud");
		return -EINVAL;
	}
	if (l->use_srq && lists_op_with(&l->ops, OP_SERVER_RECEIVES, &op)) {
		fprintf(err,
			"%s: invalid --ops value '%s' with --srq: operation %s needs a receive queue of the server's QP for the client, and with --srq the QPs have none: every receive comes from the shared queue\n",
			NAME, ops_arg ? ops_arg : "", op->name);
		return -EINVAL;
	}
	return 0;
}

/*
 * --manual-peer: the manual's program runs its one flow (SEND, READ,
 * WRITE over RC, connected by its TCP exchange) for one client.
 */
static int check_manual_peer(const struct config *cfg,
			     const struct ops_options *o, FILE *err)
{
	const char *other = NULL;

	if (!o->lessons->manual_peer)
		return 0;
	if (o->ops_arg && strcmp(o->ops_arg, "send,read,write") != 0)
		other = "--ops";
	else if (o->lessons->transport != TRANSPORT_RC)
		other = "--connection";
	else if (cfg->use_rdma_cm)
		other = "--rdma-cm";
	else if (o->lessons->clients > 1)
		other = "--clients";
	else if (o->lessons->use_srq)
		other = "--srq";
	if (!other)
		return 0;
	fprintf(err,
		"%s: invalid option --manual-peer with %s: the manual's program runs SEND, READ and WRITE over RC, connected by its TCP exchange, for one client\n",
		NAME, other);
	return -EINVAL;
}

static int finish_settings(void *settings, struct config *cfg, FILE *out,
			   FILE *err)
{
	const struct ops_options *o = settings;
	int ret;

	ret = config_fit_path(cfg, err);
	if (!ret)
		ret = check_manual_peer(cfg, o, err);
	if (!ret)
		ret = check_server_options(cfg, o->lessons, o->ops_arg, err);
	/* Only now: -c may come after -o, and -R before or after -c. */
	return ret ? ret
		   : transport_fit(cfg, o->lessons->transport, &o->lessons->ops,
				   o->ops_arg, out, err);
}

void ops_config_tool(struct ops_options *settings, struct lessons *lessons,
		     struct config_tool *tool)
{
	/* The manual's run: SEND, READ, WRITE, for one client. */
	*lessons = (struct lessons){
		.ops = {.ids = {OP_SEND, OP_READ, OP_WRITE}, .count = 3},
		.clients = 1,
		.transport = TRANSPORT_RC,
	};
	*settings = (struct ops_options){.lessons = lessons};
	*tool = (struct config_tool){
		.program = PROGRAM_LESSONS,
		.synopsis = "[options] [SERVER]",
		.roles = CONFIG_ROLE_SERVER,
		.options = example_options,
		.settings = settings,
		.parse = parse_setting,
		.finish = finish_settings,
		.print_usage = print_operations,
	};
}

int ops_parse_command_line(struct config *cfg, struct lessons *lessons,
			   int argc, char **argv, FILE *out, FILE *err)
{
	struct ops_options settings;
	struct config_tool tool;

	ops_config_tool(&settings, lessons, &tool);
	return config_parse(cfg, &tool, argc, argv, out, err);
}
