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
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench_priv.h"
#include "completion.h"

/* Keep receives posted ahead: top up by half the depth when half is used. */
static int top_up_recvs(struct bench_run *run)
{
	uint64_t iters = run->bc->iters;
	uint32_t depth = bench_rx_depth(run->bc);
	uint64_t ahead = run->recvs_posted - run->recvs_completed;
	uint64_t room = iters - run->recvs_posted;
	uint32_t add = depth / 2 ? depth / 2 : 1;

	if (room == 0 || ahead > depth / 2)
		return 0;
	return bench_post_recvs(run, room < add ? (uint32_t)room : add);
}

/* One post of the ping-pong, timestamped; the send queue is kept from filling. */
static int post_one(struct bench_run *run, const struct ibv_send_wr *wr,
		    uint32_t i)
{
	int ret = bench_make_room(run, 1);

	if (ret)
		return ret;
	run->tposted[i] = bench_ticks();
	ret = bench_post_sends(run, wr, 1, run->bc->iters);
	bench_beat(run, run->tposted[i]);
	return ret;
}

static int lat_send(struct bench_run *run, const struct ibv_send_wr *wr)
{
	uint32_t i, iters = run->bc->iters;
	int ret;

	for (i = 0; i < iters; i++) {
		if (!run->client) {
			ret = bench_wait(run, 0, i + 1);
			if (ret)
				return ret;
		}
		ret = post_one(run, wr, i);
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
 * channel; it naps, as the CQ waits do, if the run naps.
 */
static int wait_byte(struct bench_run *run, uint8_t value)
{
	volatile const uint8_t *byte = run->landing + run->size - 1;
	uint64_t spin_ns = run->nap_ns ? run->spin_ns : UINT64_MAX;
	struct bench_patience patience;
	enum bench_next next;

	bench_patience_init(&patience, run);
	while (*byte != value) {
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
	uint32_t i, iters = run->bc->iters;
	int ret;

	for (i = 0; i < iters; i++) {
		/* The counter wraps; the peer waits for exactly the next value. */
		uint8_t value = (uint8_t)(i + 1);

		if (!run->client) {
			ret = wait_byte(run, value);
			if (ret)
				return ret;
		}
		*mine = value;
		ret = post_one(run, wr, i);
		if (!ret && run->client)
			ret = wait_byte(run, value);
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
 */
static int lat_read(struct bench_run *run, struct ibv_send_wr *wr)
{
	uint32_t i, iters = run->bc->iters;
	int ret;

	if (!run->client)
		return 0;
	wr->send_flags |= IBV_SEND_SIGNALED;
	for (i = 0; i < iters; i++) {
		run->tposted[i] = bench_ticks();
		ret = bench_post_one(run, wr);
		if (ret)
			return ret;
		bench_beat(run, run->tposted[i]);
		ret = bench_look_once(run);
		if (ret == 0)
			ret = bench_wait(run, i + 1, 0);
		if (ret < 0)
			return ret;
	}
	return 0;
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
