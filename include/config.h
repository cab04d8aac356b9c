/* SPDX-License-Identifier: MIT */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <getopt.h>

#include "common/program.h"

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

	/* How to connect and wait: completion channel events, RDMA_CM. */
	bool use_events;
	bool use_rdma_cm;

	/*
	 * The path's settings, where a program offers them (perftest's
	 * options): service level and traffic class of the address
	 * (the TCP exchange), RDMA_CM's type of service (-R), the path MTU
	 * (enum ibv_mtu, 0: the smaller of the two ports') and the ack
	 * timeout (4.096 us * 2^N).
	 */
	uint8_t sl;
	uint8_t traffic_class;
	int tos; /* -1: RDMA_CM's default */
	uint8_t path_mtu;
	int ack_timeout; /* -1: QP_ACK_TIMEOUT (qp.h) */
	/* RC's RNR retries, set by a program, not an option (-1: QP_RNR_RETRY) */
	int rnr_retry;
	/* client: the local address of its connections, NULL: the route's */
	const char *source_ip;

	/* Bounds on every wait, in seconds. */
	int timeout_sec;
	int connect_timeout_sec;
	int accept_timeout_sec;

	/* Output: the verbs trace. */
	bool verbose;
};

/* Turn a number macro into text, for --help lines that name a default. */
#define CONFIG_STR_(x) #x
#define CONFIG_STR(x)  CONFIG_STR_(x)

/*
 * The options config.c applies itself: what connecting needs, the same in
 * every program whatever a program calls them. A program's own options
 * take ids from CONFIG_OPT_PROGRAM up.
 */
enum config_option_id {
	CONFIG_OPT_PORT = 256,
	CONFIG_OPT_DEVICE,
	CONFIG_OPT_IB_PORT,
	CONFIG_OPT_GID,
	CONFIG_OPT_RDMA_CM,
	CONFIG_OPT_EVENTS,
	CONFIG_OPT_TIMEOUT,
	CONFIG_OPT_CONNECT_TIMEOUT,
	CONFIG_OPT_ACCEPT_TIMEOUT,
	CONFIG_OPT_VERBOSE,
	CONFIG_OPT_SL,
	CONFIG_OPT_TCLASS,
	CONFIG_OPT_TOS,
	CONFIG_OPT_MTU,
	CONFIG_OPT_ACK_TIMEOUT,
	CONFIG_OPT_SOURCE_IP,
	CONFIG_OPT_HELP,
	CONFIG_OPT_VERSION,
	CONFIG_OPT_PROGRAM = 512,
};

/*
 * One row of a program's option table: how the option is typed and what
 * --help says of it. Each program has one table; getopt_long's rows, its
 * short letters, --help and the checks of the man page and the shell
 * completion all come from it. A row with no name and a help text is a
 * heading in --help; the table ends with a row of zeros.
 */
struct config_option {
	const char *name; /* the long name, without "--" */
	int letter;	  /* the short letter; 0: long only */
	int has_arg;	  /* no_argument or required_argument */
	int id;		  /* enum config_option_id, or the program's own */
	const char *arg;  /* the value's name in --help ("PORT") */
	const char *help; /* --help's text, '\n' between its lines; NULL:
			   * accepted, and no line (it changes nothing) */
};

/* --help's text of the options every program shares. */
#define CONFIG_HELP_DEVICE                                 \
	"RDMA device (default: the first one found that\n" \
	"is not iWARP, unless there are only iWARP ones)"
#define CONFIG_HELP_IB_PORT \
	"port of that device (default " CONFIG_STR(CONFIG_DEFAULT_IB_PORT) ")"
#define CONFIG_HELP_GID                                  \
	"GID index (default: on RoCE the GID of the\n"   \
	"address the TCP connection to the peer uses;\n" \
	"no GRH on InfiniBand)"
#define CONFIG_HELP_TIMEOUT                             \
	"bound on each wait that sees no progress\n"    \
	"(no completion, byte or word from the peer)\n" \
	"(default " CONFIG_STR(CONFIG_DEFAULT_TIMEOUT_SEC) ")"
#define CONFIG_HELP_CONNECT_TIMEOUT              \
	"client: how long to retry connecting\n" \
	"(default " CONFIG_STR(CONFIG_DEFAULT_CONNECT_TIMEOUT_SEC) ")"
#define CONFIG_HELP_ACCEPT_TIMEOUT                \
	"server: how long to wait for a client\n" \
	"(default " CONFIG_STR(CONFIG_DEFAULT_ACCEPT_TIMEOUT_SEC) ")"

/*
 * The rows of the options every program spells as the manual's example
 * does (the rows of -R, -e and the path's options with -R are in
 * extras/config_rows.h). A program that spells one otherwise (with
 * perftest's letters) writes that row out itself.
 */
#define CONFIG_ROW_DEVICE                                                    \
	{                                                                    \
		"ib-dev", 'd', required_argument, CONFIG_OPT_DEVICE, "NAME", \
			CONFIG_HELP_DEVICE                                   \
	}
#define CONFIG_ROW_IB_PORT                                                  \
	{                                                                   \
		"ib-port", 'i', required_argument, CONFIG_OPT_IB_PORT, "N", \
			CONFIG_HELP_IB_PORT                                 \
	}
#define CONFIG_ROW_GID                                                  \
	{                                                               \
		"gid-idx", 'g', required_argument, CONFIG_OPT_GID, "N", \
			CONFIG_HELP_GID                                 \
	}
#define CONFIG_ROW_TIMEOUT                                                    \
	{                                                                     \
		"timeout", 't', required_argument, CONFIG_OPT_TIMEOUT, "SEC", \
			CONFIG_HELP_TIMEOUT                                   \
	}
#define CONFIG_ROW_CONNECT_TIMEOUT                         \
	{                                                  \
		"connect-timeout", 0, required_argument,   \
			CONFIG_OPT_CONNECT_TIMEOUT, "SEC", \
			CONFIG_HELP_CONNECT_TIMEOUT        \
	}
#define CONFIG_ROW_ACCEPT_TIMEOUT                         \
	{                                                 \
		"accept-timeout", 0, required_argument,   \
			CONFIG_OPT_ACCEPT_TIMEOUT, "SEC", \
			CONFIG_HELP_ACCEPT_TIMEOUT        \
	}
#define CONFIG_ROW_VERBOSE                                             \
	{                                                              \
		"verbose", 'v', no_argument, CONFIG_OPT_VERBOSE, NULL, \
			"trace every verbs step"                       \
	}
#define CONFIG_ROW_HELP                                          \
	{                                                        \
		"help", 'h', no_argument, CONFIG_OPT_HELP, NULL, \
			"show this help"                         \
	}
#define CONFIG_ROW_VERSION                                             \
	{                                                              \
		"version", 'V', no_argument, CONFIG_OPT_VERSION, NULL, \
			"show the version"                             \
	}

/* The line under "usage:" of a program whose SERVER argument is optional. */
#define CONFIG_ROLE_SERVER \
	"without SERVER, run as the server and wait for a client"

/*
 * An option of one of the programs, for the line that refuses it in
 * another ("option -o (--ops) is rdma_lessons's, not rdma_rc_example's",
 * or "option --gid-idx is spelled -x, --gid-index here"). The table is
 * made by the build from every program's own table (src/owners/), so
 * that no file lists another program's options.
 */
struct config_option_owner {
	const char *name; /* the long name, without "--" */
	int letter;	  /* a short letter some program gives it, or 0 */
	int id;		  /* a shared option's enum config_option_id, else 0 */
	unsigned int owners; /* 1u << enum program_id of each that has it */
	/* of those, each that gives it this letter */
	unsigned int letter_owners;
};

extern const struct config_option_owner config_option_owners[];
extern const size_t config_option_owners_count;

/*
 * A program's command line, as its main hands it to config_parse: its
 * table (the shared rows among its own), and what to do with the options
 * config.c does not apply. @settings is the program's own struct.
 */
struct config_tool {
	enum program_id program;
	const char *synopsis; /* after the name in "usage: NAME ..." */
	const char *roles;    /* the line under it: which side is which */
	const struct config_option *options; /* ends with a row of zeros */
	uint16_t tcp_port; /* -p's default; 0: CONFIG_DEFAULT_TCP_PORT */
	void *settings;
	/* 0, or -EINVAL after one line on @err */
	int (*parse)(void *settings, int id, const char *arg, FILE *err);
	/*
	 * A word that is not an option and not SERVER (a measurement's name):
	 * 1 if the program took it, 0 if it is not the program's, -EINVAL
	 * after one line. NULL: the program takes no words.
	 */
	int (*word)(void *settings, const char *word, FILE *err);
	/*
	 * An option typed (@name without "--", or @letter) that is not in the
	 * table: 1 after one line saying whose it is, 0 if the program knows
	 * nothing of it. NULL: the program knows no others.
	 */
	int (*refuse)(const char *name, int letter, FILE *err);
	/* 0, or -EINVAL after one line on @err */
	int (*finish)(void *settings, struct config *cfg, FILE *out, FILE *err);
	/* more lines at the end of --help; NULL: none */
	void (*print_usage)(FILE *out);
};

/*
 * @text as a decimal number in [min, max] (no sign, spaces or suffix) into
 * *@value: 0, or -EINVAL after "PROGRAM: invalid OPTION value ..." on @err.
 */
int config_parse_number(enum program_id program, const char *option,
			const char *text, unsigned long min, unsigned long max,
			unsigned long *value, FILE *err);

/*
 * --tclass and --sl for a program that spells its options as the manual's
 * example does: over the TCP exchange both go in the address; with -R the
 * traffic class is RDMA_CM's type of service (cfg->tos), which also gives
 * the SL, so --sl is refused there. 0, or -EINVAL after one line on @err.
 */
int config_fit_path(struct config *cfg, FILE *err);

/* Fill @cfg with the defaults of every option. */
void config_defaults(struct config *cfg);

/*
 * Parse the command line into @cfg, and the options of @tool's own into its
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
