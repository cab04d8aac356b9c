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
 * Read one event if there is one, print and acknowledge it: 1 with *@type
 * set, 0 if none, -errno after one line.
 */
int async_event_take(struct ibv_context *ctx, enum ibv_event_type *type);

#endif
