/* SPDX-License-Identifier: MIT */
#ifndef COMPLETION_H
#define COMPLETION_H

#include <infiniband/verbs.h>

#include "trace.h"

/*
 * Poll @cq for one completion, for at most @timeout_ms. Succeeds only if it
 * arrived, its status is IBV_WC_SUCCESS and its opcode is @expected; the
 * completion is copied to *@wc when @wc is not NULL.
 */
int poll_completion(struct ibv_cq *cq, int timeout_ms,
		    enum ibv_wc_opcode expected, struct ibv_wc *wc,
		    const struct trace *tr);

#endif
