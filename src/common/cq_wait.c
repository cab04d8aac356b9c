// SPDX-License-Identifier: MIT
/*
 * Wait for one completion on a CQ, by busy polling or on its completion
 * channel, within a bound and until SIGINT/SIGTERM: the one wait both
 * programs use (see cq_wait.h).
 */
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

/* One completion into *@wc: 1, 0 if the CQ is empty, or -EIO. */
static int poll_once(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n = ibv_poll_cq(cq, 1, wc);

	if (n < 0) {
		/* ibv_poll_cq returns a negative number, not an errno */
		fprintf(stderr,
			"failed to poll CQ: %s (ibv_poll_cq returned %d)\n",
			strerror(EIO), n);
		return -EIO;
	}
	return n;
}

/* Busy-poll until one completion arrives or @timeout_ms passes. */
static int busy_wait(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc)
{
	long long deadline = now_ms() + timeout_ms;
	unsigned int spins = 0;
	int n, ret;

	do {
		if (interrupted())
			return -EINTR;
		n = poll_once(cq, wc);
		if (n)
			return n < 0 ? n : 0;
		if (++spins % BUSY_POLLS_PER_ASYNC_CHECK == 0) {
			ret = async_events_drain(cq->context);
			if (ret < 0)
				return ret;
		}
	} while (now_ms() < deadline);
	return -ETIMEDOUT;
}

int arm_cq(struct ibv_cq *cq)
{
	int ret = ibv_req_notify_cq(cq, 0);

	if (ret) {
		fprintf(stderr, "failed to request CQ notification: %s\n",
			strerror(ret));
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
		fprintf(stderr, "failed to get a CQ event: %s\n",
			strerror(-ret));
		return ret;
	}
	/* One ack per event; ibv_destroy_cq waits for all of them. */
	ibv_ack_cq_events(ev_cq, 1);
	trace_step(tr, "got a CQ event on the completion channel, acked it");
	return 0;
}

/*
 * Sleep on the completion channel until one completion arrives or
 * @timeout_ms passes: poll the CQ; if empty, arm it and poll once more (a
 * completion that came before the arm makes no event); then poll() the
 * channel fd and the async fd, take and ack the event, and start again.
 */
static int event_wait(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc,
		      const struct trace *tr)
{
	long long deadline = now_ms() + timeout_ms, left;
	struct pollfd fds[] = {
		{.fd = cq->channel->fd, .events = POLLIN},
		{.fd = cq->context->async_fd, .events = POLLIN},
	};
	bool armed = false;
	int n, ret;

	for (;;) {
		n = poll_once(cq, wc);
		if (n)
			return n < 0 ? n : 0;
		if (!armed) {
			ret = arm_cq(cq);
			if (ret)
				return ret;
			armed = true;
			trace_step(tr, "CQ empty: armed it for an event");
			continue;
		}
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = interruptible_poll(fds, 2, (int)left);
		if (n == -EINTR && interrupted())
			return -EINTR;
		if (n < 0 && n != -EINTR) {
			ret = n;
			fprintf(stderr,
				"failed to wait on the completion channel: %s\n",
				strerror(-ret));
			return ret;
		}
		/* first the async events: a device removed says so there */
		if (n > 0 && (fds[1].revents & POLLIN)) {
			ret = async_events_drain(cq->context);
			if (ret < 0)
				return ret;
		}
		if (n > 0 && poll_fds_closed(fds, 2)) {
			fprintf(stderr,
				"failed to wait on the completion channel: the device's event queues were closed (device removed?): %s\n",
				strerror(EIO));
			return -EIO;
		}
		if (n > 0 && (fds[0].revents & POLLIN)) {
			ret = take_cq_event(cq, tr);
			if (ret)
				return ret;
			armed = false; /* an event disarms the CQ */
		}
	}
}

int cq_wait(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc,
	    const struct trace *tr)
{
	/* A CQ made with a completion channel is waited on through it. */
	if (cq->channel)
		return event_wait(cq, timeout_ms, wc, tr);
	return busy_wait(cq, timeout_ms, wc);
}
