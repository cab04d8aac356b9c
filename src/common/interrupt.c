// SPDX-License-Identifier: MIT
/* SIGINT/SIGTERM: record the signal; the wait loops notice and unwind. */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/interrupt.h"

/* The one global of the program: a handler can do nothing but set it. */
static volatile sig_atomic_t caught_signal;

/* The signals that end a wait. */
static const int stop_signals[] = {SIGINT, SIGTERM};
#define STOP_SIGNAL_COUNT (sizeof(stop_signals) / sizeof(stop_signals[0]))

static void record_signal(int signo)
{
	caught_signal = signo;
}

int interrupt_install(void)
{
	/* No SA_RESTART: a blocking call returns EINTR and the loop checks. */
	struct sigaction sa = {.sa_handler = record_signal, .sa_flags = 0};
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < STOP_SIGNAL_COUNT; i++) {
		if (sigaction(stop_signals[i], &sa, NULL) < 0) {
			int ret = -errno;

			warnx("failed to install the %s handler: %s",
			      strsignal(stop_signals[i]), strerror(-ret));
			return ret;
		}
	}
	return 0;
}

bool interrupted(void)
{
	return caught_signal != 0;
}

void interrupt_take(void)
{
	caught_signal = 0;
}

int interruptible_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	const struct timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (long)(timeout_ms % 1000) * 1000000,
	};
	sigset_t block, old;
	size_t i;
	int n;

	sigemptyset(&block);
	for (i = 0; i < STOP_SIGNAL_COUNT; i++)
		sigaddset(&block, stop_signals[i]);
	if (sigprocmask(SIG_BLOCK, &block, &old) < 0)
		return -errno;
	if (interrupted()) {
		n = -EINTR;
	} else {
		/* sleeps with the old mask: a stop signal wakes it */
		n = ppoll(fds, nfds, &ts, &old);
		if (n < 0)
			n = -errno;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return n;
}

const char *interrupt_signal_name(void)
{
	switch (caught_signal) {
	case 0:
		return NULL;
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	}
	return "a signal";
}

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ms_left(long long deadline)
{
	long long left = deadline - now_ms();

	return left > 0 ? (int)left : 0;
}

long long deadline_within(long long deadline, int ms)
{
	long long until = now_ms() + ms;

	return until < deadline ? until : deadline;
}

bool poll_fds_closed(const struct pollfd *fds, nfds_t nfds)
{
	nfds_t i;

	for (i = 0; i < nfds; i++)
		if (fds[i].revents & (POLLERR | POLLHUP | POLLNVAL))
			return true;
	return false;
}
