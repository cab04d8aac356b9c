// SPDX-License-Identifier: MIT
/*
 * The command line: getopt_long over one program's option table into one
 * struct config (what connecting needs) and the program's own settings.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "common/opt_error.h"

#ifndef PROGRAM_VERSION
#define PROGRAM_VERSION "unknown" /* CMake defines it, from project() */
#endif

/* Short for the name the program's messages start with. */
#define NAME(cfg) program_name((cfg)->program)

/* Upper bound on every timeout option: one day. */
#define TIMEOUT_MAX_SEC 86400

/* Room for the rows of the longest table, and getopt's row of zeros. */
#define OPTION_TABLE_MAX 96
/* ':' first, then each letter and its ':' if it takes a value. */
#define SHORT_OPTIONS_MAX (2 * OPTION_TABLE_MAX + 2)

/* Where an option's help text starts in --help. */
#define HELP_COLUMN 27

int config_fit_path(struct config *cfg, FILE *err)
{
	if (!cfg->use_rdma_cm)
		return 0;
	if (cfg->sl) {
		fprintf(err,
			"%s: option --sl does not go with -R: RDMA_CM takes the SL from the type of service, which --tclass sets\n",
			NAME(cfg));
		return -EINVAL;
	}
	if (cfg->traffic_class)
		cfg->tos = cfg->traffic_class;
	return 0;
}

void config_defaults(struct config *cfg)
{
	*cfg = (struct config){
		.server_name = NULL,
		.tcp_port = CONFIG_DEFAULT_TCP_PORT,
		.ib_devname = NULL,
		.ib_port = CONFIG_DEFAULT_IB_PORT,
		.gid_idx = -1,
		.use_events = false,
		.use_rdma_cm = false,
		.timeout_sec = CONFIG_DEFAULT_TIMEOUT_SEC,
		.connect_timeout_sec = CONFIG_DEFAULT_CONNECT_TIMEOUT_SEC,
		.accept_timeout_sec = CONFIG_DEFAULT_ACCEPT_TIMEOUT_SEC,
		.tos = -1,
		.ack_timeout = -1,
		.rnr_retry = -1,
		.verbose = false,
		.program = PROGRAM_RC_EXAMPLE,
	};
}

/* One row of --help: "  -p, --port PORT", then its text at HELP_COLUMN. */
static void print_option(const struct config_option *o, FILE *out)
{
	const char *line = o->help;
	int used;

	if (o->letter)
		used = fprintf(out, "  -%c, --%s", o->letter, o->name);
	else
		used = fprintf(out, "      --%s", o->name);
	if (o->arg)
		used += fprintf(out, " %s", o->arg);
	/* A long spelling takes a line of its own. */
	if (used > HELP_COLUMN - 2) {
		fputc('\n', out);
		used = 0;
	}
	for (;;) {
		size_t len = strcspn(line, "\n");

		fprintf(out, "%*s%.*s\n", HELP_COLUMN - used, "", (int)len,
			line);
		if (line[len] == '\0')
			break;
		line += len + 1;
		used = 0;
	}
}

static void print_usage(const struct config *cfg,
			const struct config_tool *tool, FILE *out)
{
	const struct config_option *o;

	fprintf(out, "usage: %s %s\n  %s\n\n", NAME(cfg), tool->synopsis,
		tool->roles);
	for (o = tool->options; o->name || o->help; o++) {
		if (!o->help)
			continue; /* accepted, and nothing to say: no line */
		if (o->name)
			print_option(o, out);
		else
			fprintf(out, "\n%s\n", o->help);
	}
	if (tool->print_usage)
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

int config_parse_number(enum program_id program, const char *option,
			const char *text, unsigned long min, unsigned long max,
			unsigned long *value, FILE *err)
{
	if (parse_number(text, min, max, value) == 0)
		return 0;
	fprintf(err,
		"%s: invalid %s value '%s' (expected a number from %lu to %lu)\n",
		program_name(program), option, text, min, max);
	return -EINVAL;
}

/* The row of @id in @tool's table: how the user spells it, for messages. */
static const struct config_option *row_of(const struct config_tool *tool,
					  int id)
{
	const struct config_option *o;

	for (o = tool->options; o->name || o->help; o++)
		if (o->name && o->id == id)
			return o;
	return NULL;
}

/* "--port" as @tool spells the option @id. */
static void spelling(const struct config_tool *tool, int id, char *buf,
		     size_t len)
{
	const struct config_option *o = row_of(tool, id);

	snprintf(buf, len, "--%s", o ? o->name : "?");
}

/* A number option of the shared ones, in [min, max]. */
static int shared_number(const struct config *cfg,
			 const struct config_tool *tool, int id,
			 const char *arg, unsigned long min, unsigned long max,
			 unsigned long *value, FILE *err)
{
	char name[64];

	spelling(tool, id, name, sizeof(name));
	return config_parse_number(cfg->program, name, arg, min, max, value,
				   err);
}

/*
 * An MTU in bytes, as the verbs name them (IBV_MTU_256 = 1 ... IBV_MTU_4096
 * = 5), into *@mtu.
 */
static int parse_mtu(const struct config *cfg, const struct config_tool *tool,
		     const char *arg, uint8_t *mtu, FILE *err)
{
	static const char *const sizes[] = {"256", "512", "1024", "2048",
					    "4096"};
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (strcmp(arg, sizes[i]) == 0) {
			*mtu = (uint8_t)(i + 1);
			return 0;
		}
	}
	spelling(tool, CONFIG_OPT_MTU, name, sizeof(name));
	fprintf(err,
		"%s: invalid %s value '%s' (expected 256, 512, 1024, 2048 or 4096)\n",
		NAME(cfg), name, arg);
	return -EINVAL;
}

/* An IPv4 or IPv6 address, as a literal: no name to resolve. */
static int parse_address(const struct config *cfg,
			 const struct config_tool *tool, const char *arg,
			 FILE *err)
{
	struct in6_addr ip6;
	struct in_addr ip4;
	char name[64];

	if (inet_pton(AF_INET, arg, &ip4) == 1 ||
	    inet_pton(AF_INET6, arg, &ip6) == 1)
		return 0;
	spelling(tool, CONFIG_OPT_SOURCE_IP, name, sizeof(name));
	fprintf(err,
		"%s: invalid %s value '%s' (expected an IPv4 or IPv6 address)\n",
		NAME(cfg), name, arg);
	return -EINVAL;
}

/* Apply one of the shared options; 0, or -EINVAL after printing why. */
static int apply_shared(struct config *cfg, const struct config_tool *tool,
			int id, const char *arg, FILE *err)
{
	unsigned long value = 0;
	int ret = 0;

	switch (id) {
	case CONFIG_OPT_PORT:
		ret = shared_number(cfg, tool, id, arg, 1, 65535, &value, err);
		cfg->tcp_port = (uint16_t)value;
		break;
	case CONFIG_OPT_DEVICE:
		cfg->ib_devname = arg;
		break;
	case CONFIG_OPT_IB_PORT:
		ret = shared_number(cfg, tool, id, arg, 1, 255, &value, err);
		cfg->ib_port = (uint8_t)value;
		cfg->ib_port_given = true;
		break;
	case CONFIG_OPT_GID:
		/* The GRH's sgid_index is 8 bits wide. */
		ret = shared_number(cfg, tool, id, arg, 0, 255, &value, err);
		cfg->gid_idx = (int)value;
		break;
	case CONFIG_OPT_RDMA_CM:
		cfg->use_rdma_cm = true;
		break;
	case CONFIG_OPT_EVENTS:
		cfg->use_events = true;
		break;
	case CONFIG_OPT_TIMEOUT:
		ret = shared_number(cfg, tool, id, arg, 1, TIMEOUT_MAX_SEC,
				    &value, err);
		cfg->timeout_sec = (int)value;
		break;
	case CONFIG_OPT_CONNECT_TIMEOUT:
		ret = shared_number(cfg, tool, id, arg, 1, TIMEOUT_MAX_SEC,
				    &value, err);
		cfg->connect_timeout_sec = (int)value;
		break;
	case CONFIG_OPT_ACCEPT_TIMEOUT:
		ret = shared_number(cfg, tool, id, arg, 1, TIMEOUT_MAX_SEC,
				    &value, err);
		cfg->accept_timeout_sec = (int)value;
		break;
	case CONFIG_OPT_VERBOSE:
		cfg->verbose = true;
		break;
	case CONFIG_OPT_SL:
		/* 4 bits in the LRH; on RoCE, what the driver maps to a
		 * priority */
		ret = shared_number(cfg, tool, id, arg, 0, 15, &value, err);
		cfg->sl = (uint8_t)value;
		break;
	case CONFIG_OPT_TCLASS:
		/* the GRH's 8 bits: on RoCE v2 the IP header's DS field */
		ret = shared_number(cfg, tool, id, arg, 0, 255, &value, err);
		cfg->traffic_class = (uint8_t)value;
		break;
	case CONFIG_OPT_TOS:
		ret = shared_number(cfg, tool, id, arg, 0, 255, &value, err);
		cfg->tos = (int)value;
		break;
	case CONFIG_OPT_MTU:
		ret = parse_mtu(cfg, tool, arg, &cfg->path_mtu, err);
		break;
	case CONFIG_OPT_SOURCE_IP:
		ret = parse_address(cfg, tool, arg, err);
		cfg->source_ip = arg;
		break;
	case CONFIG_OPT_ACK_TIMEOUT:
		/* 5 bits: 0 waits for ever, N waits 4.096 us * 2^N */
		ret = shared_number(cfg, tool, id, arg, 0, 31, &value, err);
		cfg->ack_timeout = (int)value;
		break;
	default:
		ret = tool->parse(tool->settings, id, arg, err);
		break;
	}
	return ret;
}

/*
 * getopt_long's rows and letters from the table: a long row returns the
 * option's id, a letter itself (mapped to the id by id_of_letter). -EINVAL
 * if the table does not fit.
 */
static int build_tables(const struct config_tool *tool,
			struct option table[OPTION_TABLE_MAX],
			char shorts[SHORT_OPTIONS_MAX])
{
	const struct config_option *o;
	size_t n = 0, len = 0;

	shorts[len++] = ':';
	for (o = tool->options; o->name || o->help; o++) {
		if (!o->name)
			continue;
		if (n + 1 >= OPTION_TABLE_MAX)
			return -EINVAL;
		table[n++] = (struct option){o->name, o->has_arg, NULL, o->id};
		if (!o->letter)
			continue;
		shorts[len++] = (char)o->letter;
		if (o->has_arg == required_argument)
			shorts[len++] = ':';
	}
	shorts[len] = '\0';
	table[n] = (struct option){0};
	return 0;
}

/* What getopt returned for a letter, as the table's id. */
static int id_of_letter(const struct config_tool *tool, int opt)
{
	const struct config_option *o;

	if (opt >= CONFIG_OPT_PORT)
		return opt;
	for (o = tool->options; o->name || o->help; o++)
		if (o->name && o->letter == opt)
			return o->id;
	return opt;
}

/*
 * The option getopt refused as it was typed: its long name (without "--"
 * and any "=value") in @name, or its letter in *@letter. An unknown long
 * option leaves optopt 0 and is always argv[optind - 1].
 */
static void typed_option(char *const argv[], char *name, size_t len,
			 int *letter)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	name[0] = '\0';
	*letter = 0;
	if (optopt == 0 && strncmp(arg, "--", 2) == 0) {
		snprintf(name, len, "%.*s", (int)strcspn(arg + 2, "="),
			 arg + 2);
		return;
	}
	*letter = optopt;
}

/* Another program's option typed as @name (without "--") or @letter. */
static const struct config_option_owner *
other_programs_option(const struct config *cfg, const char *name, int letter)
{
	size_t i;

	for (i = 0; i < config_option_owners_count; i++) {
		const struct config_option_owner *o = &config_option_owners[i];

		if (name[0] && !(o->owners & (1u << cfg->program)) &&
		    strcmp(name, o->name) == 0)
			return o;
		if (!name[0] && letter && letter == o->letter &&
		    !(o->letter_owners & (1u << cfg->program)))
			return o;
	}
	return NULL;
}

/*
 * An option getopt rejected that is another program's: one line saying
 * whose it is, or how this program spells the same setting; true if so.
 */
static bool refused_as_others(const struct config *cfg,
			      const struct config_tool *tool, const char *name,
			      int letter, FILE *err)
{
	const struct config_option_owner *o =
		other_programs_option(cfg, name, letter);
	const struct config_option *here =
		o && o->id ? row_of(tool, o->id) : NULL;
	char typed[64], owners[96];

	if (!o)
		return false;
	if (name[0])
		snprintf(typed, sizeof(typed), "--%s", name);
	else
		snprintf(typed, sizeof(typed), "-%c (--%s)", letter, o->name);
	if (here && here->letter)
		fprintf(err, "%s: option %s is spelled -%c, --%s here\n",
			NAME(cfg), typed, here->letter, here->name);
	else if (here)
		fprintf(err, "%s: option %s is spelled --%s here\n", NAME(cfg),
			typed, here->name);
	else
		fprintf(err, "%s: option %s is %s, not %s's\n", NAME(cfg),
			typed,
			program_owners_text(o->owners, owners, sizeof(owners)),
			NAME(cfg));
	return true;
}

/*
 * Report what getopt rejected, in one line: whose option it is when it is
 * not this program's (perftest's, through the program's refuse hook, or
 * another of ours), else naming it as it was typed.
 */
static void report_bad_option(const struct config *cfg,
			      const struct config_tool *tool, int opt,
			      char **argv, const struct option *table,
			      FILE *err)
{
	char text[OPT_ERROR_MAX];
	char name[64];
	int letter;

	if (opt == '?') {
		typed_option(argv, name, sizeof(name), &letter);
		if (tool->refuse && tool->refuse(name, letter, err))
			return;
		if (refused_as_others(cfg, tool, name, letter, err))
			return;
	}
	opt_error_text(text, sizeof(text), opt, argv, table);
	fprintf(err, "%s: %s\n", NAME(cfg), text);
}

/*
 * The words left after the options, in the order given: the program's own
 * (a measurement's name, wherever it stands), then at most one SERVER.
 */
static int take_words(struct config *cfg, const struct config_tool *tool,
		      int argc, char **argv, FILE *err)
{
	int i, ret;

	for (i = optind; i < argc; i++) {
		ret = tool->word ? tool->word(tool->settings, argv[i], err) : 0;
		if (ret < 0)
			return ret;
		if (ret > 0)
			continue;
		if (cfg->server_name) {
			fprintf(err, "%s: unexpected argument '%s'\n",
				NAME(cfg), argv[i]);
			return -EINVAL;
		}
		cfg->server_name = argv[i];
	}
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
	return 0;
}

int config_parse(struct config *cfg, const struct config_tool *tool, int argc,
		 char **argv, FILE *out, FILE *err)
{
	struct option table[OPTION_TABLE_MAX];
	char shorts[SHORT_OPTIONS_MAX];
	int opt, ret;

	config_defaults(cfg);
	cfg->program = tool->program;
	if (tool->tcp_port)
		cfg->tcp_port = tool->tcp_port;
	if (build_tables(tool, table, shorts)) {
		fprintf(err, "%s: too many options to parse\n", NAME(cfg));
		return -EINVAL;
	}
	/* 0, not 1: glibc then re-initialises all of getopt's state. */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, table, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			report_bad_option(cfg, tool, opt, argv, table, err);
			return -EINVAL;
		}
		opt = id_of_letter(tool, opt);
		if (opt == CONFIG_OPT_HELP) {
			print_usage(cfg, tool, out);
			return 1;
		}
		if (opt == CONFIG_OPT_VERSION) {
			fprintf(out, "%s " PROGRAM_VERSION "\n", NAME(cfg));
			return 1;
		}
		if (apply_shared(cfg, tool, opt, optarg, err))
			return -EINVAL;
	}
	ret = take_words(cfg, tool, argc, argv, err);
	if (ret)
		return ret;
	return tool->finish(tool->settings, cfg, out, err);
}
