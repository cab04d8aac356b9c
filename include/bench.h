/* SPDX-License-Identifier: MIT */
#ifndef BENCH_H
#define BENCH_H

/*
 * Benchmark mode (--bench lat|bw): what perftest's ib_*_lat and ib_*_bw
 * measure, measured the same way, on the QP the manual's steps connected.
 *
 *   bench_config.c  the bench options, their defaults and checks
 *   bench_sync.c    both sides agree on the parameters (a message after the
 *                   QP-info exchange)
 *   bench_stats.c   latency and bandwidth figures from raw timestamps (pure)
 *   bench_report.c  the perftest-style table and the JSON file
 *   bench_post.c    lean post/poll for the hot loops
 *   bench_lat.c     ping-pong and read/atomic latency loops
 *   bench_bw.c      streaming loops for bandwidth
 *   bench.c         bench_run: sizes in turn, report each
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>

struct config;
struct connection;
struct resources;

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

/* -a: every power of two from 2 bytes to 8 MiB, as perftest's -a (with -s:
 * to that size, our addition for short runs). */
#define BENCH_SIZE_MIN_ALL 2u
#define BENCH_SIZE_MAX	   (8u << 20)
/* The remote atomics work on one 8-byte word. */
#define BENCH_ATOMIC_SIZE 8u

/*
 * perftest's defaults for sizes, iterations and queues, so that a bare
 * --bench runs what a bare ib_*_lat or ib_*_bw runs. Not the same in one
 * thing: a bandwidth run inlines the messages that fit, where perftest's
 * bandwidth tests inline only with -I (bench_config.c, BENCH_INLINE_SEND).
 */
#define BENCH_DEFAULT_LAT_SIZE	2u
#define BENCH_DEFAULT_BW_SIZE	65536u
#define BENCH_DEFAULT_LAT_ITERS 1000u
#define BENCH_DEFAULT_BW_ITERS	5000u
#define BENCH_DEFAULT_TX_DEPTH	128u
/* perftest's latency tests keep one work request in the send queue. */
#define BENCH_DEFAULT_LAT_TX_DEPTH 1u
#define BENCH_DEFAULT_CQ_MOD	   100u

/* Everything the bench options decide; part of struct config. */
struct bench_config {
	enum bench_mode mode;
	enum bench_op op;
	uint32_t size;	       /* one size, unless all_sizes */
	bool all_sizes;	       /* -a */
	uint32_t iters;	       /* -n, per size, honoured as given */
	uint32_t tx_depth;     /* the send queue: work requests in flight */
	uint32_t cq_mod;       /* signal one send in cq_mod */
	const char *json_path; /* --json FILE, NULL: none */
	bool gbps;	       /* bandwidth in Gb/s instead of MiB/s */
	bool busy_poll;	       /* never sleep on the completion channel */

	/* What the user gave explicitly, to apply the right defaults. */
	bool size_set, iters_set, tx_depth_set, cq_mod_set;
	/* The first bench option seen, to refuse it without --bench. */
	const char *first_option;
};

/* Option parsing: config.c hands the bench options over to these. */

/* Long-only option values, beyond config.c's own (which stay below 512). */
enum bench_option {
	BENCH_OPT_MODE = 512,
	BENCH_OPT_OP,
	BENCH_OPT_TX_DEPTH,
	BENCH_OPT_CQ_MOD,
	BENCH_OPT_JSON,
	BENCH_OPT_GBPS,
	BENCH_OPT_BUSY_POLL,
};

/* The getopt_long rows of the bench options, for config.c's table. */
/* clang-format off */
#define BENCH_LONG_OPTIONS                                              \
	{"bench", required_argument, NULL, BENCH_OPT_MODE},             \
	{"op", required_argument, NULL, BENCH_OPT_OP},                  \
	{"size", required_argument, NULL, 's'},                         \
	{"all-sizes", no_argument, NULL, 'a'},                          \
	{"iters", required_argument, NULL, 'n'},                        \
	{"tx-depth", required_argument, NULL, BENCH_OPT_TX_DEPTH},      \
	{"cq-mod", required_argument, NULL, BENCH_OPT_CQ_MOD},          \
	{"json", required_argument, NULL, BENCH_OPT_JSON},              \
	{"gbps", no_argument, NULL, BENCH_OPT_GBPS},                    \
	{"busy-poll", no_argument, NULL, BENCH_OPT_BUSY_POLL}
/* clang-format on */
/* Their short letters, for getopt_long's string. */
#define BENCH_SHORT_OPTIONS "s:an:"

void bench_config_defaults(struct bench_config *bc);

/*
 * Apply option @opt (one of the above) with @arg. Returns 0, -ENOENT if @opt
 * is not a bench option, -EINVAL after printing one line to @err.
 */
int bench_parse_option(struct bench_config *bc, int opt, const char *arg,
		       FILE *err);

/*
 * True if the benchmark's waits may sleep on a completion channel, so the
 * CQ needs one: --bench without --busy-poll.
 */
bool bench_sleeps(const struct bench_config *bc);

/* After all options: apply defaults, check combinations; 0 or -EINVAL. */
int bench_config_finish(struct bench_config *bc, FILE *err);

/* The usage lines of the bench options. */
void bench_print_usage(FILE *out);

const char *bench_mode_name(enum bench_mode mode);
const char *bench_op_name(enum bench_op op);

/* The sizes a run measures, in order: *@count of them into @sizes. */
#define BENCH_MAX_SIZES 23
size_t bench_sizes(const struct bench_config *bc,
		   uint32_t sizes[BENCH_MAX_SIZES]);

/* Hooks for resources_create: the region and queue sizes a run needs. */

/* Bytes of the registered region: at least @normal. */
size_t bench_region_size(const struct bench_config *bc, size_t normal);
/* Completion queue entries: at least @normal. */
int bench_cq_entries(const struct bench_config *bc, int normal);
/* QP capabilities, inline data and signalling for a benchmark run. */
void bench_qp_init_attr(const struct bench_config *bc,
			struct ibv_qp_init_attr *attr);
/* True if the client must not post the example's early receive. */
bool bench_is_on(const struct bench_config *bc);

/* Statistics, pure (bench_stats.c). All times in nanoseconds on input. */

/* The latency figures of one size, in microseconds. */
struct lat_stats {
	double t_min;
	double t_max;
	double t_typical; /* the median */
	double t_avg;
	double t_stdev;
	double p99;
	double p99_9;
};

/*
 * From @count deltas between consecutive posts (sorted in place), each
 * divided by @rtt_factor (2 for ping-pong: half the round trip). As perftest
 * does, the BENCH_LAT_TAIL largest deltas are left out of the median, the
 * average and the deviation; t_max is the smallest of those left out.
 * Needs @count > BENCH_LAT_TAIL; -EINVAL otherwise.
 */
#define BENCH_LAT_TAIL 2
int lat_stats_compute(uint64_t *deltas, size_t count, unsigned int rtt_factor,
		      struct lat_stats *out);

/* The median of sorted @v[0..n-1]; the mean of the middle two if n is even. */
double stats_median(const uint64_t *v, size_t n);

/* A reading of the benchmark's tick counter and of CLOCK_MONOTONIC. */
struct bench_clock {
	uint64_t ticks;
	uint64_t ns;
};

/*
 * Nanoseconds per tick between two readings, or 0 if either clock did not
 * move forward (no rate can be told then).
 */
double bench_ns_per_tick(const struct bench_clock *from,
			 const struct bench_clock *to);

/*
 * Tick times to nanoseconds, in place: each nonzero @v[i] becomes
 * (@v[i] - @origin) * @ns_per_tick, rounded; a 0 (no time) stays 0. With
 * @origin 0 it converts durations.
 */
void bench_ticks_to_ns(uint64_t *v, size_t n, uint64_t origin,
		       double ns_per_tick);

/* The bandwidth figures of one size. */
struct bw_stats {
	double peak_bytes_per_sec;
	double avg_bytes_per_sec;
	double msg_rate_mpps;
};

/*
 * From the post time of every work request and the completion time of the
 * signalled ones (@tcompleted[i] == 0 for the others; the last one is always
 * signalled). Average: all bytes over first post to last completion. Peak:
 * the best rate over any run of work requests from one post to a signalled
 * completion, found in O(@iters log @iters) with @iters words of scratch
 * memory. -EINVAL if @iters is 0 or no time passed, -ENOMEM without the
 * scratch memory.
 */
int bw_stats_compute(const uint64_t *tposted, const uint64_t *tcompleted,
		     size_t iters, uint32_t size, struct bw_stats *out);

/* The parameter message (bench_sync.c). */

#define BENCH_PARAMS_WIRE_SIZE 24

/* What both sides must agree on before measuring. */
struct bench_params {
	uint8_t mode;
	uint8_t op;
	uint8_t all_sizes;
	uint32_t size;
	uint32_t iters;
	uint16_t tx_depth; /* BENCH_DEPTH_MAX fits in 16 bits */
	uint16_t cq_mod;
};

void bench_params_from_config(const struct bench_config *bc,
			      struct bench_params *p);
void bench_params_encode(const struct bench_params *p,
			 uint8_t out[BENCH_PARAMS_WIRE_SIZE]);
/* -EPROTO (wrong magic or version) with a reason in *@why. */
int bench_params_decode(const uint8_t in[BENCH_PARAMS_WIRE_SIZE],
			struct bench_params *p, const char **why);
/*
 * 0 if @remote is the same benchmark as @local; else -EPROTO and a line
 * naming the first difference in @why (room for @len bytes).
 */
int bench_params_match(const struct bench_params *local,
		       const struct bench_params *remote, char *why,
		       size_t len);

/* Run the benchmark on the connected QP: every size, report each. */
int bench_run(const struct config *cfg, struct resources *res,
	      const struct connection *conn, int sock);

#endif
