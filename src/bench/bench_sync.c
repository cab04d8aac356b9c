// SPDX-License-Identifier: MIT
/*
 * Both sides must run the same benchmark: right after the QP-info exchange
 * each sends its parameters, in network byte order, and refuses a peer
 * whose parameters differ:
 *
 *   magic u32, version u16, mode u8, op u8, all sizes u8, flags u8 (1: -b,
 *   2: --run_infinitely, 4: --reversed; the high four bits: -q less one),
 *   duration u16, size u32, iterations u32, tx depth u16, cq mod u16
 *
 * Version 2 added the send queue depth and the signalling, in what version
 * 1 had reserved: the receiving side keeps --tx-depth receives posted for
 * the sender, so the two must give the same. Version 3 added -D's
 * duration, in what version 2 had reserved: the receiver of a timed run
 * keeps its receives up for as long as the sender sends. Version 4 is
 * version 3's message from a side that beats while a size runs
 * (bench_beat) and, at the end of a size, waits for the peer only while
 * its beats keep coming: a side of version 3 would never beat. Version 5
 * carries -q's count less one in the flags' high four bits, and
 * --run_infinitely in flag 2. Version 6 carries --reversed in flag 4: a
 * side of version 5 would take the flag for nothing, and both sides would
 * wait to receive.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench_config.h"
#include "bench_sync.h"
#include "common/wire.h"

#define BENCH_PARAMS_MAGIC     0x5243424eu /* "RCBN" */
#define BENCH_PARAMS_VERSION   6
#define BENCH_PARAMS_BIDIR     0x01
#define BENCH_PARAMS_INFINITE  0x02
#define BENCH_PARAMS_REVERSED  0x04
#define BENCH_PARAMS_QPS_SHIFT 4

enum bench_params_offset {
	OFF_MAGIC = 0,
	OFF_VERSION = 4,
	OFF_MODE = 6,
	OFF_OP = 7,
	OFF_ALL_SIZES = 8,
	OFF_FLAGS = 9,
	OFF_DURATION = 10,
	OFF_SIZE = 12,
	OFF_ITERS = 16,
	OFF_TX_DEPTH = 20,
	OFF_CQ_MOD = 22,
	OFF_END = 24,
};

_Static_assert(OFF_END == BENCH_PARAMS_WIRE_SIZE, "layout and size agree");

void bench_params_from_config(const struct bench_config *bc,
			      struct bench_params *p)
{
	*p = (struct bench_params){
		.mode = (uint8_t)bc->mode,
		.op = (uint8_t)bc->op,
		.all_sizes = bc->all_sizes,
		.size = bc->size,
		.iters = bc->iters,
		.tx_depth = (uint16_t)bc->tx_depth,
		.cq_mod = (uint16_t)bc->cq_mod,
		.duration = (uint16_t)bc->duration,
		.bidir = bc->bidir,
		.qps = (uint8_t)bc->qps,
		.infinite = bc->infinite,
		.reversed = bc->reversed,
	};
}

void bench_params_encode(const struct bench_params *p,
			 uint8_t out[BENCH_PARAMS_WIRE_SIZE])
{
	memset(out, 0, BENCH_PARAMS_WIRE_SIZE);
	put_u32(out + OFF_MAGIC, BENCH_PARAMS_MAGIC);
	put_u16(out + OFF_VERSION, BENCH_PARAMS_VERSION);
	out[OFF_MODE] = p->mode;
	out[OFF_OP] = p->op;
	out[OFF_ALL_SIZES] = p->all_sizes;
	put_u32(out + OFF_SIZE, p->size);
	put_u32(out + OFF_ITERS, p->iters);
	put_u16(out + OFF_TX_DEPTH, p->tx_depth);
	put_u16(out + OFF_CQ_MOD, p->cq_mod);
	put_u16(out + OFF_DURATION, p->duration);
	out[OFF_FLAGS] =
		(uint8_t)((p->bidir ? BENCH_PARAMS_BIDIR : 0) |
			  (p->infinite ? BENCH_PARAMS_INFINITE : 0) |
			  (p->reversed ? BENCH_PARAMS_REVERSED : 0) |
			  (p->qps ? p->qps - 1 : 0) << BENCH_PARAMS_QPS_SHIFT);
}

int bench_params_decode(const uint8_t in[BENCH_PARAMS_WIRE_SIZE],
			struct bench_params *p, const char **why)
{
	if (get_u32(in + OFF_MAGIC) != BENCH_PARAMS_MAGIC) {
		*why = "not a benchmark parameter message";
		return -EPROTO;
	}
	if (get_u16(in + OFF_VERSION) != BENCH_PARAMS_VERSION) {
		*why = "unsupported benchmark parameter version";
		return -EPROTO;
	}
	*p = (struct bench_params){
		.mode = in[OFF_MODE],
		.op = in[OFF_OP],
		.all_sizes = in[OFF_ALL_SIZES],
		.size = get_u32(in + OFF_SIZE),
		.iters = get_u32(in + OFF_ITERS),
		.tx_depth = get_u16(in + OFF_TX_DEPTH),
		.cq_mod = get_u16(in + OFF_CQ_MOD),
		.duration = get_u16(in + OFF_DURATION),
		.bidir = (in[OFF_FLAGS] & BENCH_PARAMS_BIDIR) != 0,
		.qps = (uint8_t)((in[OFF_FLAGS] >> BENCH_PARAMS_QPS_SHIFT) + 1),
		.infinite = (in[OFF_FLAGS] & BENCH_PARAMS_INFINITE) != 0,
		.reversed = (in[OFF_FLAGS] & BENCH_PARAMS_REVERSED) != 0,
	};
	return 0;
}

/* "-s 64" or "-a": the sizes option as the user wrote it. */
static void sizes_text(const struct bench_params *p, char *buf, size_t len)
{
	if (p->all_sizes)
		snprintf(buf, len, "-a -s %u", p->size);
	else
		snprintf(buf, len, "-s %u", p->size);
}

int bench_params_match(const struct bench_params *local,
		       const struct bench_params *remote, char *why, size_t len)
{
	char mine[24], theirs[24];

	if (local->mode != remote->mode) {
		snprintf(why, len,
			 "the peer runs rdma_bench %s, this side rdma_bench %s",
			 bench_mode_name(remote->mode),
			 bench_mode_name(local->mode));
		return -EPROTO;
	}
	if (local->op != remote->op) {
		snprintf(why, len, "the peer runs --op %s, this side --op %s",
			 bench_op_name(remote->op), bench_op_name(local->op));
		return -EPROTO;
	}
	sizes_text(local, mine, sizeof(mine));
	sizes_text(remote, theirs, sizeof(theirs));
	if (strcmp(mine, theirs) != 0) {
		snprintf(why, len, "the peer runs %s, this side %s", theirs,
			 mine);
		return -EPROTO;
	}
	if (local->bidir != remote->bidir) {
		snprintf(why, len, "the peer runs %s, this side %s",
			 remote->bidir ? "-b" : "without -b",
			 local->bidir ? "-b" : "without -b");
		return -EPROTO;
	}
	if (local->infinite != remote->infinite) {
		snprintf(why, len, "the peer runs %s, this side %s",
			 remote->infinite ? "--run_infinitely"
					  : "without --run_infinitely",
			 local->infinite ? "--run_infinitely"
					 : "without --run_infinitely");
		return -EPROTO;
	}
	if (local->reversed != remote->reversed) {
		snprintf(why, len, "the peer runs %s, this side %s",
			 remote->reversed ? "--reversed" : "without --reversed",
			 local->reversed ? "--reversed" : "without --reversed");
		return -EPROTO;
	}
	if (local->qps != remote->qps) {
		snprintf(why, len, "the peer runs -q %u, this side -q %u",
			 remote->qps, local->qps);
		return -EPROTO;
	}
	if (local->duration != remote->duration) {
		snprintf(why, len, "the peer runs -D %u, this side -D %u",
			 remote->duration, local->duration);
		return -EPROTO;
	}
	if (!local->duration && local->iters != remote->iters) {
		snprintf(why, len, "the peer runs -n %u, this side -n %u",
			 remote->iters, local->iters);
		return -EPROTO;
	}
	if (local->tx_depth != remote->tx_depth) {
		snprintf(why, len,
			 "the peer runs --tx-depth %u, this side --tx-depth %u",
			 remote->tx_depth, local->tx_depth);
		return -EPROTO;
	}
	if (local->cq_mod != remote->cq_mod) {
		snprintf(why, len,
			 "the peer runs --cq-mod %u, this side --cq-mod %u",
			 remote->cq_mod, local->cq_mod);
		return -EPROTO;
	}
	return 0;
}
