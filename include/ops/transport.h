/* SPDX-License-Identifier: MIT */
/*
 * What each transport can do, decided before anything is opened: RC runs
 * every operation; UC has no RDMA READ and no atomics; UD has SEND/RECEIVE
 * only. Pure: unit tested.
 */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include <stdio.h>

#include "config.h"
#include "ops/ops.h"

/* "rc", "uc" or "ud" into *@transport; -EINVAL for anything else. */
int transport_parse(const char *text, enum transport *transport);

/*
 * Why @transport cannot run @op ("UC has no RDMA READ"), or NULL if it can.
 */
const char *transport_refusal(enum transport transport,
			      const struct op_desc *op);

/*
 * Fit @ops to cfg->transport once all options are read. With the default
 * list (@ops_arg NULL), drop what the transport cannot run and say so on
 * @out, one line per operation. With an explicit --ops @ops_arg, or with
 * --rdma-cm on UC or UD or with -i/-g, refuse in one line on @err:
 * -EINVAL.
 */
int transport_fit(const struct config *cfg, enum transport transport,
		  struct ops_list *ops, const char *ops_arg, FILE *out,
		  FILE *err);

#endif
