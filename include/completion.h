/* SPDX-License-Identifier: MIT */
#ifndef COMPLETION_H
#define COMPLETION_H

#include <stdbool.h>

#include <infiniband/verbs.h>

#include "post.h"
#include "resources.h"
#include "common/cq_wait.h"
#include "common/trace.h"

/* Room for the line completion_failure_line writes. */
#define COMPLETION_LINE_MAX 512

/*
 * The manual's poll_completion: look at the CQ of @res with ibv_poll_cq
 * (--new-api: ibv_start_poll) until the completion waited for arrives,
 * for at most @timeout_ms and while the peer keeps its TCP connection
 * @peer_sock open (-1: no peer; between two looks, cq_wait_next busy
 * polls or sleeps on the completion channel when the CQ was created with
 * one, and prints the async events). The one waited for is @posted's, by
 * its wr_id (a send request: its opcode, remote address and rkey name it
 * in a failure line), or with NULL @posted the first receive or bind that
 * completes as @expected. A successful completion of another work request
 * is kept on the shelf of @res for the wait that wants it, and one kept
 * earlier is taken before the CQ is looked at. Succeeds only if the
 * status is IBV_WC_SUCCESS and the opcode @expected; the completion is
 * copied to *@wc when @wc is not NULL. A failed status, whichever work
 * request's, returns -EHOSTUNREACH for retry exceeded (no
 * acknowledgement: no path), -EAGAIN for RNR retry exceeded, -EACCES for
 * a remote access error, -EIO for any other, after the line of
 * completion_failure_line; -EPROTO for another opcode; -ENOSPC when the
 * shelf is full; a wait that ended, as completion_wait_failed.
 */
int poll_completion(struct resources *res, int timeout_ms, int peer_sock,
		    const struct send_request *posted,
		    enum ibv_wc_opcode expected, struct ibv_wc *wc);

/*
 * Pure, unit tested: whether @wc, a successful completion, is the one a
 * wait for @posted's work request (by wr_id, of a send) or, with NULL
 * @posted, for a receive or bind completing as @expected, is for.
 */
bool completion_is_wanted(const struct ibv_wc *wc,
			  const struct send_request *posted,
			  enum ibv_wc_opcode expected);

/*
 * Pure, unit tested: take from @shelf into *@wc the first completion the
 * wait (@posted, @expected) is for, as completion_is_wanted says: true if
 * there was one.
 */
bool completion_take(struct completion_shelf *shelf,
		     const struct send_request *posted,
		     enum ibv_wc_opcode expected, struct ibv_wc *wc);

/* Pure, unit tested: keep @wc on @shelf; -ENOSPC if it is full. */
int completion_keep(struct completion_shelf *shelf, const struct ibv_wc *wc);

/* What a completion that never comes means, and how to find out which. */
#define COMPLETION_TIMEOUT_HINT                                              \
	"the peer is stuck or gone, or its packets do not arrive (on RoCE: " \
	"UDP port 4791 closed by a firewall, a netdev MTU below the path "   \
	"MTU, no route to its GID)"

/*
 * A wait for a completion (@ret from cq_wait or cq_wait_next) that ended
 * without one: the line for -ETIMEDOUT (after @timeout_ms), -ECONNRESET
 * (the peer closed its connection) and -EINTR (SIGINT or SIGTERM); any
 * other error already had its line. Returns
 * @ret. For the operations that judge a failed completion themselves.
 */
int completion_wait_failed(int ret, int timeout_ms);

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

/* The -v line of completion @wc, for a wait that polls the CQ itself. */
void completion_trace(const struct trace *tr, const struct ibv_wc *wc);

/* What a failed status means to the user, or NULL when none is known. */
const char *wc_status_hint(enum ibv_wc_status status);

#endif
