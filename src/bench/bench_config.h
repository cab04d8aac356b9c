/* SPDX-License-Identifier: MIT */
/* What the bench options decide beyond struct bench_config (bench_config.c). */
#ifndef BENCH_CONFIG_H
#define BENCH_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"

/*
 * Bandwidth messages larger than this ask for a completion on every send
 * by default, as perftest's do (bench_config.c says why).
 */
#define BENCH_CQ_MOD_SIZE_LIMIT 8192

/*
 * -D: a timed run, as perftest's -D: the first BENCH_MARGIN_SEC seconds
 * warm up, the last BENCH_MARGIN_SEC let the queues drain, and the
 * figures come from the seconds between.
 */
#define BENCH_DURATION_MIN 5
#define BENCH_DURATION_MAX 36000
#define BENCH_MARGIN_SEC   2
/*
 * --run_infinitely: a report every -D seconds, this many if -D is not
 * given, as perftest's --run_infinitely; a receiving server looks for the
 * client's end this often.
 */
#define BENCH_DEFAULT_PERIOD_SEC 5
#define BENCH_LOOK_MS		 100u

/*
 * Work requests chained into one ibv_post_send / ibv_post_recv call: one
 * doorbell for many small messages. With -b, sends of messages longer
 * than BENCH_CQ_MOD_SIZE_LIMIT go one to a call, as perftest posts them.
 * siw sends a request in the caller's own ibv_post_send only while its
 * send queue is idle: with both sides sending on one CPU, a chain stalled
 * there and left the rest of it, and every request after, to siw's kernel
 * thread, which waits behind the two polling sides (docs/benchmarks.md
 * has the trace). Sending one way, chains measured faster on siw, so they
 * stay there.
 */
#define BENCH_CHAIN_MAX 64

/*
 * -q: the most RC QPs one run spreads its messages over. Each posts -n
 * messages with up to --tx-depth in flight, as each of perftest's -q QPs
 * does; all complete on the one CQ.
 */
#define BENCH_QPS_MAX 16

/*
 * True if the benchmark's waits may sleep on a completion channel, so the
 * CQ needs one: --bench without --busy-poll.
 */
bool bench_sleeps(const struct bench_config *bc);

const char *bench_mode_name(enum bench_mode mode);
const char *bench_op_name(enum bench_op op);

/* The sizes a run measures, in order: *@count of them into @sizes. */
#define BENCH_MAX_SIZES 23
size_t bench_sizes(const struct bench_config *bc,
		   uint32_t sizes[BENCH_MAX_SIZES]);

/* What bench_size_resources asks for (bench_config.c). */

/* Bytes of the registered region: at least @normal. */
size_t bench_region_size(const struct bench_config *bc, size_t normal);
/* FETCH_ADD and CMP_SWAP: 8 bytes, on atomic-capable devices only. */
static inline bool bench_op_is_atomic(enum bench_op op)
{
	return op == BENCH_OP_FETCH_ADD || op == BENCH_OP_CMP_SWAP;
}

/*
 * The registered region in benchmark mode is two halves of the largest
 * message, each rounded up to BENCH_HALF_ALIGN:
 *
 *   [0, half)        what we send, write or read into (local source/sink)
 *   [half, 2*half)   where the peer's writes and sends land, and what the
 *                    peer reads; the atomics work on its first 8 bytes
 *
 * Keeping the halves apart lets a ping-pong side poll the last byte of the
 * second half for the peer's write while its own next write is built in the
 * first.
 *
 * Both sides compute the same half, since each writes to the peer's at
 * remote addr + half: so the rounding is a fixed 64 KiB, not this host's
 * page size (4 KiB on x86-64, up to 64 KiB on arm64 and ppc64), which may
 * not be the peer's. 64 KiB is a multiple of every usual page size.
 */
#define BENCH_HALF_ALIGN 65536u
size_t bench_half_size(const struct bench_config *bc);

/*
 * Receives posted ahead by the receiving side (SEND and WRITE with
 * immediate), on each QP: every iteration of a size up to
 * BENCH_RX_DEPTH_MAX (with -q, its share of it), or up to --tx-depth +
 * BENCH_RX_REFILL if that is more. A bandwidth receiver tops them up once
 * BENCH_RX_REFILL have completed (bench_bw.c).
 */
#define BENCH_RX_DEPTH_MAX 8192
#define BENCH_RX_REFILL	   64u
uint32_t bench_rx_depth(const struct bench_config *bc);

#endif
