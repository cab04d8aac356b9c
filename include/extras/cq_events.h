/* SPDX-License-Identifier: MIT */
/*
 * -e (rdma_lessons, rdma_check, rdma_bench, rdma_mc_example): a CQ made
 * with a completion channel, and a wait that sleeps on the channel
 * instead of busy polling. The steps make the channel with
 * resources_sizes.events; a wait sleeps with cq_events_sleep.
 */
#ifndef EXTRAS_CQ_EVENTS_H
#define EXTRAS_CQ_EVENTS_H

#include <infiniband/verbs.h>

#include "common/cq_wait.h"
#include "common/trace.h"

/*
 * A completion channel on @ctx, its fd non-blocking so that a wait can
 * poll() it (with the async fd) and never block past its bound.
 */
int cq_events_open(struct ibv_context *ctx, struct ibv_comp_channel **channel,
		   const struct trace *tr);

/*
 * The sleep of a wait on a CQ with a channel: look at the CQ; if it is
 * empty, arm it and look once more (a completion that came before the arm
 * makes no event); only then sleep until an event, the async fd, the
 * peer's connection or the deadline, and look again.
 */
int cq_events_sleep(struct cq_waiter *w);

/*
 * The two steps of sleeping on @cq's completion channel, also for waits of
 * their own (the benchmark's). arm_cq asks for an event on the next
 * completion of any kind; take_cq_event takes one event off the
 * non-blocking channel, if one is there (0 also when none is), and
 * acknowledges it. 0 or a negative errno, after one line.
 */
int arm_cq(struct ibv_cq *cq);
int take_cq_event(struct ibv_cq *cq, const struct trace *tr);

/* Both, for resources_sizes.events and cq_wait. */
extern const struct cq_events cq_events;

#endif
