/* SPDX-License-Identifier: MIT */
/* Private to the bench modules: the state of a run, shared by the loops. */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>

#include "bench/bench.h"
#include "cm/cm.h"
#include "bench_clock.h"
#include "bench_config.h"
#include "bench_wait.h"

struct bench_period;

/* One QP of the run and what went through it in this size. */
struct bench_lane {
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx; /* --new-api: the same QP's ibv_wr_* side */
	struct cm cm; /* -R: its own connection (lanes after the first) */
	uint64_t sends_posted;
	uint64_t sends_completed; /* up to the last signalled one seen */
	uint64_t recvs_posted;
	uint64_t recvs_completed;
	uint64_t *tposted;    /* this lane's -n entries of the run's */
	uint64_t *tcompleted; /* the same, or NULL */
	/* -D: the sends done at the edges of the sample window */
	uint64_t sample_start_sends, sample_end_sends;
};

/* Everything the loops of one size need. */
struct bench_run {
	const struct bench_config *bc;
	bool client; /* the side that starts and reports */
	/* the side that posts the operation and times it: the client, but
	 * the server with --reversed (both with -b) */
	bool sender;
	FILE *report; /* the client's table, or --output's numbers */
	/* Lane 0 is the QP the manual's steps connected; -q adds the rest. */
	struct bench_lane lanes[BENCH_QPS_MAX];
	unsigned int qps;
	struct ibv_cq *cq; /* --new-api: ibv_create_cq_ex's, polled the same */
	uint8_t *local;	   /* first half of our region */
	uint8_t *landing;  /* second half of our region */
	uint32_t lkey;
	uint64_t remote_landing; /* second half of the peer's region */
	uint32_t rkey;
	uint32_t max_inline;   /* what the QP really took, may be 0 */
	int timeout_ms;	       /* bound on any wait without progress */
	uint64_t spin_ns;      /* how long a CQ wait polls before it sleeps */
	uint64_t nap_ns;       /* >0: past spin_ns, nap this long at a time */
	uint32_t signal_every; /* a completion for one send in this many */
	bool own_cpu;	       /* the peer elsewhere: never yield */
	enum bench_wait_why wait_why;
	bool peer_here; /* the peer runs on this host */
	bool iwarp;	/* the device's transport is iWARP (siw0 among them) */
	enum bench_peer_rule peer_rule; /* how peer_here was told */
	struct bench_clock start; /* when the run began, for the tick rate */

	/* Per size. */
	uint32_t size;
	uint64_t *tposted;    /* iters entries a lane, in ticks */
	uint64_t *tcompleted; /* the same (bw), in ticks */

	/*
	 * -D: the client's sample window, from the end of the warm-up to the
	 * start of the drain: the clock and the sends done at each edge. The
	 * receiver of a timed run waits until until_ns (0: no such end).
	 */
	uint64_t sample_start_ns, sample_end_ns;
	uint64_t sample_start_sends, sample_end_sends;
	uint64_t until_ns;

	/*
	 * The beat: while a size runs, each side that posts tells the other
	 * it is alive, a BENCH_BEAT byte on the TCP socket @sock at most every
	 * beat_ticks, so that a side waiting at the end of the size knows a
	 * peer still at work from one that stopped (bench_beat).
	 */
	int sock;
	uint64_t beat_ticks;
	uint64_t beat_at; /* the tick of the next beat; UINT64_MAX: none */

	/*
	 * --run_infinitely: the client takes a stop signal as its loop's end
	 * (no line, bench_post.c); a receiving server has the client's end of
	 * size byte once peer_synced (bench_hear_peer). The reports so far.
	 */
	bool stop_is_end;
	bool peer_synced;
	struct bench_period *periods;
	size_t period_count;

	/* The lanes' progress counters, added up. */
	uint64_t sends_posted;
	uint64_t sends_completed;
	uint64_t recvs_posted;
	uint64_t recvs_completed;
};

#endif
