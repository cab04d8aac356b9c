/* SPDX-License-Identifier: MIT */
/* Bounded waits of rdma_mc_example: a file descriptor and a deadline. */
#ifndef MC_WAIT_H
#define MC_WAIT_H

#include <stdint.h>

/*
 * Wait until @fd is readable, at most @timeout_ms (<= 0: do not wait).
 * Returns 0, -ETIMEDOUT, or -errno of poll().
 */
int mc_wait_readable(int fd, int64_t timeout_ms);

#endif /* MC_WAIT_H */
