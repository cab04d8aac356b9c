/* SPDX-License-Identifier: MIT */
/* Statistics, pure (bench_stats.c). All times in nanoseconds on input. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

struct bench_clock;

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

#endif
