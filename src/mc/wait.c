// SPDX-License-Identifier: MIT
/*
 * Bounded waits on the RDMA_CM event channel: a file descriptor, so one
 * poll() with a timeout serves, and SIGINT or SIGTERM ends it as it ends
 * every wait of the RC example (interruptible_poll).
 */
#include <errno.h>
#include <poll.h>

#include "common/interrupt.h"
#include "mc/mc_wait.h"

int mc_wait_readable(int fd, int64_t timeout_ms)
{
	struct pollfd pfd = {
		.fd = fd,
		.events = POLLIN,
	};
	long long deadline = now_ms() + timeout_ms;
	int n;

	do
		n = interruptible_poll(&pfd, 1, ms_left(deadline));
	while (n == -EINTR && !interrupted()); /* another signal: the rest */
	if (n > 0)
		return 0;
	return n == 0 ? -ETIMEDOUT : n;
}
