/* SPDX-License-Identifier: MIT */
/*
 * Waiting for one async event: a QP's last WQE reached (the server of
 * several clients on its SRQ), a memory window's bind (mw).
 */
#ifndef EXTRAS_ASYNC_WAIT_H
#define EXTRAS_ASYNC_WAIT_H

#include <infiniband/verbs.h>

/*
 * Wait at most @timeout_ms for an event of type @expected, printing and
 * acknowledging every event that arrives meanwhile. 0 if it came;
 * -ETIMEDOUT, without a line, if not: whether that is a failure is the
 * caller's to say; another -errno after one line.
 */
int async_events_wait(struct ibv_context *ctx, enum ibv_event_type expected,
		      int timeout_ms);

#endif
