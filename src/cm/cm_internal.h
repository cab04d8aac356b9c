/* SPDX-License-Identifier: MIT */
/* Private to src/cm: the event waits that both halves of -R use. */
#ifndef CM_INTERNAL_H
#define CM_INTERNAL_H

#include <stddef.h>

#include <rdma/rdma_cma.h>

#include "cm/cm.h"

/* Room for why a wait or an address failed, for the one error line. */
#define CM_WHY_LEN 256

/*
 * Wait until @deadline (now_ms) for the next event; it must be @expected.
 * On success the caller owns *@event and acks it; on failure @why says
 * what happened instead, for the caller to report.
 */
int cm_take_event(struct cm *cm, long long deadline,
		  enum rdma_cm_event_type expected,
		  struct rdma_cm_event **event, char *why, size_t why_len);

/* cm_take_event within @timeout_sec, with one line on stderr if it fails. */
int cm_wait_event(struct cm *cm, int timeout_sec,
		  enum rdma_cm_event_type expected,
		  struct rdma_cm_event **event);

/*
 * -d with -R: the device RDMA_CM found for the address (client) or the
 * request came on (server) must be the one named, if one was. Otherwise
 * one line and -ENODEV; the server rejects the request, so the client
 * hears.
 */
int cm_check_device(struct cm *cm, const struct config *cfg);

/*
 * Client, -q: a channel and an id of @lane's own, resolved to the server
 * as cm_open resolves it (the device was checked on the first id).
 */
int cm_open_lane(struct cm *lane, const struct cm *first,
		 const struct config *cfg);

#endif
