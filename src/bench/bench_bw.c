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
		}
		if (run->sends_completed < iters) {
			ret = bench_wait_progress(run);
			if (ret)
				return ret;
		}
	}
	return 0;
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

	if (run->client) {
		bench_build_wr(run, &wr, &sge);
		return bw_client(run, &wr);
	}
	if (run->bc->op == BENCH_OP_SEND || run->bc->op == BENCH_OP_WRITE_IMM)
		return bw_receiver(run);
	return 0;
}
