// SPDX-License-Identifier: MIT
/* -e: a CQ's completion channel, and a wait that sleeps on it. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "common/async.h"
#include "common/interrupt.h"
#include "extras/cq_events.h"

int cq_events_open(struct ibv_context *ctx, struct ibv_comp_channel **channel,
		   const struct trace *tr)
{
	int flags, ret;

	*channel = ibv_create_comp_channel(ctx);
	if (!*channel) {
		ret = -errno;
		warnx("failed to create a completion channel: %s",
		      strerror(-ret));
		return ret;
	}
	flags = fcntl((*channel)->fd, F_GETFL);
	if (flags < 0 || fcntl((*channel)->fd, F_SETFL, flags | O_NONBLOCK)) {
		ret = -errno;
		warnx("failed to make the completion channel non-blocking: %s",
		      strerror(-ret));
		ibv_destroy_comp_channel(*channel);
		*channel = NULL;
		return ret;
	}
	trace_step(tr, "created completion channel (fd %d)", (*channel)->fd);
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
		return cq_wait_expired(w);
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
		cq_wait_peer_gone(w);
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
int cq_events_sleep(struct cq_waiter *w)
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

const struct cq_events cq_events = {
	.open = cq_events_open,
	.sleep = cq_events_sleep,
};
