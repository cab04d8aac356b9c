// SPDX-License-Identifier: MIT
/*
 * Bounded waits: both the RDMA_CM event channel and the completion
 * channel are file descriptors, so one poll() with a timeout serves both.
 */
#include <errno.h>
#include <poll.h>

#include "interrupt.h"
#include "mc_wait.h"

int mc_wait_readable(int fd, int64_t timeout_ms)
{
	struct pollfd pfd = {
		.fd = fd,
		.events = POLLIN,
	};
	int64_t deadline = now_ms() + timeout_ms;
	int64_t left = timeout_ms;
	int n;

	for (;;) {
		n = poll(&pfd, 1, left > 0 ? (int)left : 0);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
		left = deadline - now_ms(); /* a signal: wait the rest */
	}
}
