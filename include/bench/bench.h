/* SPDX-License-Identifier: MIT */
#ifndef BENCH_H
#define BENCH_H

/*
 * rdma_bench lat|bw: what perftest's ib_*_lat and ib_*_bw
 * measure, measured the same way, on the QP the manual's steps connected.
 *
 *   bench_config.c   the options (perftest's spelling), defaults and checks
 *   bench_perftest.c perftest's options that are not offered, and why
 *   bench_sync.c     both sides agree on the parameters (a message after
 *                    the QP-info exchange)
 *   bench_stats.c    latency and bandwidth figures from raw timestamps
 *                    (pure)
 *   bench_report.c   the perftest-style table and the JSON file
 *   (src/extras/port_counters.c: --report-counters, the port's counters
 *                    before and after, shared with rdma_check)
 *   bench_wait.c     how a side waits for a completion, and why
 *   bench_post.c     lean post/poll for the hot loops
 *   bench_peer.c     the peer's beats and end-of-size sync, as the loops
 *                    and bench.c hear them
 *   bench_qps.c      -q's other QPs, connected beside the first
 *   bench_lat.c      ping-pong and read/atomic latency loops
 *   bench_bw.c       streaming loops for bandwidth
 *   bench.c          bench_run: sizes in turn, report each
 *
 * No file reaches itself through calls: bench.c calls the loops, and the
 * loops call post, peer and report, never bench.c (lint.sh checks every
 * program with scripts/call_cycles.py).
 *
 * This header is what main calls; what the modules share is in private
 * headers beside them, src/bench/bench_*.h, each a concern (bench_run.h:
 * the state of a run, which the loops share).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "qp.h"
#include "resources.h"

enum bench_mode {
	BENCH_OFF = 0,
	BENCH_LAT = 1,
	BENCH_BW = 2,
};

/* The operation measured; these numbers travel in the parameter message. */
enum bench_op {
	BENCH_OP_SEND = 1,
	BENCH_OP_WRITE = 2,
	BENCH_OP_READ = 3,
	BENCH_OP_WRITE_IMM = 4,
	BENCH_OP_FETCH_ADD = 5,
	BENCH_OP_CMP_SWAP = 6,
	BENCH_OP_LAST = BENCH_OP_CMP_SWAP,
};

/* --output: the whole table, or one number per size. */
enum bench_output {
	BENCH_OUTPUT_TABLE = 0,
	BENCH_OUTPUT_BANDWIDTH = 1,
	BENCH_OUTPUT_MESSAGE_RATE = 2,
	BENCH_OUTPUT_LATENCY = 3,
};

/* --out_json without --out_json_file writes here, in the working folder. */
#define BENCH_JSON_DEFAULT "rdma_bench_out.json"

/* Everything the bench options decide; main keeps it beside struct config. */
struct bench_config {
	enum bench_mode mode;
	enum bench_op op;
	uint32_t size;	   /* one size, unless all_sizes */
	bool all_sizes;	   /* -a */
	uint32_t iters;	   /* -n, per size, honoured as given */
	uint32_t tx_depth; /* the send queue: work requests in flight */
	uint32_t cq_mod;   /* signal one send in cq_mod */
	bool gbps;	   /* bandwidth in Gb/s instead of MiB/s */
	bool busy_poll;	   /* never sleep on the completion channel */
	bool histogram;	   /* -H: print the latency distribution */
	bool cpu_util;	   /* print each side's CPU share */
	bool counters;	   /* print what the port's counters moved */
	uint32_t duration; /* -D: seconds per size instead of -n, 0: -n */
	bool bidir;	   /* -b: bw both ways at once */
	bool reversed;	   /* --reversed: bw from the server to the client */
	uint32_t qps;	   /* -q: bw over this many RC QPs, each -n */
	bool infinite;	   /* --run_infinitely: bw until stopped, -D a period */
	uint32_t rx_depth; /* -r: receives kept posted, 0: as many as fit */
	uint32_t post_list;	  /* -l: sends per ibv_post_send, 0: ours */
	uint32_t inline_size;	  /* -I: inline data asked of the QP */
	enum bench_output output; /* --output */
	bool json_wanted;	  /* --out_json */
	const char *json_path;	  /* --out_json_file, NULL: no JSON */
	bool new_api;		  /* post with ibv_wr_* (extended QP and CQ) */
	bool old_post_send;	  /* perftest's --use_old_post_send */

	/* What the user gave explicitly, to apply the right defaults. */
	bool size_set, iters_set, tx_depth_set, cq_mod_set, inline_set;
	const char *op_given; /* "--op X" or "-A X" as given, NULL: not yet */
};

/* The program's name, as its messages start, and what it is given. */
#define BENCH_PROGRAM  "rdma_bench"
#define BENCH_SYNOPSIS "rdma_bench lat|bw [options] [SERVER]"

/* Set @bc to the defaults and @tool to rdma_bench's, for config_parse. */
void bench_config_tool(struct bench_config *bc, struct config_tool *tool);

/*
 * rdma_bench's command line: the measurement first, as a word ("lat" or
 * "bw", into bc->mode), then what config_parse takes, with the bench
 * options; --help and --version need no measurement. Returns as
 * config_parse does.
 */
int bench_parse_command_line(struct config *cfg, struct bench_config *bc,
			     int argc, char **argv, FILE *out, FILE *err);

/* True once the measurement is known (lat or bw). */
bool bench_is_on(const struct bench_config *bc);

/*
 * What the run needs beyond the operations' sizes in @sizes: a region for
 * the largest message twice, queues and a CQ for --tx-depth, inline data,
 * a completion channel unless --busy-poll, as many READs in flight as the
 * devices allow, and no early receive (it posts its own).
 */
void bench_size_resources(const struct bench_config *bc,
			  struct resources_sizes *sizes);

struct cm;

/*
 * Run the benchmark on the connected QP: every size, report each on
 * @report (the client's table, or --output's one number a size). @cm is
 * the RDMA_CM connection (-R) that -q's other QPs connect beside, or NULL
 * over the TCP exchange.
 */
int bench_run(const struct config *cfg, const struct bench_config *bc,
	      struct resources *res, const struct connection *conn,
	      struct cm *cm, int sock, FILE *report);

#endif
