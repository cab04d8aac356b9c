// SPDX-License-Identifier: MIT
/* The bench options: parsing, defaults, the checks that need all of them. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "extras/config_rows.h"
#include "extras/device_lessons.h"
#include "extras/json.h"
#include "extras/cq_events.h"
#include "variants/new_api.h"
#include "bench_config.h"
#include "bench_perftest.h"
#include "bench_stats.h"
#include "bench_wait.h"

/* Bounds on the numbers: big enough for any real run, small enough that the
 * timestamp arrays (16 bytes per iteration) stay well under a gigabyte. */
#define BENCH_ITERS_MIN 5 /* perftest's minimum: a few deltas to sort */
#define BENCH_ITERS_MAX 10000000u
#define BENCH_DEPTH_MAX 8192u
/*
 * Inline data requested at QP creation: perftest's latency defaults, 236
 * bytes for RC SEND and 220 for WRITE (and WRITE with immediate); READ and
 * atomics carry no data of their own. Unlike perftest, which inlines in
 * its bandwidth tests only when given -I, we ask the same in bandwidth
 * runs: a message that fits goes inline there too. perftest inlines
 * nothing on a device it does not recognise, soft-RoCE among them
 * (docs/benchmarks.md, "The set-up").
 */
#define BENCH_INLINE_SEND  236u
#define BENCH_INLINE_WRITE 220u
/* -I: more than any device offers (mlx5's is 1 KiB at most, rxe's 256). */
#define BENCH_INLINE_MAX 1024

/* -a: every power of two from 2 bytes to 8 MiB, as perftest's -a (with -s:
 * to that size, our addition for short runs). */
#define BENCH_SIZE_MIN_ALL 2u
#define BENCH_SIZE_MAX	   8388608 /* 8 MiB */
/* The remote atomics work on one 8-byte word. */
#define BENCH_ATOMIC_SIZE 8u

/*
 * perftest's defaults for sizes, iterations and queues, so that a bare
 * --bench runs what a bare ib_*_lat or ib_*_bw runs. Not the same in one
 * thing: a bandwidth run inlines the messages that fit, where perftest's
 * bandwidth tests inline only with -I (BENCH_INLINE_SEND, above).
 */
/* perftest's TCP port, so that its firewall rules fit rdma_bench too */
#define BENCH_DEFAULT_TCP_PORT	18515
#define BENCH_DEFAULT_LAT_SIZE	2
#define BENCH_DEFAULT_BW_SIZE	65536
#define BENCH_DEFAULT_LAT_ITERS 1000
#define BENCH_DEFAULT_BW_ITERS	5000
#define BENCH_DEFAULT_TX_DEPTH	128
/* perftest's latency tests keep one work request in the send queue. */
#define BENCH_DEFAULT_LAT_TX_DEPTH 1
#define BENCH_DEFAULT_CQ_MOD	   100

/* Option parsing: bench_config_tool hands these to config_parse. */

/* rdma_bench's own options, past the shared ones (config.h). */
enum bench_option {
	BENCH_OPT_OP = CONFIG_OPT_PROGRAM,
	BENCH_OPT_ATOMIC_TYPE,
	BENCH_OPT_CONNECTION,
	BENCH_OPT_SIZE,
	BENCH_OPT_ALL,
	BENCH_OPT_ITERS,
	BENCH_OPT_DURATION,
	BENCH_OPT_RUN_INFINITELY,
	BENCH_OPT_TX_DEPTH,
	BENCH_OPT_RX_DEPTH,
	BENCH_OPT_CQ_MOD,
	BENCH_OPT_POST_LIST,
	BENCH_OPT_INLINE,
	BENCH_OPT_BIDIR,
	BENCH_OPT_QPS,
	BENCH_OPT_HISTOGRAM,
	BENCH_OPT_CPU_UTIL,
	BENCH_OPT_REPORT_COUNTERS,
	BENCH_OPT_GBITS,
	BENCH_OPT_OUTPUT,
	BENCH_OPT_OUT_JSON,
	BENCH_OPT_OUT_JSON_FILE,
	BENCH_OPT_BUSY_POLL,
	BENCH_OPT_REVERSED,
	BENCH_OPT_NEW_API,
	/* perftest's opt-out of ibv_wr_*: what rdma_bench does without
	 * --new-api, refused with it */
	BENCH_OPT_OLD_POST_SEND,
	/* perftest's, accepted: what they ask is what rdma_bench does */
	BENCH_OPT_SAME,
};

static const char *const mode_names[] = {
	[BENCH_LAT] = "lat",
	[BENCH_BW] = "bw",
};

static const char *const op_names[] = {
	[BENCH_OP_SEND] = "send",	    [BENCH_OP_WRITE] = "write",
	[BENCH_OP_READ] = "read",	    [BENCH_OP_WRITE_IMM] = "write_imm",
	[BENCH_OP_FETCH_ADD] = "fetch_add", [BENCH_OP_CMP_SWAP] = "cmp_swap",
};

const char *bench_mode_name(enum bench_mode mode)
{
	if (mode == BENCH_LAT || mode == BENCH_BW)
		return mode_names[mode];
	return "off";
}

const char *bench_op_name(enum bench_op op)
{
	if (op >= BENCH_OP_SEND && op <= BENCH_OP_LAST)
		return op_names[op];
	return "unknown";
}

static void bench_config_defaults(struct bench_config *bc)
{
	*bc = (struct bench_config){
		.mode = BENCH_OFF,
		.op = BENCH_OP_SEND,
		.size = BENCH_DEFAULT_LAT_SIZE,
		.all_sizes = false,
		.iters = BENCH_DEFAULT_LAT_ITERS,
		.tx_depth = BENCH_DEFAULT_TX_DEPTH,
		.cq_mod = BENCH_DEFAULT_CQ_MOD,
		.gbps = false,
		.busy_poll = false,
		.qps = 1,
		.output = BENCH_OUTPUT_TABLE,
	};
}

/*
 * rdma_bench's table: perftest's spelling for every option it shares with
 * ib_{send,write,read,atomic}_{lat,bw} (-t is the send queue's depth and
 * -x the GID index, as there; the timeout keeps its long name), then the
 * options of its own. A row without help is perftest's and accepted, but
 * changes nothing: it asks for what rdma_bench does anyway.
 */
static const struct config_option bench_options[] = {
	{"ib-dev", 'd', required_argument, CONFIG_OPT_DEVICE, "NAME",
	 CONFIG_HELP_DEVICE},
	{"ib-port", 'i', required_argument, CONFIG_OPT_IB_PORT, "N",
	 CONFIG_HELP_IB_PORT},
	{"gid-index", 'x', required_argument, CONFIG_OPT_GID, "N",
	 CONFIG_HELP_GID},
	{"port", 'p', required_argument, CONFIG_OPT_PORT, "PORT",
	 "TCP port for the QP-info exchange (default " CONFIG_STR(
		 BENCH_DEFAULT_TCP_PORT) ",\nperftest's); with -R, RDMA_CM's port, and the\n"
					 "syncs take PORT+1 (on iWARP RDMA_CM owns the\n"
					 "TCP port)"},
	{"rdma_cm", 'R', no_argument, CONFIG_OPT_RDMA_CM, NULL,
	 CONFIG_HELP_RDMA_CM},
	{"source_ip", 0, required_argument, CONFIG_OPT_SOURCE_IP, "ADDR",
	 "client: connect from this address of the host\n"
	 "(TCP, and RDMA_CM with -R; default: the route's)"},
	{"connection", 'c', required_argument, BENCH_OPT_CONNECTION, "RC",
	 "the transport: RC, the only one measured"},
	{"events", 'e', no_argument, CONFIG_OPT_EVENTS, NULL,
	 "sleep on the completion channel at once, as\n"
	 "perftest's -e"},
	{"mtu", 'm', required_argument, CONFIG_OPT_MTU, "BYTES",
	 "path MTU: 256, 512, 1024, 2048 or 4096, at most\n"
	 "the port's (default: the smaller of the two\n"
	 "ports' active MTU)"},
	{"sl", 'S', required_argument, CONFIG_OPT_SL, "SL",
	 "service level of the address, 0 to 15 (default\n"
	 "0; not with -R)"},
	{"tclass", 0, required_argument, CONFIG_OPT_TCLASS, "N",
	 "traffic class in the GRH, 0 to 255: on RoCE v2\n"
	 "the IP DS field (default 0; not with -R)"},
	{"tos", 'T', required_argument, CONFIG_OPT_TOS, "N",
	 "with -R: RDMA_CM's type of service, 0 to 255,\n"
	 "which sets the traffic class and the SL"},
	{"qp-timeout", 'u', required_argument, CONFIG_OPT_ACK_TIMEOUT, "N",
	 "ack timeout, 4.096 us * 2^N, 0 to 31 (default\n"
	 "18; 0: wait for ever)"},
	{NULL, 0, 0, 0, NULL,
	 "what to measure (lat or bw, anywhere on the line; the same options\n"
	 "on both sides):"},
	{"op", 0, required_argument, BENCH_OPT_OP, "OP",
	 "send, write, read, write_imm, fetch_add,\n"
	 "cmp_swap (default send)"},
	{"atomic_type", 'A', required_argument, BENCH_OPT_ATOMIC_TYPE, "TYPE",
	 "FETCH_AND_ADD or CMP_AND_SWAP: --op fetch_add\n"
	 "or cmp_swap, as perftest's ib_atomic_*"},
	{"size", 's', required_argument, BENCH_OPT_SIZE, "BYTES",
	 "message size, 1 to 8388608 (default " CONFIG_STR(BENCH_DEFAULT_LAT_SIZE) " for lat,\n" CONFIG_STR(
		 BENCH_DEFAULT_BW_SIZE) " for bw, 8 for atomics)"},
	{"all", 'a', no_argument, BENCH_OPT_ALL, NULL,
	 "every power of two from 2 bytes to 8 MiB\n"
	 "(to --size if given)"},
	{"iters", 'n', required_argument, BENCH_OPT_ITERS, "N",
	 "iterations per size, at least 5 (default " CONFIG_STR(
		 BENCH_DEFAULT_LAT_ITERS) "\nfor lat, " CONFIG_STR(BENCH_DEFAULT_BW_ITERS) " for bw)"},
	{"duration", 'D', required_argument, BENCH_OPT_DURATION, "SEC",
	 "run for SEC seconds (" CONFIG_STR(BENCH_DURATION_MIN) " to " CONFIG_STR(
		 BENCH_DURATION_MAX) ") instead of\n"
				     "-n, and measure the seconds between the\n"
				     "first " CONFIG_STR(BENCH_MARGIN_SEC) " (warm-up) and the last " CONFIG_STR(
					     BENCH_MARGIN_SEC) " (drain);\n"
							       "lat: their average alone, as perftest's -D"},
	{"run_infinitely", 0, no_argument, BENCH_OPT_RUN_INFINITELY, NULL,
	 "bw: one size until SIGINT or SIGTERM, a row\n"
	 "for every -D seconds (default " CONFIG_STR(
		 BENCH_DEFAULT_PERIOD_SEC) "), then the\n"
					   "whole run's row"},
	{"bidirectional", 'b', no_argument, BENCH_OPT_BIDIR, NULL,
	 "bw: both sides send at once; each direction\n"
	 "and the sum are reported"},
	{"reversed", 0, no_argument, BENCH_OPT_REVERSED, NULL,
	 "bw: the server sends and measures, the client\n"
	 "receives and reports (perftest's --reversed)"},
	{"qp", 'q', required_argument, BENCH_OPT_QPS, "N",
	 "bw: spread the messages over N RC QPs (1 to\n" CONFIG_STR(
		 BENCH_QPS_MAX) "), each with -n and -t of its own; each\n"
				"QP is reported too"},
	{NULL, 0, 0, 0, NULL, "the queues:"},
	{"tx-depth", 't', required_argument, BENCH_OPT_TX_DEPTH, "N",
	 "send queue depth: work requests in flight\n"
	 "(default " CONFIG_STR(BENCH_DEFAULT_TX_DEPTH) " for bw, " CONFIG_STR(
		 BENCH_DEFAULT_LAT_TX_DEPTH) " for lat)"},
	{"rx-depth", 'r', required_argument, BENCH_OPT_RX_DEPTH, "N",
	 "SEND and WRITE with immediate: receives kept\n"
	 "posted (default: the iterations, at most " CONFIG_STR(
		 BENCH_RX_DEPTH_MAX) "\n"
				     "over all QPs, and never fewer than -t + 64)"},
	{"cq-mod", 'Q', required_argument, BENCH_OPT_CQ_MOD, "N",
	 "signal one send in N (default " CONFIG_STR(
		 BENCH_DEFAULT_CQ_MOD) ", or -t if\n"
				       "smaller; 1 for bw over " CONFIG_STR(
					       BENCH_CQ_MOD_SIZE_LIMIT) " bytes without\n"
									"-a or -e, as perftest; at most -t; READ and\n"
									"atomic latency signal every one)"},
	{"post_list", 'l', required_argument, BENCH_OPT_POST_LIST, "N",
	 "bw: post at most N sends in one ibv_post_send,\n"
	 "1 to " CONFIG_STR(BENCH_CHAIN_MAX) " (default: up to " CONFIG_STR(
		 BENCH_CHAIN_MAX) ", and one for -b\n"
				  "over " CONFIG_STR(
					  BENCH_CQ_MOD_SIZE_LIMIT) " bytes)"},
	{"inline_size", 'I', required_argument, BENCH_OPT_INLINE, "BYTES",
	 "inline data asked of the QP, 0 to 1024\n"
	 "(default 236 for SEND, 220 for WRITE)"},
	{"new-api", 0, no_argument, BENCH_OPT_NEW_API, NULL,
	 "post with ibv_wr_* on a QP and CQ made by\n"
	 "ibv_create_qp_ex and ibv_create_cq_ex, polled\n"
	 "with ibv_poll_cq: perftest's default (default:\n"
	 "ibv_post_send, perftest's --use_old_post_send)"},
	{"use_old_post_send", 0, no_argument, BENCH_OPT_OLD_POST_SEND, NULL,
	 "perftest's name for the default: ibv_post_send\n"
	 "(not with --new-api)"},
	{"busy-poll", 0, no_argument, BENCH_OPT_BUSY_POLL, NULL,
	 "wait for completions by polling only, as\n"
	 "perftest does (default: latency with the\n"
	 "peer on another host polls for " CONFIG_STR(
		 BENCH_LONG_SPIN_US) " us, then\n"
				     "naps " CONFIG_STR(
					     BENCH_NAP_US) " us at a time; bandwidth, and any run\n"
							   "with the peer on this host, polls for " CONFIG_STR(
								   BENCH_SPIN_US) " us,\n"
										  "then sleeps on a completion channel)"},
	{NULL, 0, 0, 0, NULL, "the report (the client's):"},
	{"report-histogram", 'H', no_argument, BENCH_OPT_HISTOGRAM, NULL,
	 "lat: the distribution of the samples, in\n"
	 "buckets " CONFIG_STR(
		 BENCH_HIST_PER_OCTAVE) " to a doubling, after each size"},
	{"report_gbits", 0, no_argument, BENCH_OPT_GBITS, NULL,
	 "bandwidth in Gb/s instead of MiB/s"},
	{"cpu_util", 0, no_argument, BENCH_OPT_CPU_UTIL, NULL,
	 "the share of a CPU each side spent on each\n"
	 "size, in two more columns"},
	{"report-counters", 0, no_argument, BENCH_OPT_REPORT_COUNTERS, NULL,
	 "what the port's counters (sysfs counters and\n"
	 "hw_counters) moved over the run, on each\n"
	 "side: packets sent, received, sent again"},
	{"output", 0, required_argument, BENCH_OPT_OUTPUT, "WHAT",
	 "print only one number per size, for scripts:\n"
	 "bandwidth or message_rate (bw), latency (lat:\n"
	 "the average, in usec)"},
	{"out_json", 0, no_argument, BENCH_OPT_OUT_JSON, NULL,
	 "write the figures as JSON to the file below"},
	{"out_json_file", 0, required_argument, BENCH_OPT_OUT_JSON_FILE, "FILE",
	 "the JSON file (default " BENCH_JSON_DEFAULT ";\n"
	 "implies --out_json)"},
	{NULL, 0, 0, 0, NULL, "waiting and the rest:"},
	{"timeout", 0, required_argument, CONFIG_OPT_TIMEOUT, "SEC",
	 CONFIG_HELP_TIMEOUT},
	{"connect-timeout", 0, required_argument, CONFIG_OPT_CONNECT_TIMEOUT,
	 "SEC", CONFIG_HELP_CONNECT_TIMEOUT},
	{"accept-timeout", 0, required_argument, CONFIG_OPT_ACCEPT_TIMEOUT,
	 "SEC", CONFIG_HELP_ACCEPT_TIMEOUT},
	CONFIG_ROW_VERBOSE,
	CONFIG_ROW_HELP,
	CONFIG_ROW_VERSION,
	/* perftest's, asking what rdma_bench always does (docs/benchmark-mode.md) */
	{"CPU-freq", 'F', no_argument, BENCH_OPT_SAME, NULL, NULL},
	{"report-both", 0, no_argument, BENCH_OPT_SAME, NULL, NULL},

	{0},
};

/* A number option of rdma_bench's: its long name for the message. */
static int parse_u32(const char *option, const char *text, unsigned long min,
		     unsigned long max, uint32_t *value, FILE *err)
{
	unsigned long v;
	int ret = config_parse_number(PROGRAM_BENCH, option, text, min, max, &v,
				      err);

	if (!ret)
		*value = (uint32_t)v;
	return ret;
}

/* Index of @text in @names[first..last], or -1. */
static int find_name(const char *const *names, int first, int last,
		     const char *text)
{
	int i;

	for (i = first; i <= last; i++)
		if (strcmp(names[i], text) == 0)
			return i;
	return -1;
}

/* "lat" or "bw", wherever it stands on the line: 1 if it was one. */
static int take_mode(void *settings, const char *word, FILE *err)
{
	struct bench_config *bc = settings;
	int i = find_name(mode_names, BENCH_LAT, BENCH_BW, word);

	if (i < 0)
		return 0;
	if (bc->mode != BENCH_OFF) {
		fprintf(err,
			"%s: two measurements given, %s and %s (expected one: " BENCH_SYNOPSIS
			")\n",
			BENCH_PROGRAM, bench_mode_name(bc->mode), word);
		return -EINVAL;
	}
	bc->mode = (enum bench_mode)i;
	return 1;
}

static bool op_is_atomic(enum bench_op op)
{
	return op == BENCH_OP_FETCH_ADD || op == BENCH_OP_CMP_SWAP;
}

/*
 * The operation, from --op or perftest's -A. -A picks the atomic of an
 * atomic --op, as it does in perftest's ib_atomic_* (whose --op is
 * fetch_add); otherwise an operation given twice must be the same, or
 * the line means two things and is refused.
 */
static int set_op(struct bench_config *bc, enum bench_op op, const char *given,
		  FILE *err)
{
	const char *before = bc->op_given;
	bool a_now = given[1] == 'A', a_before = before && before[1] == 'A';

	if (before && a_now != a_before && op_is_atomic(op) &&
	    op_is_atomic(bc->op)) {
		if (a_now)
			bc->op = op;
		return 0;
	}
	if (before && op != bc->op) {
		fprintf(err, "%s: %s conflicts with %s: give one of them\n",
			BENCH_PROGRAM, given, before);
		return -EINVAL;
	}
	bc->op = op;
	bc->op_given = given;
	return 0;
}

static int parse_op(struct bench_config *bc, const char *arg, FILE *err)
{
	static const char *const given[] = {
		[BENCH_OP_SEND] = "--op send",
		[BENCH_OP_WRITE] = "--op write",
		[BENCH_OP_READ] = "--op read",
		[BENCH_OP_WRITE_IMM] = "--op write_imm",
		[BENCH_OP_FETCH_ADD] = "--op fetch_add",
		[BENCH_OP_CMP_SWAP] = "--op cmp_swap",
	};
	int i = find_name(op_names, BENCH_OP_SEND, BENCH_OP_LAST, arg);

	if (i < 0) {
		fprintf(err,
			"%s: invalid --op value '%s' (expected send, write, read, write_imm, fetch_add or cmp_swap)\n",
			BENCH_PROGRAM, arg);
		return -EINVAL;
	}
	return set_op(bc, (enum bench_op)i, given[i], err);
}

/* perftest's -A: its names of the two atomics. */
static int parse_atomic_type(struct bench_config *bc, const char *arg,
			     FILE *err)
{
	if (strcmp(arg, "FETCH_AND_ADD") == 0)
		return set_op(bc, BENCH_OP_FETCH_ADD, "-A FETCH_AND_ADD", err);
	if (strcmp(arg, "CMP_AND_SWAP") == 0)
		return set_op(bc, BENCH_OP_CMP_SWAP, "-A CMP_AND_SWAP", err);
	fprintf(err,
		"%s: invalid --atomic_type value '%s' (expected FETCH_AND_ADD or CMP_AND_SWAP)\n",
		BENCH_PROGRAM, arg);
	return -EINVAL;
}

/* perftest's -c: RC is what rdma_bench measures; the others are refused. */
static int parse_connection(const char *arg, FILE *err)
{
	if (strcmp(arg, "RC") == 0 || strcmp(arg, "rc") == 0)
		return 0;
	fprintf(err,
		"%s: invalid --connection value '%s': rdma_bench measures RC only (perftest's UC, UD, XRC, DC and SRD are not offered)\n",
		BENCH_PROGRAM, arg);
	return -EINVAL;
}

static const char *const output_names[] = {
	[BENCH_OUTPUT_TABLE] = "table",
	[BENCH_OUTPUT_BANDWIDTH] = "bandwidth",
	[BENCH_OUTPUT_MESSAGE_RATE] = "message_rate",
	[BENCH_OUTPUT_LATENCY] = "latency",
};

static int parse_output(struct bench_config *bc, const char *arg, FILE *err)
{
	int i = find_name(output_names, BENCH_OUTPUT_BANDWIDTH,
			  BENCH_OUTPUT_LATENCY, arg);

	if (i < 0) {
		fprintf(err,
			"%s: invalid --output value '%s' (expected bandwidth, message_rate or latency)\n",
			BENCH_PROGRAM, arg);
		return -EINVAL;
	}
	bc->output = (enum bench_output)i;
	return 0;
}

static int parse_json_file(struct bench_config *bc, const char *arg, FILE *err)
{
	if (arg[0] == '\0') {
		fprintf(err,
			"%s: invalid --out_json_file value '' (expected a file name)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	bc->json_path = arg;
	return 0;
}

/*
 * Apply option @opt (one of the above) with @arg. Returns 0, or -EINVAL
 * after printing one line to @err.
 */
static int bench_parse_option(struct bench_config *bc, int opt, const char *arg,
			      FILE *err)
{
	switch (opt) {
	case BENCH_OPT_OP:
		return parse_op(bc, arg, err);
	case BENCH_OPT_ATOMIC_TYPE:
		return parse_atomic_type(bc, arg, err);
	case BENCH_OPT_CONNECTION:
		return parse_connection(arg, err);
	case BENCH_OPT_SIZE:
		bc->size_set = true;
		return parse_u32("--size", arg, 1, BENCH_SIZE_MAX, &bc->size,
				 err);
	case BENCH_OPT_ALL:
		bc->all_sizes = true;
		return 0;
	case BENCH_OPT_ITERS:
		bc->iters_set = true;
		return parse_u32("--iters", arg, BENCH_ITERS_MIN,
				 BENCH_ITERS_MAX, &bc->iters, err);
	case BENCH_OPT_TX_DEPTH:
		bc->tx_depth_set = true;
		return parse_u32("--tx-depth", arg, 1, BENCH_DEPTH_MAX,
				 &bc->tx_depth, err);
	case BENCH_OPT_RX_DEPTH:
		return parse_u32("--rx-depth", arg, 1, BENCH_RX_DEPTH_MAX,
				 &bc->rx_depth, err);
	case BENCH_OPT_CQ_MOD:
		bc->cq_mod_set = true;
		return parse_u32("--cq-mod", arg, 1, BENCH_DEPTH_MAX,
				 &bc->cq_mod, err);
	case BENCH_OPT_POST_LIST:
		return parse_u32("--post_list", arg, 1, BENCH_CHAIN_MAX,
				 &bc->post_list, err);
	case BENCH_OPT_INLINE:
		bc->inline_set = true;
		return parse_u32("--inline_size", arg, 0, BENCH_INLINE_MAX,
				 &bc->inline_size, err);
	case BENCH_OPT_GBITS:
		bc->gbps = true;
		return 0;
	case BENCH_OPT_HISTOGRAM:
		bc->histogram = true;
		return 0;
	case BENCH_OPT_BIDIR:
		bc->bidir = true;
		return 0;
	case BENCH_OPT_QPS:
		return parse_u32("--qp", arg, 1, BENCH_QPS_MAX, &bc->qps, err);
	case BENCH_OPT_DURATION:
		return parse_u32("--duration", arg, BENCH_DURATION_MIN,
				 BENCH_DURATION_MAX, &bc->duration, err);
	case BENCH_OPT_CPU_UTIL:
		bc->cpu_util = true;
		return 0;
	case BENCH_OPT_REPORT_COUNTERS:
		bc->counters = true;
		return 0;
	case BENCH_OPT_RUN_INFINITELY:
		bc->infinite = true;
		return 0;
	case BENCH_OPT_OUTPUT:
		return parse_output(bc, arg, err);
	case BENCH_OPT_OUT_JSON:
		bc->json_wanted = true;
		return 0;
	case BENCH_OPT_OUT_JSON_FILE:
		bc->json_wanted = true;
		return parse_json_file(bc, arg, err);
	case BENCH_OPT_BUSY_POLL:
		bc->busy_poll = true;
		return 0;
	case BENCH_OPT_REVERSED:
		bc->reversed = true;
		return 0;
	case BENCH_OPT_NEW_API:
		bc->new_api = true;
		return 0;
	case BENCH_OPT_OLD_POST_SEND:
		bc->old_post_send = true;
		return 0;
	case BENCH_OPT_SAME:
		return 0;
	}
	return -EINVAL;
}

/*
 * What the path options go with. The TCP exchange sets the address's SL
 * and traffic class itself (-S, --tclass); with -R, RDMA_CM makes the
 * address from the route and takes both from the type of service (-T),
 * as perftest's -T is for -R alone.
 */
static int check_path_options(const struct config *cfg, FILE *err)
{
	if (cfg->use_rdma_cm && (cfg->sl || cfg->traffic_class)) {
		fprintf(err,
			"%s: option %s does not go with -R: RDMA_CM takes the traffic class and the SL from the type of service, give -T/--tos\n",
			BENCH_PROGRAM, cfg->sl ? "--sl" : "--tclass");
		return -EINVAL;
	}
	if (cfg->source_ip && !cfg->server_name) {
		fprintf(err,
			"%s: option --source_ip is the client's (the server listens on every address): give it with SERVER\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (!cfg->use_rdma_cm && cfg->tos >= 0) {
		fprintf(err,
			"%s: option --tos needs -R (RDMA_CM's type of service); over the TCP exchange give --tclass and --sl\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	return 0;
}

/* -e sleeps at once; --busy-poll never sleeps. */
static int check_waits(const struct bench_config *bc, const struct config *cfg,
		       FILE *err)
{
	if (cfg->use_events && bc->busy_poll) {
		fprintf(err,
			"%s: options -e and --busy-poll contradict (sleep on the completion channel, or never)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	return 0;
}

/* --output's number is of the measurement's kind; -l posts bw's sends. */
static int check_report_options(const struct bench_config *bc, FILE *err)
{
	bool latency = bc->output == BENCH_OUTPUT_LATENCY;

	if (bc->output != BENCH_OUTPUT_TABLE &&
	    latency != (bc->mode == BENCH_LAT)) {
		fprintf(err,
			"%s: invalid --output value '%s' with %s (expected %s)\n",
			BENCH_PROGRAM, output_names[bc->output],
			bench_mode_name(bc->mode),
			bc->mode == BENCH_LAT ? "latency"
					      : "bandwidth or message_rate");
		return -EINVAL;
	}
	if (bc->post_list && bc->mode != BENCH_BW) {
		fprintf(err,
			"%s: option --post_list needs bw (a latency sample posts one send)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->rx_depth && bc->op != BENCH_OP_SEND &&
	    bc->op != BENCH_OP_WRITE_IMM) {
		fprintf(err,
			"%s: option --rx-depth needs --op send or write_imm (only they consume receives)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	/* The receiver tops its ring up BENCH_RX_REFILL at a time. */
	if (bc->rx_depth && bc->rx_depth < bc->tx_depth + BENCH_RX_REFILL) {
		fprintf(err,
			"%s: invalid --rx-depth value '%u' (less than --tx-depth %u + %u: the sender could run the receive queue dry)\n",
			BENCH_PROGRAM, bc->rx_depth, bc->tx_depth,
			BENCH_RX_REFILL);
		return -EINVAL;
	}
	return 0;
}

/*
 * The CQ moderation without --cq-mod: perftest's 100, never more than the
 * send queue holds; and for large bandwidth messages a completion for
 * every send, as perftest (whose -Q is our --cq-mod) does above the same
 * size, so the two are compared at one setting. A completion costs little
 * beside a message this long, and a send queue refilled one request at a
 * time lets a software device send in the caller's own ibv_post_send: siw
 * sends there only when its queue is idle, and otherwise leaves the
 * sending to its kernel thread, which on a guest of one CPU waits for the
 * polling sides (docs/benchmarks.md has the trace). Not with --all
 * (one setting for every size, most of them small) nor -e (an event for
 * every send).
 */
static uint32_t default_cq_mod(const struct bench_config *bc,
			       const struct config *cfg)
{
	if (bc->mode == BENCH_BW && !bc->all_sizes && !cfg->use_events &&
	    bc->size > BENCH_CQ_MOD_SIZE_LIMIT)
		return 1;
	return BENCH_DEFAULT_CQ_MOD < bc->tx_depth ? BENCH_DEFAULT_CQ_MOD
						   : bc->tx_depth;
}

/*
 * The client writes --out_json_file after the run: refuse, before it
 * starts, a path it could not write then.
 */
static int check_json_path(const struct bench_config *bc,
			   const struct config *cfg, FILE *err)
{
	int ret;

	if (!bc->json_path || !cfg->server_name)
		return 0;
	ret = json_path_writable(bc->json_path);
	if (!ret)
		return 0;
	fprintf(err,
		"%s: invalid --out_json_file value '%s' (cannot write it: %s)\n",
		BENCH_PROGRAM, bc->json_path, strerror(ret));
	return -EINVAL;
}

/*
 * After all options: apply defaults, check combinations and that the rest
 * of the command line (@cfg) suits a benchmark; 0 or -EINVAL.
 */
static int bench_config_finish(struct bench_config *bc,
			       const struct config *cfg, FILE *err)
{
	int ret;

	if (bc->mode == BENCH_OFF) {
		fprintf(err,
			"%s: no measurement given: name lat or bw (" BENCH_SYNOPSIS
			")\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->histogram && bc->mode != BENCH_LAT) {
		fprintf(err,
			"%s: option --report-histogram needs lat (bandwidth has no latency samples)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->infinite && bc->mode != BENCH_BW) {
		fprintf(err, "%s: option --run_infinitely needs bw\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->infinite && (bc->all_sizes || bc->iters_set || bc->bidir)) {
		fprintf(err,
			"%s: option --run_infinitely runs one size until stopped: leave out %s\n",
			BENCH_PROGRAM,
			bc->all_sizes	? "--all"
			: bc->iters_set ? "--iters"
					: "--bidirectional (it needs a count)");
		return -EINVAL;
	}
	/* -D is the period of the reports then. */
	if (bc->infinite && !bc->duration)
		bc->duration = BENCH_DEFAULT_PERIOD_SEC;
	if (bc->bidir && bc->mode != BENCH_BW) {
		fprintf(err, "%s: option --bidirectional needs bw\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->bidir && bc->duration) {
		fprintf(err,
			"%s: option --bidirectional counts the messages each way: give -n, not --duration (a timed run goes one way)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->reversed &&
	    (bc->mode != BENCH_BW || bc->bidir || bc->infinite)) {
		fprintf(err,
			"%s: option --reversed needs bw, one way (not with %s)\n",
			BENCH_PROGRAM,
			bc->mode != BENCH_BW ? "lat"
			: bc->bidir	     ? "--bidirectional"
					     : "--run_infinitely");
		return -EINVAL;
	}
	if (bc->qps > 1 && bc->mode != BENCH_BW) {
		fprintf(err,
			"%s: option --qp needs bw (a latency sample is one QP's round trip)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->duration && bc->histogram) {
		fprintf(err,
			"%s: option --report-histogram needs every sample: give -n, not --duration\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->duration && (bc->all_sizes || bc->iters_set)) {
		fprintf(err,
			"%s: option --duration runs one size for a time: leave out %s\n",
			BENCH_PROGRAM, bc->all_sizes ? "--all" : "--iters");
		return -EINVAL;
	}
	if (bc->all_sizes && bc->size_set && bc->size < BENCH_SIZE_MIN_ALL) {
		fprintf(err,
			"%s: invalid --size value '%u' with --all (the sizes start at %u)\n",
			BENCH_PROGRAM, bc->size, BENCH_SIZE_MIN_ALL);
		return -EINVAL;
	}
	if (bench_op_is_atomic(bc->op) && bc->size_set &&
	    bc->size != BENCH_ATOMIC_SIZE) {
		fprintf(err,
			"%s: invalid --size value '%u' for --op %s (atomics move exactly %u bytes)\n",
			BENCH_PROGRAM, bc->size, bench_op_name(bc->op),
			BENCH_ATOMIC_SIZE);
		return -EINVAL;
	}
	/* Latency: the send queue holds one request, or the signalling
	 * interval the user asked for (unsignalled sends stay queued). */
	if (!bc->tx_depth_set && bc->mode == BENCH_LAT)
		bc->tx_depth = bc->cq_mod_set ? bc->cq_mod
					      : BENCH_DEFAULT_LAT_TX_DEPTH;
	if (bc->cq_mod_set && bc->cq_mod > bc->tx_depth) {
		fprintf(err,
			"%s: invalid --cq-mod value '%u' (more than --tx-depth %u: the send queue would fill before a completion)\n",
			BENCH_PROGRAM, bc->cq_mod, bc->tx_depth);
		return -EINVAL;
	}
	if (bench_op_is_atomic(bc->op))
		bc->size = BENCH_ATOMIC_SIZE;
	else if (!bc->size_set && bc->all_sizes)
		bc->size = BENCH_SIZE_MAX;
	else if (!bc->size_set && bc->mode == BENCH_BW)
		bc->size = BENCH_DEFAULT_BW_SIZE;
	if (!bc->iters_set && bc->mode == BENCH_BW)
		bc->iters = BENCH_DEFAULT_BW_ITERS;
	if (!bc->cq_mod_set)
		bc->cq_mod = default_cq_mod(bc, cfg);
	if (bc->new_api && bc->old_post_send) {
		fprintf(err,
			"%s: options --new-api and --use_old_post_send contradict (post with ibv_wr_*, or with ibv_post_send)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	ret = check_waits(bc, cfg, err);
	if (!ret)
		ret = check_path_options(cfg, err);
	if (!ret)
		ret = check_report_options(bc, err);
	if (!ret && bc->json_wanted && !bc->json_path)
		bc->json_path = BENCH_JSON_DEFAULT;
	if (!ret)
		ret = check_json_path(bc, cfg, err);
	return ret;
}

static int parse_setting(void *settings, int opt, const char *arg, FILE *err)
{
	return bench_parse_option(settings, opt, arg, err);
}

static int finish_settings(void *settings, struct config *cfg, FILE *out,
			   FILE *err)
{
	(void)out;
	/* RNR NAKs slow a benchmark's sender; they never fail it (qp.h) */
	cfg->rnr_retry = QP_RNR_RETRY_FOREVER;
	return bench_config_finish(settings, cfg, err);
}

void bench_config_tool(struct bench_config *bc, struct config_tool *tool)
{
	bench_config_defaults(bc);
	*tool = (struct config_tool){
		.program = PROGRAM_BENCH,
		.synopsis = "lat|bw [options] [SERVER]",
		.roles = CONFIG_ROLE_SERVER,
		.options = bench_options,
		.tcp_port = BENCH_DEFAULT_TCP_PORT,
		.settings = bc,
		.parse = parse_setting,
		.word = take_mode,
		.refuse = bench_refuse_perftest,
		.finish = finish_settings,
	};
}

bool bench_is_on(const struct bench_config *bc)
{
	return bc->mode != BENCH_OFF;
}

bool bench_sleeps(const struct bench_config *bc)
{
	return bench_is_on(bc) && !bc->busy_poll;
}

size_t bench_sizes(const struct bench_config *bc,
		   uint32_t sizes[BENCH_MAX_SIZES])
{
	uint32_t size;
	size_t n = 0;

	if (!bc->all_sizes || bench_op_is_atomic(bc->op)) {
		sizes[0] = bc->size;
		return 1;
	}
	for (size = BENCH_SIZE_MIN_ALL; size <= bc->size; size *= 2)
		sizes[n++] = size;
	return n;
}

/* The largest message of the run. */
static uint32_t largest_size(const struct bench_config *bc)
{
	uint32_t sizes[BENCH_MAX_SIZES];
	size_t n = bench_sizes(bc, sizes);

	return n ? sizes[n - 1] : bc->size;
}

/* One half of the region: see BENCH_HALF_ALIGN in bench_config.h. */
size_t bench_half_size(const struct bench_config *bc)
{
	size_t size = largest_size(bc);

	return (size + BENCH_HALF_ALIGN - 1) / BENCH_HALF_ALIGN *
	       BENCH_HALF_ALIGN;
}

size_t bench_region_size(const struct bench_config *bc, size_t normal)
{
	size_t bench;

	if (!bench_is_on(bc))
		return normal;
	bench = 2 * bench_half_size(bc);
	return bench > normal ? bench : normal;
}

uint32_t bench_rx_depth(const struct bench_config *bc)
{
	/* -q's QPs complete on one CQ: each has its share of the ring. */
	uint32_t ring = BENCH_RX_DEPTH_MAX / (bc->qps ? bc->qps : 1);

	if (bc->op != BENCH_OP_SEND && bc->op != BENCH_OP_WRITE_IMM)
		return 0;
	/* room for the sender's whole window even just before a top-up */
	if (bc->tx_depth + BENCH_RX_REFILL > ring)
		ring = bc->tx_depth + BENCH_RX_REFILL;
	/* -r: as given (bench_config_finish saw it hold the window) */
	if (bc->rx_depth)
		ring = bc->rx_depth;
	return bc->iters < ring ? bc->iters : ring;
}

/* The inline data the operation can use (BENCH_INLINE_SEND). */
static uint32_t inline_wanted(const struct bench_config *bc)
{
	switch (bc->op) {
	case BENCH_OP_SEND:
		return BENCH_INLINE_SEND;
	case BENCH_OP_WRITE:
	case BENCH_OP_WRITE_IMM:
		return BENCH_INLINE_WRITE;
	default:
		return 0;
	}
}

void bench_size_resources(const struct bench_config *bc,
			  struct resources_sizes *sizes)
{
	uint32_t rx = bench_rx_depth(bc);

	if (!bench_is_on(bc))
		return;
	sizes->buf_size = bench_region_size(bc, sizes->buf_size);
	sizes->qps = bc->qps;
	sizes->max_send_wr = bc->tx_depth;
	if (rx > sizes->max_recv_wr)
		sizes->max_recv_wr = rx;
	sizes->max_inline_data =
		bc->inline_set ? bc->inline_size : inline_wanted(bc);
	/* Each work request says itself whether it wants a completion. */
	sizes->sq_sig_all = false;
	/* --new-api: ibv_create_cq_ex and ibv_create_qp_ex (src/variants/new_api.c) */
	sizes->extended = bc->new_api ? &new_api_verbs : NULL;
	if (bench_sleeps(bc))
		sizes->events = &cq_events;
	/* As many READs and atomics as both devices allow (8 bits on the
	 * wire). */
	sizes->max_rd_atomic = UINT8_MAX;
	/* It posts receives of its own, per message size. */
	sizes->early_receives = 0;
	/* What the device must do is the benchmark's operation's, checked
	 * before connecting as the lessons' are. */
	sizes->needs.refuse = device_lesson_refusal;
	if (bench_op_is_atomic(bc->op))
		snprintf(sizes->needs.atomics, sizeof(sizes->needs.atomics),
			 BENCH_PROGRAM " --op %s", bench_op_name(bc->op));
	if (bc->op == BENCH_OP_WRITE_IMM)
		snprintf(sizes->needs.immediate, sizeof(sizes->needs.immediate),
			 BENCH_PROGRAM " --op %s", bench_op_name(bc->op));
}

int bench_parse_command_line(struct config *cfg, struct bench_config *bc,
			     int argc, char **argv, FILE *out, FILE *err)
{
	struct config_tool tool;

	bench_config_tool(bc, &tool);
	return config_parse(cfg, &tool, argc, argv, out, err);
}
