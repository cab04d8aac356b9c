/* SPDX-License-Identifier: MIT */
/* The peer's beats and end-of-size sync (bench_peer.c). */
#ifndef BENCH_PEER_H
#define BENCH_PEER_H

#include <stdint.h>

#include "bench_run.h"

/* The beat's byte, and the end of a size's sync byte (sock_sync's). */
#define BENCH_BEAT '.'
#define BENCH_SYNC 'Q'
/* Beats come this often, or four times within -t if that is sooner. */
#define BENCH_BEAT_MS 1000

/* Send a beat now (bench_peer.c). */
void bench_beat_send(struct bench_run *run, uint64_t ticks);

/*
 * Read what the peer sent on the TCP connection so far, a byte at a time
 * and without waiting, so that nothing after its sync byte is taken:
 * beats set *@heard_ns to now; its end of size byte sets peer_synced and
 * returns 1. 0: nothing more; -errno after a line.
 */
int bench_hear_peer(struct bench_run *run, uint64_t *heard_ns);

/*
 * From the start sync on, this side beats (bench_beat): the first after
 * one beat's time, then every beat's time, counted in ticks of @rate
 * nanoseconds (bench_peer.c).
 */
void bench_start_beating(struct bench_run *run, double rate);

/*
 * The end of a size: this side's sync byte, then the peer's, as long as
 * it keeps beating (unless bench_hear_peer has had it already). A peer
 * still posting beats at least every -t / 4; silence for the whole of -t
 * means it stopped, or its host or the link did. A peer that died closes
 * the socket. 0, or -errno after one line.
 */
int bench_await_peer(struct bench_run *run);

/*
 * The line for a wait for @what that the peer's closed connection ended,
 * with the size's progress so far; -ECONNRESET.
 */
int bench_peer_gone(const struct bench_run *run, const char *what);

/*
 * At a post stamped @ticks: a beat if one is due. One compare on the
 * hot path.
 */
static inline void bench_beat(struct bench_run *run, uint64_t ticks)
{
	if (ticks >= run->beat_at)
		bench_beat_send(run, ticks);
}

#endif
