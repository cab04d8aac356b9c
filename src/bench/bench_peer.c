// SPDX-License-Identifier: MIT
/*
 * What each side hears of the other while a size runs: the beat bytes
 * that say it is still at work (bench_beat), and the sync byte that ends
 * the size. The loops of bench_lat.c and bench_bw.c listen for them, and
 * bench.c's end of a size waits for the peer's sync here.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "bench_clock.h"
#include "bench_peer.h"
#include "bench_run.h"
#include "common/interrupt.h"

void bench_beat_send(struct bench_run *run, uint64_t ticks)
{
	const char beat = BENCH_BEAT;

	/*
	 * Never blocks: a full socket buffer already holds beats enough, and
	 * a peer that closed is the loop's to find (its completions stop).
	 */
	(void)send(run->sock, &beat, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	run->beat_at = ticks + run->beat_ticks;
}

void bench_start_beating(struct bench_run *run, double rate)
{
	uint64_t beat_ms = (uint64_t)run->timeout_ms / 4;

	if (beat_ms > BENCH_BEAT_MS)
		beat_ms = BENCH_BEAT_MS;
	if (!beat_ms)
		beat_ms = 1;
	/* No rate yet (no clock moved): a tick taken for a nanosecond beats
	 * more often than asked, never less. */
	run->beat_ticks =
		(uint64_t)((double)beat_ms * 1e6 / (rate > 0 ? rate : 1.0));
	run->beat_at = bench_ticks() + run->beat_ticks;
}

int bench_hear_peer(struct bench_run *run, uint64_t *heard_ns)
{
	ssize_t got;
	char c;
	int err;

	for (;;) {
		/* A byte at a time: what follows the peer's sync is not ours. */
		got = recv(run->sock, &c, 1, MSG_DONTWAIT);
		if (got < 0 &&
		    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		if (got == 0 || (got < 0 && errno == ECONNRESET))
			return bench_peer_gone(run, "hear from the peer");
		if (got < 0) {
			err = errno;
			warnx("failed to receive from the peer after 0 of 1 bytes: %s",
			      strerror(err));
			return -err;
		}
		if (c == BENCH_BEAT) {
			*heard_ns = bench_now_ns();
			continue;
		}
		if (c == BENCH_SYNC) {
			run->peer_synced = true;
			return 1;
		}
		warnx("failed to sync with the peer: %s (got 0x%02x)",
		      strerror(EPROTO), (unsigned char)c);
		return -EPROTO;
	}
}

int bench_peer_gone(const struct bench_run *run, const char *what)
{
	warnx("failed to %s in the %u-byte size (sends %" PRIu64 " of %" PRIu64
	      ", receives %" PRIu64 " of %" PRIu64
	      " done): %s; the peer closed its connection: it ended or failed, and its own output says why",
	      what, run->size, run->sends_completed, run->sends_posted,
	      run->recvs_completed, run->recvs_posted, strerror(ECONNRESET));
	return -ECONNRESET;
}

int bench_await_peer(struct bench_run *run)
{
	struct pollfd pfd = {.fd = run->sock, .events = POLLIN};
	const char mine = BENCH_SYNC;
	uint64_t heard;
	int n;

	if (send(run->sock, &mine, 1, MSG_NOSIGNAL) != 1) {
		n = errno;
		warnx("failed to send to the peer after 0 of 1 bytes: %s",
		      strerror(n));
		return -n;
	}
	while (!run->peer_synced) {
		n = interruptible_poll(&pfd, 1, run->timeout_ms);
		if (n < 0) {
			warnx("failed to receive from the peer after 0 of 1 bytes: %s",
			      strerror(-n));
			return n;
		}
		if (n == 0) {
			warnx("failed to hear from the peer within %d ms at the end of the %u-byte size: %s; the peer stopped (SIGSTOP, a debugger) or its host hangs, or the link to it is down",
			      run->timeout_ms, run->size, strerror(ETIMEDOUT));
			return -ETIMEDOUT;
		}
		n = bench_hear_peer(run, &heard);
		if (n < 0)
			return n;
	}
	run->peer_synced = false;
	return 0;
}
