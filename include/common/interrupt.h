/* SPDX-License-Identifier: MIT */
#ifndef INTERRUPT_H
#define INTERRUPT_H

#include <poll.h>
#include <stdbool.h>

/*
 * SIGINT and SIGTERM end every wait instead of the program: the handler only
 * records the signal, and each wait loop (accept, connect, TCP I/O, CQ poll)
 * checks interrupted() and returns -EINTR, so teardown runs as usual.
 */

/*
 * The deadlines of those waits, in milliseconds of CLOCK_MONOTONIC (which
 * a change of the wall clock cannot move): now_ms() + timeout, then
 * ms_left() for each poll(), 0 once the deadline has passed.
 */
long long now_ms(void);
int ms_left(long long deadline);
/* The sooner of @deadline and @ms from now: one attempt's share of a wait. */
long long deadline_within(long long deadline, int ms);

/*
 * True if poll() found one of @fds closed under it (POLLERR, POLLHUP or
 * POLLNVAL). When a device goes away, the kernel marks its event queues
 * with POLLERR alone, while reading a non-blocking one still says EAGAIN:
 * a loop that looked only for POLLIN would spin until its timeout.
 */
bool poll_fds_closed(const struct pollfd *fds, nfds_t nfds);

/* Install the handlers, without SA_RESTART; 0 or -errno. */
int interrupt_install(void);

/* True once SIGINT or SIGTERM has arrived. */
bool interrupted(void);

/*
 * For a loop that a stop signal ends as its normal end (rdma_bench
 * --run-infinitely): forget the signal, so that the waits of the orderly
 * end that follows go on; a second signal stops those as any other.
 */
void interrupt_take(void);

/*
 * poll() that SIGINT/SIGTERM always wake: the flag is checked with those
 * signals blocked and ppoll unblocks them atomically, so a signal cannot slip
 * in between the check and the sleep. Returns poll's count or -errno;
 * -EINTR with interrupted() false means another signal: poll again.
 */
int interruptible_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms);

/* The signal that arrived ("SIGINT", "SIGTERM"), or NULL if none did. */
const char *interrupt_signal_name(void);

#endif
