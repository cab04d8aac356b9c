/* SPDX-License-Identifier: MIT */
/*
 * rdma_rc_example's command line: the options every program shares, and
 * the lessons' own (-o, -c, --clients, --srq).
 */
#ifndef OPS_OPTIONS_H
#define OPS_OPTIONS_H

#include <stdio.h>

#include "config.h"

/* What the lessons' options leave for the checks after the last one. */
struct ops_options {
	struct config *cfg;  /* where the lessons' choices are kept */
	const char *ops_arg; /* -o as typed, NULL: the default list */
};

/* rdma_rc_example's table and its handlers, for config_parse. */
void ops_config_tool(struct ops_options *settings, struct config *cfg,
		     struct config_tool *tool);

/* rdma_rc_example's command line into @cfg: config_parse's results. */
int ops_parse_command_line(struct config *cfg, int argc, char **argv, FILE *out,
			   FILE *err);

#endif
