/* SPDX-License-Identifier: MIT */
#ifndef COMPLETION_H
#define COMPLETION_H

#include <infiniband/verbs.h>

#include "post.h"
#include "common/trace.h"

/* Room for the line completion_failure_line writes. */
#define COMPLETION_LINE_MAX 512

/*
 * The wait poll_completion makes, without judging what arrived: one
 * completion into *@wc, whatever its status, within @timeout_ms. Busy polls,
 * or sleeps on the completion channel when @cq was created with one; either
 * way prints the async events that arrive meanwhile. 0, or after one line a
 * negative errno: -ETIMEDOUT, -EINTR on SIGINT or SIGTERM, -EIO if polling
 * failed or the device went away, or what a failed verbs call returned.
 */
int wait_completion(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc,
		    const struct trace *tr);

/*
 * Poll @cq for one completion, for at most @timeout_ms. Succeeds only if it
 * arrived, its status is IBV_WC_SUCCESS and its opcode is @expected; the
 * completion is copied to *@wc when @wc is not NULL. A failed status
 * returns -EHOSTUNREACH for retry exceeded (no acknowledgement: no path),
 * -EAGAIN for RNR retry exceeded, -EACCES for a remote access error, -EIO
 * for any other, after the line of completion_failure_line; -EPROTO for
 * another opcode; the wait's own errors as wait_completion.
 */
int poll_completion(struct ibv_cq *cq, int timeout_ms,
		    enum ibv_wc_opcode expected, struct ibv_wc *wc,
		    const struct trace *tr);

/*
 * poll_completion for the send request @posted, with the completion's
 * line naming it (its opcode, remote address and rkey) if it fails.
 */
int poll_send_completion(struct ibv_cq *cq, int timeout_ms,
			 const struct send_request *posted,
			 enum ibv_wc_opcode expected, const struct trace *tr);

/*
 * Pure, unit tested: the one line (no newline) for a failed completion
 * @wc, naming the work request from our own record, since the opcode of
 * a failed completion is undefined: @posted when given, otherwise the
 * request that completes as @expected (a receive, a bind). Then the
 * status and its hint.
 */
void completion_failure_line(char *buf, size_t len, const struct ibv_wc *wc,
			     const struct send_request *posted,
			     enum ibv_wc_opcode expected);

/* What a failed status means to the user, or NULL when none is known. */
const char *wc_status_hint(enum ibv_wc_status status);

#endif
