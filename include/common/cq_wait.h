/* SPDX-License-Identifier: MIT */
#ifndef CQ_WAIT_H
#define CQ_WAIT_H

#include <poll.h>
#include <stdbool.h>

#include <infiniband/verbs.h>

#include "common/trace.h"

/*
 * How long a wait still looks at the CQ once the peer closed its
 * connection: a message it sent just before it ended (UC and UD have no
 * acknowledgement to hold it back) may complete a little after its close
 * is seen.
 */
#define CQ_PEER_GONE_GRACE_MS 500

/* What poll() says, asked for POLLRDHUP, of a connection the peer closed
 * or reset. */
#define PEER_CLOSED_EVENTS (POLLRDHUP | POLLHUP | POLLERR)

struct cq_waiter;

/*
 * -e: how a CQ gets a completion channel, and how a wait sleeps on it
 * (cq_events, extras/cq_events.h). NULL where one is asked for: no
 * channel, busy polling.
 */
struct cq_events {
	/* a completion channel on @ctx: 0, or -errno after one line */
	int (*open)(struct ibv_context *ctx, struct ibv_comp_channel **channel,
		    const struct trace *tr);
	/* cq_wait_next's sleep on a CQ with a channel */
	int (*sleep)(struct cq_waiter *w);
};

/*
 * One wait for a completion on a CQ, between the caller's looks at it
 * (ibv_poll_cq): the deadline, and on a CQ made with a completion channel
 * how to sleep on it and whether it is armed for an event.
 */
struct cq_waiter {
	struct ibv_cq *cq;
	/* -e: how to sleep on the CQ's channel; NULL, or a CQ with no
	 * channel: busy polling */
	const struct cq_events *events;
	const struct trace *tr;
	long long deadline; /* now_ms() + the timeout */
	int peer_sock;	    /* the peer's TCP connection, or -1 */
	unsigned int looks; /* looks at the CQ so far, all found it empty */
	bool armed;	    /* an event was asked for and has not come yet */
	bool peer_gone;	    /* it closed: the deadline is its grace's end */
};

/*
 * Start a wait on @cq of at most @timeout_ms, from now, sleeping as
 * @events says when @cq has a completion channel (NULL: busy polling).
 * @peer_sock, the TCP connection to the peer (-1: none), is watched beside
 * the CQ: once the peer closes it (its program ended or failed), the wait
 * ends within CQ_PEER_GONE_GRACE_MS, not at the timeout. Its data is left
 * unread.
 */
void cq_wait_start(struct cq_waiter *w, struct ibv_cq *cq,
		   const struct cq_events *events, int timeout_ms,
		   int peer_sock, const struct trace *tr);

/*
 * Before each look at the CQ, the first one and each after an empty one:
 * 0 to look (now, or after sleeping on the completion channel until it
 * said a completion came). Busy polls, or sleeps as the wait's events say
 * when the CQ has a completion channel; either way
 * prints the async events that arrive meanwhile, so the context's async fd
 * must be non-blocking (async_events_init). Stops with -ETIMEDOUT once the
 * deadline passed, -ECONNRESET once the peer closed its connection, or
 * -EINTR on SIGINT or SIGTERM, for the caller to report; or after one
 * line with -EIO if the device went away, or what a failed verbs call
 * returned.
 */
int cq_wait_next(struct cq_waiter *w);

/* ibv_poll_cq returned @n < 0: say so in one line; -EIO. */
int cq_poll_failed(int n);

/*
 * One completion into *@wc, whatever its status, within @timeout_ms (and
 * while @peer_sock stays open, as cq_wait_start says): looks at @cq with
 * ibv_poll_cq as cq_wait_next allows. 0, or what cq_wait_next stopped
 * with, or -EIO if polling failed.
 */
int cq_wait(struct ibv_cq *cq, const struct cq_events *events, int timeout_ms,
	    int peer_sock, struct ibv_wc *wc, const struct trace *tr);

/*
 * For a sleep: the peer closed its connection: look at the CQ for the
 * grace still, then stop with -ECONNRESET (cq_wait_expired says which).
 * poll() no longer wakes for the connection.
 */
void cq_wait_peer_gone(struct cq_waiter *w);

/* What a wait whose deadline passed stops with. */
int cq_wait_expired(const struct cq_waiter *w);

/*
 * True if the peer closed or reset TCP connection @sock (-1: never),
 * whatever it sent before that is still unread: one poll() that does not
 * wait.
 */
bool peer_closed(int sock);

#endif
