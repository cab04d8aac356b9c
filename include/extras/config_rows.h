/* SPDX-License-Identifier: MIT */
/*
 * The rows and --help texts of the options the programs with -R and -e
 * share (rdma_lessons, rdma_check, and rdma_bench's texts), beside those
 * of config.h that rdma_rc_example has too.
 */
#ifndef EXTRAS_CONFIG_ROWS_H
#define EXTRAS_CONFIG_ROWS_H

#include "config.h"

#define CONFIG_HELP_PORT                                                                 \
	"TCP port for the QP-info exchange (default " CONFIG_STR(                        \
		CONFIG_DEFAULT_TCP_PORT) ");\n"                                          \
					 "with -R, RDMA_CM's port, and the syncs take\n" \
					 "PORT+1 (on iWARP RDMA_CM owns the TCP port)"
#define CONFIG_HELP_RDMA_CM                                \
	"connect through RDMA_CM on PORT instead of the\n" \
	"TCP exchange (device from the address)"
#define CONFIG_HELP_EVENTS                               \
	"wait for completions on a completion channel\n" \
	"instead of busy polling"
#define CONFIG_ROW_PORT                                                  \
	{                                                                \
		"port", 'p', required_argument, CONFIG_OPT_PORT, "PORT", \
			CONFIG_HELP_PORT                                 \
	}
#define CONFIG_ROW_RDMA_CM                                             \
	{                                                              \
		"rdma-cm", 'R', no_argument, CONFIG_OPT_RDMA_CM, NULL, \
			CONFIG_HELP_RDMA_CM                            \
	}
#define CONFIG_ROW_EVENTS                                            \
	{                                                            \
		"events", 'e', no_argument, CONFIG_OPT_EVENTS, NULL, \
			CONFIG_HELP_EVENTS                           \
	}
#define CONFIG_ROW_SL                                             \
	{                                                         \
		"sl", 0, required_argument, CONFIG_OPT_SL, "N",   \
			"service level of the address, 0 to 15\n" \
			"(default 0; not with -R)"                \
	}
#define CONFIG_ROW_TCLASS                                               \
	{                                                               \
		"tclass", 0, required_argument, CONFIG_OPT_TCLASS, "N", \
			"traffic class, 0 to 255: on RoCE v2 the IP\n"  \
			"DS field; with -R RDMA_CM's type of service\n" \
			"(default 0)"                                   \
	}
/*
 * The shared rows, all of them, in the manual's example's spelling: how
 * the table of a program that keeps that spelling starts.
 */
#define CONFIG_ROWS_CONNECTION                                               \
	CONFIG_ROW_PORT, CONFIG_ROW_DEVICE, CONFIG_ROW_IB_PORT,              \
		CONFIG_ROW_GID, CONFIG_ROW_RDMA_CM, CONFIG_ROW_EVENTS,       \
		CONFIG_ROW_TIMEOUT, CONFIG_ROW_CONNECT_TIMEOUT,              \
		CONFIG_ROW_ACCEPT_TIMEOUT, CONFIG_ROW_SL, CONFIG_ROW_TCLASS, \
		CONFIG_ROW_VERBOSE, CONFIG_ROW_HELP, CONFIG_ROW_VERSION

#endif
