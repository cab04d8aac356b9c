/* SPDX-License-Identifier: MIT */
/* Private to the bench modules: the run state and the hot-path helpers. */
#ifndef BENCH_PRIV_H
#define BENCH_PRIV_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h> /* __rdtsc() */
#endif

#include <stddef.h>
#include <stdio.h>

#include <infiniband/verbs.h>
#include <sys/socket.h>

#include "bench/bench.h"
#include "cm/cm.h"
#include "exchange.h"
#include "common/cq_wait.h"
#include "common/interrupt.h"

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
 * bandwidth tests inline only with -I (bench_config.c, BENCH_INLINE_SEND).
 */
#define BENCH_DEFAULT_LAT_SIZE	2
#define BENCH_DEFAULT_BW_SIZE	65536
#define BENCH_DEFAULT_LAT_ITERS 1000
#define BENCH_DEFAULT_BW_ITERS	5000
#define BENCH_DEFAULT_TX_DEPTH	128
/* perftest's latency tests keep one work request in the send queue. */
#define BENCH_DEFAULT_LAT_TX_DEPTH 1
#define BENCH_DEFAULT_CQ_MOD	   100
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
/*
 * -q: the most RC QPs one run spreads its messages over. Each posts -n
 * messages with up to --tx-depth in flight, as each of perftest's -q QPs
 * does; all complete on the one CQ.
 */
#define BENCH_QPS_MAX 16

void bench_config_defaults(struct bench_config *bc);

/*
 * Apply option @opt (one of the above) with @arg. Returns 0, or -EINVAL
 * after printing one line to @err.
 */
int bench_parse_option(struct bench_config *bc, int opt, const char *arg,
		       FILE *err);

/*
 * An option perftest has and rdma_bench does not offer, typed as @name
 * (without "--") or @letter: 1 after one line on @err naming it as
 * perftest's and saying why; 0 if it is not perftest's (bench_perftest.c).
 */
int bench_refuse_perftest(const char *name, int letter, FILE *err);

/*
 * True if the benchmark's waits may sleep on a completion channel, so the
 * CQ needs one: --bench without --busy-poll.
 */
bool bench_sleeps(const struct bench_config *bc);

/*
 * After all options: apply defaults, check combinations and that the rest
 * of the command line (@cfg) suits a benchmark; 0 or -EINVAL.
 */
int bench_config_finish(struct bench_config *bc, const struct config *cfg,
			FILE *err);

const char *bench_mode_name(enum bench_mode mode);
const char *bench_op_name(enum bench_op op);

/* The sizes a run measures, in order: *@count of them into @sizes. */
#define BENCH_MAX_SIZES 23
size_t bench_sizes(const struct bench_config *bc,
		   uint32_t sizes[BENCH_MAX_SIZES]);

/* What bench_size_resources asks for (bench_config.c). */

/* Bytes of the registered region: at least @normal. */
size_t bench_region_size(const struct bench_config *bc, size_t normal);
/* Completion queue entries: at least @normal. */
int bench_cq_entries(const struct bench_config *bc, int normal);

/* --report-counters (bench_counters.c). */

#define BENCH_COUNTERS_MAX 160
struct port_counter {
	char name[48];
	uint64_t value;
};

/* The numbers in a port's counters and hw_counters folders, by name. */
struct port_counters {
	char port_dir[256];   /* /sys/class/infiniband/DEV/ports/N */
	unsigned int folders; /* how many of the two folders exist */
	size_t count;
	struct port_counter c[BENCH_COUNTERS_MAX];
};

/* The sysfs folder of @device's @port into @out. */
void port_counters_path(const char *device, unsigned int port, char *out,
			size_t len);
/* Every counter under @port_dir, sorted by name; none if it has none. */
void port_counters_read(const char *port_dir, struct port_counters *pc);
/*
 * The counters that went up from @before to @after, by how much, into
 * @moved (room for BENCH_COUNTERS_MAX); *@resent: the sum of those that
 * count this side sending again. Returns how many moved.
 */
size_t port_counters_moved(const struct port_counters *before,
			   const struct port_counters *after,
			   struct port_counter *moved, uint64_t *resent);
/* The lines of --report-counters: each counter that moved, then resent. */
void port_counters_print(const struct port_counters *before,
			 const struct port_counters *after, FILE *out);

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

/*
 * The latency distribution (-H): BENCH_HIST_PER_OCTAVE buckets to each
 * doubling, bucket k from 2^(k/4) ns up to 2^((k+1)/4) ns (bucket 0 takes
 * what is under 1 ns too), so that every bucket is 19% wider than the one
 * before and a few dozen cover nanoseconds to seconds. Only the buckets
 * from the smallest sample's to the largest's are kept: counts[i] is
 * bucket first + i.
 */
#define BENCH_HIST_PER_OCTAVE 4
#define BENCH_HIST_MAX	      192 /* 2^48 ns: three days */
struct lat_histogram {
	unsigned int first; /* the index of the first bucket kept */
	unsigned int count; /* buckets kept */
	uint64_t samples;   /* the sum of the counts */
	uint64_t counts[BENCH_HIST_MAX];
};

/*
 * Every one of @count @deltas (nanoseconds, any order, the tail that
 * lat_stats_compute leaves out included) divided by @rtt_factor, as the
 * figures are, into its bucket.
 */
void lat_histogram_compute(const uint64_t *deltas, size_t count,
			   unsigned int rtt_factor, struct lat_histogram *out);

/* Where bucket @k starts, in microseconds (it ends where k + 1 starts). */
double lat_bucket_start_us(unsigned int k);

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
 * -D: the figures of @messages of @size bytes done in @ns nanoseconds;
 * no peak (NAN), as perftest's -D. -EINVAL if none completed or no time
 * passed.
 */
int bw_timed_stats_compute(uint64_t messages, uint64_t ns, uint32_t size,
			   struct bw_stats *out);

/*
 * -D, latency: @iterations done in @ns, each divided by @rtt_factor (2 for
 * a ping-pong's round trip): the average alone, as perftest's -D (the
 * other figures NAN). -EINVAL if none completed or no time passed.
 */
int lat_timed_stats_compute(uint64_t iterations, uint64_t ns,
			    unsigned int rtt_factor, struct lat_stats *out);

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
	uint16_t duration; /* seconds, BENCH_DURATION_MAX fits; 0: -n */
	bool bidir;
	bool infinite; /* --run_infinitely; duration is the period */
	bool reversed; /* --reversed: the server sends */
	uint8_t qps;   /* -q, 1 to BENCH_QPS_MAX */
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

/* Why a run waits as it does (bench_wait.c). */
enum bench_wait_why {
	BENCH_WHY_BUSY_POLL,  /* --busy-poll: polling only */
	BENCH_WHY_EVENTS,     /* -e: sleep on the channel at once */
	BENCH_WHY_ONE_HOST,   /* the peer on this host: spin, then sleep */
	BENCH_WHY_BANDWIDTH,  /* bandwidth, peer elsewhere: spin, then sleep */
	BENCH_WHY_OTHER_HOST, /* latency, peer elsewhere: poll, then nap */
	BENCH_WHY_ONE_SIDED,  /* READ, atomic latency: poll, then nap */
	BENCH_WHY_IWARP_RECEIVER, /* bw receiver, iWARP, peer here: poll */
};

/* How a run told where its peer is (bench_wait.c). */
enum bench_peer_rule {
	BENCH_PEER_BY_GID,     /* the TCP path: the peer's GID in our table */
	BENCH_PEER_BY_ADDRESS, /* -R: the CM id's two addresses are one */
};

/*
 * A work request's wr_id: the number of its lane (its QP, -q) in the top
 * bits, its own number on that QP below, counted from 1.
 */
#define BENCH_WR_LANE_SHIFT    48
#define BENCH_WR_NUMBER(wr_id) ((wr_id) & ((1ull << BENCH_WR_LANE_SHIFT) - 1))
#define BENCH_WR_LANE(wr_id)   ((unsigned int)((wr_id) >> BENCH_WR_LANE_SHIFT))

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

/* Monotonic time in nanoseconds: the bounds of the waits. */
static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The timestamps of the measurements. Each one sits in the measured path,
 * so it is the CPU's own counter where there is one, read in a single
 * instruction, as perftest's get_cycles() is: the TSC on x86-64, the
 * virtual counter on AArch64. clock_gettime() goes through the vDSO (calls,
 * a retry loop on the kernel's sequence count, a conversion), which cost
 * 0.2-0.5 us an iteration on the soft-RoCE guests, 1-2% of a 2-byte READ
 * there (on the rig). measure() turns the ticks into nanoseconds
 * at the rate the counter kept against CLOCK_MONOTONIC since the run began.
 */
#if defined(__x86_64__)
#define BENCH_TICKS_ARE_NS 0
static inline uint64_t bench_ticks(void)
{
	return __rdtsc();
}
#elif defined(__aarch64__)
#define BENCH_TICKS_ARE_NS 0
static inline uint64_t bench_ticks(void)
{
	uint64_t ticks;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(ticks));
	return ticks;
}
#else
#define BENCH_TICKS_ARE_NS 1
static inline uint64_t bench_ticks(void)
{
	return bench_now_ns();
}
#endif

/* Both clocks, read one right after the other (bench_ns_per_tick). */
static inline struct bench_clock bench_clock_read(void)
{
	struct bench_clock c;

	c.ticks = bench_ticks();
	c.ns = bench_now_ns();
	return c;
}

/*
 * How a side waits. It polls, and gives its CPU away once every
 * BENCH_SPINS_PER_YIELD empty polls: a guest with one CPU runs both sides
 * of a one-guest test and the kernel's soft-RoCE work too, and spinning
 * there only delays what it waits for (on a CPU of its own sched_yield()
 * returns at once). A wait on the CQ that stays empty for spin_ns then
 * sleeps on the completion channel, if there is one: the kernel then has
 * the CPU to itself. A real NIC answers a small message well within
 * BENCH_SPIN_US, so there the loops never sleep; --busy-poll never does,
 * -e sleeps at once, and a latency run with the peer on another host
 * polls for BENCH_LONG_SPIN_US and then naps (bench_wait.c says why).
 *
 * A side whose peer is on another host has nobody to give its CPU to
 * while it polls (run->own_cpu): it never yields, and if it polls for
 * long (only, or BENCH_LONG_SPIN_US before a nap) it looks at the clock
 * once every BENCH_SPINS_PER_LOOK empty polls: between two guests that
 * loop beat the yielding one in 16 of 20 paired rounds of fetch_add
 * latency (on the rig). After the spin it naps (run->nap_ns) at a time,
 * in nanosleep() rather than on the channel, whose wake-up costs more
 * than the nap.
 */
#define BENCH_SPINS_PER_YIELD 16
#define BENCH_SPINS_PER_LOOK  1024
#define BENCH_SPIN_US	      100
#define BENCH_LONG_SPIN_US    4000
#define BENCH_NAP_US	      20

/* The beat's byte, and the end of a size's sync byte (sock_sync's). */
#define BENCH_BEAT '.'
#define BENCH_SYNC 'Q'
/* Beats come this often, or four times within -t if that is sooner. */
#define BENCH_BEAT_MS 1000

/* Send a beat now (bench_peer.c). */
void bench_beat_send(struct bench_run *run, uint64_t ticks);

/*
 * Read what the peer sent on the TCP connection so far, a byte at a time
 * and without waiting, so that nothing after its sync byte is taken:
 * beats set *@heard_ns to now; its end of size byte sets peer_synced and
 * returns 1. 0: nothing more; -errno after a line.
 */
int bench_hear_peer(struct bench_run *run, uint64_t *heard_ns);

/*
 * From the start sync on, this side beats (bench_beat): the first after
 * one beat's time, then every beat's time, counted in ticks of @rate
 * nanoseconds (bench_peer.c).
 */
void bench_start_beating(struct bench_run *run, double rate);

/*
 * The end of a size: this side's sync byte, then the peer's, as long as
 * it keeps beating (unless bench_hear_peer has had it already). A peer
 * still posting beats at least every -t / 4; silence for the whole of -t
 * means it stopped, or its host or the link did. A peer that died closes
 * the socket. 0, or -errno after one line.
 */
int bench_await_peer(struct bench_run *run);

/*
 * The line for a wait for @what that the peer's closed connection ended,
 * with the size's progress so far; -ECONNRESET.
 */
int bench_peer_gone(const struct bench_run *run, const char *what);

/*
 * At a post stamped @ticks: a beat if one is due. One compare on the
 * hot path.
 */
static inline void bench_beat(struct bench_run *run, uint64_t ticks)
{
	if (ticks >= run->beat_at)
		bench_beat_send(run, ticks);
}

/*
 * A wait that has seen no progress for this long looks at the peer's TCP
 * connection, and again each time as long passes: a peer that closed it
 * (its process ended, or failed) ends the wait within this much, not at
 * -t. A wait on a real NIC or a busy soft-RoCE one sees progress well
 * within it, so a measurement makes no system call for it.
 */
#define BENCH_PEER_LOOK_MS 100

/* The bound on a wait that sees no progress, and when it may sleep. */
struct bench_patience {
	uint64_t start;	  /* 0: not started, the clock is read lazily */
	uint64_t look_at; /* ns into the wait: look at the peer's connection */
	unsigned int spins;
	unsigned int look_every; /* empty polls between two clock reads */
	bool yields;		 /* sched_yield() at each clock read */
	bool spun;		 /* waited spin_ns: from now on, sleep */
	bool peer_gone;		 /* the peer closed the connection */
	int timeout_ms;
	int sock; /* the peer's TCP connection */
};

static inline void bench_patience_init(struct bench_patience *p,
				       const struct bench_run *run)
{
	bool polls_long =
		run->own_cpu && run->spin_ns >= BENCH_LONG_SPIN_US * 1000ull;

	*p = (struct bench_patience){
		.look_every = polls_long ? BENCH_SPINS_PER_LOOK
					 : BENCH_SPINS_PER_YIELD,
		.yields = !run->own_cpu,
		.timeout_ms = run->timeout_ms,
		.sock = run->sock,
		.look_at = BENCH_PEER_LOOK_MS * 1000000ull,
	};
}

/* Something arrived: the bound and the spin start again. */
static inline void bench_patience_renew(struct bench_patience *p)
{
	p->start = 0;
	p->look_at = BENCH_PEER_LOOK_MS * 1000000ull;
	p->spins = 0;
	p->spun = false;
}

/* What a waiting side does after an empty poll. */
enum bench_next {
	BENCH_POLL,    /* poll again */
	BENCH_SLEEP,   /* it spun long enough: sleep (or nap) if it can */
	BENCH_GIVE_UP, /* the timeout passed, a stop signal came, or the
			  peer closed the connection (p->peer_gone) */
};

/*
 * One more empty poll. Every look_every of them: yield (if it yields),
 * read the clock, and say whether the wait has lasted @spin_ns
 * (BENCH_SLEEP, then on every empty poll until something arrives) or the
 * timeout (BENCH_GIVE_UP); every BENCH_PEER_LOOK_MS of it, look at the
 * peer's connection (BENCH_GIVE_UP once it closed).
 */
static inline enum bench_next bench_patience_next(struct bench_patience *p,
						  uint64_t spin_ns)
{
	uint64_t now, waited;

	if (interrupted())
		return BENCH_GIVE_UP; /* SIGINT/SIGTERM: the caller reports EINTR */
	if (++p->spins % p->look_every)
		return p->spun ? BENCH_SLEEP : BENCH_POLL;
	if (p->yields)
		sched_yield();
	now = bench_now_ns();
	if (!p->start)
		p->start = now;
	waited = now - p->start;
	if (waited > (uint64_t)p->timeout_ms * 1000000)
		return BENCH_GIVE_UP;
	if (waited >= p->look_at) {
		p->look_at = waited + BENCH_PEER_LOOK_MS * 1000000ull;
		p->peer_gone = peer_closed(p->sock);
		if (p->peer_gone)
			return BENCH_GIVE_UP;
	}
	p->spun = waited >= spin_ns;
	return p->spun ? BENCH_SLEEP : BENCH_POLL;
}

/* The time left of the bound, in whole milliseconds (at least 1). */
static inline int bench_patience_left_ms(const struct bench_patience *p)
{
	uint64_t waited_ms =
		p->start ? (bench_now_ns() - p->start) / 1000000 : 0;

	if (waited_ms >= (uint64_t)p->timeout_ms)
		return 1;
	return p->timeout_ms - (int)waited_ms;
}

/*
 * Give the CPU away for run->nap_ns. A signal cuts it short, and the
 * caller's next bench_patience_next() sees interrupted().
 */
static inline void bench_nap(const struct bench_run *run)
{
	struct timespec ts = {
		.tv_sec = (time_t)(run->nap_ns / 1000000000u),
		.tv_nsec = (long)(run->nap_ns % 1000000000u),
	};

	nanosleep(&ts, NULL);
}

/* bench_wait.c: where the peer is, and the wait that suits it. */

/* True if @gid (16 bytes) is the GID of one of @entries. */
bool bench_gid_listed(const struct ibv_gid_entry *entries, size_t count,
		      const uint8_t gid[16]);
/*
 * True if @peer's IP address is @local's (the port aside): the two ends of
 * an RDMA_CM connection on one host. Any other pair, or a family other
 * than IPv4 or IPv6, is false.
 */
bool bench_addr_is_own(const struct sockaddr *local,
		       const struct sockaddr *peer);
/*
 * Whether the peer runs on this host: its GID (@remote's) is one of our
 * port's (@gids), or, with no GID (InfiniBand without a GRH), its LID is
 * @local's, and not 0.
 */
bool bench_peer_on_this_host(const struct gid_table *gids,
			     const struct qp_info *local,
			     const struct qp_info *remote);
/*
 * Set run->spin_ns, nap_ns, own_cpu and wait_why for run->bc's mode and
 * operation, run->sender and run->iwarp: @has_channel is false with
 * --busy-poll, @use_events is -e, @peer_here says the peer runs on this
 * host.
 */
void bench_wait_choose(struct bench_run *run, bool has_channel, bool use_events,
		       bool peer_here);
/* The wait's reason in words (@run's rule named), and a one-word name of
 * the wait for the JSON. */
const char *bench_wait_reason(const struct bench_run *run);
/* How the run told where its peer is, one word for the JSON. */
const char *bench_peer_rule_name(enum bench_peer_rule rule);
const char *bench_wait_name(enum bench_wait_why why);
/* The wait of @run in words ("poll for 100 us, then ..."), snprintf's way. */
int bench_wait_describe(const struct bench_run *run, char *buf, size_t len);

/* bench_post.c: lean versions of post_send, post_receive, poll_completion. */

/* The one work request of this run's operation, for @run->size bytes. */
void bench_build_wr(const struct bench_run *run, struct ibv_send_wr *wr,
		    struct ibv_sge *sge);
/*
 * The most sends one ibv_post_send carries for messages of @size bytes:
 * -l's, or up to BENCH_CHAIN_MAX (one for -b's over
 * BENCH_CQ_MOD_SIZE_LIMIT).
 */
uint32_t bench_post_list(const struct bench_config *bc, uint32_t size);
/*
 * Post @count copies of @wr on @lane in chained lists (one doorbell per
 * list), numbered on from lane->sends_posted; every signal_every-th one
 * and number @total ask for a completion, whose wr_id carries their
 * number: the count of the lane's sends done once it arrives.
 */
int bench_post_sends(struct bench_run *run, struct bench_lane *lane,
		     const struct ibv_send_wr *wr, uint32_t count,
		     uint64_t total);
/*
 * Post @wr itself as lane 0's next send, its wr_id set to its number: the
 * latency loop of READ and atomics, whose request is built once and
 * signalled every time. No copy and no chain as in bench_post_sends().
 */
int bench_post_one(struct bench_run *run, struct ibv_send_wr *wr);
/* Post @count receives on @lane into the landing half. */
int bench_post_recvs(struct bench_run *run, struct bench_lane *lane,
		     uint32_t count);
/*
 * The line for a poll that failed: bench_poll() returned @n < 0, or @wc
 * (n > 0) carries an error status. Returns -EIO.
 */
int bench_poll_failed(int n, const struct ibv_wc *wc);

/*
 * Up to @max completions into @wc. Both APIs poll with ibv_poll_cq, as
 * perftest does: with --new-api the CQ made by ibv_create_cq_ex, seen
 * through ibv_cq_ex_to_cq (docs/benchmark-mode.md says why not
 * ibv_start_poll).
 */
static inline int bench_poll(struct bench_run *run, struct ibv_wc *wc, int max)
{
	return ibv_poll_cq(run->cq, max, wc);
}

/*
 * One look at the CQ for the one send in flight, with nothing else on the
 * CQ (the latency loop of READ and atomics posts no receives): 1 if it
 * completed, 0 if the CQ is empty, -EIO after a line if it failed. On
 * soft-RoCE such a send often completes within ibv_post_send(), and this
 * look then ends the iteration: a single ibv_poll_cq() for one completion,
 * 0.15 us an iteration less than bench_wait()'s batch of 16 on the guests.
 */
static inline int bench_look_once(struct bench_run *run)
{
	struct ibv_wc wc;
	int n = bench_poll(run, &wc, 1);

	if (n == 0)
		return 0;
	if (n < 0 || wc.status != IBV_WC_SUCCESS)
		return bench_poll_failed(n, &wc);
	run->sends_completed = run->lanes[0].sends_completed = wc.wr_id;
	return 1;
}

/* Poll until sends_completed >= @sends and recvs_completed >= @recvs. */
int bench_wait(struct bench_run *run, uint64_t sends, uint64_t recvs);
/* Poll until at least one completion arrived (bounded by the timeout). */
int bench_wait_progress(struct bench_run *run);
/* Reap completions until @count more sends fit in @lane's send queue. */
int bench_make_room(struct bench_run *run, const struct bench_lane *lane,
		    uint32_t count);

/*
 * bench_qps.c, -q: create, connect (with the peer over @sock, or each
 * through RDMA_CM beside @cm's connection with -R) and free the lanes
 * after the first. Connect does nothing with one QP.
 */
int bench_lanes_connect(struct bench_run *run, const struct config *cfg,
			struct resources *res, const struct connection *conn,
			struct cm *cm, int sock);
int bench_lanes_destroy(struct bench_run *run);

/* bench_lat.c and bench_bw.c: one size each, filling tposted/tcompleted. */
int bench_lat_size(struct bench_run *run);
int bench_bw_size(struct bench_run *run);

/* bench_report.c */

/* --run_infinitely: one report, the seconds since the one before. */
struct bench_period {
	double seconds;
	uint64_t messages;
	struct bw_stats bw; /* no peak */
};

struct bench_result {
	uint32_t size;
	uint64_t iters; /* -D: the messages done in the seconds measured */
	double seconds; /* -D: the seconds measured */
	struct lat_stats lat;
	struct lat_histogram hist; /* lat only */
	struct bw_stats bw;	   /* -b: this side's direction */
	/* -b: the other side's direction, sent at the end of the size */
	struct bw_stats bw_back;
	/*
	 * The share of one CPU each side spent from the start of the size
	 * to its end (both syncs), in percent; NAN where it is not known.
	 */
	double cpu_client;
	double cpu_server;
	/*
	 * -q above 1: each QP's messages and figures (this side's direction).
	 * With -n, each over its own first post to its last completion; with
	 * -D, over the row's sample window, so that they add up to the row.
	 * 0 QPs: a run of one QP, no per-QP figures.
	 */
	/* --run_infinitely: the reports the row's whole run was made of */
	const struct bench_period *periods;
	size_t period_count;
	unsigned int qps;
	struct bench_qp_result {
		uint32_t qp_num;
		uint64_t messages;
		struct bw_stats bw;
	} per_qp[BENCH_QPS_MAX];
};

void bench_print_header(const struct bench_config *bc, FILE *out);
/*
 * --run_infinitely: the row of @messages done in the last @ns, printed
 * and kept in run->periods; 0, or -ENOMEM after a line.
 */
int bench_report_period(struct bench_run *run, uint64_t ns, uint64_t messages,
			FILE *out);
void bench_print_result(const struct bench_config *bc,
			const struct bench_result *r, FILE *out);
/*
 * The version of the JSON that --json writes: 2 added test_info, complete
 * and schema_version itself; 3 each result's CPU shares and latency
 * histogram, and the counters; 4 "qps" and each result's "per_qp".
 */
#define BENCH_JSON_SCHEMA_VERSION 4
#ifndef BENCH_PROGRAM_VERSION
#define BENCH_PROGRAM_VERSION "unknown" /* CMake defines it, from project() */
#endif

/* What the JSON's test_info says of the run beside @bc and the run. */
struct bench_test_info {
	const char *device;
	uint8_t port;
	const char *link_layer; /* "Ethernet", "InfiniBand" */
	uint32_t path_mtu;	/* bytes */
	int gid_index;		/* -1: none */
	const char *gid_type;	/* "RoCE v2", "IB", ... */
	const char *transport;
	time_t started; /* written in UTC */
	/* --report-counters: the port's counters before and after the run. */
	const struct port_counters *counters_before;
	const struct port_counters *counters_after;
};

/*
 * The figures of the @count sizes measured, as JSON, into the file at
 * @path (--json); @complete is false when a size after them failed.
 */
int bench_write_json(const struct bench_config *bc, const char *path,
		     const struct bench_run *run,
		     const struct bench_test_info *info,
		     const struct bench_result *results, size_t count,
		     bool complete);

#endif
