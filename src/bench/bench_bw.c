// SPDX-License-Identifier: MIT
/*
 * Bandwidth, as perftest's ib_*_bw measure it: the client keeps up to
 * --tx-depth work requests in flight, asks a completion for one in
 * --cq-mod, and stamps each post and each signalled completion. The server
 * only receives (send, write_imm) or stays out of the way (write, read,
 * atomics: its CPU takes no part).
 */
#include "bench_priv.h"

/* The client: post what fits, poll once, until every send completed. */
static int bw_client(struct bench_run *run, const struct ibv_send_wr *wr)
{
	uint64_t iters = run->bc->iters;
	int ret;

	while (run->sends_completed < iters) {
		uint64_t in_flight = run->sends_posted - run->sends_completed;
		uint64_t room = run->bc->tx_depth - in_flight;
		uint64_t left = iters - run->sends_posted;
		uint32_t count = (uint32_t)(room < left ? room : left);

		if (count > 0) {
			uint64_t now = bench_ticks();
			uint64_t i;

			for (i = 0; i < count; i++)
				run->tposted[run->sends_posted + i] = now;
			ret = bench_post_sends(run, wr, count, iters);
			if (ret)
				return ret;
			bench_beat(run, now);
		}
		if (run->sends_completed < iters) {
			ret = bench_wait_progress(run);
			if (ret)
				return ret;
		}
	}
	return 0;
}

#define NS_PER_SEC 1000000000ull

/*
 * -D: post for the duration, whatever the count, and note the sends done
 * when the warm-up ends and when the drain margin begins: the figures are
 * those of the seconds between. Then the last send is signalled, so that
 * all of them are seen done before the size ends.
 */
static int bw_client_timed(struct bench_run *run, const struct ibv_send_wr *wr)
{
	uint64_t start = bench_now_ns(), margin = BENCH_MARGIN_SEC * NS_PER_SEC;
	uint64_t end = start + run->bc->duration * NS_PER_SEC, now, pad;
	int ret = 0;

	while (!ret && (now = bench_now_ns()) < end) {
		uint64_t in_flight = run->sends_posted - run->sends_completed;
		uint64_t room = run->bc->tx_depth - in_flight;

		if (!run->sample_start_ns && now >= start + margin) {
			run->sample_start_ns = now;
			run->sample_start_sends = run->sends_completed;
		}
		if (!run->sample_end_ns && now >= end - margin) {
			run->sample_end_ns = now;
			run->sample_end_sends = run->sends_completed;
		}
		if (room > 0)
			ret = bench_post_sends(run, wr, (uint32_t)room,
					       UINT64_MAX);
		if (!ret && room > 0)
			bench_beat(run, bench_ticks());
		if (!ret)
			ret = bench_wait_progress(run);
	}
	pad = (run->signal_every - run->sends_posted % run->signal_every) %
	      run->signal_every;
	if (!ret && pad)
		ret = bench_make_room(run, (uint32_t)pad);
	if (!ret && pad)
		ret = bench_post_sends(run, wr, (uint32_t)pad,
				       run->sends_posted + pad);
	return ret ? ret : bench_wait(run, run->sends_posted, 0);
}

/*
 * -D, the server of send and write_imm: keep the receives up until a
 * little after the sender's duration ends by this side's clock (the two
 * started together, at the size's start sync, within a network's delay),
 * so that the last messages find receives; a wait without progress is
 * still bounded by -t.
 */
static int bw_receiver_timed(struct bench_run *run)
{
	uint32_t depth = bench_rx_depth(run->bc);
	uint64_t late_ms =
		run->timeout_ms / 2 < 1000 ? run->timeout_ms / 2 : 1000;
	int ret = 0;

	run->until_ns = bench_now_ns() + run->bc->duration * NS_PER_SEC +
			late_ms * 1000000;
	while (!ret && bench_now_ns() < run->until_ns) {
		uint64_t ahead = run->recvs_posted - run->recvs_completed;

		if (ahead + BENCH_RX_REFILL <= depth) {
			ret = bench_post_recvs(run, (uint32_t)(depth - ahead));
			bench_beat(run, bench_ticks());
		}
		if (!ret)
			ret = bench_wait_progress(run);
	}
	run->until_ns = 0;
	return ret;
}

/*
 * The server of send and write_imm: take every message, keep receives up.
 * Every one of a size up to BENCH_RX_DEPTH_MAX is posted before the start,
 * so that the sender never meets a receive queue it has emptied (RNR).
 * Past that, once BENCH_RX_REFILL or more have completed, the receiver
 * fills the ring again: before each wait more than the ring less
 * BENCH_RX_REFILL, so at least --tx-depth (bench_rx_depth), are posted
 * beyond the completions it has seen, as many as the sender can have in
 * flight. A receiver that stops polling for long can still be run dry;
 * the sender then waits in RNR retries (qp.c), and fails if they run out.
 */
static int bw_receiver(struct bench_run *run)
{
	uint64_t iters = run->bc->iters;
	uint32_t depth = bench_rx_depth(run->bc);
	int ret;

	while (run->recvs_completed < iters) {
		uint64_t ahead = run->recvs_posted - run->recvs_completed;
		uint64_t room = iters - run->recvs_posted;

		if (room > 0 && ahead + BENCH_RX_REFILL <= depth) {
			uint64_t add = depth - ahead;

			ret = bench_post_recvs(
				run, (uint32_t)(room < add ? room : add));
			if (ret)
				return ret;
			bench_beat(run, bench_ticks());
		}
		ret = bench_wait_progress(run);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * -b: each side is a client and, for send and write_imm, a receiver at
 * once: post what fits, keep receives up, until its own sends and the
 * peer's messages are all done. Both sides stamp their own posts and
 * completions, and each computes its direction's figures.
 */
static int bw_both(struct bench_run *run, const struct ibv_send_wr *wr)
{
	uint64_t iters = run->bc->iters;
	uint32_t depth = bench_rx_depth(run->bc);
	bool receives = depth > 0;
	int ret;

	while (run->sends_completed < iters ||
	       (receives && run->recvs_completed < iters)) {
		uint64_t in_flight = run->sends_posted - run->sends_completed;
		uint64_t room = run->bc->tx_depth - in_flight;
		uint64_t left = iters - run->sends_posted;
		uint32_t count = (uint32_t)(room < left ? room : left);
		uint64_t ahead = run->recvs_posted - run->recvs_completed;
		uint64_t rx_room = iters - run->recvs_posted;

		if (receives && rx_room > 0 &&
		    ahead + BENCH_RX_REFILL <= depth) {
			uint64_t add = depth - ahead;

			ret = bench_post_recvs(
				run, (uint32_t)(rx_room < add ? rx_room : add));
			if (ret)
				return ret;
		}
		if (count > 0) {
			uint64_t now = bench_ticks();
			uint64_t i;

			for (i = 0; i < count; i++)
				run->tposted[run->sends_posted + i] = now;
			ret = bench_post_sends(run, wr, count, iters);
			if (ret)
				return ret;
			bench_beat(run, now);
		}
		ret = bench_wait_progress(run);
		if (ret)
			return ret;
	}
	return 0;
}

int bench_bw_size(struct bench_run *run)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	if (run->bc->bidir) {
		bench_build_wr(run, &wr, &sge);
		return bw_both(run, &wr);
	}
	if (run->client) {
		bench_build_wr(run, &wr, &sge);
		return run->bc->duration ? bw_client_timed(run, &wr)
					 : bw_client(run, &wr);
	}
	if (run->bc->op == BENCH_OP_SEND || run->bc->op == BENCH_OP_WRITE_IMM)
		return run->bc->duration ? bw_receiver_timed(run)
					 : bw_receiver(run);
	return 0;
}
