// SPDX-License-Identifier: MIT
/*
 * The figures perftest reports, computed from raw timestamps in
 * nanoseconds. Pure: no verbs, no I/O, tested on known arrays.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_stats.h"

#define NS_PER_USEC 1000.0
#define NS_PER_SEC  1e9

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

double stats_median(const uint64_t *v, size_t n)
{
	size_t mid = n / 2;

	if (n % 2)
		return (double)v[mid];
	return ((double)v[mid - 1] + (double)v[mid]) / 2;
}

/*
 * Index of the @fraction percentile of @n kept samples: ceil(n * fraction),
 * used as a 0-based index as perftest uses it, so that both tools print
 * the same sample. That is one rank past the usual one (the
 * ceil(n * fraction)-th smallest): with fewer than 100 kept samples the
 * 99% figure is the first sample set aside, t_max, and so is the 99.9%
 * figure with fewer than 1000 (-n below 1003, perftest's default 1000
 * included). The array has those samples: count > n.
 */
static size_t percentile_index(size_t n, double fraction)
{
	return (size_t)ceil((double)n * fraction);
}

int lat_stats_compute(uint64_t *deltas, size_t count, unsigned int rtt_factor,
		      struct lat_stats *out)
{
	double unit = NS_PER_USEC * (rtt_factor ? rtt_factor : 1);
	double sum = 0, square_sum = 0, avg;
	size_t kept, i;

	if (count <= BENCH_LAT_TAIL)
		return -EINVAL;
	qsort(deltas, count, sizeof(*deltas), compare_u64);
	/* The largest few are one-off stalls (first touch, scheduling). */
	kept = count - BENCH_LAT_TAIL;
	for (i = 0; i < kept; i++)
		sum += (double)deltas[i] / unit;
	avg = sum / (double)kept;
	for (i = 0; i < kept; i++) {
		double d = (double)deltas[i] / unit - avg;

		square_sum += d * d;
	}
	*out = (struct lat_stats){
		.t_min = (double)deltas[0] / unit,
		/* index kept is the first sample left out: within the array */
		.t_max = (double)deltas[kept] / unit,
		.t_typical = stats_median(deltas, kept) / unit,
		.t_avg = avg,
		.t_stdev = sqrt(square_sum / (double)kept),
		.p99 = (double)deltas[percentile_index(kept, 0.99)] / unit,
		.p99_9 = (double)deltas[percentile_index(kept, 0.999)] / unit,
	};
	return 0;
}

/* The bucket of @ns: floor(4 log2(ns)), within 0 .. BENCH_HIST_MAX - 1. */
static unsigned int bucket_of(double ns)
{
	double k;

	if (ns < 1)
		return 0;
	k = floor(log2(ns) * BENCH_HIST_PER_OCTAVE);
	return k < BENCH_HIST_MAX - 1 ? (unsigned int)k : BENCH_HIST_MAX - 1;
}

double lat_bucket_start_us(unsigned int k)
{
	return exp2((double)k / BENCH_HIST_PER_OCTAVE) / NS_PER_USEC;
}

void lat_histogram_compute(const uint64_t *deltas, size_t count,
			   unsigned int rtt_factor, struct lat_histogram *out)
{
	double factor = rtt_factor ? rtt_factor : 1;
	unsigned int lo = BENCH_HIST_MAX, hi = 0, k;
	uint64_t all[BENCH_HIST_MAX] = {0};
	size_t i;

	for (i = 0; i < count; i++) {
		k = bucket_of((double)deltas[i] / factor);
		all[k]++;
		if (k < lo)
			lo = k;
		if (k > hi)
			hi = k;
	}
	*out = (struct lat_histogram){.samples = count};
	if (!count)
		return;
	out->first = lo;
	out->count = hi - lo + 1;
	memcpy(out->counts, all + lo, out->count * sizeof(all[0]));
}

/* Nanoseconds per message from post @i to the signalled completion @j. */
static double window_ns(const uint64_t *tposted, const uint64_t *tcompleted,
			size_t i, size_t j)
{
	return (double)(tcompleted[j] - tposted[i]) / (double)(j - i + 1);
}

/*
 * True if post @b is no better a start than post @a for the windows that
 * end after both (a < b), whichever the end: the post after @b, @c,
 * lies on or above the line from @a to @b, so @b is never the best.
 */
static bool not_on_hull(const uint64_t *tposted, size_t a, size_t b, size_t c)
{
	double rise_ab = (double)tposted[b] - (double)tposted[a];
	double rise_ac = (double)tposted[c] - (double)tposted[a];

	return rise_ab * (double)(c - a) <= rise_ac * (double)(b - a);
}

/*
 * The peak: the shortest time per message over any run of work requests
 * i..j that starts at a post and ends at a signalled completion (only
 * those have a time), as perftest defines it.
 *
 * Pair by pair that is iters^2 / cq_mod tries, seconds at a million
 * iterations. Seen as points, it is much less: the time per message of
 * i..j is the slope from the post point (i, tposted[i]) to the completion
 * point (j + 1, tcompleted[j]). The least slope from a completion back to
 * the posts before it is always at a corner of the upper convex hull of
 * those posts: a line from the completion that clears the hull clears the
 * points below it. So the posts are added in turn to that hull (each one
 * enters and leaves it once), and for each completion a bisection finds
 * the best corner: along the hull the slope falls, then rises. The result
 * is the pairwise search's, in O(iters log iters).
 */
static double best_ns_per_message(const uint64_t *tposted,
				  const uint64_t *tcompleted, size_t iters,
				  size_t *hull)
{
	double best = INFINITY;
	size_t n = 0, j;

	for (j = 0; j < iters; j++) {
		size_t lo = 0, hi;
		double t;

		while (n >= 2 &&
		       not_on_hull(tposted, hull[n - 2], hull[n - 1], j))
			n--;
		hull[n++] = j;
		if (!tcompleted[j])
			continue;
		hi = n - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (window_ns(tposted, tcompleted, hull[mid + 1], j) <
			    window_ns(tposted, tcompleted, hull[mid], j))
				lo = mid + 1;
			else
				hi = mid;
		}
		t = window_ns(tposted, tcompleted, hull[lo], j);
		if (t > 0 && t < best)
			best = t;
	}
	return best;
}

int bw_stats_compute(const uint64_t *tposted, const uint64_t *tcompleted,
		     size_t iters, uint32_t size, struct bw_stats *out)
{
	double elapsed, best;
	size_t *hull;

	if (iters == 0 || tcompleted[iters - 1] <= tposted[0])
		return -EINVAL;
	hull = malloc(iters * sizeof(*hull));
	if (!hull)
		return -ENOMEM;
	elapsed = (double)(tcompleted[iters - 1] - tposted[0]) / NS_PER_SEC;
	best = best_ns_per_message(tposted, tcompleted, iters, hull) /
	       NS_PER_SEC;
	free(hull);
	*out = (struct bw_stats){
		.peak_bytes_per_sec = (double)size / best,
		.avg_bytes_per_sec = (double)size * (double)iters / elapsed,
		.msg_rate_mpps = (double)iters / elapsed / 1e6,
	};
	return 0;
}

int bw_timed_stats_compute(uint64_t messages, uint64_t ns, uint32_t size,
			   struct bw_stats *out)
{
	double seconds = (double)ns / NS_PER_SEC;

	if (!messages || !ns)
		return -EINVAL;
	*out = (struct bw_stats){
		.peak_bytes_per_sec = NAN,
		.avg_bytes_per_sec = (double)size * (double)messages / seconds,
		.msg_rate_mpps = (double)messages / seconds / 1e6,
	};
	return 0;
}

int lat_timed_stats_compute(uint64_t iterations, uint64_t ns,
			    unsigned int rtt_factor, struct lat_stats *out)
{
	if (!iterations || !ns || !rtt_factor)
		return -EINVAL;
	*out = (struct lat_stats){
		.t_min = NAN,
		.t_max = NAN,
		.t_typical = NAN,
		.t_avg = (double)ns / 1000.0 / rtt_factor / (double)iterations,
		.t_stdev = NAN,
		.p99 = NAN,
		.p99_9 = NAN,
	};
	return 0;
}

double bench_ns_per_tick(const struct bench_clock *from,
			 const struct bench_clock *to)
{
	if (to->ticks <= from->ticks || to->ns <= from->ns)
		return 0;
	return (double)(to->ns - from->ns) / (double)(to->ticks - from->ticks);
}

void bench_ticks_to_ns(uint64_t *v, size_t n, uint64_t origin,
		       double ns_per_tick)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			v[i] = (uint64_t)llround((double)(v[i] - origin) *
						 ns_per_tick);
}
