/* SPDX-License-Identifier: MIT */
/* bench_post.c: lean versions of post_send, post_receive, poll_completion. */
#ifndef BENCH_POST_H
#define BENCH_POST_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "bench/bench.h"
#include "bench_run.h"

/*
 * A work request's wr_id: the number of its lane (its QP, -q) in the top
 * bits, its own number on that QP below, counted from 1.
 */
#define BENCH_WR_LANE_SHIFT    48
#define BENCH_WR_NUMBER(wr_id) ((wr_id) & ((1ull << BENCH_WR_LANE_SHIFT) - 1))
#define BENCH_WR_LANE(wr_id)   ((unsigned int)((wr_id) >> BENCH_WR_LANE_SHIFT))

/* The one work request of this run's operation, for @run->size bytes. */
void bench_build_wr(const struct bench_run *run, struct ibv_send_wr *wr,
		    struct ibv_sge *sge);
/*
 * The most sends one ibv_post_send carries for messages of @size bytes:
 * -l's, or up to BENCH_CHAIN_MAX (one for -b's over
 * BENCH_CQ_MOD_SIZE_LIMIT).
 */
uint32_t bench_post_list(const struct bench_config *bc, uint32_t size);
/*
 * Post @count copies of @wr on @lane in chained lists (one doorbell per
 * list), numbered on from lane->sends_posted; every signal_every-th one
 * and number @total ask for a completion, whose wr_id carries their
 * number: the count of the lane's sends done once it arrives.
 */
int bench_post_sends(struct bench_run *run, struct bench_lane *lane,
		     const struct ibv_send_wr *wr, uint32_t count,
		     uint64_t total);
/*
 * Post @wr itself as lane 0's next send, its wr_id set to its number: the
 * latency loop of READ and atomics, whose request is built once and
 * signalled every time. No copy and no chain as in bench_post_sends().
 */
int bench_post_one(struct bench_run *run, struct ibv_send_wr *wr);
/* Post @count receives on @lane into the landing half. */
int bench_post_recvs(struct bench_run *run, struct bench_lane *lane,
		     uint32_t count);
/*
 * The line for a poll that failed: bench_poll() returned @n < 0, or @wc
 * (n > 0) carries an error status. Returns -EIO.
 */
int bench_poll_failed(int n, const struct ibv_wc *wc);

/*
 * Up to @max completions into @wc. Both APIs poll with ibv_poll_cq, as
 * perftest does: with --new-api the CQ made by ibv_create_cq_ex, seen
 * through ibv_cq_ex_to_cq (docs/benchmark-mode.md says why not
 * ibv_start_poll).
 */
static inline int bench_poll(struct bench_run *run, struct ibv_wc *wc, int max)
{
	return ibv_poll_cq(run->cq, max, wc);
}

/*
 * One look at the CQ for the one send in flight, with nothing else on the
 * CQ (the latency loop of READ and atomics posts no receives): 1 if it
 * completed, 0 if the CQ is empty, -EIO after a line if it failed. On
 * soft-RoCE such a send often completes within ibv_post_send(), and this
 * look then ends the iteration: a single ibv_poll_cq() for one completion,
 * 0.15 us an iteration less than bench_wait()'s batch of 16 on the guests.
 */
static inline int bench_look_once(struct bench_run *run)
{
	struct ibv_wc wc;
	int n = bench_poll(run, &wc, 1);

	if (n == 0)
		return 0;
	if (n < 0 || wc.status != IBV_WC_SUCCESS)
		return bench_poll_failed(n, &wc);
	run->sends_completed = run->lanes[0].sends_completed = wc.wr_id;
	return 1;
}

/* Poll until sends_completed >= @sends and recvs_completed >= @recvs. */
int bench_wait(struct bench_run *run, uint64_t sends, uint64_t recvs);
/* Poll until at least one completion arrived (bounded by the timeout). */
int bench_wait_progress(struct bench_run *run);
/* Reap completions until @count more sends fit in @lane's send queue. */
int bench_make_room(struct bench_run *run, const struct bench_lane *lane,
		    uint32_t count);

#endif
