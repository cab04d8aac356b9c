/* SPDX-License-Identifier: MIT */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/program.h"
#include "op_id.h"

struct option;

/* The transport of the QP; the number travels in the QP-info message. */
enum transport {
	TRANSPORT_RC = 0, /* reliable connected: every operation */
	TRANSPORT_UC = 1, /* unreliable connected: SEND and RDMA WRITE */
	TRANSPORT_UD = 2, /* unreliable datagram: SEND only, one packet */
};

#define CONFIG_DEFAULT_TCP_PORT		   19875
#define CONFIG_DEFAULT_IB_PORT		   1
#define CONFIG_DEFAULT_TIMEOUT_SEC	   10
#define CONFIG_DEFAULT_CONNECT_TIMEOUT_SEC 5
#define CONFIG_DEFAULT_ACCEPT_TIMEOUT_SEC  60
/* --clients: the most clients one server takes at once. */
#define CONFIG_CLIENTS_MAX 8

/* Everything the command line decides; read-only once parsed. */
struct config {
	/* Which program parsed it: the name its messages start with. */
	enum program_id program;

	/* The TCP side: whom to talk to (NULL server_name: be the server). */
	const char *server_name;
	uint16_t tcp_port;

	/* The RDMA side: device (NULL: the first one), port, GID index. */
	const char *ib_devname;
	uint8_t ib_port;
	bool ib_port_given; /* -i was on the command line */
	int gid_idx;	    /* -1: automatic on RoCE, no GRH on InfiniBand */

	/* What to run, in order, and over which transport. */
	enum transport transport;
	enum op_id ops[OPS_MAX];
	size_t op_count;

	/* How to run it: completion channel events, RDMA_CM set-up. */
	bool use_events;
	bool use_rdma_cm;
	/* The server for several clients (src/serve): how many it takes, and
	 * whether their QPs share one receive queue (an SRQ). */
	unsigned int clients;
	bool use_srq;

	/* Bounds on every wait, in seconds. */
	int timeout_sec;
	int connect_timeout_sec;
	int accept_timeout_sec;

	/* Output: the verbs trace; a tool's results as JSON. */
	bool verbose;
	const char *json_path; /* --json FILE (the tools only), NULL: none */
};

/*
 * A tool built on the same steps (a program beside the example), as its main
 * hands it to config_parse: the tool's rows join the options table, the
 * options config.c does not know go to @parse, and once all are read
 * @finish checks them against the rest of the command line. A tool also
 * takes --json FILE.
 */
struct config_tool {
	enum program_id program;
	const char *synopsis; /* after the name in "usage: NAME ..." */
	const char *roles;    /* the line under it: which side is which */
	const struct option *long_options; /* ends with a row of zeros */
	const char *short_options;	   /* for getopt_long's string */
	void *settings;			   /* the mode's own struct */
	/* 0; -ENOENT if @opt is not the mode's; -EINVAL after one line */
	int (*parse)(void *settings, int opt, const char *arg, FILE *err);
	/* 0, or -EINVAL after one line on @err */
	int (*finish)(void *settings, const struct config *cfg, FILE *err);
	/* the tool's lines at the end of --help */
	void (*print_usage)(FILE *out);
};

/* Fill @cfg with the defaults of every option. */
void config_defaults(struct config *cfg);

/*
 * Parse the command line into @cfg, and the options of @tool (NULL:
 * rdma_rc_example, the manual's options and the lessons') into its
 * settings. Pure: no
 * exit(), no globals kept, safe to call repeatedly (getopt is reset);
 * strings in @cfg point into @argv, and GNU getopt may reorder @argv. Help
 * and version go to @out, errors (one line) to @err.
 * Returns 0 to run, 1 when help or version was printed, -EINVAL on a usage
 * error.
 */
int config_parse(struct config *cfg, const struct config_tool *tool, int argc,
		 char **argv, FILE *out, FILE *err);

/* The one spelling of seconds to milliseconds. */
#define MS_PER_SEC 1000

/* The bounds of the command line in milliseconds, as the waits take them. */
static inline int config_timeout_ms(const struct config *cfg)
{
	return cfg->timeout_sec * MS_PER_SEC;
}

static inline long long config_connect_timeout_ms(const struct config *cfg)
{
	return (long long)cfg->connect_timeout_sec * MS_PER_SEC;
}

static inline long long config_accept_timeout_ms(const struct config *cfg)
{
	return (long long)cfg->accept_timeout_sec * MS_PER_SEC;
}

/*
 * The TCP port of the program's own socket (the QP-info exchange, the
 * syncs between operations): -p; with -R the port after it, because on
 * iWARP RDMA_CM's listen takes -p as a real TCP port. The same on every
 * device, so that a command line means one thing everywhere.
 */
static inline uint16_t config_sock_port(const struct config *cfg)
{
	return cfg->use_rdma_cm ? (uint16_t)(cfg->tcp_port + 1) : cfg->tcp_port;
}

/* "RC" for TRANSPORT_RC, and so on. */
static inline const char *transport_name(enum transport transport)
{
	switch (transport) {
	case TRANSPORT_RC:
		return "RC";
	case TRANSPORT_UC:
		return "UC";
	case TRANSPORT_UD:
		return "UD";
	}
	return "unknown";
}

#endif
