/* SPDX-License-Identifier: MIT */
#ifndef CQ_WAIT_H
#define CQ_WAIT_H

#include <infiniband/verbs.h>

#include "common/trace.h"

/*
 * One completion into *@wc, whatever its status, within @timeout_ms. Busy
 * polls, or sleeps on the completion channel when @cq was created with one
 * (read only once poll() finds it readable); either way prints the async
 * events that arrive meanwhile, so the context's async fd must be
 * non-blocking (async_events_init). 0; -ETIMEDOUT,
 * or -EINTR on SIGINT or SIGTERM, for the caller to report; or after one
 * line -EIO if polling failed or the device went away, or what a failed
 * verbs call returned.
 */
int cq_wait(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc,
	    const struct trace *tr);

/*
 * The two steps of sleeping on @cq's completion channel, for waits of their
 * own (the benchmark's). arm_cq asks for an event on the next completion of
 * any kind; take_cq_event takes one event off the non-blocking channel, if
 * one is there (0 also when none is), and acknowledges it. 0 or a negative
 * errno, after one line.
 */
int arm_cq(struct ibv_cq *cq);
int take_cq_event(struct ibv_cq *cq, const struct trace *tr);

#endif
