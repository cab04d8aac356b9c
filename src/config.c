// SPDX-License-Identifier: MIT
/* The command line: getopt_long into one struct config, with validation. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "common/opt_error.h"
#include "ops/ops.h"
#include "ops/transport.h"

#ifndef PROGRAM_VERSION
#define PROGRAM_VERSION "unknown" /* CMake defines it, from project() */
#endif

/* Long-only options get values outside the character range. */
enum long_only_option {
	OPT_CONNECT_TIMEOUT = 256,
	OPT_ACCEPT_TIMEOUT,
	OPT_JSON,
	OPT_CLIENTS,
	OPT_SRQ,
};

/* Short for the name the program's messages start with. */
#define NAME(cfg) program_name((cfg)->program)

/* Upper bound on every timeout option: one day. */
#define TIMEOUT_MAX_SEC 86400

static const struct option long_options[] = {
	{"port", required_argument, NULL, 'p'},
	{"ib-dev", required_argument, NULL, 'd'},
	{"ib-port", required_argument, NULL, 'i'},
	{"gid-idx", required_argument, NULL, 'g'},
	{"ops", required_argument, NULL, 'o'},
	{"connection", required_argument, NULL, 'c'},
	{"rdma-cm", no_argument, NULL, 'R'},
	{"timeout", required_argument, NULL, 't'},
	{"events", no_argument, NULL, 'e'},
	{"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
	{"accept-timeout", required_argument, NULL, OPT_ACCEPT_TIMEOUT},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
};
#define OWN_OPTION_COUNT (sizeof(long_options) / sizeof(long_options[0]))
/* The server for many clients is rdma_rc_example's alone, not a tool's. */
static const struct option server_options[] = {
	{"clients", required_argument, NULL, OPT_CLIENTS},
	{"srq", no_argument, NULL, OPT_SRQ},
};
#define SERVER_OPTION_COUNT (sizeof(server_options) / sizeof(server_options[0]))
/* What every tool takes beside the manual's options: where its results go. */
static const struct option json_option = {"json", required_argument, NULL,
					  OPT_JSON};
/* Room for the tool's rows beside ours, and for the closing row of zeros. */
#define OPTION_TABLE_MAX  64
#define SHORT_OPTIONS	  ":p:d:i:g:o:c:Rt:evhV"
#define SHORT_OPTIONS_MAX 64

void config_defaults(struct config *cfg)
{
	*cfg = (struct config){
		.server_name = NULL,
		.tcp_port = CONFIG_DEFAULT_TCP_PORT,
		.ib_devname = NULL,
		.ib_port = CONFIG_DEFAULT_IB_PORT,
		.gid_idx = -1,
		.transport = TRANSPORT_RC,
		.ops = {OP_SEND, OP_READ, OP_WRITE},
		.op_count = 3,
		.use_events = false,
		.use_rdma_cm = false,
		.clients = 1,
		.use_srq = false,
		.timeout_sec = CONFIG_DEFAULT_TIMEOUT_SEC,
		.connect_timeout_sec = CONFIG_DEFAULT_CONNECT_TIMEOUT_SEC,
		.accept_timeout_sec = CONFIG_DEFAULT_ACCEPT_TIMEOUT_SEC,
		.verbose = false,
		.json_path = NULL,
		.program = PROGRAM_RC_EXAMPLE,
	};
}

/* What the SERVER argument means, in --help. */
#define SERVER_ROLE "without SERVER, run as the server and wait for a client"

/* Under an operation that leaves the QP in the error state, in --help. */
#define LAST_ONLY_NOTE \
	"             must be last: leaves the QP in the error state\n"

static void print_usage(const struct config *cfg,
			const struct config_tool *tool, FILE *out)
{
	size_t count, i;
	const struct op_desc *ops = ops_table(&count);

	fprintf(out, "usage: %s %s\n  %s\n", NAME(cfg),
		tool ? tool->synopsis : "[options] [SERVER]",
		tool ? tool->roles : SERVER_ROLE);
	fprintf(out,
		"\n"
		"  -p, --port PORT          TCP port for the QP-info exchange (default %d);\n"
		"                           with -R, RDMA_CM's port, and the syncs take\n"
		"                           PORT+1 (on iWARP RDMA_CM owns the TCP port)\n"
		"  -d, --ib-dev NAME        RDMA device (default: the first one found that\n"
		"                           is not iWARP, unless there are only iWARP ones)\n"
		"  -i, --ib-port N          port of that device (default %d)\n"
		"  -g, --gid-idx N          GID index (default: a RoCE v2 IPv4-mapped GID on\n"
		"                           Ethernet, no GRH on InfiniBand)\n"
		"  -o, --ops LIST           operations to run, in order\n"
		"                           (default send,read,write)\n"
		"  -c, --connection TYPE    QP transport: rc, uc or ud (default rc)\n"
		"  -R, --rdma-cm            connect through RDMA_CM on PORT instead of the\n"
		"                           TCP exchange (RC only; device from the address)\n"
		"  -e, --events             wait for completions on a completion channel\n"
		"                           instead of busy polling\n"
		"  -t, --timeout SEC        bound on each wait that sees no progress\n"
		"                           (no completion, byte or word from the peer)\n"
		"                           (default %d)\n"
		"      --connect-timeout SEC\n"
		"                           client: how long to retry connecting\n"
		"                           (default %d)\n"
		"      --accept-timeout SEC\n"
		"                           server: how long to wait for a client\n"
		"                           (default %d)\n"
		"  -v, --verbose            trace every verbs step\n"
		"  -h, --help               show this help\n"
		"  -V, --version            show the version\n",
		CONFIG_DEFAULT_TCP_PORT, CONFIG_DEFAULT_IB_PORT,
		CONFIG_DEFAULT_TIMEOUT_SEC, CONFIG_DEFAULT_CONNECT_TIMEOUT_SEC,
		CONFIG_DEFAULT_ACCEPT_TIMEOUT_SEC);
	if (!tool)
		fprintf(out,
			"\nthe server, for several clients (each an ordinary client):\n"
			"      --clients N          take N clients (1 to %d, default 1), each\n"
			"                           on a QP of its own, and run the operations\n"
			"                           for all of them\n"
			"      --srq                the clients' QPs take their receives from\n"
			"                           one shared receive queue (SRQ)\n",
			CONFIG_CLIENTS_MAX);
	fprintf(out, "\noperations:\n");
	for (i = 0; i < count; i++)
		fprintf(out, "  %-9s  %s\n%s", ops[i].name, ops[i].teaches,
			ops[i].flags & OP_LEAVES_QP_IN_ERROR ? LAST_ONLY_NOTE
							     : "");
	if (tool)
		tool->print_usage(out);
}

/*
 * A decimal number in [min, max], nothing else: no sign, no spaces, no
 * trailing junk. strtoul alone would accept " 5", "-1" and "5x".
 */
static int parse_number(const char *text, unsigned long min, unsigned long max,
			unsigned long *value)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	*value = strtoul(text, &end, 10);
	if (errno || *end != '\0' || *value < min || *value > max)
		return -EINVAL;
	return 0;
}

static int parse_number_option(const struct config *cfg, const char *option,
			       const char *text, unsigned long min,
			       unsigned long max, unsigned long *value,
			       FILE *err)
{
	if (parse_number(text, min, max, value) == 0)
		return 0;
	fprintf(err,
		"%s: invalid %s value '%s' (expected a number from %lu to %lu)\n",
		NAME(cfg), option, text, min, max);
	return -EINVAL;
}

static void list_op_names(FILE *err)
{
	size_t count, i;
	const struct op_desc *ops = ops_table(&count);

	for (i = 0; i < count; i++)
		fprintf(err, "%s%s", i ? ", " : "", ops[i].name);
}

/* "send,read,write" -> cfg->ops; argv is not modified. */
static int parse_ops(struct config *cfg, const char *list, FILE *err)
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
				NAME(cfg), list, (int)len, name);
			list_op_names(err);
			fprintf(err, ")\n");
			return -EINVAL;
		}
		if (count == OPS_MAX) {
			fprintf(err,
				"%s: invalid --ops value '%s': more than %d operations\n",
				NAME(cfg), list, OPS_MAX);
			return -EINVAL;
		}
		cfg->ops[count++] = op->id;
		if (name[len] == '\0')
			break;
		name += len + 1;
	}
	if (ops_check_order(cfg->ops, count, &bad)) {
		fprintf(err,
			"%s: invalid --ops value '%s': %s leaves the QP in the error state, so it must be the last operation\n",
			NAME(cfg), list, bad->name);
		return -EINVAL;
	}
	cfg->op_count = count;
	return 0;
}

/* Apply one option; 0, or -EINVAL after printing the reason. */
static int apply_option(struct config *cfg, const struct config_tool *tool,
			int opt, const char *arg, FILE *err)
{
	unsigned long value = 0;
	int ret = 0;

	switch (opt) {
	case 'p':
		ret = parse_number_option(cfg, "--port", arg, 1, 65535, &value,
					  err);
		cfg->tcp_port = (uint16_t)value;
		break;
	case 'd':
		cfg->ib_devname = arg;
		break;
	case 'i':
		ret = parse_number_option(cfg, "--ib-port", arg, 1, 255, &value,
					  err);
		cfg->ib_port = (uint8_t)value;
		cfg->ib_port_given = true;
		break;
	case 'g':
		/* The GRH's sgid_index is 8 bits wide. */
		ret = parse_number_option(cfg, "--gid-idx", arg, 0, 255, &value,
					  err);
		cfg->gid_idx = (int)value;
		break;
	case 'o':
		ret = parse_ops(cfg, arg, err);
		break;
	case 'c':
		ret = transport_parse(arg, &cfg->transport);
		if (ret)
			fprintf(err,
				"%s: invalid --connection value '%s' (expected rc, uc or ud)\n",
				NAME(cfg), arg);
		break;
	case 'R':
		cfg->use_rdma_cm = true;
		break;
	case 't':
		ret = parse_number_option(cfg, "--timeout", arg, 1,
					  TIMEOUT_MAX_SEC, &value, err);
		cfg->timeout_sec = (int)value;
		break;
	case OPT_CONNECT_TIMEOUT:
		ret = parse_number_option(cfg, "--connect-timeout", arg, 1,
					  TIMEOUT_MAX_SEC, &value, err);
		cfg->connect_timeout_sec = (int)value;
		break;
	case OPT_ACCEPT_TIMEOUT:
		ret = parse_number_option(cfg, "--accept-timeout", arg, 1,
					  TIMEOUT_MAX_SEC, &value, err);
		cfg->accept_timeout_sec = (int)value;
		break;
	case 'e':
		cfg->use_events = true;
		break;
	case OPT_CLIENTS:
		ret = parse_number_option(cfg, "--clients", arg, 1,
					  CONFIG_CLIENTS_MAX, &value, err);
		cfg->clients = (unsigned int)value;
		break;
	case OPT_SRQ:
		cfg->use_srq = true;
		break;
	case 'v':
		cfg->verbose = true;
		break;
	case OPT_JSON:
		if (arg[0] == '\0') {
			fprintf(err,
				"%s: invalid --json value '' (expected a file name)\n",
				NAME(cfg));
			ret = -EINVAL;
		}
		cfg->json_path = arg;
		break;
	default:
		/* The only options getopt_long returns past ours are the tool's. */
		ret = tool ? tool->parse(tool->settings, opt, arg, err)
			   : -EINVAL;
		break;
	}
	return ret;
}

/* True if @cfg lists an operation with @flag. */
static bool lists_op_with(const struct config *cfg, unsigned int flag,
			  const struct op_desc **which)
{
	size_t i;

	for (i = 0; i < cfg->op_count; i++) {
		const struct op_desc *op = op_find(cfg->ops[i]);

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
static int check_server_options(const struct config *cfg, const char *ops_arg,
				FILE *err)
{
	const char *option = cfg->use_srq ? "--srq" : "--clients";
	const struct op_desc *op;

	if ((cfg->clients > 1 || cfg->use_srq) && cfg->server_name) {
		fprintf(err,
			"%s: invalid option %s for a client: it is the server's (a client connects as any other, and does not know how the server receives)\n",
			NAME(cfg), option);
		return -EINVAL;
	}
	if (lists_op_with(cfg, OP_SERVED_TOGETHER, &op))
		option = "--ops";
	else if (cfg->clients == 1 && !cfg->use_srq)
		return 0;
	if (cfg->transport != TRANSPORT_RC) {
		fprintf(err,
			"%s: invalid option %s with --connection %s: the server for several clients connects RC QPs\n",
			NAME(cfg), option,
			cfg->transport == TRANSPORT_UC ? "uc" : "ud");
		return -EINVAL;
	}
	if (cfg->use_srq && lists_op_with(cfg, OP_SERVER_RECEIVES, &op)) {
		fprintf(err,
			"%s: invalid --ops value '%s' with --srq: operation %s needs a receive queue of the server's QP for the client, and with --srq the QPs have none: every receive comes from the shared queue\n",
			NAME(cfg), ops_arg ? ops_arg : "", op->name);
		return -EINVAL;
	}
	return 0;
}

/* Report what getopt rejected, in one line, naming it as it was typed. */
static void report_bad_option(const struct config *cfg, int opt, char **argv,
			      const struct option *table, FILE *err)
{
	char text[OPT_ERROR_MAX];

	opt_error_text(text, sizeof(text), opt, argv, table);
	fprintf(err, "%s: %s\n", NAME(cfg), text);
}

/*
 * Our rows, then the tool's and --json, then the row of zeros getopt_long
 * ends on; and the short options, ours then the tool's. -EINVAL if either
 * does not fit.
 */
static int build_tables(const struct config_tool *tool,
			struct option table[OPTION_TABLE_MAX],
			char shorts[SHORT_OPTIONS_MAX])
{
	size_t n = OWN_OPTION_COUNT, i, len;

	memcpy(table, long_options, sizeof(long_options));
	len = (size_t)snprintf(shorts, SHORT_OPTIONS_MAX, "%s", SHORT_OPTIONS);
	if (!tool)
		for (i = 0; i < SERVER_OPTION_COUNT; i++)
			table[n++] = server_options[i];
	if (tool) {
		for (i = 0; tool->long_options[i].name; i++) {
			if (n + 2 >= OPTION_TABLE_MAX)
				return -EINVAL;
			table[n++] = tool->long_options[i];
		}
		table[n++] = json_option;
		if (len + strlen(tool->short_options) >= SHORT_OPTIONS_MAX)
			return -EINVAL;
		snprintf(shorts + len, SHORT_OPTIONS_MAX - len, "%s",
			 tool->short_options);
	}
	table[n] = (struct option){0};
	return 0;
}

int config_parse(struct config *cfg, const struct config_tool *tool, int argc,
		 char **argv, FILE *out, FILE *err)
{
	struct option table[OPTION_TABLE_MAX];
	char shorts[SHORT_OPTIONS_MAX];
	const char *ops_arg = NULL;
	int opt, ret;

	config_defaults(cfg);
	if (tool)
		cfg->program = tool->program;
	if (build_tables(tool, table, shorts)) {
		fprintf(err, "%s: too many options to parse\n", NAME(cfg));
		return -EINVAL;
	}
	/* 0, not 1: glibc then re-initialises all of getopt's state. */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, table, NULL)) != -1) {
		switch (opt) {
		case 'h':
			print_usage(cfg, tool, out);
			return 1;
		case 'V':
			fprintf(out, "%s " PROGRAM_VERSION "\n", NAME(cfg));
			return 1;
		case '?':
		case ':':
			report_bad_option(cfg, opt, argv, table, err);
			return -EINVAL;
		default:
			if (apply_option(cfg, tool, opt, optarg, err))
				return -EINVAL;
			if (opt == 'o')
				ops_arg = optarg;
		}
	}
	if (optind < argc)
		cfg->server_name = argv[optind++];
	/*
	 * "" would reach getaddrinfo, whose "Name or service not known"
	 * hides that no name was given.
	 */
	if (cfg->server_name && cfg->server_name[0] == '\0') {
		fprintf(err,
			"%s: invalid server name '' (expected a host name or an IP address; leave it out to be the server)\n",
			NAME(cfg));
		return -EINVAL;
	}
	if (optind < argc) {
		fprintf(err, "%s: unexpected argument '%s'\n", NAME(cfg),
			argv[optind]);
		return -EINVAL;
	}
	if (tool) {
		ret = tool->finish(tool->settings, cfg, err);
		if (ret)
			return ret;
	}
	if (!tool) {
		ret = check_server_options(cfg, ops_arg, err);
		if (ret)
			return ret;
	}
	/* Only now: -c may come after -o, and -R before or after -c. */
	return transport_fit(cfg, ops_arg, out, err);
}
