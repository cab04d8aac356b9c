// SPDX-License-Identifier: MIT
/* rdma_check's command line: its table, --pair and --json. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "check_priv.h"
#include "extras/config_rows.h"
#include "extras/json.h"

/* rdma_check's own options, past the shared ones. */
enum check_option {
	CHECK_OPT_PAIR = CONFIG_OPT_PROGRAM,
	CHECK_OPT_JSON,
	CHECK_OPT_MAX_LOST,
};

/* Past any loss a pair check's few messages could have. */
#define MAX_LOST_LIMIT 1000000000UL

/*
 * What connecting needs, spelled as the manual's example spells it, and
 * the check's own two. No -o or -c: the check runs its own operations
 * over RC.
 */
static const struct config_option check_options[] = {
	CONFIG_ROWS_CONNECTION,
	{NULL, 0, 0, 0, NULL,
	 "Checks whether this host can do RDMA with these options, one line\n"
	 "per check (docs/check.md); with SERVER, then the pair with that\n"
	 "server:"},
	{"pair", 0, no_argument, CHECK_OPT_PAIR, NULL,
	 "with no SERVER: then wait for one client,\n"
	 "as the server of the pair check"},
	{"mtu", 'm', required_argument, CONFIG_OPT_MTU, "BYTES",
	 "path MTU of the pair: 256, 512, 1024, 2048 or\n"
	 "4096, at most this port's active MTU (default:\n"
	 "the smaller of the two ports' active MTU)"},
	{"max-lost", 0, required_argument, CHECK_OPT_MAX_LOST, "N",
	 "the packets the pair's transfers may lose,\n"
	 "either way (by the ports' counters), before\n"
	 "the loss check fails; up to N, a warning\n"
	 "(default 0)"},
	{"json", 0, required_argument, CHECK_OPT_JSON, "FILE",
	 "write the checks and the verdict as JSON"},
	{0},
};

static int parse_setting(void *settings, int id, const char *arg, FILE *err)
{
	struct check_config *cc = settings;

	switch (id) {
	case CHECK_OPT_PAIR:
		cc->pair = true;
		return 0;
	case CHECK_OPT_MAX_LOST:
		return config_parse_number(PROGRAM_CHECK, "--max-lost", arg, 0,
					   MAX_LOST_LIMIT, &cc->max_lost, err);
	case CHECK_OPT_JSON:
		if (arg[0] == '\0') {
			fprintf(err,
				"%s: invalid --json value '' (expected a file name)\n",
				CHECK_PROGRAM);
			return -EINVAL;
		}
		cc->json_path = arg;
		return 0;
	}
	return -EINVAL;
}

static int finish_settings(void *settings, struct config *cfg, FILE *out,
			   FILE *err)
{
	const struct check_config *cc = settings;
	int ret;

	(void)out;
	if (config_fit_path(cfg, err))
		return -EINVAL;
	/* The report goes there once every check ran: refuse it now. */
	ret = cc->json_path ? json_path_writable(cc->json_path) : 0;
	if (ret) {
		fprintf(err,
			"%s: invalid --json value '%s' (cannot write it: %s)\n",
			CHECK_PROGRAM, cc->json_path, strerror(ret));
		return -EINVAL;
	}
	if (cc->pair && cfg->server_name) {
		fprintf(err,
			"%s: option --pair makes this side the server: give it no SERVER\n",
			CHECK_PROGRAM);
		return -EINVAL;
	}
	return 0;
}

void check_config_tool(struct check_config *cc, struct config_tool *tool)
{
	*cc = (struct check_config){0};
	*tool = (struct config_tool){
		.program = PROGRAM_CHECK,
		.synopsis = "[options] [--pair | SERVER]",
		.roles =
			"alone, check this host; with --pair, then wait for the\n"
			"  client of a pair check; with SERVER, be that client",
		.options = check_options,
		.settings = cc,
		.parse = parse_setting,
		.finish = finish_settings,
	};
}
