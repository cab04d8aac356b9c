/* SPDX-License-Identifier: MIT */
/*
 * rdma_lessons's command line: the options every program shares, and
 * the lessons' own (-o, -c, --clients, --srq).
 */
#ifndef OPS_OPTIONS_H
#define OPS_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "ops/ops.h"

/* --clients: the most clients one server takes at once. */
#define OPS_CLIENTS_MAX 8

/*
 * What rdma_lessons runs, beside what connecting needs (struct
 * config): the operations, and the server for several clients (src/serve):
 * how many it takes, and whether their QPs share one receive queue.
 */
struct lessons {
	struct ops_list ops;
	unsigned int clients;
	bool use_srq;
	/* --new-api: post with ibv_wr_*, poll with ibv_start_poll */
	bool new_api;
	/* --manual-peer: the manual's own program is the peer */
	bool manual_peer;
	/* -c: the QPs' transport */
	enum transport transport;
};

/* What the lessons' options leave for the checks after the last one. */
struct ops_options {
	struct lessons *lessons; /* where the lessons' choices are kept */
	const char *ops_arg;	 /* -o as typed, NULL: the default list */
};

/* rdma_lessons's table and its handlers, for config_parse. */
void ops_config_tool(struct ops_options *settings, struct lessons *lessons,
		     struct config_tool *tool);

/*
 * rdma_lessons's command line into @cfg and @lessons: config_parse's
 * results.
 */
int ops_parse_command_line(struct config *cfg, struct lessons *lessons,
			   int argc, char **argv, FILE *out, FILE *err);

#endif
