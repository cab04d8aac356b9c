// SPDX-License-Identifier: MIT
/*
 * Bandwidth, as perftest's ib_*_bw measure it: the client keeps up to
 * --tx-depth work requests in flight, asks a completion for one in
 * --cq-mod, and stamps each post and each signalled completion. The server
 * only receives (send, write_imm) or stays out of the way (write, read,
 * atomics: its CPU takes no part).
 */
#include <err.h>
#include <errno.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_config.h"
#include "bench_loops.h"
#include "bench_peer.h"
#include "bench_post.h"
#include "bench_report.h"
#include "bench_run.h"
#include "common/interrupt.h"

/*
 * Post on @lane what its send queue has room for, up to @iters in all,
 * each post stamped.
 */
static int post_what_fits(struct bench_run *run, struct bench_lane *lane,
			  const struct ibv_send_wr *wr, uint64_t iters)
{
	uint64_t in_flight = lane->sends_posted - lane->sends_completed;
	uint64_t room = run->bc->tx_depth - in_flight;
	uint64_t left = iters - lane->sends_posted;
	uint32_t count = (uint32_t)(room < left ? room : left);
	uint64_t now, i;
	int ret;

	if (count == 0)
		return 0;
	now = bench_ticks();
	for (i = 0; i < count; i++)
		lane->tposted[lane->sends_posted + i] = now;
	ret = bench_post_sends(run, lane, wr, count, iters);
	if (!ret)
		bench_beat(run, now);
	return ret;
}

/*
 * Keep @lane's receives up: once BENCH_RX_REFILL or more of those ahead
 * have completed, post the ring full again, up to @iters in all (no end:
 * UINT64_MAX).
 */
static int keep_receives_up(struct bench_run *run, struct bench_lane *lane,
			    uint32_t depth, uint64_t iters)
{
	uint64_t ahead = lane->recvs_posted - lane->recvs_completed;
	uint64_t room = iters - lane->recvs_posted;
	uint64_t add = depth - ahead;
	int ret;

	if (room == 0 || ahead + BENCH_RX_REFILL > depth)
		return 0;
	ret = bench_post_recvs(run, lane, (uint32_t)(room < add ? room : add));
	if (!ret)
		bench_beat(run, bench_ticks());
	return ret;
}

/* The client: post what fits on each QP, poll once, until all completed. */
static int bw_client(struct bench_run *run, const struct ibv_send_wr *wr)
{
	uint64_t iters = run->bc->iters, total = iters * run->qps;
	unsigned int k;
	int ret = 0;

	while (!ret && run->sends_completed < total) {
		for (k = 0; !ret && k < run->qps; k++)
			ret = post_what_fits(run, &run->lanes[k], wr, iters);
		if (!ret && run->sends_completed < total)
			ret = bench_wait_progress(run);
	}
	return ret;
}

#define NS_PER_SEC 1000000000ull

/* -D: the sends done on each QP, and in all, at an edge of the window. */
static void note_edge(struct bench_run *run, bool start)
{
	unsigned int k;

	for (k = 0; k < run->qps; k++) {
		struct bench_lane *lane = &run->lanes[k];

		if (start)
			lane->sample_start_sends = lane->sends_completed;
		else
			lane->sample_end_sends = lane->sends_completed;
	}
	if (start)
		run->sample_start_sends = run->sends_completed;
	else
		run->sample_end_sends = run->sends_completed;
}

/* Post what each QP's send queue has room for, with no end in sight. */
static int post_on_every_lane(struct bench_run *run,
			      const struct ibv_send_wr *wr)
{
	bool posted = false;
	unsigned int k;
	int ret = 0;

	for (k = 0; !ret && k < run->qps; k++) {
		struct bench_lane *lane = &run->lanes[k];
		uint64_t in_flight = lane->sends_posted - lane->sends_completed;
		uint64_t room = run->bc->tx_depth - in_flight;

		if (room > 0)
			ret = bench_post_sends(run, lane, wr, (uint32_t)room,
					       UINT64_MAX);
		posted = posted || room > 0;
	}
	if (!ret && posted)
		bench_beat(run, bench_ticks());
	return ret;
}

/*
 * -D, after the duration: each QP's last send is signalled, so that all
 * of them are seen done before the size ends.
 */
static int signal_the_last(struct bench_run *run, const struct ibv_send_wr *wr)
{
	unsigned int k;
	int ret = 0;

	for (k = 0; !ret && k < run->qps; k++) {
		struct bench_lane *lane = &run->lanes[k];
		uint32_t pad =
			(uint32_t)((run->signal_every -
				    lane->sends_posted % run->signal_every) %
				   run->signal_every);

		if (!pad)
			continue;
		ret = bench_make_room(run, lane, pad);
		if (!ret)
			ret = bench_post_sends(run, lane, wr, pad,
					       lane->sends_posted + pad);
	}
	return ret ? ret : bench_wait(run, run->sends_posted, 0);
}

/*
 * -D: post for the duration, whatever the count, and note the sends done
 * when the warm-up ends and when the drain margin begins: the figures are
 * those of the seconds between.
 */
static int bw_client_timed(struct bench_run *run, const struct ibv_send_wr *wr)
{
	uint64_t start = bench_now_ns(), margin = BENCH_MARGIN_SEC * NS_PER_SEC;
	uint64_t end = start + run->bc->duration * NS_PER_SEC, now;
	int ret = 0;

	while (!ret && (now = bench_now_ns()) < end) {
		if (!run->sample_start_ns && now >= start + margin) {
			run->sample_start_ns = now;
			note_edge(run, true);
		}
		if (!run->sample_end_ns && now >= end - margin) {
			run->sample_end_ns = now;
			note_edge(run, false);
		}
		ret = post_on_every_lane(run, wr);
		if (!ret)
			ret = bench_wait_progress(run);
	}
	return ret ? ret : signal_the_last(run, wr);
}

/*
 * --run_infinitely, the client: post on every QP until a stop signal,
 * and every -D seconds print the figures of the seconds since the last
 * report. The signal is this loop's normal end: the sends in flight
 * complete, the size ends as any other, and its row is the whole run's,
 * from the first post to the signal.
 */
static int bw_client_infinite(struct bench_run *run,
			      const struct ibv_send_wr *wr)
{
	uint64_t period = run->bc->duration * NS_PER_SEC, now;
	uint64_t last_ns = bench_now_ns(), last_sends = 0;
	int ret = 0;

	run->stop_is_end = true;
	run->sample_start_ns = last_ns;
	note_edge(run, true);
	while (!ret && !interrupted()) {
		ret = post_on_every_lane(run, wr);
		if (!ret)
			ret = bench_wait_progress(run);
		now = bench_now_ns();
		if (!ret && now - last_ns >= period) {
			ret = bench_report_period(
				run, now - last_ns,
				run->sends_completed - last_sends, run->report);
			last_ns = now;
			last_sends = run->sends_completed;
		}
	}
	run->stop_is_end = false;
	if (ret && ret != -EINTR)
		return ret;
	interrupt_take();
	run->sample_end_ns = bench_now_ns();
	note_edge(run, false);
	return signal_the_last(run, wr);
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
	unsigned int k;
	int ret = 0;

	run->until_ns = bench_now_ns() + run->bc->duration * NS_PER_SEC +
			late_ms * 1000000;
	while (!ret && bench_now_ns() < run->until_ns) {
		for (k = 0; !ret && k < run->qps; k++)
			ret = keep_receives_up(run, &run->lanes[k], depth,
					       UINT64_MAX);
		if (!ret)
			ret = bench_wait_progress(run);
	}
	run->until_ns = 0;
	return ret;
}

/*
 * --run_infinitely, the server of send and write_imm: keep the receives
 * up until the client's end of size byte comes, looking for it every
 * BENCH_LOOK_MS. Its messages, or its beats, must keep coming: -t of
 * neither ends the run, as at the end of any size.
 */
static int bw_receiver_until_end(struct bench_run *run)
{
	uint32_t depth = bench_rx_depth(run->bc);
	uint64_t heard = bench_now_ns(), seen = 0;
	unsigned int k;
	int ret = 0;

	while (!ret) {
		for (k = 0; !ret && k < run->qps; k++)
			ret = keep_receives_up(run, &run->lanes[k], depth,
					       UINT64_MAX);
		run->until_ns = bench_now_ns() + BENCH_LOOK_MS * 1000000ull;
		if (!ret)
			ret = bench_wait_progress(run);
		if (!ret && run->recvs_completed != seen) {
			seen = run->recvs_completed;
			heard = bench_now_ns();
		}
		if (!ret)
			ret = bench_hear_peer(run, &heard);
		if (ret > 0)
			ret = 0;
		if (run->peer_synced)
			break;
		if (!ret && bench_now_ns() - heard >
				    (uint64_t)run->timeout_ms * 1000000) {
			warnx("failed to hear from the peer within %d ms in the %u-byte size: %s; the peer stopped (SIGSTOP, a debugger) or its host hangs, or the link to it is down",
			      run->timeout_ms, run->size, strerror(ETIMEDOUT));
			ret = -ETIMEDOUT;
		}
	}
	run->until_ns = 0;
	return ret;
}

/*
 * The server of send and write_imm: take every message, keep receives up.
 * Every one of a size up to BENCH_RX_DEPTH_MAX is posted on each QP before
 * the start, so that the sender never meets a receive queue it has
 * emptied (RNR). Past that, once BENCH_RX_REFILL or more have completed
 * on a QP, the receiver fills its ring again: before each wait more than
 * the ring less BENCH_RX_REFILL, so at least --tx-depth (bench_rx_depth),
 * are posted beyond the completions it has seen, as many as the sender
 * can have in flight there. A receiver that stops polling for long can
 * still be run dry; the sender then waits in RNR retries, which never run
 * out (QP_RNR_RETRY_FOREVER, as perftest's), until the receiver posts
 * again or -t ends the wait.
 */
static int bw_receiver(struct bench_run *run)
{
	uint64_t iters = run->bc->iters, total = iters * run->qps;
	uint32_t depth = bench_rx_depth(run->bc);
	unsigned int k;
	int ret = 0;

	while (!ret && run->recvs_completed < total) {
		for (k = 0; !ret && k < run->qps; k++)
			ret = keep_receives_up(run, &run->lanes[k], depth,
					       iters);
		if (!ret)
			ret = bench_wait_progress(run);
	}
	return ret;
}

/*
 * -b: each side is a client and, for send and write_imm, a receiver at
 * once: post what fits, keep receives up, until its own sends and the
 * peer's messages are all done. Both sides stamp their own posts and
 * completions, and each computes its direction's figures.
 */
static int bw_both(struct bench_run *run, const struct ibv_send_wr *wr)
{
	uint64_t iters = run->bc->iters, total = iters * run->qps;
	uint32_t depth = bench_rx_depth(run->bc);
	bool receives = depth > 0;
	unsigned int k;
	int ret = 0;

	while (!ret && (run->sends_completed < total ||
			(receives && run->recvs_completed < total))) {
		for (k = 0; !ret && k < run->qps; k++) {
			struct bench_lane *lane = &run->lanes[k];

			if (receives)
				ret = keep_receives_up(run, lane, depth, iters);
			if (!ret)
				ret = post_what_fits(run, lane, wr, iters);
		}
		if (!ret)
			ret = bench_wait_progress(run);
	}
	return ret;
}

int bench_bw_size(struct bench_run *run)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	if (run->bc->bidir) {
		bench_build_wr(run, &wr, &sge);
		return bw_both(run, &wr);
	}
	if (run->sender) {
		bench_build_wr(run, &wr, &sge);
		if (run->bc->infinite)
			return bw_client_infinite(run, &wr);
		return run->bc->duration ? bw_client_timed(run, &wr)
					 : bw_client(run, &wr);
	}
	if (run->bc->op != BENCH_OP_SEND && run->bc->op != BENCH_OP_WRITE_IMM)
		return 0; /* the end of size's wait hears the beats */
	if (run->bc->infinite)
		return bw_receiver_until_end(run);
	return run->bc->duration ? bw_receiver_timed(run) : bw_receiver(run);
}
