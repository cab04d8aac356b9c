/* SPDX-License-Identifier: MIT */
#ifndef CHECK_H
#define CHECK_H

/*
 * rdma_check: whether this host, and with a peer this pair of hosts, can
 * do RDMA with the options given, one line per check.
 *
 *   main.c          rdma_check's main: the command line, then check_run
 *   check_config.c  the option --pair, and what the check rules out
 *   check_report.c  the lines, the verdict and the JSON file (pure)
 *   check_local.c   the host: kernel, devices, port, GIDs, MTU, memlock,
 *                   capabilities, a real set of resources
 *   check_pair.c    the pair: TCP, the QP-info exchange, the GIDs of both,
 *                   the path MTU, one round of the operations
 *   check.c         check_run: the local checks, then the pair's
 *
 * This header is what main calls; the rest is in check_priv.h.
 */

#include <stdbool.h>

#include "config.h"

/* The program's name, as its messages start. */
#define CHECK_PROGRAM "rdma_check"

/* What rdma_check's own options decide; main keeps it beside struct config. */
struct check_config {
	bool pair;	       /* --pair: be the server of a pair check */
	const char *json_path; /* --json FILE, NULL: none */
	/* --max-lost N: the packets the pair may lose before it fails */
	unsigned long max_lost;
};

/* Set @cc to the defaults and @tool to rdma_check's, for config_parse. */
void check_config_tool(struct check_config *cc, struct config_tool *tool);

/*
 * Run the checks @cc asks for, printing one line each and the verdict
 * last, and with --json write them to that file. 0 once they ran, with
 * *@passed true when none failed; -errno if they could not run (no
 * memory, the JSON file not writable).
 */
int check_run(const struct config *cfg, const struct check_config *cc,
	      bool *passed);

#endif
