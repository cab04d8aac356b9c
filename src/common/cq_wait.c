// SPDX-License-Identifier: MIT
/*
 * Waiting for a completion on a CQ, by busy polling or as the events its
 * caller names say (on its completion channel: extras/cq_events.c), within a
 * bound and until SIGINT/SIGTERM: what every program here does between
 * two looks at the CQ (see cq_wait.h).
 */
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/async.h"
#include "common/cq_wait.h"
#include "common/interrupt.h"

/*
 * Empty polls between two looks at the async fd while busy polling: often
 * enough to print an event promptly, rare enough that the loop stays a
 * loop of ibv_poll_cq and not of system calls.
 */
#define BUSY_POLLS_PER_ASYNC_CHECK 4096

void cq_wait_start(struct cq_waiter *w, struct ibv_cq *cq,
		   const struct cq_events *events, int timeout_ms,
		   int peer_sock, const struct trace *tr)
{
	*w = (struct cq_waiter){
		.cq = cq,
		.events = events,
		.tr = tr,
		.deadline = now_ms() + timeout_ms,
		.peer_sock = peer_sock,
	};
}

bool peer_closed(int sock)
{
	/* POLLRDHUP, not POLLIN: the peer's FIN, behind unread data too. */
	struct pollfd pfd = {.fd = sock, .events = POLLRDHUP};

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & PEER_CLOSED_EVENTS);
}

void cq_wait_peer_gone(struct cq_waiter *w)
{
	long long grace_end = now_ms() + CQ_PEER_GONE_GRACE_MS;

	w->peer_gone = true;
	w->peer_sock = -1;
	if (grace_end < w->deadline)
		w->deadline = grace_end;
}

int cq_wait_expired(const struct cq_waiter *w)
{
	return w->peer_gone ? -ECONNRESET : -ETIMEDOUT;
}

int cq_poll_failed(int n)
{
	/* ibv_poll_cq returns a negative number, not an errno */
	warnx("failed to poll CQ: %s (ibv_poll_cq returned %d)", strerror(EIO),
	      n);
	return -EIO;
}

/*
 * Busy polling: before the first look, and after each empty one, stop on a
 * signal; after an empty one, now and then print the async events and
 * look at the peer's connection, and stop at the deadline.
 */
static int busy_next(struct cq_waiter *w)
{
	unsigned int empty = w->looks++;
	int ret;

	if (empty && empty % BUSY_POLLS_PER_ASYNC_CHECK == 0) {
		ret = async_events_drain(w->cq->context);
		if (ret < 0)
			return ret;
		if (peer_closed(w->peer_sock))
			cq_wait_peer_gone(w);
	}
	if (empty && now_ms() >= w->deadline)
		return cq_wait_expired(w);
	if (interrupted())
		return -EINTR;
	return 0;
}

int cq_wait_next(struct cq_waiter *w)
{
	/* A CQ made with a completion channel is waited on through it. */
	if (w->events && w->cq->channel)
		return w->events->sleep(w);
	return busy_next(w);
}

int cq_wait(struct ibv_cq *cq, const struct cq_events *events, int timeout_ms,
	    int peer_sock, struct ibv_wc *wc, const struct trace *tr)
{
	struct cq_waiter wait;
	int n, ret;

	cq_wait_start(&wait, cq, events, timeout_ms, peer_sock, tr);
	while (!(ret = cq_wait_next(&wait))) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? cq_poll_failed(n) : 0;
	}
	return ret;
}
