/* SPDX-License-Identifier: MIT */
#ifndef ASYNC_H
#define ASYNC_H

#include <infiniband/verbs.h>

/*
 * Asynchronous events: what the device reports outside any completion (a
 * QP that hit an access error, a port that went down, ...). They are read
 * from the context's async_fd, printed with ibv_event_type_str() and
 * acknowledged at once.
 *
 * Why no thread: this program is single-threaded and every wait it makes
 * is already a bounded loop (busy polling, or poll() on the completion
 * channel); the async fd is made non-blocking and drained from those loops,
 * so events print in order with the lines around them and teardown has no
 * thread to wake and join. Acknowledging at once matters: ibv_destroy_qp()
 * and ibv_destroy_cq() wait until every event read for their object has
 * been acknowledged.
 */

/* Make @ctx's async_fd non-blocking, so a drain never waits. */
int async_events_init(struct ibv_context *ctx);

/*
 * Print and acknowledge every event already queued on @ctx. Returns how
 * many there were (>= 0), or -errno if reading failed.
 */
int async_events_drain(struct ibv_context *ctx);

/*
 * Wait at most @timeout_ms for an event of type @expected, printing and
 * acknowledging every event that arrives meanwhile. 0 if it came;
 * -ETIMEDOUT, without a line, if not: whether that is a failure is the
 * caller's to say; another -errno after one line.
 */
int async_events_wait(struct ibv_context *ctx, enum ibv_event_type expected,
		      int timeout_ms);

#endif
