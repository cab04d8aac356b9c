/* SPDX-License-Identifier: MIT */
/*
 * rdma_rc_example's command line: device, port, GID, path settings, TCP
 * port, waits and the trace; the manual's other lessons are rdma_lessons's.
 */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdio.h>

#include "config.h"

/* The example's table and its handlers, for config_parse. */
void example_config_tool(struct config_tool *tool);

/*
 * Parse the command line into @cfg (config_parse over the example's
 * table): 0 to run, 1 when help or version was printed on @out, -EINVAL
 * after one line on @err.
 */
int parse_command_line(struct config *cfg, int argc, char **argv, FILE *out,
		       FILE *err);

#endif
