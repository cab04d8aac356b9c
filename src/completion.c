// SPDX-License-Identifier: MIT
/* Step 9 of the manual, second half: poll the CQ for a completion (poll_completion). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "async.h"
#include "completion.h"
#include "interrupt.h"

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

static int report_timeout(int timeout_ms)
{
	fprintf(stderr, "failed to get a completion within %d ms: %s\n",
		timeout_ms, strerror(ETIMEDOUT));
	return -ETIMEDOUT;
}

/* SIGINT or SIGTERM came in while waiting: stop, the caller unwinds. */
static int report_interrupted(void)
{
	fprintf(stderr, "failed to get a completion: %s\n", strerror(EINTR));
	return -EINTR;
}

/* Busy-poll until one completion arrives or @timeout_ms passes. */
static int busy_wait(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc)
{
	long long deadline = now_ms() + timeout_ms;
	unsigned int spins = 0;
	int n, ret;

	do {
		if (interrupted())
			return report_interrupted();
		n = poll_once(cq, wc);
		if (n)
			return n < 0 ? n : 0;
		if (++spins % BUSY_POLLS_PER_ASYNC_CHECK == 0) {
			ret = async_events_drain(cq->context);
			if (ret < 0)
				return ret;
		}
	} while (now_ms() < deadline);
	return report_timeout(timeout_ms);
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
			return report_timeout(timeout_ms);
		n = interruptible_poll(fds, 2, (int)left);
		if (n == -EINTR && interrupted())
			return report_interrupted();
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

int wait_completion(struct ibv_cq *cq, int timeout_ms, struct ibv_wc *wc,
		    const struct trace *tr)
{
	/* A CQ made with a completion channel is waited on through it. */
	if (cq->channel)
		return event_wait(cq, timeout_ms, wc, tr);
	return busy_wait(cq, timeout_ms, wc);
}

int poll_completion(struct ibv_cq *cq, int timeout_ms,
		    enum ibv_wc_opcode expected, struct ibv_wc *wc,
		    const struct trace *tr)
{
	struct ibv_wc local;
	int ret;

	if (!wc)
		wc = &local;
	ret = wait_completion(cq, timeout_ms, wc, tr);
	if (ret)
		return ret;
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr,
			"failed completion of wr_id %" PRIu64
			" (opcode %s, undefined on error) on QP 0x%06x: %s (vendor error 0x%x)\n",
			wc->wr_id, wc_opcode_str(wc->opcode), wc->qp_num,
			ibv_wc_status_str(wc->status), wc->vendor_err);
		return -EIO;
	}
	if (wc->opcode != expected) {
		fprintf(stderr,
			"failed to get a %s completion: got %s wr_id %" PRIu64
			": %s\n",
			wc_opcode_str(expected), wc_opcode_str(wc->opcode),
			wc->wr_id, strerror(EPROTO));
		return -EPROTO;
	}
	trace_step(tr,
		   "polled completion: %s, wr_id %" PRIu64
		   ", status %s, %u bytes, QP 0x%06x",
		   wc_opcode_str(wc->opcode), wc->wr_id,
		   ibv_wc_status_str(wc->status), wc->byte_len, wc->qp_num);
	return 0;
}
