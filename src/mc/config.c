// SPDX-License-Identifier: MIT
/*
 * Options of rdma_mc_example, in the style of rdma-core's mckey:
 * getopt_long into struct mc_config, each value checked as it is read.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "mc/mc_config.h"
#include "common/opt_error.h"

/* The program's name, as its usage errors start. */
#define MC_PROGRAM "rdma_mc_example"

#ifndef PROGRAM_VERSION
#define PROGRAM_VERSION "unknown" /* CMake defines it, from project() */
#endif

static const struct option long_options[] = {
	{.name = "mcast-addr", .has_arg = required_argument, .val = 'm'},
	{.name = "bind-addr", .has_arg = required_argument, .val = 'b'},
	{.name = "send", .has_arg = no_argument, .val = 's'},
	{.name = "count", .has_arg = required_argument, .val = 'C'},
	{.name = "size", .has_arg = required_argument, .val = 'S'},
	{.name = "timeout", .has_arg = required_argument, .val = 't'},
	{.name = "verbose", .has_arg = no_argument, .val = 'v'},
	{.name = "help", .has_arg = no_argument, .val = 'h'},
	{.name = "version", .has_arg = no_argument, .val = 'V'},
	{0},
};

/* Leading ':' makes getopt return ':' for a missing argument. */
static const char short_options[] = ":m:b:sC:S:t:vhV";

void mc_config_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"Usage: %s [options]\n"
		"Send or receive COUNT messages on an RDMA multicast group (UD QP, RDMA_CM).\n"
		"\n"
		"  -m, --mcast-addr GROUP  IPv4 or IPv6 multicast group (default %s)\n"
		"  -b, --bind-addr ADDR    local address to bind to; selects the RDMA device\n"
		"                          (default: chosen by the routing table)\n"
		"  -s, --send              send COUNT messages (default: receive them)\n"
		"  -C, --count COUNT       messages to send or to receive, 1..%d (default %d)\n"
		"  -S, --size SIZE         bytes of each message sent, %d..%d (default %d),\n"
		"                          at most the port's active MTU; receivers' ports (and\n"
		"                          on InfiniBand the group) may allow less. Receivers\n"
		"                          take any size up to their port's active MTU\n"
		"  -t, --timeout SEC       bound on each wait: one CM event, one completion,\n"
		"                          1..%d (default %d)\n"
		"  -v, --verbose           trace each verbs and RDMA_CM step\n"
		"  -h, --help              show this help\n"
		"  -V, --version           show the version\n"
		"\n"
		"Start the receivers first: a UD message sent before a receiver joined is lost.\n"
		"Exit status: 0 all COUNT messages sent or received, 1 failure, 2 bad usage.\n",
		prog, MC_DEFAULT_GROUP, MC_MAX_COUNT, MC_DEFAULT_COUNT,
		MC_MSG_MIN_SIZE, MC_UD_MAX_SIZE, MC_DEFAULT_SIZE,
		MC_MAX_TIMEOUT, MC_DEFAULT_TIMEOUT);
}

const char *mc_config_version(void)
{
	return PROGRAM_VERSION;
}

/* A decimal number in [min, max]; no sign, no trailing characters. */
static int parse_uint(const char *s, unsigned int min, unsigned int max,
		      unsigned int *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/* A numeric IPv4 or IPv6 address (no name lookup) into @ss. */
static int parse_addr(const char *s, struct sockaddr_storage *ss)
{
	const struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST,
		.ai_family = AF_UNSPEC,
	};
	struct addrinfo *res;

	if (getaddrinfo(s, NULL, &hints, &res))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static bool is_multicast(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET)
		return IN_MULTICAST(ntohl(sin->sin_addr.s_addr));
	return IN6_IS_ADDR_MULTICAST(&sin6->sin6_addr);
}

static int set_group(struct mc_config *cfg, const char *arg, FILE *err)
{
	if (strlen(arg) >= sizeof(cfg->group_str) ||
	    parse_addr(arg, &cfg->group)) {
		fprintf(err,
			MC_PROGRAM
			": invalid -m/--mcast-addr '%s': not a numeric IPv4 or IPv6 address\n",
			arg);
		return -EINVAL;
	}
	if (!is_multicast(&cfg->group)) {
		fprintf(err,
			MC_PROGRAM
			": invalid -m/--mcast-addr '%s': not a multicast address (IPv4 224.0.0.0/4, IPv6 ff00::/8)\n",
			arg);
		return -EINVAL;
	}
	/* fits: its length was checked above */
	memcpy(cfg->group_str, arg, strlen(arg) + 1);
	return 0;
}

static int set_bind_addr(struct mc_config *cfg, const char *arg, FILE *err)
{
	if (strlen(arg) >= sizeof(cfg->bind_str) ||
	    parse_addr(arg, &cfg->bind_addr)) {
		fprintf(err,
			MC_PROGRAM
			": invalid -b/--bind-addr '%s': not a numeric IPv4 or IPv6 address\n",
			arg);
		return -EINVAL;
	}
	memcpy(cfg->bind_str, arg, strlen(arg) + 1);
	cfg->has_bind_addr = true;
	return 0;
}

static int set_number(const char *name, const char *arg, unsigned int min,
		      unsigned int max, unsigned int *out, FILE *err)
{
	if (parse_uint(arg, min, max, out)) {
		fprintf(err,
			MC_PROGRAM
			": invalid %s '%s': expected a whole number from %u to %u\n",
			name, arg, min, max);
		return -EINVAL;
	}
	return 0;
}

static int report_rejected(int opt, char **argv, FILE *err)
{
	char text[OPT_ERROR_MAX];

	opt_error_text(text, sizeof(text), opt, argv, long_options);
	fprintf(err, MC_PROGRAM ": %s\n", text);
	return -EINVAL;
}

static int parse_one(struct mc_config *cfg, int opt, char **argv, FILE *err)
{
	switch (opt) {
	case 'm':
		return set_group(cfg, optarg, err);
	case 'b':
		return set_bind_addr(cfg, optarg, err);
	case 's':
		cfg->send = true;
		return 0;
	case 'C':
		return set_number("-C/--count", optarg, 1, MC_MAX_COUNT,
				  &cfg->count, err);
	case 'S':
		return set_number("-S/--size", optarg, MC_MSG_MIN_SIZE,
				  MC_UD_MAX_SIZE, &cfg->size, err);
	case 't':
		return set_number("-t/--timeout", optarg, 1, MC_MAX_TIMEOUT,
				  &cfg->timeout_s, err);
	case 'v':
		cfg->trace.on = true;
		return 0;
	case 'h':
		cfg->show_help = true;
		return 0;
	case 'V':
		cfg->show_version = true;
		return 0;
	default: /* '?' or ':', what getopt_long rejected */
		return report_rejected(opt, argv, err);
	}
}

/* The group and the bind address must be of one family. */
static int check_families(const struct mc_config *cfg, FILE *err)
{
	if (cfg->has_bind_addr &&
	    cfg->bind_addr.ss_family != cfg->group.ss_family) {
		fprintf(err,
			MC_PROGRAM
			": invalid -b/--bind-addr '%s': not the address family of group %s\n",
			cfg->bind_str, cfg->group_str);
		return -EINVAL;
	}
	return 0;
}

int mc_config_parse(int argc, char **argv, struct mc_config *cfg, FILE *err)
{
	int opt, ret;

	*cfg = (struct mc_config){
		.count = MC_DEFAULT_COUNT,
		.size = MC_DEFAULT_SIZE,
		.timeout_s = MC_DEFAULT_TIMEOUT,
	};
	ret = set_group(cfg, MC_DEFAULT_GROUP, err);
	if (ret)
		return ret;

	optind = 0; /* glibc: start over, so that tests can parse twice */
	opterr = 0; /* our own messages, naming the option and the value */
	while ((opt = getopt_long(argc, argv, short_options, long_options,
				  NULL)) != -1) {
		ret = parse_one(cfg, opt, argv, err);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		fprintf(err, MC_PROGRAM ": unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return check_families(cfg, err);
}
