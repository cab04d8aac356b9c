/* SPDX-License-Identifier: MIT */
/*
 * The server for several clients (--clients N, --srq): the manual's steps,
 * with one QP for each client on the same PD, CQ and buffer, each connected
 * as the manual's one is (the TCP exchange, or -R RDMA_CM); then the
 * operations, client after client, except hello, which it serves to all
 * its clients at once.
 * With --srq the QPs take their receives from one shared receive queue
 * (SRQ) instead of a queue each. Every client is the ordinary program.
 */
#ifndef SERVE_H
#define SERVE_H

#include <stdbool.h>

#include "config.h"
#include "ops/options.h"
#include "resources.h"

/* True if the server of @cfg is this one: --clients above 1, --srq, or hello. */
bool serve_wanted(const struct config *cfg, const struct lessons *lessons);

/*
 * Steps 1-10 for lessons->clients clients, running lessons->ops, the
 * resources made for @sizes (which it adds the SRQ and the clients'
 * completions to). 0 if every client was served to its end; otherwise the
 * first client's error, after the others were served.
 */
int serve_clients(const struct config *cfg, const struct lessons *lessons,
		  struct resources_sizes *sizes);

#endif
