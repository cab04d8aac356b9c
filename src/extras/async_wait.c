// SPDX-License-Identifier: MIT
/* Waiting for one async event (see async_wait.h). */
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "common/async.h"
#include "common/interrupt.h"
#include "extras/async_wait.h"

int async_events_wait(struct ibv_context *ctx, enum ibv_event_type expected,
		      int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	struct pollfd pfd = {.fd = ctx->async_fd, .events = POLLIN};
	/* set by every async_event_take that returns 1; the analyzer cannot tell */
	enum ibv_event_type type = IBV_EVENT_COMM_EST;
	long long left;
	int ret;

	for (;;) {
		while ((ret = async_event_take(ctx, &type)) > 0)
			if (type == expected)
				return 0;
		if (ret < 0)
			return ret;
		left = deadline - now_ms();
		if (left <= 0)
			break;
		ret = interruptible_poll(&pfd, 1, (int)left);
		if (ret == -EINTR && !interrupted())
			continue; /* another signal: wait on */
		if (ret < 0) {
			warnx("failed to wait for async events: %s",
			      strerror(-ret));
			return ret;
		}
		/* POLLERR alone: the device is gone, no event will come */
		if (ret > 0 && poll_fds_closed(&pfd, 1)) {
			warnx("failed to wait for async events: the device's event queue was closed (device removed?): %s",
			      strerror(EIO));
			return -EIO;
		}
	}
	return -ETIMEDOUT;
}
