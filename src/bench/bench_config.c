// SPDX-License-Identifier: MIT
/* The bench options: parsing, defaults, the checks that need all of them. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_priv.h"

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

void bench_config_defaults(struct bench_config *bc)
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
	};
}

/* The getopt_long rows of the bench options, for config_parse's table. */
static const struct option bench_long_options[] = {
	{"op", required_argument, NULL, BENCH_OPT_OP},
	{"size", required_argument, NULL, 's'},
	{"all-sizes", no_argument, NULL, 'a'},
	{"iters", required_argument, NULL, 'n'},
	{"tx-depth", required_argument, NULL, BENCH_OPT_TX_DEPTH},
	{"cq-mod", required_argument, NULL, BENCH_OPT_CQ_MOD},
	{"gbps", no_argument, NULL, BENCH_OPT_GBPS},
	{"busy-poll", no_argument, NULL, BENCH_OPT_BUSY_POLL},
	{"histogram", no_argument, NULL, 'H'},
	{"duration", required_argument, NULL, 'D'},
	{"bidirectional", no_argument, NULL, 'b'},
	{"qps", required_argument, NULL, 'q'},
	{"run-infinitely", no_argument, NULL, BENCH_OPT_RUN_INFINITELY},
	{"cpu-util", no_argument, NULL, BENCH_OPT_CPU_UTIL},
	{"report-counters", no_argument, NULL, BENCH_OPT_REPORT_COUNTERS},
	{NULL, 0, NULL, 0},
};
/* Their short letters, for getopt_long's string. */
#define BENCH_SHORT_OPTIONS "s:an:HD:bq:"

void bench_print_usage(FILE *out)
{
	fprintf(out,
		"\n"
		"lat or bw: measure latency or bandwidth, as perftest's ib_*_lat and\n"
		"ib_*_bw do; give the same options on both sides:\n"
		"      --op OP              send, write, read, write_imm, fetch_add,\n"
		"                           cmp_swap (default send)\n"
		"  -s, --size BYTES         message size, 1 to %u (default %u for lat,\n"
		"                           %u for bw, 8 for atomics)\n"
		"  -a, --all-sizes          every power of two from 2 bytes to 8 MiB\n"
		"                           (to --size if given)\n"
		"  -n, --iters N            iterations per size, at least %d (default %u\n"
		"                           for lat, %u for bw)\n"
		"  -D, --duration SEC       run for SEC seconds (%u to %u) instead of\n"
		"                           -n, and measure the seconds between the\n"
		"                           first %u (warm-up) and the last %u (drain);\n"
		"                           lat: their average alone, as perftest's -D\n"
		"      --run-infinitely     bw: one size until SIGINT or SIGTERM, a row\n"
		"                           for every -D seconds (default %u), then the\n"
		"                           whole run's row, as perftest's\n"
		"                           run_infinitely\n"
		"      --tx-depth N         send queue depth: work requests in flight\n"
		"                           (default %u for bw, %u for lat)\n"
		"      --cq-mod N           signal one send in N (default %u, or\n"
		"                           --tx-depth if smaller; 1 for bw over %u\n"
		"                           bytes without -a or -e, as perftest; at\n"
		"                           most --tx-depth; READ and atomic latency\n"
		"                           signal every one)\n"
		"      --json FILE          write the figures as JSON, on the client side\n"
		"      --gbps               bandwidth in Gb/s instead of MiB/s\n"
		"      --busy-poll          wait for completions by polling only, as\n"
		"                           perftest does (default: latency with the\n"
		"                           peer on another host polls for %u us, then\n"
		"                           naps %u us at a time; bandwidth, and any run\n"
		"                           with the peer on this host, polls for %u us,\n"
		"                           then sleeps on a completion channel; with\n"
		"                           -e: sleep at once, as perftest's -e)\n"
		"  -b, --bidirectional      bw: both sides send at once; each direction\n"
		"                           and the sum are reported\n"
		"  -q, --qps N              bw: spread the messages over N RC QPs (1 to\n"
		"                           %u), each with -n and --tx-depth of its own,\n"
		"                           as perftest's -q; each QP is reported too\n"
		"  -H, --histogram          lat: the distribution of the samples, in\n"
		"                           buckets %d to a doubling, after each size\n"
		"      --cpu-util           the share of a CPU each side spent on each\n"
		"                           size, in two more columns\n"
		"      --report-counters    what the port's counters (sysfs counters and\n"
		"                           hw_counters) moved over the run, on each\n"
		"                           side: packets sent, received, sent again\n",
		BENCH_SIZE_MAX, BENCH_DEFAULT_LAT_SIZE, BENCH_DEFAULT_BW_SIZE,
		BENCH_ITERS_MIN, BENCH_DEFAULT_LAT_ITERS,
		BENCH_DEFAULT_BW_ITERS, BENCH_DURATION_MIN, BENCH_DURATION_MAX,
		BENCH_MARGIN_SEC, BENCH_MARGIN_SEC, BENCH_DEFAULT_PERIOD_SEC,
		BENCH_DEFAULT_TX_DEPTH, BENCH_DEFAULT_LAT_TX_DEPTH,
		BENCH_DEFAULT_CQ_MOD, BENCH_CQ_MOD_SIZE_LIMIT,
		BENCH_LONG_SPIN_US, BENCH_NAP_US, BENCH_SPIN_US, BENCH_QPS_MAX,
		BENCH_HIST_PER_OCTAVE);
}

/* A decimal number in [min, max], nothing else (no sign, spaces, suffix). */
static int parse_u32(const char *option, const char *text, unsigned long min,
		     unsigned long max, uint32_t *value, FILE *err)
{
	unsigned long v;
	char *end;

	if (text[0] >= '0' && text[0] <= '9') {
		errno = 0;
		v = strtoul(text, &end, 10);
		if (!errno && *end == '\0' && v >= min && v <= max) {
			*value = (uint32_t)v;
			return 0;
		}
	}
	fprintf(err,
		"%s: invalid %s value '%s' (expected a number from %lu to %lu)\n",
		BENCH_PROGRAM, option, text, min, max);
	return -EINVAL;
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

static int parse_mode(struct bench_config *bc, const char *arg, FILE *err)
{
	int i = find_name(mode_names, BENCH_LAT, BENCH_BW, arg);

	if (i < 0) {
		fprintf(err,
			"%s: unknown measurement '%s' (expected lat or bw first: " BENCH_SYNOPSIS
			")\n",
			BENCH_PROGRAM, arg);
		return -EINVAL;
	}
	bc->mode = (enum bench_mode)i;
	return 0;
}

static int parse_op(struct bench_config *bc, const char *arg, FILE *err)
{
	int i = find_name(op_names, BENCH_OP_SEND, BENCH_OP_LAST, arg);

	if (i < 0) {
		fprintf(err,
			"%s: invalid --op value '%s' (expected send, write, read, write_imm, fetch_add or cmp_swap)\n",
			BENCH_PROGRAM, arg);
		return -EINVAL;
	}
	bc->op = (enum bench_op)i;
	return 0;
}

int bench_parse_option(struct bench_config *bc, int opt, const char *arg,
		       FILE *err)
{
	switch (opt) {
	case BENCH_OPT_OP:
		return parse_op(bc, arg, err);
	case 's':
		bc->size_set = true;
		return parse_u32("--size", arg, 1, BENCH_SIZE_MAX, &bc->size,
				 err);
	case 'a':
		bc->all_sizes = true;
		return 0;
	case 'n':
		bc->iters_set = true;
		return parse_u32("--iters", arg, BENCH_ITERS_MIN,
				 BENCH_ITERS_MAX, &bc->iters, err);
	case BENCH_OPT_TX_DEPTH:
		bc->tx_depth_set = true;
		return parse_u32("--tx-depth", arg, 1, BENCH_DEPTH_MAX,
				 &bc->tx_depth, err);
	case BENCH_OPT_CQ_MOD:
		bc->cq_mod_set = true;
		return parse_u32("--cq-mod", arg, 1, BENCH_DEPTH_MAX,
				 &bc->cq_mod, err);
	case BENCH_OPT_GBPS:
		bc->gbps = true;
		return 0;
	case 'H':
		bc->histogram = true;
		return 0;
	case 'b':
		bc->bidir = true;
		return 0;
	case 'q':
		return parse_u32("--qps", arg, 1, BENCH_QPS_MAX, &bc->qps, err);
	case 'D':
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
	default: /* BENCH_OPT_BUSY_POLL */
		bc->busy_poll = true;
		return 0;
	}
}

/*
 * The benchmark runs where perftest's RC tests do: UC has no READ or
 * atomics, UD no RDMA at all. With -R, RDMA_CM connects the same RC QP
 * (perftest's -R): the way iWARP devices connect.
 */
static int check_transport(const struct bench_config *bc,
			   const struct config *cfg, FILE *err)
{
	if (cfg->transport != TRANSPORT_RC) {
		fprintf(err, "%s: runs over RC, not --connection %s\n",
			BENCH_PROGRAM, transport_name(cfg->transport));
		return -EINVAL;
	}
	if (cfg->use_events && bc->busy_poll) {
		fprintf(err,
			"%s: options -e and --busy-poll contradict (sleep on the completion channel, or never)\n",
			BENCH_PROGRAM);
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
 * polling sides (docs/benchmarks.md has the trace). Not with --all-sizes
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
 * The client writes --json after the run: refuse, before it starts, a path
 * it could not write then. Nothing is created or truncated here: an
 * existing file must be writable, a new one's folder writable.
 */
static int check_json_path(const struct config *cfg, FILE *err)
{
	const char *path = cfg->json_path;
	char folder[PATH_MAX];
	const char *slash;
	struct stat st;
	int ret = 0;

	if (!path || !cfg->server_name)
		return 0;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			ret = EISDIR;
		else if (access(path, W_OK))
			ret = errno;
	} else if (errno != ENOENT) {
		ret = errno;
	} else {
		slash = strrchr(path, '/');
		if (!slash)
			snprintf(folder, sizeof(folder), ".");
		else if (slash == path)
			snprintf(folder, sizeof(folder), "/");
		else
			snprintf(folder, sizeof(folder), "%.*s",
				 (int)(slash - path), path);
		if (access(folder, W_OK | X_OK))
			ret = errno;
	}
	if (!ret)
		return 0;
	fprintf(err, "%s: invalid --json value '%s' (cannot write it: %s)\n",
		BENCH_PROGRAM, path, strerror(ret));
	return -EINVAL;
}

int bench_config_finish(struct bench_config *bc, const struct config *cfg,
			FILE *err)
{
	int ret;

	if (bc->mode == BENCH_OFF) {
		fprintf(err,
			"%s: no measurement given (expected lat or bw first: " BENCH_SYNOPSIS
			")\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->histogram && bc->mode != BENCH_LAT) {
		fprintf(err,
			"%s: option --histogram needs lat (bandwidth has no latency samples)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->infinite && bc->mode != BENCH_BW) {
		fprintf(err, "%s: option --run-infinitely needs bw\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->infinite && (bc->all_sizes || bc->iters_set || bc->bidir)) {
		fprintf(err,
			"%s: option --run-infinitely runs one size until stopped: leave out %s\n",
			BENCH_PROGRAM,
			bc->all_sizes	? "--all-sizes"
			: bc->iters_set ? "--iters"
					: "--bidirectional (it needs a count)");
		return -EINVAL;
	}
	/* -D is the period of the reports then. */
	if (bc->infinite && !bc->duration)
		bc->duration = BENCH_DEFAULT_PERIOD_SEC;
	if (bc->bidir && (bc->mode != BENCH_BW || bc->duration)) {
		fprintf(err,
			"%s: option --bidirectional needs bw, and a count (-n), not --duration\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->qps > 1 && bc->mode != BENCH_BW) {
		fprintf(err,
			"%s: option --qps needs bw (a latency sample is one QP's round trip)\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->duration && bc->histogram) {
		fprintf(err,
			"%s: option --histogram needs every sample: give -n, not --duration\n",
			BENCH_PROGRAM);
		return -EINVAL;
	}
	if (bc->duration && (bc->all_sizes || bc->iters_set)) {
		fprintf(err,
			"%s: option --duration runs one size for a time: leave out %s\n",
			BENCH_PROGRAM,
			bc->all_sizes ? "--all-sizes" : "--iters");
		return -EINVAL;
	}
	if (bc->all_sizes && bc->size_set && bc->size < BENCH_SIZE_MIN_ALL) {
		fprintf(err,
			"%s: invalid --size value '%u' with --all-sizes (the sizes start at %u)\n",
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
	ret = check_transport(bc, cfg, err);
	if (!ret)
		ret = check_json_path(cfg, err);
	return ret;
}

static int parse_setting(void *settings, int opt, const char *arg, FILE *err)
{
	return bench_parse_option(settings, opt, arg, err);
}

static int finish_settings(void *settings, const struct config *cfg, FILE *err)
{
	return bench_config_finish(settings, cfg, err);
}

void bench_config_tool(struct bench_config *bc, struct config_tool *tool)
{
	bench_config_defaults(bc);
	*tool = (struct config_tool){
		.program = PROGRAM_BENCH,
		.synopsis = "lat|bw [options] [SERVER]",
		.roles =
			"without SERVER, run as the server and wait for a client",
		.long_options = bench_long_options,
		.short_options = BENCH_SHORT_OPTIONS,
		.settings = bc,
		.parse = parse_setting,
		.finish = finish_settings,
		.print_usage = bench_print_usage,
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

/* One half of the region: see BENCH_HALF_ALIGN in bench_priv.h. */
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

int bench_cq_entries(const struct bench_config *bc, int normal)
{
	int need;

	if (!bench_is_on(bc))
		return normal;
	need = (int)((bc->tx_depth + bench_rx_depth(bc)) * bc->qps);
	return need > normal ? need : normal;
}

void bench_size_resources(const struct bench_config *bc,
			  struct resources_sizes *sizes)
{
	uint32_t rx = bench_rx_depth(bc);

	if (!bench_is_on(bc))
		return;
	sizes->buf_size = bench_region_size(bc, sizes->buf_size);
	sizes->cq_entries = bench_cq_entries(bc, sizes->cq_entries);
	sizes->max_send_wr = bc->tx_depth;
	if (rx > sizes->max_recv_wr)
		sizes->max_recv_wr = rx;
	sizes->max_inline_data = inline_wanted(bc);
	/* Each work request says itself whether it wants a completion. */
	sizes->sq_sig_all = false;
	sizes->comp_channel = sizes->comp_channel || bench_sleeps(bc);
	/* As many READs and atomics as both devices allow (8 bits on the
	 * wire). */
	sizes->max_rd_atomic = UINT8_MAX;
	/* It posts receives of its own, per message size. */
	sizes->early_receives = 0;
	/* What the device must do is the benchmark's operation's, checked
	 * before connecting as the lessons' are. */
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
	if (argc > 1 && argv[1][0] != '-') {
		if (parse_mode(bc, argv[1], err))
			return -EINVAL;
		/* argv[1] stands where getopt expects the program's name. */
		return config_parse(cfg, &tool, argc - 1, argv + 1, out, err);
	}
	return config_parse(cfg, &tool, argc, argv, out, err);
}
