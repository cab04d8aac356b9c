// SPDX-License-Identifier: MIT
/*
 * Lean post and poll for the benchmark loops. The same verbs as post.c and
 * completion.c, without what a measurement cannot afford: no trace, no
 * printing per completion, one doorbell for many work requests, a batch of
 * completions per ibv_poll_cq.
 */
#include <err.h>
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_config.h"
#include "bench_patience.h"
#include "bench_peer.h"
#include "bench_post.h"
#include "bench_run.h"
#include "completion.h"
#include "common/cq_wait.h"
#include "common/interrupt.h"
#include "extras/cq_events.h"

/* Completions taken per ibv_poll_cq call. */
#define BENCH_POLL_BATCH 16
/* The immediate value of WRITE with immediate; the receiver ignores it. */
#define BENCH_IMM_DATA 0x42454e43u /* "BENC" */

static bool wants_inline(const struct bench_run *run)
{
	return run->size <= run->max_inline;
}

void bench_build_wr(const struct bench_run *run, struct ibv_send_wr *wr,
		    struct ibv_sge *sge)
{
	*sge = (struct ibv_sge){
		.addr = (uintptr_t)run->local,
		.length = run->size,
		.lkey = run->lkey,
	};
	*wr = (struct ibv_send_wr){
		.sg_list = sge,
		.num_sge = 1,
	};
	switch (run->bc->op) {
	case BENCH_OP_SEND:
		wr->opcode = IBV_WR_SEND;
		break;
	case BENCH_OP_WRITE:
		wr->opcode = IBV_WR_RDMA_WRITE;
		break;
	case BENCH_OP_WRITE_IMM:
		wr->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr->imm_data = htonl(BENCH_IMM_DATA);
		break;
	case BENCH_OP_READ:
		wr->opcode = IBV_WR_RDMA_READ;
		break;
	case BENCH_OP_FETCH_ADD:
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.compare_add = 1;
		break;
	case BENCH_OP_CMP_SWAP:
		wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.compare_add = 0;
		wr->wr.atomic.swap = 1;
		break;
	}
	if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr->wr.atomic.remote_addr = run->remote_landing;
		wr->wr.atomic.rkey = run->rkey;
		return;
	}
	if (wr->opcode != IBV_WR_SEND) {
		wr->wr.rdma.remote_addr = run->remote_landing;
		wr->wr.rdma.rkey = run->rkey;
	}
	if (wr->opcode != IBV_WR_RDMA_READ && wants_inline(run))
		wr->send_flags |= IBV_SEND_INLINE;
}

/*
 * A stop signal ends the loops here, before each post: with soft-RoCE on
 * one host the work can complete within ibv_post_send, so that a wait
 * never sees an empty CQ and never looks at the signal itself. Where the
 * signal is the loop's normal end (--run_infinitely), without a line.
 */
static int stop_if_interrupted(const struct bench_run *run)
{
	if (!interrupted())
		return 0;
	if (run->stop_is_end)
		return -EINTR;
	warnx("failed to go on with %s after %" PRIu64 " sends and %" PRIu64
	      " receives: %s",
	      bench_op_name(run->bc->op), run->sends_completed,
	      run->recvs_completed, strerror(EINTR));
	return -EINTR;
}

/* The line for a post that failed: @number is the first send not posted. */
static int report_post_failed(const struct bench_run *run,
			      const struct ibv_qp *qp, uint64_t number, int err)
{
	warnx("failed to post %s number %" PRIu64 " on QP 0x%06x: %s",
	      bench_op_name(run->bc->op), number, qp->qp_num, strerror(err));
	return -err;
}

/* The wr_id of @lane's send or receive number @number. */
static uint64_t lane_wr_id(const struct bench_run *run,
			   const struct bench_lane *lane, uint64_t number)
{
	return (uint64_t)(lane - run->lanes) << BENCH_WR_LANE_SHIFT | number;
}

/*
 * --new-api: @wr's twin built into @qpx's send queue by the ibv_wr_*
 * calls, with @wr_id and @flags: the builder of the opcode takes the
 * remote side, a setter the local data (@data, where @wr's one SGE
 * points). ibv_wr_set_inline_data copies the message, but soft-RoCE sends
 * the copy only when the flags say IBV_SEND_INLINE too, so @flags keep it
 * (a provider that needs no such flag ignores it).
 */
static void build_ex(struct ibv_qp_ex *qpx, const struct ibv_send_wr *wr,
		     void *data, uint64_t wr_id, unsigned int flags)
{
	const struct ibv_sge *sge = wr->sg_list;

	qpx->wr_id = wr_id;
	qpx->wr_flags = flags;
	switch (wr->opcode) {
	case IBV_WR_SEND:
		ibv_wr_send(qpx);
		break;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(qpx, wr->wr.rdma.rkey,
				  wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(qpx, wr->wr.rdma.rkey,
				      wr->wr.rdma.remote_addr, wr->imm_data);
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(qpx, wr->wr.rdma.rkey,
				 wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		ibv_wr_atomic_fetch_add(qpx, wr->wr.atomic.rkey,
					wr->wr.atomic.remote_addr,
					wr->wr.atomic.compare_add);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		ibv_wr_atomic_cmp_swp(
			qpx, wr->wr.atomic.rkey, wr->wr.atomic.remote_addr,
			wr->wr.atomic.compare_add, wr->wr.atomic.swap);
		break;
	default: /* bench_build_wr makes none other */
		break;
	}
	if (flags & IBV_SEND_INLINE)
		ibv_wr_set_inline_data(qpx, data, sge->length);
	else
		ibv_wr_set_sge(qpx, sge->lkey, sge->addr, sge->length);
}

/*
 * --new-api: @n copies of @wr on @lane between one ibv_wr_start and one
 * ibv_wr_complete (one doorbell), numbered and signalled as
 * bench_post_sends' lists are; a copy of a signalled @wr is signalled.
 * ibv_wr_complete posts all of them or none.
 */
static int post_ex(struct bench_run *run, struct bench_lane *lane,
		   const struct ibv_send_wr *wr, uint32_t n, uint64_t total)
{
	uint64_t first = lane->sends_posted + 1;
	uint32_t i;
	int ret;

	ibv_wr_start(lane->qpx);
	for (i = 0; i < n; i++) {
		uint64_t number = first + i;
		bool signalled = (wr->send_flags & IBV_SEND_SIGNALED) ||
				 number % run->signal_every == 0 ||
				 number == total;

		build_ex(lane->qpx, wr, run->local,
			 signalled ? lane_wr_id(run, lane, number) : 0,
			 wr->send_flags | (signalled ? IBV_SEND_SIGNALED : 0));
	}
	ret = ibv_wr_complete(lane->qpx);
	if (ret) {
		warnx("failed to post %s numbers %" PRIu64 " to %" PRIu64
		      " on QP 0x%06x: ibv_wr_complete: %s",
		      bench_op_name(run->bc->op), first, first + n - 1,
		      lane->qp->qp_num, strerror(ret));
		return -ret;
	}
	lane->sends_posted += n;
	run->sends_posted += n;
	return 0;
}

int bench_post_one(struct bench_run *run, struct ibv_send_wr *wr)
{
	struct bench_lane *lane = &run->lanes[0];
	uint64_t number = lane->sends_posted + 1;
	struct ibv_send_wr *bad_wr;
	int ret = stop_if_interrupted(run);

	if (ret)
		return ret;
	if (lane->qpx)
		return post_ex(run, lane, wr, 1, 0);
	wr->wr_id = number; /* lane 0 */
	ret = ibv_post_send(lane->qp, wr, &bad_wr);
	if (ret)
		return report_post_failed(run, lane->qp, number, ret);
	run->sends_posted = lane->sends_posted = number;
	return 0;
}

uint32_t bench_post_list(const struct bench_config *bc, uint32_t size)
{
	if (bc->post_list)
		return bc->post_list;
	return bc->bidir && size > BENCH_CQ_MOD_SIZE_LIMIT ? 1
							   : BENCH_CHAIN_MAX;
}

int bench_post_sends(struct bench_run *run, struct bench_lane *lane,
		     const struct ibv_send_wr *wr, uint32_t count,
		     uint64_t total)
{
	struct ibv_send_wr chain[BENCH_CHAIN_MAX], *bad_wr = NULL;
	uint32_t most = bench_post_list(run->bc, run->size);
	int ret = stop_if_interrupted(run);

	if (ret)
		return ret;
	while (count > 0) {
		uint32_t n = count < most ? count : most;
		uint32_t i;

		if (lane->qpx) {
			ret = post_ex(run, lane, wr, n, total);
			if (ret)
				return ret;
			count -= n;
			continue;
		}
		for (i = 0; i < n; i++) {
			uint64_t number = lane->sends_posted + i + 1;

			chain[i] = *wr;
			chain[i].next = i + 1 < n ? &chain[i + 1] : NULL;
			if (number % run->signal_every == 0 ||
			    number == total) {
				chain[i].send_flags |= IBV_SEND_SIGNALED;
				chain[i].wr_id = lane_wr_id(run, lane, number);
			}
		}
		ret = ibv_post_send(lane->qp, chain, &bad_wr);
		if (ret)
			return report_post_failed(
				run, lane->qp,
				lane->sends_posted + 1 +
					(uint64_t)(bad_wr ? bad_wr - chain : 0),
				ret);
		lane->sends_posted += n;
		run->sends_posted += n;
		count -= n;
	}
	return 0;
}

int bench_post_recvs(struct bench_run *run, struct bench_lane *lane,
		     uint32_t count)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)run->landing,
		.length = run->size,
		.lkey = run->lkey,
	};
	struct ibv_recv_wr chain[BENCH_CHAIN_MAX], *bad_wr = NULL;
	int ret = stop_if_interrupted(run);

	if (ret)
		return ret;
	while (count > 0) {
		uint32_t n = count < BENCH_CHAIN_MAX ? count : BENCH_CHAIN_MAX;
		uint32_t i;

		for (i = 0; i < n; i++)
			chain[i] = (struct ibv_recv_wr){
				.wr_id = lane_wr_id(run, lane,
						    lane->recvs_posted + i + 1),
				.next = i + 1 < n ? &chain[i + 1] : NULL,
				.sg_list = &sge,
				.num_sge = 1,
			};
		ret = ibv_post_recv(lane->qp, chain, &bad_wr);
		if (ret) {
			warnx("failed to post a receive on QP 0x%06x: %s",
			      lane->qp->qp_num, strerror(ret));
			return -ret;
		}
		lane->recvs_posted += n;
		run->recvs_posted += n;
		count -= n;
	}
	return 0;
}

static int report_failed(const struct ibv_wc *wc)
{
	const char *hint = wc_status_hint(wc->status);

	warnx("failed completion of wr_id %" PRIu64
	      " on QP 0x%06x: %s (vendor error 0x%x)%s%s",
	      wc->wr_id, wc->qp_num, ibv_wc_status_str(wc->status),
	      wc->vendor_err, hint ? "; " : "", hint ? hint : "");
	/* as the steps' poll_completion: retry exceeded is no path */
	return wc->status == IBV_WC_RETRY_EXC_ERR ? -EHOSTUNREACH : -EIO;
}

/*
 * A completion whose wr_id names no send in flight: the device (or its
 * provider) completed what was never signalled or never posted. Counting
 * it would move the counters, and the times kept, off their sends.
 */
static int report_stray(const struct ibv_wc *wc)
{
	warnx("failed to account for a completion on QP 0x%06x: %s (wr_id 0x%" PRIx64
	      " names no signalled request in flight)",
	      wc->qp_num, strerror(EPROTO), wc->wr_id);
	return -EPROTO;
}

int bench_poll_failed(int n, const struct ibv_wc *wc)
{
	if (n > 0)
		return report_failed(wc);
	warnx("failed to poll CQ: %s (ibv_poll_cq returned %d)", strerror(EIO),
	      n);
	return -EIO;
}

/*
 * Poll the CQ once (a batch) and update the counters; a bandwidth run also
 * stamps each signalled send's completion. Returns the number of
 * completions, or -EIO after printing the failed one.
 */
static int bench_poll_once(struct bench_run *run)
{
	struct ibv_wc wc[BENCH_POLL_BATCH];
	uint64_t now;
	int n, i;

	n = bench_poll(run, wc, BENCH_POLL_BATCH);
	if (n <= 0)
		return n == 0 ? 0 : bench_poll_failed(n, wc);
	/* Only the bandwidth loops keep completion times. */
	now = run->tcompleted ? bench_ticks() : 0;
	for (i = 0; i < n; i++) {
		struct bench_lane *lane;
		uint64_t number;

		if (wc[i].status != IBV_WC_SUCCESS)
			return report_failed(&wc[i]);
		if (BENCH_WR_LANE(wc[i].wr_id) >= run->qps)
			return report_stray(&wc[i]);
		lane = &run->lanes[BENCH_WR_LANE(wc[i].wr_id)];
		if (wc[i].opcode & IBV_WC_RECV) {
			lane->recvs_completed++;
			run->recvs_completed++;
			continue;
		}
		/* A signalled send stands for every send of its QP up to it. */
		number = BENCH_WR_NUMBER(wc[i].wr_id);
		if (number <= lane->sends_completed ||
		    number > lane->sends_posted)
			return report_stray(&wc[i]);
		run->sends_completed += number - lane->sends_completed;
		lane->sends_completed = number;
		if (lane->tcompleted)
			lane->tcompleted[number - 1] = now;
	}
	return n;
}

/* True once the counters reach @sends and @recvs. */
static bool reached(const struct bench_run *run, uint64_t sends, uint64_t recvs)
{
	return run->sends_completed >= sends && run->recvs_completed >= recvs;
}

/*
 * Sleep until the CQ may hold a completion, at most @timeout_ms: arm it,
 * poll once more (a completion that came before the arm raises no event),
 * then wait on the completion channel and take the event. A sleep lasts
 * at most BENCH_PEER_LOOK_MS: one that ends with no event looks at the
 * peer's TCP connection (*@peer_gone once it closed). A sleep that an
 * event ends, the measurement's, costs nothing more. Returns what that
 * poll returned (0 after a sleep), or a negative errno.
 */
static int sleep_on_channel(struct bench_run *run, int timeout_ms,
			    bool *peer_gone)
{
	struct pollfd pfd = {.fd = run->cq->channel->fd, .events = POLLIN};
	int n;

	n = arm_cq(run->cq);
	if (n)
		return n;
	n = bench_poll_once(run);
	if (n)
		return n;
	if (timeout_ms > BENCH_PEER_LOOK_MS)
		timeout_ms = BENCH_PEER_LOOK_MS;
	n = interruptible_poll(&pfd, 1, timeout_ms);
	if (n == 0)
		*peer_gone = peer_closed(run->sock);
	if (n == 0 || n == -EINTR)
		return 0; /* the caller's bound, or interrupted(), decides */
	if (n < 0) {
		warnx("failed to wait on the completion channel: %s",
		      strerror(-n));
		return n;
	}
	return take_cq_event(run->cq, NULL);
}

/* How long a sleep on the channel may last: the bound, or a timed end. */
static int sleep_ms(const struct bench_run *run,
		    const struct bench_patience *patience)
{
	int left = bench_patience_left_ms(patience);
	uint64_t now, until_ms;

	if (!run->until_ns)
		return left;
	now = bench_now_ns();
	until_ms =
		run->until_ns > now ? (run->until_ns - now) / 1000000 + 1 : 0;
	return until_ms < (uint64_t)left ? (int)until_ms : left;
}

/*
 * Poll until reached(@sends, @recvs), or with @any until anything completes;
 * once the CQ stayed empty for run->spin_ns, nap (run->nap_ns) or sleep on
 * the channel. The clock bounds only a wait without progress: a long size
 * is no timeout.
 */
static int wait_for(struct bench_run *run, uint64_t sends, uint64_t recvs,
		    bool any)
{
	struct bench_patience patience;
	enum bench_next next;
	int n;

	bench_patience_init(&patience, run);
	while (!reached(run, sends, recvs)) {
		n = bench_poll_once(run);
		if (n == 0 && run->until_ns && bench_now_ns() >= run->until_ns)
			return 0; /* a timed receiver's end: its loop sees it */
		if (n == 0) {
			next = bench_patience_next(&patience, run->spin_ns);
			if (next == BENCH_SLEEP && run->nap_ns)
				bench_nap(run);
			else if (next == BENCH_SLEEP && run->cq->channel)
				n = sleep_on_channel(run,
						     sleep_ms(run, &patience),
						     &patience.peer_gone);
			if (next == BENCH_GIVE_UP || patience.peer_gone)
				break;
		}
		if (n < 0)
			return n;
		if (n > 0 && any)
			return 0;
		if (n > 0)
			bench_patience_renew(&patience);
	}
	if (reached(run, sends, recvs))
		return 0;
	if (patience.peer_gone)
		return bench_peer_gone(run, "get a completion");
	if (interrupted()) {
		if (!run->stop_is_end)
			warnx("failed to get a completion: %s",
			      strerror(EINTR));
		return -EINTR;
	}
	warnx("failed to get a completion within %d ms (sends %" PRIu64
	      " of %" PRIu64 ", receives %" PRIu64 " of %" PRIu64
	      " done): %s; %s",
	      run->timeout_ms, run->sends_completed, run->sends_posted,
	      run->recvs_completed, run->recvs_posted, strerror(ETIMEDOUT),
	      COMPLETION_TIMEOUT_HINT);
	return -ETIMEDOUT;
}

int bench_wait(struct bench_run *run, uint64_t sends, uint64_t recvs)
{
	return wait_for(run, sends, recvs, false);
}

int bench_wait_progress(struct bench_run *run)
{
	return wait_for(run, UINT64_MAX, UINT64_MAX, true);
}

int bench_make_room(struct bench_run *run, const struct bench_lane *lane,
		    uint32_t count)
{
	int ret = 0;

	while (!ret && lane->sends_posted - lane->sends_completed + count >
			       run->bc->tx_depth)
		ret = bench_wait_progress(run);
	return ret;
}
