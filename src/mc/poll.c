// SPDX-License-Identifier: MIT
/*
 * poll_completion with a timeout. The CQ is read first; when it is
 * empty, it is armed (ibv_req_notify_cq), read once more for what came
 * in before the arming, and only then do we sleep on the completion
 * channel's file descriptor, never past the deadline.
 */
#include <errno.h>
#include <string.h>

#include "interrupt.h"
#include "mc_wait.h"
#include "mc_xfer.h"

#define MS_PER_S 1000

/* 1: a completion in *wc, 0: none, -errno: the CQ could not be read. */
static int poll_once(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n = ibv_poll_cq(cq, 1, wc);

	if (n < 0) {
		fprintf(stderr, "failed to poll CQ: %s\n", strerror(EIO));
		return -EIO; /* ibv_poll_cq gives no errno, only n < 0 */
	}
	return n;
}

/* Sleep until the armed CQ signals, then consume and ack its event. */
static int wait_cq_event(struct mc_resources *res, int64_t deadline)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int ret;

	ret = mc_wait_readable(res->comp_channel->fd, deadline - now_ms());
	if (ret)
		return ret;
	if (ibv_get_cq_event(res->comp_channel, &ev_cq, &ev_ctx)) {
		ret = -errno;
		fprintf(stderr, "failed to get CQ event: %s\n", strerror(-ret));
		return ret;
	}
	ibv_ack_cq_events(ev_cq, 1);
	return 0;
}

int mc_poll_completion(struct mc_resources *res, unsigned int timeout_s,
		       struct ibv_wc *wc)
{
	int64_t deadline = now_ms() + (int64_t)timeout_s * MS_PER_S;
	int n, err;

	for (;;) {
		n = poll_once(res->cq, wc);
		if (n)
			return n < 0 ? n : 0;
		err = ibv_req_notify_cq(res->cq, 0);
		if (err) {
			fprintf(stderr, "failed to arm CQ notification: %s\n",
				strerror(err));
			return -err;
		}
		n = poll_once(res->cq, wc);
		if (n)
			return n < 0 ? n : 0;
		err = wait_cq_event(res, deadline);
		if (err)
			return err;
	}
}
