// SPDX-License-Identifier: MIT
/*
 * The figures perftest reports, computed from raw timestamps in
 * nanoseconds. Pure: no verbs, no I/O, tested on known arrays.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "bench.h"

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

/*
 * The shortest time per message over any run of work requests that starts
 * at a post and ends at a signalled completion (only those have a time).
 */
static double best_ns_per_message(const uint64_t *tposted,
				  const uint64_t *tcompleted, size_t iters)
{
	double best = INFINITY;
	size_t i, j;

	for (j = 0; j < iters; j++) {
		if (!tcompleted[j])
			continue;
		for (i = 0; i <= j; i++) {
			double t = (double)(tcompleted[j] - tposted[i]) /
				   (double)(j - i + 1);

			if (t > 0 && t < best)
				best = t;
		}
	}
	return best;
}

int bw_stats_compute(const uint64_t *tposted, const uint64_t *tcompleted,
		     size_t iters, uint32_t size, struct bw_stats *out)
{
	double elapsed, best;

	if (iters == 0 || tcompleted[iters - 1] <= tposted[0])
		return -EINVAL;
	elapsed = (double)(tcompleted[iters - 1] - tposted[0]) / NS_PER_SEC;
	best = best_ns_per_message(tposted, tcompleted, iters) / NS_PER_SEC;
	*out = (struct bw_stats){
		.peak_bytes_per_sec = (double)size / best,
		.avg_bytes_per_sec = (double)size * (double)iters / elapsed,
		.msg_rate_mpps = (double)iters / elapsed / 1e6,
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
