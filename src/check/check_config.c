// SPDX-License-Identifier: MIT
/* The check options: --check and --pair, and what they rule out. */
#include <errno.h>
#include <getopt.h>

#include "check_priv.h"

/* Option values past the flow's and the benchmark's. */
enum check_option {
	CHECK_OPT_CHECK = 768,
	CHECK_OPT_PAIR,
};

static const struct option check_long_options[] = {
	{"check", no_argument, NULL, CHECK_OPT_CHECK},
	{"pair", no_argument, NULL, CHECK_OPT_PAIR},
	{NULL, 0, NULL, 0},
};

static void check_print_usage(FILE *out)
{
	fprintf(out,
		"\ncheck mode (docs/check.md):\n"
		"      --check              check whether this host can do RDMA with these\n"
		"                           options, one line per check, and exit; with\n"
		"                           SERVER, then check the pair with that server\n"
		"      --pair               with --check and no SERVER: then wait for one\n"
		"                           client, as the server of the pair check\n");
}

static int parse_setting(void *settings, int opt, const char *arg, FILE *err)
{
	struct check_config *cc = settings;

	(void)arg;
	(void)err;
	switch (opt) {
	case CHECK_OPT_CHECK:
		cc->on = true;
		return 0;
	case CHECK_OPT_PAIR:
		cc->pair = true;
		if (!cc->first_option)
			cc->first_option = "--pair";
		return 0;
	}
	return -ENOENT;
}

/* The pair round connects an RC QP over the TCP exchange and runs its own
 * operations: the options that would change that do not go with it. */
static int finish_settings(void *settings, const struct config *cfg, FILE *err)
{
	const struct check_config *cc = settings;

	if (!cc->on) {
		if (cc->first_option) {
			fprintf(err, "%s: option %s needs --check\n",
				PROGRAM_NAME, cc->first_option);
			return -EINVAL;
		}
		return 0;
	}
	if (cc->pair && cfg->server_name) {
		fprintf(err,
			"%s: option --pair makes this side the server: give it no SERVER\n",
			PROGRAM_NAME);
		return -EINVAL;
	}
	if (cfg->transport != TRANSPORT_RC) {
		fprintf(err,
			"%s: option --check checks RC, not --connection %s\n",
			PROGRAM_NAME, transport_name(cfg->transport));
		return -EINVAL;
	}
	return 0;
}

static bool settings_on(const void *settings)
{
	return check_is_on(settings);
}

void check_config_mode(struct check_config *cc, struct config_mode *mode)
{
	*cc = (struct check_config){0};
	*mode = (struct config_mode){
		.name = "--check",
		.long_options = check_long_options,
		.short_options = "",
		.settings = cc,
		.parse = parse_setting,
		.finish = finish_settings,
		.print_usage = check_print_usage,
		.is_on = settings_on,
	};
}

bool check_is_on(const struct check_config *cc)
{
	return cc->on;
}
