// SPDX-License-Identifier: MIT
/* rdma_check's own option, --pair, and what the check rules out. */
#include <errno.h>
#include <getopt.h>

#include "check_priv.h"

/* Option values past the manual's. */
enum check_option {
	CHECK_OPT_PAIR = 768,
};

static const struct option check_long_options[] = {
	{"pair", no_argument, NULL, CHECK_OPT_PAIR},
	{NULL, 0, NULL, 0},
};

static void check_print_usage(FILE *out)
{
	fprintf(out,
		"\n"
		"Checks whether this host can do RDMA with these options, one line\n"
		"per check (docs/check.md); with SERVER, then the pair with that\n"
		"server:\n"
		"      --pair               with no SERVER: then wait for one client,\n"
		"                           as the server of the pair check\n"
		"      --json FILE          write the checks and the verdict as JSON\n");
}

static int parse_setting(void *settings, int opt, const char *arg, FILE *err)
{
	struct check_config *cc = settings;

	(void)arg;
	(void)err;
	if (opt != CHECK_OPT_PAIR)
		return -EINVAL;
	cc->pair = true;
	return 0;
}

/* The pair round connects an RC QP over the TCP exchange and runs its own
 * operations: the options that would change that do not go with it. */
static int finish_settings(void *settings, const struct config *cfg, FILE *err)
{
	const struct check_config *cc = settings;

	if (cc->pair && cfg->server_name) {
		fprintf(err,
			"%s: option --pair makes this side the server: give it no SERVER\n",
			CHECK_PROGRAM);
		return -EINVAL;
	}
	if (cfg->transport != TRANSPORT_RC) {
		fprintf(err, "%s: checks RC, not --connection %s\n",
			CHECK_PROGRAM, transport_name(cfg->transport));
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
		.long_options = check_long_options,
		.short_options = "",
		.settings = cc,
		.parse = parse_setting,
		.finish = finish_settings,
		.print_usage = check_print_usage,
	};
}
