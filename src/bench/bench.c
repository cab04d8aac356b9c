// SPDX-License-Identifier: MIT
/*
 * Benchmark mode: agree with the peer on the parameters, then for each
 * size: prepare, sync, run the loop, sync, and (client) report.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_config.h"
#include "extras/port_counters.h"
#include "bench_loops.h"
#include "bench_peer.h"
#include "bench_post.h"
#include "bench_qps.h"
#include "bench_report.h"
#include "bench_run.h"
#include "bench_stats.h"
#include "bench_sync.h"
#include "bench_wait.h"
#include "config.h"
#include "qp.h"
#include "resources.h"
#include "sock.h"
#include "common/wire.h"
#include "common/trace.h"

/*
 * What the client's figures of one size may take, per iteration: a sort
 * of the latency samples, or the peak search of bandwidth, both n log n.
 * At -n 10000000 the sort took 2.4 s on one 2.1 GHz x86-64 core (0.24 us
 * an iteration), the peak search 0.3-0.6 s; a guest under QEMU's software
 * CPU is many times slower. The server waits for the next size's start
 * this much longer than the timeout: 100 s more at that -n.
 */
#define BENCH_REPORT_NS_PER_ITER 10000u

static int agree_on_params(const struct bench_config *bc, int sock,
			   int timeout_ms)
{
	struct bench_params mine, theirs;
	uint8_t out[BENCH_PARAMS_WIRE_SIZE], in[BENCH_PARAMS_WIRE_SIZE];
	const char *reason = NULL;
	char why[128];
	int ret;

	bench_params_from_config(bc, &mine);
	bench_params_encode(&mine, out);
	ret = sock_sync_data(sock, out, in, sizeof(out), timeout_ms);
	if (ret)
		return ret;
	ret = bench_params_decode(in, &theirs, &reason);
	if (ret) {
		warnx("failed to agree on the benchmark with the peer: %s",
		      reason);
		return ret;
	}
	ret = bench_params_match(&mine, &theirs, why, sizeof(why));
	if (ret)
		warnx("failed to agree on the benchmark with the peer: %s",
		      why);
	return ret;
}

/* Refuse atomics the device or the peer's device cannot do. */
static int check_support(const struct bench_config *bc,
			 const struct resources *res,
			 const struct connection *conn)
{
	if (!bench_op_is_atomic(bc->op))
		return 0;
	if (resources_have_atomics(res) &&
	    (conn->remote.flags & QP_INFO_HAS_ATOMICS))
		return 0;
	warnx("failed to run benchmark --op %s: %s", bench_op_name(bc->op),
	      strerror(EOPNOTSUPP));
	return -EOPNOTSUPP;
}

/* The inline size the QP really took: the device may have given none. */
static int query_max_inline(struct ibv_qp *qp, uint32_t *max_inline)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int ret;

	ret = ibv_query_qp(qp, &attr, IBV_QP_CAP, &init);
	if (ret) {
		warnx("failed to query QP 0x%06x: %s", qp->qp_num,
		      strerror(ret));
		return -ret;
	}
	*max_inline = init.cap.max_inline_data;
	return 0;
}

/*
 * A ping-pong: both sides wait in turn, each for the other's message, and
 * a latency sample is a round trip. Otherwise (READ, atomics) the client
 * alone waits, for its own operation's completion.
 */
static bool is_ping_pong(const struct bench_config *bc)
{
	return bc->mode == BENCH_LAT &&
	       (bc->op == BENCH_OP_SEND || bc->op == BENCH_OP_WRITE ||
		bc->op == BENCH_OP_WRITE_IMM);
}

/*
 * How the waits go: where the peer runs decides (bench_wait.c). With -R
 * the CM id's addresses tell, as iWARP exchanges no GID (the remote GID
 * is ::). On the TCP path the GID table does; one that cannot be read
 * leaves the peer elsewhere: the wait of two hosts polls as perftest's
 * does, slower than the one-host wait where both sides share a CPU, but
 * never wrong.
 */
static void choose_wait(struct bench_run *run, const struct config *cfg,
			const struct resources *res,
			const struct connection *conn)
{
	bool here;

	run->iwarp = res->ctx->device->transport_type == IBV_TRANSPORT_IWARP;
	if (cfg->use_rdma_cm) {
		run->peer_rule = BENCH_PEER_BY_ADDRESS;
		here = bench_addr_is_own(
			(const struct sockaddr *)&conn->local_addr,
			(const struct sockaddr *)&conn->peer_addr);
		bench_wait_choose(run, res->cq->channel != NULL,
				  cfg->use_events, here);
		return;
	}
	run->peer_rule = BENCH_PEER_BY_GID;
	here = bench_peer_on_this_host(&res->gids, &conn->local, &conn->remote);
	bench_wait_choose(run, res->cq->channel != NULL, cfg->use_events, here);
}

static int run_init(struct bench_run *run, const struct config *cfg,
		    const struct bench_config *bc, struct resources *res,
		    const struct connection *conn)
{
	size_t half = bench_half_size(bc), stamps = (size_t)bc->iters * bc->qps;
	unsigned int k;
	int ret;

	*run = (struct bench_run){
		.bc = bc,
		.client = cfg->server_name != NULL,
		.sender = (cfg->server_name != NULL) != bc->reversed,
		.qps = bc->qps,
		.cq = res->cq,
		.local = (uint8_t *)res->buf,
		.landing = (uint8_t *)res->buf + half,
		.lkey = res->mr->lkey,
		.remote_landing = conn->remote.addr + half,
		.rkey = conn->remote.rkey,
		.timeout_ms = config_timeout_ms(cfg),
		/* a read or an atomic is only done when it completes */
		.signal_every = bc->mode == BENCH_LAT && !is_ping_pong(bc)
					? 1
					: bc->cq_mod,
	};
	if (res->buf_size < 2 * half) {
		warnx("failed to use the local buffer: %zu bytes, the benchmark needs %zu",
		      res->buf_size, 2 * half);
		return -EINVAL;
	}
	if (conn->remote.len < 2 * half) {
		warnx("failed to use the peer's buffer: %u bytes, the benchmark needs %zu",
		      conn->remote.len, 2 * half);
		return -EPROTO;
	}
	run->tposted = calloc(stamps, sizeof(*run->tposted));
	run->tcompleted = calloc(stamps, sizeof(*run->tcompleted));
	if (!run->tposted || !run->tcompleted) {
		free(run->tposted);
		free(run->tcompleted);
		warnx("failed to allocate timestamps for %u iterations on %u QPs: %s",
		      bc->iters, bc->qps, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (bc->mode == BENCH_LAT || bc->duration) {
		/* the latency and timed loops keep no completion times */
		free(run->tcompleted);
		run->tcompleted = NULL;
	}
	/* Lane 0 is the connected QP; -q's others come later (bench_qps.c). */
	run->lanes[0].qp = res->qp;
	if (bc->new_api)
		run->lanes[0].qpx = ibv_qp_to_qp_ex(res->qp);
	for (k = 0; k < run->qps; k++) {
		run->lanes[k].tposted = run->tposted + (size_t)k * bc->iters;
		if (run->tcompleted)
			run->lanes[k].tcompleted =
				run->tcompleted + (size_t)k * bc->iters;
	}
	choose_wait(run, cfg, res, conn);
	ret = query_max_inline(res->qp, &run->max_inline);
	if (ret) {
		free(run->tposted);
		free(run->tcompleted);
	}
	run->start = bench_clock_read();
	return ret;
}

/* Before the start sync: fresh counters, a clean polled byte, receives up. */
static int prepare_size(struct bench_run *run, uint32_t size)
{
	uint32_t rx = bench_rx_depth(run->bc);
	size_t stamps = (size_t)run->bc->iters * run->qps;
	unsigned int k;
	int ret = 0;

	run->size = size;
	run->sends_posted = run->sends_completed = 0;
	run->sample_start_ns = run->sample_end_ns = 0;
	run->recvs_posted = run->recvs_completed = 0;
	for (k = 0; k < run->qps; k++) {
		struct bench_lane *lane = &run->lanes[k];

		lane->sends_posted = lane->sends_completed = 0;
		lane->recvs_posted = lane->recvs_completed = 0;
		lane->sample_start_sends = lane->sample_end_sends = 0;
	}
	memset(run->tposted, 0, stamps * sizeof(*run->tposted));
	if (run->tcompleted)
		memset(run->tcompleted, 0, stamps * sizeof(*run->tcompleted));
	run->local[size - 1] = 0;
	run->landing[size - 1] = 0;
	/* Who receives: both sides of a ping-pong, the server of a stream. */
	if (rx &&
	    (run->bc->mode == BENCH_LAT || !run->sender || run->bc->bidir))
		for (k = 0; !ret && k < run->qps; k++)
			ret = bench_post_recvs(run, &run->lanes[k], rx);
	return ret;
}

/* A bound in milliseconds, within what an int holds. */
static int bound_ms(long long ms)
{
	return ms < INT_MAX ? (int)ms : INT_MAX;
}

/* After a size, the server waits while the client computes the size's
 * figures (BENCH_REPORT_NS_PER_ITER): the one wait longer than -t. */
static int after_size_bound(const struct bench_run *run)
{
	long long report_ms =
		(long long)run->bc->iters * BENCH_REPORT_NS_PER_ITER / 1000000;

	return bound_ms(run->timeout_ms + report_ms);
}

/*
 * Nanoseconds per tick, as the counter ran against CLOCK_MONOTONIC from
 * the start of the run until now: at least the TCP syncs and this size's
 * loop, which make the two clocks' read costs a small part of it.
 */
static double ns_per_tick(const struct bench_run *run)
{
	struct bench_clock now = bench_clock_read();

	return BENCH_TICKS_ARE_NS ? 1.0 : bench_ns_per_tick(&run->start, &now);
}

/*
 * -q: each QP's figures over its own first post to its last completion,
 * and the row's over the first post of any to the last completion of
 * any: all the bytes in that time, with no peak (a peak is one QP's).
 */
static int lanes_figures(const struct bench_run *run, struct bench_result *r)
{
	uint32_t iters = run->bc->iters;
	uint64_t first = UINT64_MAX, last = 0;
	unsigned int k;
	int ret;

	for (k = 0; k < run->qps; k++) {
		const struct bench_lane *lane = &run->lanes[k];
		struct bench_qp_result *q = &r->per_qp[k];

		q->qp_num = lane->qp->qp_num;
		q->messages = iters;
		ret = bw_stats_compute(lane->tposted, lane->tcompleted, iters,
				       run->size, &q->bw);
		if (ret)
			return ret;
		if (lane->tposted[0] < first)
			first = lane->tposted[0];
		if (lane->tcompleted[iters - 1] > last)
			last = lane->tcompleted[iters - 1];
	}
	r->iters = (uint64_t)iters * run->qps;
	return bw_timed_stats_compute(r->iters, last - first, run->size,
				      &r->bw);
}

/* Bandwidth from the tick times of each post and signalled completion. */
static int bw_figures(struct bench_run *run, double rate,
		      struct bench_result *r)
{
	uint32_t iters = run->bc->iters;
	size_t stamps = (size_t)iters * run->qps;

	bench_ticks_to_ns(run->tposted, stamps, run->start.ticks, rate);
	bench_ticks_to_ns(run->tcompleted, stamps, run->start.ticks, rate);
	if (run->qps > 1)
		return lanes_figures(run, r);
	return bw_stats_compute(run->tposted, run->tcompleted, iters, run->size,
				&r->bw);
}

/* Latency from the gaps between posts, in place: tposted is done after. */
static int lat_figures(struct bench_run *run, double rate,
		       struct lat_stats *lat, struct lat_histogram *hist)
{
	uint32_t iters = run->bc->iters;
	unsigned int rtt_factor = is_ping_pong(run->bc) ? 2 : 1;
	size_t i;

	for (i = 0; i + 1 < iters; i++)
		run->tposted[i] = run->tposted[i + 1] - run->tposted[i];
	bench_ticks_to_ns(run->tposted, iters - 1, 0, rate);
	lat_histogram_compute(run->tposted, iters - 1, rtt_factor, hist);
	return lat_stats_compute(run->tposted, iters - 1, rtt_factor, lat);
}

/*
 * -D: the figures of the seconds between the warm-up and the drain; with
 * -q, each QP's over the same seconds, so that they add up to the row's.
 * Latency: their average, as perftest's -D.
 */
static int timed_figures(struct bench_run *run, struct bench_result *r)
{
	uint64_t ns = run->sample_end_ns - run->sample_start_ns;
	unsigned int k;

	r->iters = run->sample_end_sends - run->sample_start_sends;
	r->seconds = (double)ns / 1e9;
	if (!run->sample_end_ns || !r->iters) {
		warnx("failed to measure size %u: no %s completed in the %.3f s between the warm-up and the drain",
		      run->size,
		      run->bc->mode == BENCH_LAT ? "iteration" : "send",
		      r->seconds);
		return -ETIMEDOUT;
	}
	if (run->bc->mode == BENCH_LAT)
		return lat_timed_stats_compute(
			r->iters, ns, is_ping_pong(run->bc) ? 2 : 1, &r->lat);
	bw_timed_stats_compute(r->iters, ns, run->size, &r->bw);
	for (k = 0; run->qps > 1 && k < run->qps; k++) {
		const struct bench_lane *lane = &run->lanes[k];
		struct bench_qp_result *q = &r->per_qp[k];

		q->qp_num = lane->qp->qp_num;
		q->messages = lane->sample_end_sends - lane->sample_start_sends;
		/* a QP that did nothing in the window: its figures stay 0 */
		bw_timed_stats_compute(q->messages, ns, run->size, &q->bw);
	}
	return 0;
}

/* The figures of this size; 0, or -errno after a line on stderr. */
static int measure(struct bench_run *run, struct bench_result *r)
{
	double rate = ns_per_tick(run);
	int ret;

	if (run->bc->duration)
		return timed_figures(run, r);
	if (rate <= 0) {
		warnx("failed to time size %u: the CPU's tick counter did not advance with CLOCK_MONOTONIC",
		      run->size);
		return -ERANGE;
	}
	ret = run->bc->mode == BENCH_BW
		      ? bw_figures(run, rate, r)
		      : lat_figures(run, rate, &r->lat, &r->hist);
	if (ret)
		warnx("failed to compute the figures of size %u: %s", run->size,
		      strerror(-ret));
	return ret;
}

/* The CPU time this process has used, user and system, in nanoseconds. */
static uint64_t cpu_used_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
		       1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
		       1000u;
}

/* The share of one CPU, in percent, that @cpu_ns of @wall_ns is. */
static double cpu_share(uint64_t cpu_ns, uint64_t wall_ns)
{
	return wall_ns ? 100.0 * (double)cpu_ns / (double)wall_ns : NAN;
}

/* A figure as the 64 bits of its IEEE 754 double, for the wire. */
static void put_double(uint8_t *p, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	put_u64(p, bits);
}

static double get_double(const uint8_t *p)
{
	uint64_t bits = get_u64(p);
	double v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

/*
 * What each side tells the other at the end of a size, so that the client
 * reports both: its CPU share in hundredths of a percent (all ones: not
 * known), then (-b, --reversed) the figures of its own direction, and
 * (--reversed) how many messages went in how long: the server measured
 * what the client reports.
 */
enum {
	SHARE_CPU = 0,
	SHARE_PEAK = 4,
	SHARE_AVG = 12,
	SHARE_RATE = 20,
	SHARE_SIZE = 28,
	SHARE_ITERS = 28,
	SHARE_SECONDS = 36,
	SHARE_REVERSED_SIZE = 44,
};

/* How much of the message a run shares. */
static size_t share_size(const struct bench_config *bc)
{
	if (bc->reversed)
		return SHARE_REVERSED_SIZE;
	return bc->bidir ? SHARE_SIZE : SHARE_PEAK;
}

static int share_after_size(const struct bench_run *run, int sock, double mine,
			    struct bench_result *r)
{
	uint8_t out[SHARE_REVERSED_SIZE] = {0}, in[SHARE_REVERSED_SIZE];
	size_t len = share_size(run->bc);
	uint32_t theirs;
	double peer;
	int ret;

	put_u32(out + SHARE_CPU, isfinite(mine) && mine >= 0 && mine < 4e7
					 ? (uint32_t)llround(mine * 100)
					 : UINT32_MAX);
	put_double(out + SHARE_PEAK, r->bw.peak_bytes_per_sec);
	put_double(out + SHARE_AVG, r->bw.avg_bytes_per_sec);
	put_double(out + SHARE_RATE, r->bw.msg_rate_mpps);
	put_u64(out + SHARE_ITERS, r->iters);
	put_double(out + SHARE_SECONDS, r->seconds);
	ret = sock_sync_data(sock, out, in, len, after_size_bound(run));
	if (ret)
		return ret;
	theirs = get_u32(in + SHARE_CPU);
	peer = theirs == UINT32_MAX ? NAN : theirs / 100.0;
	r->cpu_client = run->client ? mine : peer;
	r->cpu_server = run->client ? peer : mine;
	if (run->bc->bidir)
		r->bw_back = (struct bw_stats){
			.peak_bytes_per_sec = get_double(in + SHARE_PEAK),
			.avg_bytes_per_sec = get_double(in + SHARE_AVG),
			.msg_rate_mpps = get_double(in + SHARE_RATE),
		};
	/* --reversed: the row is what the server measured sending. */
	if (run->bc->reversed && run->client) {
		r->bw = (struct bw_stats){
			.peak_bytes_per_sec = get_double(in + SHARE_PEAK),
			.avg_bytes_per_sec = get_double(in + SHARE_AVG),
			.msg_rate_mpps = get_double(in + SHARE_RATE),
		};
		r->iters = get_u64(in + SHARE_ITERS);
		r->seconds = get_double(in + SHARE_SECONDS);
	}
	return 0;
}

static int run_size(struct bench_run *run, int sock, uint32_t size,
		    struct bench_result *r)
{
	uint64_t cpu0 = 0, wall0 = 0;
	double cpu = NAN;
	int ret;

	*r = (struct bench_result){.cpu_client = NAN, .cpu_server = NAN};
	ret = prepare_size(run, size);
	if (!ret)
		ret = sock_sync(sock, run->timeout_ms);
	if (!ret) {
		cpu0 = cpu_used_ns();
		wall0 = bench_now_ns();
		bench_start_beating(run, ns_per_tick(run));
		ret = run->bc->mode == BENCH_LAT ? bench_lat_size(run)
						 : bench_bw_size(run);
		run->beat_at = UINT64_MAX; /* no beat after this side's sync */
	}
	if (!ret)
		ret = bench_await_peer(run);
	if (!ret && cpu0)
		cpu = cpu_share(cpu_used_ns() - cpu0, bench_now_ns() - wall0);
	r->size = run->size;
	r->iters = run->bc->iters;
	/* -q: the sender's lines for each QP; with --reversed the server's,
	 * which the client does not report */
	r->qps = run->qps > 1 && run->sender ? run->qps : 0;
	/* -b: each side measured its own direction, and sends it over. */
	if (!ret && (run->sender || run->bc->bidir))
		ret = measure(run, r);
	r->periods = run->periods;
	r->period_count = run->period_count;
	if (!ret)
		ret = share_after_size(run, sock, cpu, r);
	return ret;
}

/*
 * Linux lets a normal thread's timers fire up to 50 us late (its timer
 * slack), to wake the CPU for several at once; a nap of 20 us would then
 * last up to 70. A run that naps asks for 1 ns while it runs. Returns the
 * slack to give back, or -1 if it was left as it was (the naps are only
 * longer then).
 */
static long tighten_timer_slack(const struct bench_run *run)
{
	long old;

	if (!run->nap_ns)
		return -1;
	old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (old < 0 || prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) != 0)
		return -1;
	return old;
}

static void restore_timer_slack(long old)
{
	if (old >= 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)old, 0, 0, 0);
}

static void print_banner(const struct bench_config *bc,
			 const struct bench_run *run, const char *device)
{
	char wait[96];

	if (bc->infinite)
		printf("benchmark: %s %s on %s, until SIGINT or SIGTERM, a row every %u s, tx depth %u, cq mod %u, max inline %u\n",
		       bench_op_name(bc->op), bench_mode_name(bc->mode), device,
		       bc->duration, bc->tx_depth, run->signal_every,
		       run->max_inline);
	else if (bc->duration)
		printf("benchmark: %s %s on %s, %u s per size (%d s warm-up, %u s measured, %d s drain), tx depth %u, cq mod %u, max inline %u\n",
		       bench_op_name(bc->op), bench_mode_name(bc->mode), device,
		       bc->duration, BENCH_MARGIN_SEC,
		       bc->duration - 2 * BENCH_MARGIN_SEC, BENCH_MARGIN_SEC,
		       bc->tx_depth, run->signal_every, run->max_inline);
	else
		printf("benchmark: %s %s on %s, %u iterations per size, tx depth %u, cq mod %u, max inline %u\n",
		       bench_op_name(bc->op), bench_mode_name(bc->mode), device,
		       bc->iters, bc->tx_depth, run->signal_every,
		       run->max_inline);
	if (run->qps > 1) {
		unsigned int k;

		printf("QPs: %u, each with the iterations and the tx depth above:",
		       run->qps);
		for (k = 0; k < run->qps; k++)
			printf(" 0x%06x", run->lanes[k].qp->qp_num);
		putchar('\n');
	}
	if (bc->reversed)
		printf("reversed: the server sends and measures, the client receives and reports\n");
	bench_wait_describe(run, wait, sizeof(wait));
	printf("waits: %s (%s)\n", wait, bench_wait_reason(run));
}

/*
 * A size failed with no acknowledgement or no completion right where its
 * frames first fill the path MTU, after the smaller sizes passed: a
 * switch port or a tunnel on the way that carries less than the ports is
 * the likely cause, more than a dead path or a dead peer. One more line
 * says so, with the -m to try.
 */
static void hint_path_mtu(const struct resources *res, const uint32_t *sizes,
			  size_t done, int err)
{
	uint32_t mtu = (uint32_t)mtu_to_bytes(res->mtu), passed, fits;

	if (!done || (err != -EHOSTUNREACH && err != -ETIMEDOUT))
		return;
	passed = sizes[done - 1];
	if (passed >= mtu || sizes[done] < mtu)
		return;
	for (fits = 256; fits * 2 <= passed; fits *= 2)
		;
	if (passed < 256)
		warnx("the path MTU is the likely cause: messages of %u bytes passed and of %u bytes, which fill frames of the path MTU %u, did not: a switch port or a tunnel on the way carries less than the ports; rdma_check --pair names the way and the largest size that crosses",
		      passed, sizes[done], mtu);
	else
		warnx("the path MTU is the likely cause: messages of %u bytes passed and of %u bytes, which fill frames of the path MTU %u, did not: a switch port or a tunnel on the way carries less than the ports; try -m %u, and rdma_check --pair names the way",
		      passed, sizes[done], mtu, fits);
}

/* What the JSON's test_info says of the run: the port, its path, the QP. */
static void test_info_fill(struct bench_test_info *info,
			   const struct resources *res, const char *device)
{
	*info = (struct bench_test_info){
		.device = device,
		.port = res->ib_port,
		.link_layer =
			res->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET
				? "Ethernet"
				: "InfiniBand",
		.path_mtu = 128u << res->mtu, /* IBV_MTU_256 is 1 */
		.gid_index = res->gid.index,
		.gid_type = res->gid.index >= 0 ? gid_type_str(res->gid.type)
						: "none",
		.transport = transport_name(res->sizes.transport),
		.started = time(NULL),
	};
}

int bench_run(const struct config *cfg, const struct bench_config *bc,
	      struct resources *res, const struct connection *conn,
	      struct cm *cm, int sock, FILE *report)
{
	const char *device = ibv_get_device_name(res->ctx->device);
	struct bench_result results[BENCH_MAX_SIZES];
	uint32_t sizes[BENCH_MAX_SIZES];
	size_t count = bench_sizes(bc, sizes), done;
	struct port_counters *counters = NULL; /* before and after */
	struct bench_test_info info;
	char dir[sizeof(counters->port_dir)];
	struct bench_run run;
	long slack;
	int ret, json_ret;

	ret = agree_on_params(bc, sock, config_timeout_ms(cfg));
	if (!ret)
		ret = check_support(bc, res, conn);
	if (!ret)
		ret = run_init(&run, cfg, bc, res, conn);
	if (ret)
		return ret;
	ret = bench_lanes_connect(&run, cfg, res, conn, cm, sock);
	if (ret)
		goto out;
	run.sock = sock;
	run.report = report;
	run.beat_at = UINT64_MAX;
	test_info_fill(&info, res, device);
	if (bc->counters) {
		counters = calloc(2, sizeof(*counters));
		if (!counters) {
			warnx("failed to allocate room for the port's counters: %s",
			      strerror(ENOMEM));
			ret = -ENOMEM;
			goto out;
		}
		port_counters_path(device, res->ib_port, dir, sizeof(dir));
		port_counters_read(dir, &counters[0]);
	}
	print_banner(bc, &run, device);
	if (run.client)
		bench_print_header(bc, report);
	slack = tighten_timer_slack(&run);
	for (done = 0; done < count && !ret; done++) {
		if (bc->mode == BENCH_BW)
			trace_step(
				&res->trace,
				"%u-byte messages: up to %u sends to one %s",
				sizes[done], bench_post_list(bc, sizes[done]),
				bc->new_api ? "ibv_wr_start and ibv_wr_complete"
					    : "ibv_post_send");
		ret = run_size(&run, sock, sizes[done], &results[done]);
		if (ret)
			break;
		if (run.client && bc->infinite &&
		    bc->output == BENCH_OUTPUT_TABLE)
			fprintf(report, " the whole run, %.3f s:\n",
				(double)(run.sample_end_ns -
					 run.sample_start_ns) /
					1e9);
		if (run.client)
			bench_print_result(bc, &results[done], report);
	}
	restore_timer_slack(slack);
	if (ret && done < count)
		hint_path_mtu(res, sizes, done, ret);
	if (counters) {
		port_counters_read(dir, &counters[1]);
		port_counters_print(&counters[0], &counters[1], stdout);
		info.counters_before = &counters[0];
		info.counters_after = &counters[1];
	}
	/* The sizes that completed are kept, even when a later one failed. */
	if (run.client && bc->json_path) {
		json_ret = bench_write_json(bc, bc->json_path, &run, &info,
					    results, done, !ret);
		if (!ret)
			ret = json_ret;
	}
out:
	bench_lanes_destroy(&run);
	free(run.periods);
	free(counters);
	free(run.tposted);
	free(run.tcompleted);
	return ret;
}
