/* SPDX-License-Identifier: MIT */
#ifndef CHECK_H
#define CHECK_H

/*
 * Check mode (--check): whether this host, and with a peer this pair of
 * hosts, can do RDMA with the options given, one line per check.
 *
 *   check_config.c  the options --check and --pair, and their checks
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

/* What the check options decide; main keeps it beside struct config. */
struct check_config {
	bool on;   /* --check */
	bool pair; /* --pair: be the server of a pair check */
	/* The first check option seen, to refuse it without --check. */
	const char *first_option;
};

/* Set @cc to the defaults and @mode to the check options, for config_parse. */
void check_config_mode(struct check_config *cc, struct config_mode *mode);

/* True once --check was given: the checks run instead of the operations. */
bool check_is_on(const struct check_config *cc);

/*
 * Run the checks @cc asks for, printing one line each and the verdict
 * last, and with --json write them to that file. 0 once they ran, with
 * *@passed true when none failed; -errno if they could not run (no
 * memory, the JSON file not writable).
 */
int check_run(const struct config *cfg, const struct check_config *cc,
	      bool *passed);

#endif
