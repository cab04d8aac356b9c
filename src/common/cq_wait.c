// SPDX-License-Identifier: MIT
/*
 * Waiting for a completion on a CQ, by busy polling or on its completion
 * channel, within a bound and until SIGINT/SIGTERM: what every program here
 * does between two looks at the CQ (see cq_wait.h).
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

void cq_wait_start(struct cq_waiter *w, struct ibv_cq *cq, int timeout_ms,
		   int peer_sock, const struct trace *tr)
{
	*w = (struct cq_waiter){
		.cq = cq,
		.tr = tr,
		.deadline = now_ms() + timeout_ms,
		.peer_sock = peer_sock,
	};
}

/* What poll() says, asked for POLLRDHUP, of a connection the peer closed
 * or reset. */
#define PEER_CLOSED_EVENTS (POLLRDHUP | POLLHUP | POLLERR)

bool peer_closed(int sock)
{
	/* POLLRDHUP, not POLLIN: the peer's FIN, behind unread data too. */
	struct pollfd pfd = {.fd = sock, .events = POLLRDHUP};

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & PEER_CLOSED_EVENTS);
}

/*
 * The peer closed its connection: look at the CQ for the grace still,
 * then stop with -ECONNRESET (the deadline's check says which). poll()
 * no longer wakes for the connection.
 */
static void peer_is_gone(struct cq_waiter *w)
{
	long long grace_end = now_ms() + CQ_PEER_GONE_GRACE_MS;

	w->peer_gone = true;
	w->peer_sock = -1;
	if (grace_end < w->deadline)
		w->deadline = grace_end;
}

/* What a wait whose deadline passed stops with. */
static int deadline_passed(const struct cq_waiter *w)
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
			peer_is_gone(w);
	}
	if (empty && now_ms() >= w->deadline)
		return deadline_passed(w);
	if (interrupted())
		return -EINTR;
	return 0;
}

int arm_cq(struct ibv_cq *cq)
{
	int ret = ibv_req_notify_cq(cq, 0);

	if (ret) {
		warnx("failed to request CQ notification: %s", strerror(ret));
		return -ret;
	}
	return 0;
}

int take_cq_event(struct ibv_cq *cq, const struct trace *tr)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (ibv_get_cq_event(cq->channel, &ev_cq, &ev_ctx)) {
		int ret = -errno;

		if (ret == -EAGAIN)
			return 0; /* nothing there after all: poll again */
		warnx("failed to get a CQ event: %s", strerror(-ret));
		return ret;
	}
	/* One ack per event; ibv_destroy_cq waits for all of them. */
	ibv_ack_cq_events(ev_cq, 1);
	trace_step(tr, "got a CQ event on the completion channel, acked it");
	return 0;
}

/*
 * The CQ is armed and was found empty: poll() the channel fd, the async
 * fd and the peer's connection until the deadline; print the async
 * events, take and ack a CQ event. 0 to look at the CQ again (also when
 * poll() woke for another reason).
 */
static int sleep_for_event(struct cq_waiter *w)
{
	struct ibv_cq *cq = w->cq;
	struct pollfd fds[] = {
		{.fd = cq->channel->fd, .events = POLLIN},
		{.fd = cq->context->async_fd, .events = POLLIN},
		{.fd = w->peer_sock, .events = POLLRDHUP},
	};
	long long left = w->deadline - now_ms();
	int n, ret;

	if (left <= 0)
		return deadline_passed(w);
	n = interruptible_poll(fds, 3, (int)left);
	if (n == -EINTR && interrupted())
		return -EINTR;
	if (n < 0 && n != -EINTR) {
		warnx("failed to wait on the completion channel: %s",
		      strerror(-n));
		return n;
	}
	if (n <= 0)
		return 0;
	/* first the async events: a device removed says so there */
	if (fds[1].revents & POLLIN) {
		ret = async_events_drain(cq->context);
		if (ret < 0)
			return ret;
	}
	if (poll_fds_closed(fds, 2)) {
		warnx("failed to wait on the completion channel: the device's event queues were closed (device removed?): %s",
		      strerror(EIO));
		return -EIO;
	}
	if (fds[2].revents & PEER_CLOSED_EVENTS)
		peer_is_gone(w);
	if (!(fds[0].revents & POLLIN))
		return 0;
	w->armed = false; /* an event disarms the CQ */
	return take_cq_event(cq, w->tr);
}

/*
 * On the completion channel: look at the CQ; if it is empty, arm it and
 * look once more (a completion that came before the arm makes no event);
 * only then sleep until an event, and look again.
 */
static int event_next(struct cq_waiter *w)
{
	int ret;

	if (!w->looks++)
		return 0;
	if (w->armed)
		return sleep_for_event(w);
	ret = arm_cq(w->cq);
	if (ret)
		return ret;
	w->armed = true;
	trace_step(w->tr, "CQ empty: armed it for an event");
	return 0;
}

int cq_wait_next(struct cq_waiter *w)
{
	/* A CQ made with a completion channel is waited on through it. */
	if (w->cq->channel)
		return event_next(w);
	return busy_next(w);
}

int cq_wait(struct ibv_cq *cq, int timeout_ms, int peer_sock, struct ibv_wc *wc,
	    const struct trace *tr)
{
	struct cq_waiter wait;
	int n, ret;

	cq_wait_start(&wait, cq, timeout_ms, peer_sock, tr);
	while (!(ret = cq_wait_next(&wait))) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? cq_poll_failed(n) : 0;
	}
	return ret;
}
