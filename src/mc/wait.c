// SPDX-License-Identifier: MIT
/*
 * Bounded waits: both the RDMA_CM event channel and the completion
 * channel are file descriptors, so one poll() with a timeout serves both.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "mc_wait.h"

#define MS_PER_S  1000
#define NS_PER_MS 1000000

int64_t mc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * MS_PER_S + ts.tv_nsec / NS_PER_MS;
}

int mc_wait_readable(int fd, int64_t timeout_ms)
{
	struct pollfd pfd = {
		.fd = fd,
		.events = POLLIN,
	};
	int64_t deadline = mc_now_ms() + timeout_ms;
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
		left = deadline - mc_now_ms(); /* a signal: wait the rest */
	}
}
