// SPDX-License-Identifier: MIT
/*
 * Latency, as perftest's ib_*_lat measure it: a timestamp just before each
 * post; the latency samples are the gaps between consecutive posts.
 *
 *   send, write_imm   ping-pong: the client sends, the server answers when
 *                     its receive completes; a gap is one round trip
 *   write             ping-pong without receives: each side spins on the
 *                     last byte of its landing half until the peer's write
 *                     changes it; a gap is one round trip
 *   read, atomics     the client alone: post one, wait for its completion;
 *                     a gap is one whole operation
 *
 * With -D the client runs for a time instead, as perftest's -D: it keeps
 * no gaps, only the iterations done and the clock at the end of the
 * warm-up and at the start of the drain, and the figure is their average
 * (bench.c). The server of a ping-pong answers until the client's end of
 * size byte comes on the TCP connection.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_config.h"
#include "bench_loops.h"
#include "bench_patience.h"
#include "bench_peer.h"
#include "bench_post.h"
#include "bench_run.h"
#include "common/interrupt.h"
#include "completion.h"

#define NS_PER_SEC 1000000000ull

/* The iterations of a size: -n, or with -D as many as the time takes. */
static uint32_t lat_iters(const struct bench_run *run)
{
	return run->bc->duration ? UINT32_MAX : run->bc->iters;
}

/* -D, the client's clock: the end of the warm-up, the drain, the end. */
struct lat_timer {
	uint64_t warm_end, drain, end;
};

static struct lat_timer lat_timer_start(const struct bench_run *run)
{
	uint64_t now = bench_now_ns(), margin = BENCH_MARGIN_SEC * NS_PER_SEC;
	uint64_t end = now + run->bc->duration * NS_PER_SEC;

	return (struct lat_timer){now + margin, end - margin, end};
}

/*
 * -D, the client, with @done iterations done: whether the time is up,
 * noting the window's edges as they pass (the iterations and the clock).
 */
static bool time_up(struct bench_run *run, const struct lat_timer *t,
		    uint64_t done)
{
	uint64_t now = bench_now_ns();

	if (!run->sample_start_ns && now >= t->warm_end) {
		run->sample_start_ns = now;
		run->sample_start_sends = done;
	}
	if (!run->sample_end_ns && now >= t->drain) {
		run->sample_end_ns = now;
		run->sample_end_sends = done;
	}
	return now >= t->end;
}

static int wait_byte(struct bench_run *run, uint8_t value);

/*
 * -D, the server of a ping-pong: wait until the client's next message is
 * here (0): receive number @n, or with @byte the landing byte @n of its
 * WRITE; or until the client's end of size byte came instead (1). It
 * looks for that byte every BENCH_LOOK_MS; -t without a message or a beat
 * ends the run, as any wait.
 */
static int wait_or_end(struct bench_run *run, bool byte, uint64_t n)
{
	uint64_t heard = bench_now_ns();
	int ret;

	for (;;) {
		run->until_ns = bench_now_ns() + BENCH_LOOK_MS * 1000000ull;
		if (byte)
			ret = wait_byte(run, (uint8_t)n);
		else
			ret = bench_wait(run, 0, n);
		run->until_ns = 0;
		if (!ret && !byte && run->recvs_completed < n)
			ret = 1; /* the look's time passed */
		if (ret <= 0)
			return ret;
		ret = bench_hear_peer(run, &heard);
		if (ret)
			return ret;
		if (bench_now_ns() - heard >
		    (uint64_t)run->timeout_ms * 1000000) {
			warnx("failed to hear from the peer within %d ms in the %u-byte size: %s; the peer stopped (SIGSTOP, a debugger) or its host hangs, or the link to it is down",
			      run->timeout_ms, run->size, strerror(ETIMEDOUT));
			return -ETIMEDOUT;
		}
	}
}

/* Keep receives posted ahead: top up by half the depth when half is used. */
static int top_up_recvs(struct bench_run *run)
{
	uint64_t iters = lat_iters(run);
	uint32_t depth = bench_rx_depth(run->bc);
	uint64_t ahead = run->recvs_posted - run->recvs_completed;
	uint64_t room = iters - run->recvs_posted;
	uint32_t add = depth / 2 ? depth / 2 : 1;

	if (room == 0 || ahead > depth / 2)
		return 0;
	return bench_post_recvs(run, &run->lanes[0],
				room < add ? (uint32_t)room : add);
}

/* One post of the ping-pong, timestamped; the send queue is kept from filling. */
static int post_one(struct bench_run *run, const struct ibv_send_wr *wr,
		    uint32_t i)
{
	struct bench_lane *lane = &run->lanes[0]; /* a latency run has one */
	int ret = bench_make_room(run, lane, 1);

	if (ret)
		return ret;
	if (run->bc->duration) {
		/* No gaps kept; each send signalled, the last one too. */
		ret = bench_post_sends(run, lane, wr, 1,
				       lane->sends_posted + 1);
		bench_beat(run, bench_ticks());
		return ret;
	}
	run->tposted[i] = bench_ticks();
	ret = bench_post_sends(run, lane, wr, 1, run->bc->iters);
	bench_beat(run, run->tposted[i]);
	return ret;
}

/*
 * The server of a ping-pong: the client's message number @n (its receive,
 * or with @byte the landing byte @n of its WRITE), or (-D) its end (1).
 */
static int wait_message(struct bench_run *run, bool byte, uint64_t n)
{
	if (run->bc->duration)
		return wait_or_end(run, byte, n);
	if (byte)
		return wait_byte(run, (uint8_t)n);
	return bench_wait(run, 0, n);
}

/*
 * Ping-pong iteration @i up to its post: the server waits for the client's
 * message (its receive, or with @mine its WRITE), the client of -D looks
 * at the time; then the message is posted, with @mine set first to the
 * byte the peer waits for. 0: posted; 1: the size is over (-D); -errno.
 */
static int ping_pong_post(struct bench_run *run, const struct lat_timer *t,
			  const struct ibv_send_wr *wr, uint32_t i,
			  volatile uint8_t *mine)
{
	int ret;

	if (!run->client)
		ret = wait_message(run, mine != NULL, i + 1);
	else
		ret = run->bc->duration && time_up(run, t, i);
	if (ret)
		return ret;
	/* The counter wraps; the peer waits for exactly the next value. */
	if (mine)
		*mine = (uint8_t)(i + 1);
	return post_one(run, wr, i);
}

static int lat_send(struct bench_run *run, const struct ibv_send_wr *wr)
{
	uint32_t i, iters = lat_iters(run);
	struct lat_timer t = lat_timer_start(run);
	int ret;

	for (i = 0; i < iters; i++) {
		ret = ping_pong_post(run, &t, wr, i, NULL);
		if (ret > 0)
			break; /* -D: the client is done, or the time is up */
		if (!ret && run->client)
			ret = bench_wait(run, 0, i + 1);
		if (!ret)
			ret = top_up_recvs(run);
		if (ret)
			return ret;
	}
	/* Nothing may stay in the send queue once the size is over. */
	return bench_wait(run, run->sends_posted, 0);
}

/*
 * Spin until the last landing byte reads @value, bounded by the timeout.
 * No completion tells of a write, so this wait never sleeps on the
 * channel; it naps, as the CQ waits do, if the run naps. 1 if
 * run->until_ns (-D's server) came first.
 */
static int wait_byte(struct bench_run *run, uint8_t value)
{
	volatile const uint8_t *byte = run->landing + run->size - 1;
	uint64_t spin_ns = run->nap_ns ? run->spin_ns : UINT64_MAX;
	struct bench_patience patience;
	enum bench_next next;

	bench_patience_init(&patience, run);
	while (*byte != value) {
		if (run->until_ns && bench_now_ns() >= run->until_ns)
			return 1;
		next = bench_patience_next(&patience, spin_ns);
		if (next == BENCH_SLEEP)
			bench_nap(run);
		if (next != BENCH_GIVE_UP)
			continue;
		if (interrupted()) {
			warnx("failed to see the peer's RDMA WRITE number %u: %s",
			      value, strerror(EINTR));
			return -EINTR;
		}
		if (patience.peer_gone)
			return bench_peer_gone(
				run, "see the peer's next RDMA WRITE");
		warnx("failed to see the peer's RDMA WRITE number %u within %d ms: %s; %s",
		      value, run->timeout_ms, strerror(ETIMEDOUT),
		      COMPLETION_TIMEOUT_HINT);
		return -ETIMEDOUT;
	}
	return 0;
}

static int lat_write(struct bench_run *run, const struct ibv_send_wr *wr)
{
	volatile uint8_t *mine = run->local + run->size - 1;
	uint32_t i, iters = lat_iters(run);
	struct lat_timer t = lat_timer_start(run);
	int ret;

	for (i = 0; i < iters; i++) {
		ret = ping_pong_post(run, &t, wr, i, mine);
		if (ret > 0)
			break; /* -D: the client is done, or the time is up */
		if (!ret && run->client)
			ret = wait_byte(run, (uint8_t)(i + 1));
		if (ret)
			return ret;
	}
	return bench_wait(run, run->sends_posted, 0);
}

/*
 * As short as perftest's loop: under a software CPU every instruction
 * between two stamps is in the figures, and the general post and wait
 * (bench_post_sends, bench_wait) cost 0.15-0.2 us an iteration more than
 * this, 1% of a fetch_add on one guest (on the rig). Every READ
 * and atomic asks for a completion (run_init), so the request is built
 * once; one look at the CQ right after the post often finds it done, and
 * only an empty CQ takes bench_wait() with its bound, yields and sleep.
 * read_one() is one READ or atomic, posted at @ticks, @done before it.
 */
static inline int read_one(struct bench_run *run, struct ibv_send_wr *wr,
			   uint64_t ticks, uint64_t done)
{
	int ret = bench_post_one(run, wr);

	if (ret)
		return ret;
	bench_beat(run, ticks);
	ret = bench_look_once(run);
	if (ret == 0)
		ret = bench_wait(run, done + 1, 0);
	return ret < 0 ? ret : 0;
}

static int lat_read(struct bench_run *run, struct ibv_send_wr *wr)
{
	uint64_t i, iters = run->bc->iters; /* -D: more than 2^32 may fit */
	struct lat_timer t;
	int ret = 0;

	if (!run->client)
		return 0;
	wr->send_flags |= IBV_SEND_SIGNALED;
	if (run->bc->duration) {
		/* -D: for a time, with no gap kept */
		t = lat_timer_start(run);
		for (i = 0; !ret && !time_up(run, &t, i); i++)
			ret = read_one(run, wr, bench_ticks(), i);
		return ret;
	}
	for (i = 0; !ret && i < iters; i++) {
		run->tposted[i] = bench_ticks();
		ret = read_one(run, wr, run->tposted[i], i);
	}
	return ret;
}

int bench_lat_size(struct bench_run *run)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	bench_build_wr(run, &wr, &sge);
	switch (run->bc->op) {
	case BENCH_OP_SEND:
	case BENCH_OP_WRITE_IMM:
		return lat_send(run, &wr);
	case BENCH_OP_WRITE:
		return lat_write(run, &wr);
	case BENCH_OP_READ:
	case BENCH_OP_FETCH_ADD:
	case BENCH_OP_CMP_SWAP:
		break;
	}
	return lat_read(run, &wr);
}
