// SPDX-License-Identifier: MIT
/* rdma_rc_example's command line: what connecting needs, and nothing else. */
#include <getopt.h>

#include "options.h"

static const struct config_option options[] = {
	{"port", 'p', required_argument, CONFIG_OPT_PORT, "PORT",
	 "TCP port for the QP-info exchange (default " CONFIG_STR(
		 CONFIG_DEFAULT_TCP_PORT) ")"},
	CONFIG_ROW_DEVICE,
	CONFIG_ROW_IB_PORT,
	CONFIG_ROW_GID,
	{"sl", 0, required_argument, CONFIG_OPT_SL, "N",
	 "service level of the address, 0 to 15 (default 0)"},
	{"tclass", 0, required_argument, CONFIG_OPT_TCLASS, "N",
	 "traffic class, 0 to 255: on RoCE v2 the IP\nDS field (default 0)"},
	CONFIG_ROW_TIMEOUT,
	CONFIG_ROW_CONNECT_TIMEOUT,
	CONFIG_ROW_ACCEPT_TIMEOUT,
	CONFIG_ROW_VERBOSE,
	CONFIG_ROW_HELP,
	CONFIG_ROW_VERSION,
	{0},
};

/* Once every option is read: --sl and --tclass go in the address. */
static int finish_options(void *settings, struct config *cfg, FILE *out,
			  FILE *err)
{
	(void)settings;
	(void)out;
	return config_fit_path(cfg, err);
}

void example_config_tool(struct config_tool *tool)
{
	*tool = (struct config_tool){
		.program = PROGRAM_RC_EXAMPLE,
		.synopsis = "[options] [SERVER]",
		.roles = CONFIG_ROLE_SERVER,
		.options = options,
		.finish = finish_options,
	};
}

int parse_command_line(struct config *cfg, int argc, char **argv, FILE *out,
		       FILE *err)
{
	struct config_tool tool;

	example_config_tool(&tool);
	return config_parse(cfg, &tool, argc, argv, out, err);
}
