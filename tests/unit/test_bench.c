// SPDX-License-Identifier: MIT
/*
 * The benchmark's pure parts: the statistics on known arrays, the bench
 * options (good and bad values), the parameter message both sides compare.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "bench/bench.h"
#include "bench/bench_clock.h"
#include "bench/bench_config.h"
#include "extras/port_counters.h"
#include "bench/bench_patience.h"
#include "bench/bench_post.h"
#include "bench/bench_report.h"
#include "bench/bench_run.h"
#include "bench/bench_stats.h"
#include "bench/bench_sync.h"
#include "bench/bench_wait.h"
#include "config.h"
#include "parse_args.h"
#include "variants/new_api.h"

/* Figures are doubles computed from integers: equal to well within this. */
#define EPSILON 1e-9

#define assert_close(a, b)                                                   \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (a_ - b_ > EPSILON || b_ - a_ > EPSILON)                  \
			fail_msg("%s is %.12g, expected %.12g", #a, a_, b_); \
	} while (0)

/* --- statistics --- */

static void median_of_odd_and_even_counts(void **state)
{
	const uint64_t odd[] = {1, 2, 3, 4, 100};
	const uint64_t even[] = {1, 2, 4, 100};

	(void)state;
	assert_close(stats_median(odd, 5), 3);
	assert_close(stats_median(even, 4), 3);
	assert_close(stats_median(odd, 1), 1);
}

/* 1..100 us in nanoseconds, shuffled, plus two huge outliers (the tail). */
static void lat_stats_known_array(void **state)
{
	uint64_t d[102];
	struct lat_stats s;
	size_t i;

	(void)state;
	for (i = 0; i < 100; i++)
		d[i] = (uint64_t)((i * 37) % 100 + 1) * 1000;
	d[100] = 5000000;
	d[101] = 9000000;
	assert_int_equal(lat_stats_compute(d, 102, 1, &s), 0);
	assert_close(s.t_min, 1);
	/* 100 kept: the median is between the 50th and 51st */
	assert_close(s.t_typical, 50.5);
	assert_close(s.t_avg, 50.5);
	/* population deviation of 1..100: sqrt((100^2 - 1) / 12) */
	assert_close(s.t_stdev, 28.86607004772212);
	/* ceil(100 * 0.99) = 99: the 100th smallest, ceil(99.9) = 100: the
	 * first left out, which is also t_max */
	assert_close(s.p99, 100);
	assert_close(s.p99_9, 5000);
	assert_close(s.t_max, 5000);
	assert_true(s.t_min <= s.t_typical && s.t_typical <= s.p99 &&
		    s.p99 <= s.p99_9 && s.p99_9 <= s.t_max);
}

static void lat_stats_halves_round_trips(void **state)
{
	uint64_t d[] = {4000, 2000, 6000, 8000, 10000};
	struct lat_stats s;

	(void)state;
	assert_int_equal(lat_stats_compute(d, 5, 2, &s), 0);
	/* kept: 2000 4000 6000 (us 1 2 3 after halving) */
	assert_close(s.t_min, 1);
	assert_close(s.t_typical, 2);
	assert_close(s.t_avg, 2);
	assert_close(s.t_max, 4);
}

static void lat_stats_needs_more_than_the_tail(void **state)
{
	uint64_t d[] = {1, 2};
	struct lat_stats s;

	(void)state;
	assert_int_equal(lat_stats_compute(d, 2, 1, &s), -EINVAL);
}

/* Four messages of 1 MiB, 1 ms apart, all posted at 0; signalled 2 and 4. */
/*
 * Four buckets to a doubling: 1 us and 1.01 us share one (from 2^(39/4)
 * ns, 0.861 us, to 2^(40/4) ns, 1.024 us), 2 us is four buckets on; the
 * counts add up to the samples, the buckets between are kept empty.
 */
static void histogram_buckets_a_doubling_in_four(void **state)
{
	uint64_t d[] = {1000, 1010, 2000, 2000, 0};
	static struct lat_histogram h;
	uint64_t sum = 0;
	unsigned int i;

	(void)state;
	lat_histogram_compute(d, 4, 1, &h);
	assert_int_equal(h.samples, 4);
	assert_int_equal(h.first, 39);
	assert_int_equal(h.count, 5);
	assert_int_equal(h.counts[0], 2);
	assert_int_equal(h.counts[4], 2);
	for (i = 0; i < h.count; i++)
		sum += h.counts[i];
	assert_int_equal(sum, h.samples);
	assert_true(fabs(lat_bucket_start_us(39) - 0.86108) < 1e-5);
	assert_true(fabs(lat_bucket_start_us(40) - 1.024) < 1e-9);
	/* under 1 ns: bucket 0; nothing at all: no bucket */
	lat_histogram_compute(d + 4, 1, 1, &h);
	assert_int_equal(h.first, 0);
	assert_int_equal(h.counts[0], 1);
	lat_histogram_compute(d, 0, 1, &h);
	assert_int_equal(h.count, 0);
	assert_int_equal(h.samples, 0);
}

/* A ping-pong's samples are round trips: the buckets hold halves. */
static void histogram_halves_round_trips(void **state)
{
	uint64_t d[] = {2000, 4000};
	static struct lat_histogram h;

	(void)state;
	lat_histogram_compute(d, 2, 2, &h);
	assert_int_equal(h.first, 39); /* 1 us */
	assert_int_equal(h.count, 5);  /* to 2 us */
	assert_int_equal(h.counts[0], 1);
	assert_int_equal(h.counts[4], 1);
}

/* A file of @text at @dir/@name. */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	assert_true(snprintf(path, sizeof(path), "%s/%s", dir, name) <
		    (int)sizeof(path));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Remove @dir/@name. */
static void remove_file(const char *dir, const char *name)
{
	char path[512];

	assert_true(snprintf(path, sizeof(path), "%s/%s", dir, name) <
		    (int)sizeof(path));
	assert_int_equal(unlink(path), 0);
}

/*
 * A port as sysfs shows it: numbers in counters/ and hw_counters/, read
 * sorted by name; a file that holds no number is left out; what moved is
 * told with its difference, and the resends add up.
 */
static void counters_read_from_both_folders(void **state)
{
	char root[] = "/tmp/test_bench_portXXXXXX", ib[512], hw[512];
	static struct port_counters before, after;
	struct port_counter moved[PORT_COUNTERS_MAX];
	struct port_counters_loss loss;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(ib, sizeof(ib), "%s/counters", root);
	snprintf(hw, sizeof(hw), "%s/hw_counters", root);
	assert_int_equal(mkdir(ib, 0700), 0);
	assert_int_equal(mkdir(hw, 0700), 0);
	write_file(ib, "port_xmit_packets", "100\n");
	write_file(hw, "sent_pkts", "7\n");
	write_file(hw, "completer_retry_err", "0\n");
	write_file(hw, "out_of_seq_request", "1\n");
	write_file(hw, "duplicate_request", "4\n");
	write_file(hw, "lifespan", "not a number\n");
	port_counters_read(root, &before);
	assert_int_equal(before.folders, 2);
	assert_int_equal(before.count, 5);
	assert_string_equal(before.c[0].name, "completer_retry_err");
	assert_string_equal(before.c[4].name, "sent_pkts");
	write_file(hw, "sent_pkts", "2007\n");
	write_file(hw, "completer_retry_err", "5\n");
	write_file(hw, "out_of_seq_request", "4\n");
	port_counters_read(root, &after);
	n = port_counters_moved(&before, &after, moved, &loss);
	assert_int_equal(n, 3);
	assert_string_equal(moved[0].name, "completer_retry_err");
	assert_int_equal(moved[0].value, 5);
	assert_string_equal(moved[1].name, "out_of_seq_request");
	assert_int_equal(moved[1].value, 3);
	assert_string_equal(moved[2].name, "sent_pkts");
	assert_int_equal(moved[2].value, 2000);
	/* the duplicates did not move: none this run */
	assert_int_equal(loss.resent, 5);
	assert_int_equal(loss.out_of_seq, 3);
	assert_int_equal(loss.duplicate, 0);
	/* soft-RoCE's count of its own packets */
	assert_int_equal(loss.sent, 2000);
	assert_int_equal(loss.received, 0);
	remove_file(ib, "port_xmit_packets");
	remove_file(hw, "sent_pkts");
	remove_file(hw, "completer_retry_err");
	remove_file(hw, "out_of_seq_request");
	remove_file(hw, "duplicate_request");
	remove_file(hw, "lifespan");
	assert_int_equal(rmdir(ib), 0);
	assert_int_equal(rmdir(hw), 0);
	assert_int_equal(rmdir(root), 0);
}

/* A port with neither folder (siw): none, said as such. */
static void counters_of_a_port_without_any(void **state)
{
	static struct port_counters pc;
	char text[512] = "";
	FILE *f = fmemopen(text, sizeof(text), "w");

	(void)state;
	assert_non_null(f);
	port_counters_read("/nonexistent/ports/1", &pc);
	assert_int_equal(pc.folders, 0);
	assert_int_equal(pc.count, 0);
	port_counters_print(&pc, &pc, f);
	fclose(f);
	assert_string_equal(
		text,
		"port counters: none (no counters or hw_counters in /nonexistent/ports/1)\n");
}

/* -D: bytes and messages over the seconds measured; no peak. */
static void bw_timed_stats_known_counts(void **state)
{
	struct bw_stats s;

	(void)state;
	assert_int_equal(bw_timed_stats_compute(3000, 1500000000u, 4096, &s),
			 0);
	assert_true(isnan(s.peak_bytes_per_sec));
	assert_true(fabs(s.avg_bytes_per_sec - 8192000.0) < 1e-6);
	assert_true(fabs(s.msg_rate_mpps - 0.002) < 1e-12);
	assert_int_equal(bw_timed_stats_compute(0, 1000, 4096, &s), -EINVAL);
	assert_int_equal(bw_timed_stats_compute(10, 0, 4096, &s), -EINVAL);
}

/* -D's value, and -n's default left alone. */
static void bench_duration_option(void **state)
{
	struct parse_result r =
		parse_bench("bw", "-D", "30", "server", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.duration, 30);
	assert_int_equal(r.bench.mode, BENCH_BW);
	free_result(&r);
}

static void bw_stats_known_times(void **state)
{
	const uint64_t posted[] = {0, 0, 0, 0};
	const uint64_t completed[] = {0, 2000000, 0, 4000000};
	struct bw_stats s;

	(void)state;
	assert_int_equal(bw_stats_compute(posted, completed, 4, 1 << 20, &s),
			 0);
	/* 4 MiB in 4 ms */
	assert_close(s.avg_bytes_per_sec, 4.0 * (1 << 20) / 0.004);
	assert_close(s.msg_rate_mpps, 4 / 0.004 / 1e6);
	/* best window: 1 ms per message either way */
	assert_close(s.peak_bytes_per_sec, (1 << 20) / 0.001);
}

static void bw_stats_peak_finds_the_fastest_window(void **state)
{
	/* posts at 0, 10, 20, 30 us; completions of 2 at 40 us, 4 at 45 us */
	const uint64_t posted[] = {0, 10000, 20000, 30000};
	const uint64_t completed[] = {0, 40000, 0, 45000};
	struct bw_stats s;

	(void)state;
	assert_int_equal(bw_stats_compute(posted, completed, 4, 1000, &s), 0);
	/* all four, 0 to 45 us: 11.25 us per message, better than from post
	 * 2 (35 / 3 us) or 3 (12.5 us) to completion 4, or any to 2 */
	assert_close(s.peak_bytes_per_sec, 1000 / 11.25e-6);
	assert_close(s.avg_bytes_per_sec, 4000 / 45e-6);
}

/*
 * A stream with a known peak: posts in batches of 4 every 100 us, each
 * message taking 25 us, except messages 40-59, posted at once at 1000 us,
 * which a burst finished at 5 us each (complete at 1000 + 20 * 5 = 1100
 * us). Every 4th message is signalled; none of the other windows comes
 * near 5 us a message (the next best, posts 36-59: 200 us for 24).
 */
static void bw_stats_peak_of_a_burst(void **state)
{
	uint64_t posted[100], completed[100] = {0};
	struct bw_stats s;
	size_t i;

	(void)state;
	for (i = 0; i < 100; i++)
		posted[i] = i >= 40 && i < 60 ? 1000000 : (i / 4) * 100000;
	for (i = 3; i < 100; i += 4)
		completed[i] = i >= 40 && i < 60 ? 1000000 + (i - 39) * 5000
						 : posted[i - 3] + 4 * 25000ull;
	assert_int_equal(bw_stats_compute(posted, completed, 100, 1000, &s), 0);
	assert_close(s.peak_bytes_per_sec, 1000 / 5e-6);
	assert_close(s.avg_bytes_per_sec, 100 * 1000 / 2.5e-3);
}

/* The definition, pair by pair: what the peak search must equal. */
static double peak_pair_by_pair(const uint64_t *posted,
				const uint64_t *completed, size_t iters)
{
	double best = INFINITY;
	size_t i, j;

	for (j = 0; j < iters; j++)
		for (i = 0; completed[j] && i <= j; i++) {
			double t = (double)(completed[j] - posted[i]) /
				   (double)(j - i + 1);

			if (t > 0 && t < best)
				best = t;
		}
	return best;
}

/*
 * Streams of made-up but plausible times (batches of posts, completions
 * late by a random amount, signalled every cq_mod and the last), many
 * seeds and shapes: the peak is the pair-by-pair one, to the last bit.
 */
static void bw_stats_peak_matches_pair_by_pair(void **state)
{
	uint64_t posted[600], completed[600];
	unsigned int seed, rnd = 12345;
	struct bw_stats s;

	(void)state;
	for (seed = 0; seed < 200; seed++) {
		size_t iters = 5 + seed * 3 % 590, cq_mod = 1 + seed % 7, i;
		uint64_t now = 1000;

		for (i = 0; i < iters; i++) {
			rnd = rnd * 1103515245u + 12345u;
			if ((rnd >> 16) % 3 == 0)
				now += (rnd >> 8) % 50000;
			posted[i] = now;
		}
		for (i = 0; i < iters; i++) {
			rnd = rnd * 1103515245u + 12345u;
			completed[i] =
				(i + 1) % cq_mod && i + 1 < iters
					? 0
					: posted[i] + 1 + (rnd >> 8) % 90000;
		}
		for (i = 1; i < iters; i++)
			if (completed[i] && completed[i] < completed[i - 1])
				completed[i] = completed[i - 1];
		assert_int_equal(
			bw_stats_compute(posted, completed, iters, 64, &s), 0);
		if (s.peak_bytes_per_sec !=
		    64 / (peak_pair_by_pair(posted, completed, iters) / 1e9))
			fail_msg("seed %u: peak %.17g, pair by pair %.17g",
				 seed, s.peak_bytes_per_sec,
				 64 / (peak_pair_by_pair(posted, completed,
							 iters) /
				       1e9));
	}
}

/* The CPU time this process has used, in ns. */
static uint64_t cpu_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t))
		return 0;
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * The largest -n: ten million messages, each signalled, posted one by
 * one. Pair by pair that would be 5e13 tries, hours of CPU; the search
 * (n log n) takes 0.3-0.6 s, and a few seconds under ASan. The bound is
 * on the CPU time the search used, not the clock's, so that a machine
 * busy with other work (the scenarios beside the unit tests) cannot fail
 * it, and far inside the time the server allows the client's figures of a
 * size (BENCH_REPORT_NS_PER_ITER in bench.c).
 */
static void bw_stats_peak_at_the_largest_n(void **state)
{
	size_t iters = 10000000, i;
	uint64_t *posted = malloc(iters * sizeof(*posted));
	uint64_t *completed = malloc(iters * sizeof(*completed));
	uint64_t start;
	struct bw_stats s;

	(void)state;
	assert_non_null(posted);
	assert_non_null(completed);
	for (i = 0; i < iters; i++) {
		posted[i] = 1000 + i * 100 + (i % 7) * 10;
		completed[i] = posted[i] + (i == iters / 2 ? 50 : 300);
	}
	start = cpu_ns();
	assert_int_equal(bw_stats_compute(posted, completed, iters, 1000, &s),
			 0);
	if (cpu_ns() - start > 20000000000ull)
		fail_msg("the peak search took %.1f s of CPU",
			 (double)(cpu_ns() - start) / 1e9);
	/* the message with the 50 ns completion, alone */
	assert_close(s.peak_bytes_per_sec, 1000 / 50e-9);
	free(posted);
	free(completed);
}

static void bw_stats_refuses_no_time(void **state)
{
	const uint64_t t[] = {5, 5};
	struct bw_stats s;

	(void)state;
	assert_int_equal(bw_stats_compute(t, t, 2, 8, &s), -EINVAL);
	assert_int_equal(bw_stats_compute(t, t, 0, 8, &s), -EINVAL);
}

/* -D latency: the window's time over its iterations, halved for a
 * round trip, and nothing else. */
static void lat_timed_stats_average_alone(void **state)
{
	struct lat_stats s;

	(void)state;
	assert_int_equal(lat_timed_stats_compute(4000, 1000000000, 2, &s), 0);
	assert_float_equal(s.t_avg, 125.0, 1e-9); /* 1 s / 4000 / 2 in us */
	assert_true(isnan(s.t_min) && isnan(s.t_typical) && isnan(s.p99_9));
	assert_int_equal(lat_timed_stats_compute(500, 1000000, 1, &s), 0);
	assert_float_equal(s.t_avg, 2.0, 1e-9);
	assert_int_equal(lat_timed_stats_compute(0, 1000000, 1, &s), -EINVAL);
	assert_int_equal(lat_timed_stats_compute(5, 0, 1, &s), -EINVAL);
}

/* --- the tick clock --- */

static void tick_rate_from_two_readings(void **state)
{
	const struct bench_clock from = {.ticks = 1000, .ns = 5000};
	const struct bench_clock to = {.ticks = 3000, .ns = 6000};
	const struct bench_clock still = {.ticks = 1000, .ns = 6000};
	const struct bench_clock back = {.ticks = 3000, .ns = 4000};

	(void)state;
	assert_close(bench_ns_per_tick(&from, &to), 0.5);
	/* no rate: the caller must refuse to report figures */
	assert_close(bench_ns_per_tick(&from, &still), 0);
	assert_close(bench_ns_per_tick(&from, &back), 0);
}

static void ticks_to_ns_keeps_missing_times(void **state)
{
	/* times since tick 1000, at 0.5 ns a tick; 0 is "no completion" */
	uint64_t times[] = {0, 1100, 1301, 0};
	/* durations at 2.5 ns a tick, rounded to the nearest ns */
	uint64_t gaps[] = {3, 4, 0};

	(void)state;
	bench_ticks_to_ns(times, 4, 1000, 0.5);
	assert_int_equal(times[0], 0);
	assert_int_equal(times[1], 50);
	assert_int_equal(times[2], 151); /* 150.5 rounds away from zero */
	assert_int_equal(times[3], 0);
	bench_ticks_to_ns(gaps, 3, 0, 2.5);
	assert_int_equal(gaps[0], 8);
	assert_int_equal(gaps[1], 10);
	assert_int_equal(gaps[2], 0);
}

/* Spin for @ms milliseconds of CLOCK_MONOTONIC. */
static void spin_ms(unsigned int ms)
{
	uint64_t end = bench_now_ns() + (uint64_t)ms * 1000000;

	while (bench_now_ns() < end)
		;
}

/*
 * The counter this machine's benchmark reads moves, and at one rate: two
 * back-to-back 10 ms spans give rates within 10% of each other.
 */
static void ticks_keep_a_steady_rate(void **state)
{
	struct bench_clock c0, c1, c2;
	double first, second;

	(void)state;
	c0 = bench_clock_read();
	spin_ms(10);
	c1 = bench_clock_read();
	spin_ms(10);
	c2 = bench_clock_read();
	first = bench_ns_per_tick(&c0, &c1);
	second = bench_ns_per_tick(&c1, &c2);
	if (first <= 0 || second <= 0 || first / second > 1.1 ||
	    second / first > 1.1)
		fail_msg("ns per tick %.6g then %.6g (ticks %llu %llu %llu)",
			 first, second, (unsigned long long)c0.ticks,
			 (unsigned long long)c1.ticks,
			 (unsigned long long)c2.ticks);
}

/* --- options --- */

/* A usage error: -EINVAL and exactly @line (with its newline) on stderr. */
static void expect_usage_error(struct parse_result r, const char *line)
{
	if (r.ret != -EINVAL || strcmp(r.err, line) != 0)
		fail_msg("expected %d and '%s', got %d and '%s'", -EINVAL, line,
			 r.ret, r.err);
	free_result(&r);
}

static void bench_help_needs_no_measurement(void **state)
{
	struct parse_result r = parse_bench("--help", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 1);
	assert_false(bench_is_on(&r.bench));
	assert_non_null(
		strstr(r.out, "usage: rdma_bench lat|bw [options] [SERVER]\n"));
	assert_non_null(strstr(r.out, "      --op OP "));
	assert_non_null(strstr(r.out, "      --out_json_file FILE\n"));
	/* perftest's letters: -t the send queue, -x the GID index */
	assert_non_null(strstr(r.out, "  -t, --tx-depth N "));
	assert_non_null(strstr(r.out, "  -x, --gid-index N "));
	assert_non_null(strstr(r.out, "      --timeout SEC "));
	/* nothing of the lessons', nothing it would ignore */
	assert_null(strstr(r.out, "--ops"));
	assert_null(strstr(r.out, "--gid-idx"));
	assert_null(strstr(r.out, "--CPU-freq"));
	free_result(&r);
}

static void bench_lat_defaults_are_perftest_ones(void **state)
{
	struct parse_result r = parse_bench("lat", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.mode, BENCH_LAT);
	assert_int_equal(r.bench.op, BENCH_OP_SEND);
	assert_int_equal(r.bench.size, 2);
	assert_int_equal(r.bench.iters, 1000);
	/* perftest's TCP port (the other programs' is 19875), and -p's */
	assert_int_equal(r.cfg.tcp_port, 18515);
	free_result(&r);
	r = parse_bench("lat", "-p", "19875", (char *)NULL);
	assert_int_equal(r.cfg.tcp_port, 19875);
	free_result(&r);
	r = parse_bench("lat", (char *)NULL);
	/* one request in the send queue, each one signalled */
	assert_int_equal(r.bench.tx_depth, 1);
	assert_int_equal(r.bench.cq_mod, 1);
	assert_null(r.bench.json_path);
	/* unlike perftest, a wait that lasts sleeps on a completion channel */
	assert_false(r.bench.busy_poll);
	assert_true(bench_sleeps(&r.bench));
	free_result(&r);
}

static void bench_bw_defaults_are_perftest_ones(void **state)
{
	struct parse_result r =
		parse_bench("bw", "--op", "write", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.op, BENCH_OP_WRITE);
	assert_int_equal(r.bench.size, 65536);
	assert_int_equal(r.bench.iters, 5000);
	assert_int_equal(r.bench.tx_depth, 128);
	/* over 8192 bytes, a completion for every send (perftest's -Q 1) */
	assert_int_equal(r.bench.cq_mod, 1);
	free_result(&r);
}

/* The completion moderation a bandwidth run gets by default. */
static unsigned int default_cq_mod(const char *size, const char *extra)
{
	struct parse_result r =
		parse_bench("bw", "-s", size, extra, (char *)NULL);
	unsigned int cq_mod = r.bench.cq_mod;

	assert_int_equal(r.ret, 0);
	free_result(&r);
	return cq_mod;
}

static void bench_bw_large_sizes_signal_every_send(void **state)
{
	(void)state;
	/* perftest's limit: 8192 bytes still moderated, 8193 not */
	assert_int_equal(default_cq_mod("8192", NULL), 100);
	assert_int_equal(default_cq_mod("8193", NULL), 1);
	assert_int_equal(default_cq_mod("1048576", NULL), 1);
	/* not where one setting serves small sizes too, nor with events */
	assert_int_equal(default_cq_mod("65536", "-a"), 100);
	assert_int_equal(default_cq_mod("65536", "-e"), 100);
	/* what the user asks for stands */
	assert_int_equal(default_cq_mod("65536", "--cq-mod=50"), 50);
}

static void bench_every_option(void **state)
{
	struct parse_result r = parse_bench(
		"bw", "--op", "read", "-s", "4096", "-n", "20", "--tx-depth",
		"16", "--cq-mod", "4", "--out_json_file", "out.json",
		"--report_gbits", "--busy-poll", "--cpu_util",
		"--report-counters", "--timeout", "30", "server", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.op, BENCH_OP_READ);
	assert_int_equal(r.bench.size, 4096);
	assert_int_equal(r.bench.iters, 20);
	assert_int_equal(r.bench.tx_depth, 16);
	assert_int_equal(r.bench.cq_mod, 4);
	assert_string_equal(r.bench.json_path, "out.json");
	assert_true(r.bench.gbps);
	assert_true(r.bench.busy_poll);
	assert_true(r.bench.cpu_util);
	assert_true(r.bench.counters);
	assert_false(r.bench.histogram);
	assert_false(bench_sleeps(&r.bench));
	assert_int_equal(r.cfg.timeout_sec, 30);
	assert_string_equal(r.cfg.server_name, "server");
	free_result(&r);
}

/*
 * An operator's perftest command line, typed from memory: every option
 * means what it means there, in any order, lat|bw anywhere on the line.
 */
static void bench_takes_perftest_options(void **state)
{
	struct parse_result r = parse_bench(
		"-d", "mlx5_0", "-x", "3", "-t", "64", "-Q", "16", "-I", "128",
		"-m", "4096", "--report_gbits", "-D", "10", "-q", "4", "bw",
		"-S", "3", "--tclass", "96", "-u", "14", "-l", "8", "-r",
		"1024", "--output=bandwidth", "--out_json", "-F",
		"--report-both", "--use_old_post_send", "-c", "RC", "HOST",
		(char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(r.bench.mode, BENCH_BW);
	assert_string_equal(r.cfg.ib_devname, "mlx5_0");
	assert_int_equal(r.cfg.gid_idx, 3);
	assert_int_equal(r.bench.tx_depth, 64);
	assert_int_equal(r.bench.cq_mod, 16);
	assert_true(r.bench.inline_set);
	assert_int_equal(r.bench.inline_size, 128);
	assert_int_equal(r.cfg.path_mtu, 5); /* IBV_MTU_4096 */
	assert_true(r.bench.gbps);
	assert_int_equal(r.bench.duration, 10);
	assert_int_equal(r.bench.qps, 4);
	assert_int_equal(r.cfg.sl, 3);
	assert_int_equal(r.cfg.traffic_class, 96);
	assert_int_equal(r.cfg.ack_timeout, 14);
	/* RNR NAKs slow the sender; as perftest's, it never gives up on them */
	assert_int_equal(qp_rnr_retry(&r.cfg), QP_RNR_RETRY_FOREVER);
	assert_int_equal(r.bench.post_list, 8);
	assert_int_equal(r.bench.rx_depth, 1024);
	assert_int_equal(r.bench.output, BENCH_OUTPUT_BANDWIDTH);
	assert_string_equal(r.bench.json_path, BENCH_JSON_DEFAULT);
	/* the timeout keeps its default: -t was the send queue */
	assert_int_equal(r.cfg.timeout_sec, 10);
	assert_string_equal(r.cfg.server_name, "HOST");
	free_result(&r);
	/* the measurement last, perftest's atomics by their names */
	r = parse_bench("-A", "CMP_AND_SWAP", "-R", "-T", "104", "HOST", "lat",
			"--output", "latency", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.mode, BENCH_LAT);
	assert_int_equal(r.bench.op, BENCH_OP_CMP_SWAP);
	assert_int_equal(r.cfg.tos, 104);
	assert_true(r.cfg.use_rdma_cm);
	assert_string_equal(r.cfg.server_name, "HOST");
	free_result(&r);
	/* -A picks the atomic of an atomic --op, before it or after it, as
	 * in perftest's ib_atomic_*; two operations else are refused */
	r = parse_bench("lat", "--op", "fetch_add", "-A", "CMP_AND_SWAP",
			(char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.op, BENCH_OP_CMP_SWAP);
	free_result(&r);
	r = parse_bench("lat", "-A", "FETCH_AND_ADD", "--op", "cmp_swap",
			(char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.op, BENCH_OP_FETCH_ADD);
	free_result(&r);
	expect_usage_error(
		parse_bench("lat", "-A", "FETCH_AND_ADD", "-A", "CMP_AND_SWAP",
			    (char *)NULL),
		"rdma_bench: -A CMP_AND_SWAP conflicts with -A FETCH_AND_ADD: give one of them\n");
	expect_usage_error(
		parse_bench("lat", "--op", "send", "-A", "CMP_AND_SWAP",
			    (char *)NULL),
		"rdma_bench: -A CMP_AND_SWAP conflicts with --op send: give one of them\n");
	expect_usage_error(
		parse_bench("bw", "--op", "write", "--op", "read",
			    (char *)NULL),
		"rdma_bench: --op read conflicts with --op write: give one of them\n");
}

/* What perftest has and rdma_bench does not: one line naming it so. */
static void bench_refuses_perftest_options_it_lacks(void **state)
{
	(void)state;
	expect_usage_error(
		parse_bench("bw", "-O", "host", (char *)NULL),
		"rdma_bench: perftest's option -O (--dualport) is not offered: a run uses one port\n");
	expect_usage_error(
		parse_bench("bw", "--odp", (char *)NULL),
		"rdma_bench: perftest's option --odp is not offered: no on-demand paging: the buffer is registered\n");
	expect_usage_error(
		parse_bench("bw", "-g", (char *)NULL),
		"rdma_bench: perftest's option -g (--mcg) is not offered: multicast is rdma_mc_example's lesson (the GID index is -x, as in perftest)\n");
	expect_usage_error(
		parse_bench("bw", "--gid-idx", "1", (char *)NULL),
		"rdma_bench: option --gid-idx is spelled -x, --gid-index here\n");
	expect_usage_error(
		parse_bench("bw", "-o", "send", (char *)NULL),
		"rdma_bench: perftest's option -o (--outs) is not offered: READs and atomics in flight are as many as both devices allow\n");
	expect_usage_error(
		parse_bench("bw", "--pair", (char *)NULL),
		"rdma_bench: option --pair is rdma_check's, not rdma_bench's\n");
}

/* The path options: ranges, and which way of connecting each goes with. */
static void bench_path_options(void **state)
{
	(void)state;
	expect_usage_error(
		parse_bench("bw", "-m", "1500", (char *)NULL),
		"rdma_bench: invalid --mtu value '1500' (expected 256, 512, 1024, 2048 or 4096)\n");
	expect_usage_error(
		parse_bench("bw", "-S", "16", (char *)NULL),
		"rdma_bench: invalid --sl value '16' (expected a number from 0 to 15)\n");
	expect_usage_error(
		parse_bench("bw", "--tclass", "x", (char *)NULL),
		"rdma_bench: invalid --tclass value 'x' (expected a number from 0 to 255)\n");
	expect_usage_error(
		parse_bench("bw", "-u", "32", (char *)NULL),
		"rdma_bench: invalid --qp-timeout value '32' (expected a number from 0 to 31)\n");
	expect_usage_error(
		parse_bench("bw", "-T", "104", (char *)NULL),
		"rdma_bench: option --tos needs -R (RDMA_CM's type of service); over the TCP exchange give --tclass and --sl\n");
	expect_usage_error(
		parse_bench("bw", "-R", "-S", "2", (char *)NULL),
		"rdma_bench: option --sl does not go with -R: RDMA_CM takes the traffic class and the SL from the type of service, give -T/--tos\n");
	expect_usage_error(
		parse_bench("bw", "--output", "latency", (char *)NULL),
		"rdma_bench: invalid --output value 'latency' with bw (expected bandwidth or message_rate)\n");
	expect_usage_error(
		parse_bench("lat", "--reversed", (char *)NULL),
		"rdma_bench: option --reversed needs bw, one way (not with lat)\n");
	expect_usage_error(
		parse_bench("bw", "--reversed", "-b", (char *)NULL),
		"rdma_bench: option --reversed needs bw, one way (not with --bidirectional)\n");
	expect_usage_error(
		parse_bench("lat", "-l", "4", (char *)NULL),
		"rdma_bench: option --post_list needs bw (a latency sample posts one send)\n");
	expect_usage_error(
		parse_bench("bw", "-l", "65", (char *)NULL),
		"rdma_bench: invalid --post_list value '65' (expected a number from 1 to 64)\n");
	expect_usage_error(
		parse_bench("bw", "-r", "100", (char *)NULL),
		"rdma_bench: invalid --rx-depth value '100' (less than --tx-depth 128 + 64: the sender could run the receive queue dry)\n");
	expect_usage_error(
		parse_bench("bw", "--op", "write", "-r", "512", (char *)NULL),
		"rdma_bench: option --rx-depth needs --op send or write_imm (only they consume receives)\n");
}

/* -l and -I reach what the run posts and what the QP is asked for. */
static void bench_post_list_and_inline_take_effect(void **state)
{
	struct parse_result r =
		parse_bench("bw", "-l", "4", "-I", "0", (char *)NULL);
	struct resources_sizes sizes = {0};

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_post_list(&r.bench, 65536), 4);
	bench_size_resources(&r.bench, &sizes);
	assert_int_equal(sizes.max_inline_data, 0);
	free_result(&r);
	r = parse_bench("bw", "-b", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_post_list(&r.bench, 65536), 1);
	assert_int_equal(bench_post_list(&r.bench, 8192), BENCH_CHAIN_MAX);
	free_result(&r);
	r = parse_bench("bw", "-r", "1000", "-n", "100000", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_rx_depth(&r.bench), 1000);
	free_result(&r);
}

/*
 * --new-api asks the steps for an extended CQ and QP; without it, and
 * with perftest's --use_old_post_send, the run posts with ibv_post_send.
 */
static void bench_new_api_reaches_the_resources(void **state)
{
	struct parse_result r = parse_bench("bw", "--new-api", (char *)NULL);
	struct resources_sizes sizes = {0};

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_true(r.bench.new_api);
	bench_size_resources(&r.bench, &sizes);
	assert_ptr_equal(sizes.extended, &new_api_verbs);
	free_result(&r);
	r = parse_bench("lat", "--use_old_post_send", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_false(r.bench.new_api);
	sizes = (struct resources_sizes){0};
	bench_size_resources(&r.bench, &sizes);
	assert_null(sizes.extended);
	free_result(&r);
	expect_usage_error(
		parse_bench("bw", "--new-api", "--use_old_post_send",
			    (char *)NULL),
		"rdma_bench: options --new-api and --use_old_post_send contradict (post with ibv_wr_*, or with ibv_post_send)\n");
}

static void bench_lat_send_queue_follows_cq_mod(void **state)
{
	struct parse_result r =
		parse_bench("lat", "--cq-mod", "8", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	/* the unsignalled sends between two signalled ones must fit */
	assert_int_equal(r.bench.tx_depth, 8);
	assert_int_equal(r.bench.cq_mod, 8);
	free_result(&r);
	r = parse_bench("lat", "--tx-depth", "4", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.tx_depth, 4);
	assert_int_equal(r.bench.cq_mod, 4);
	free_result(&r);
}

static void bench_all_sizes_are_perftest_ones(void **state)
{
	struct parse_result r = parse_bench("lat", "-a", (char *)NULL);
	uint32_t sizes[BENCH_MAX_SIZES];
	size_t n;

	(void)state;
	assert_int_equal(r.ret, 0);
	n = bench_sizes(&r.bench, sizes);
	assert_int_equal(n, 23);
	assert_int_equal(sizes[0], 2);
	assert_int_equal(sizes[22], 8u << 20);
	free_result(&r);
}

static void bench_all_sizes_up_to_size(void **state)
{
	struct parse_result r =
		parse_bench("bw", "-a", "-s", "5000", (char *)NULL);
	uint32_t sizes[BENCH_MAX_SIZES];
	size_t n;

	(void)state;
	assert_int_equal(r.ret, 0);
	n = bench_sizes(&r.bench, sizes);
	/* 2, 4, ..., 4096 */
	assert_int_equal(n, 12);
	assert_int_equal(sizes[11], 4096);
	free_result(&r);
}

static void bench_atomics_are_eight_bytes(void **state)
{
	struct parse_result r =
		parse_bench("bw", "--op", "fetch_add", "-a", (char *)NULL);
	uint32_t sizes[BENCH_MAX_SIZES];

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_sizes(&r.bench, sizes), 1);
	assert_int_equal(sizes[0], 8);
	free_result(&r);
}

static void bench_cq_mod_follows_a_small_tx_depth(void **state)
{
	struct parse_result r = parse_bench("bw", "-s", "4096", "--tx-depth",
					    "8", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.bench.cq_mod, 8);
	free_result(&r);
}

/*
 * The halves of the region round up to 64 KiB whatever the page size, so
 * that two hosts with different pages agree on where the peer's half is.
 */
static void bench_region_halves_are_64k(void **state)
{
	struct parse_result r = parse_bench("lat", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_half_size(&r.bench), 65536);
	assert_int_equal(bench_region_size(&r.bench, 100), 131072);
	free_result(&r);
	r = parse_bench("bw", "-s", "65537", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_half_size(&r.bench), 131072);
	free_result(&r);
	r = parse_bench("bw", "-a", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_region_size(&r.bench, 100), 16u << 20);
	free_result(&r);
}

/*
 * Receives posted ahead: every iteration up to 8192, and always room for
 * the sender's whole window beyond one top-up (BENCH_RX_REFILL).
 */
static void bench_rx_depth_covers_the_send_window(void **state)
{
	struct parse_result r = parse_bench("bw", "-n", "100", (char *)NULL);

	(void)state;
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_rx_depth(&r.bench), 100);
	free_result(&r);
	r = parse_bench("bw", "-n", "100000", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_rx_depth(&r.bench), 8192);
	free_result(&r);
	r = parse_bench("bw", "-n", "100000", "--tx-depth", "8192",
			(char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_rx_depth(&r.bench), 8192 + BENCH_RX_REFILL);
	free_result(&r);
	/* -q: the QPs share the CQ, each its share of the ring */
	r = parse_bench("bw", "-n", "100000", "-q", "4", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_rx_depth(&r.bench), 2048);
	{
		struct resources_sizes sizes;

		/* Every QP's send and receive queues, on one CQ. */
		resources_default_sizes(&sizes, &r.cfg);
		bench_size_resources(&r.bench, &sizes);
		assert_int_equal(resources_cq_entries(&sizes),
				 4 * (128 + 2048) + RESOURCES_CQ_MARGIN);
	}
	free_result(&r);
	r = parse_bench("bw", "--op", "write", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_int_equal(bench_rx_depth(&r.bench), 0);
	free_result(&r);
}

static void bench_bad_values(void **state)
{
	(void)state;
	expect_usage_error(
		parse_bench("fast", (char *)NULL),
		"rdma_bench: no measurement given: name lat or bw (rdma_bench lat|bw [options] [SERVER])\n");
	expect_usage_error(
		parse_bench("-s", "64", (char *)NULL),
		"rdma_bench: no measurement given: name lat or bw (rdma_bench lat|bw [options] [SERVER])\n");
	expect_usage_error(
		parse_bench("-d", "x", "host", (char *)NULL),
		"rdma_bench: no measurement given: name lat or bw (rdma_bench lat|bw [options] [SERVER])\n");
	expect_usage_error(
		parse_bench("lat", "bw", (char *)NULL),
		"rdma_bench: two measurements given, lat and bw (expected one: rdma_bench lat|bw [options] [SERVER])\n");
	expect_usage_error(parse_bench("lat", "host1", "host2", (char *)NULL),
			   "rdma_bench: unexpected argument 'host2'\n");
	expect_usage_error(
		parse_bench("lat", "--op", "atomic", (char *)NULL),
		"rdma_bench: invalid --op value 'atomic' (expected send, write, read, write_imm, fetch_add or cmp_swap)\n");
	expect_usage_error(
		parse_bench("lat", "-s", "0", (char *)NULL),
		"rdma_bench: invalid --size value '0' (expected a number from 1 to 8388608)\n");
	expect_usage_error(
		parse_bench("lat", "-s", "8388609", (char *)NULL),
		"rdma_bench: invalid --size value '8388609' (expected a number from 1 to 8388608)\n");
	expect_usage_error(
		parse_bench("lat", "-s", "4k", (char *)NULL),
		"rdma_bench: invalid --size value '4k' (expected a number from 1 to 8388608)\n");
	expect_usage_error(
		parse_bench("lat", "-n", "4", (char *)NULL),
		"rdma_bench: invalid --iters value '4' (expected a number from 5 to 10000000)\n");
	expect_usage_error(
		parse_bench("bw", "--tx-depth", "0", (char *)NULL),
		"rdma_bench: invalid --tx-depth value '0' (expected a number from 1 to 8192)\n");
	expect_usage_error(
		parse_bench("bw", "--cq-mod", "-1", (char *)NULL),
		"rdma_bench: invalid --cq-mod value '-1' (expected a number from 1 to 8192)\n");
	expect_usage_error(
		parse_bench("bw", "--out_json_file", "", (char *)NULL),
		"rdma_bench: invalid --out_json_file value '' (expected a file name)\n");
}

static void bench_bad_combinations(void **state)
{
	struct parse_result rr;

	(void)state;
	/* the manual's program has no benchmark options */
	expect_usage_error(
		parse("-s", "64", (char *)NULL),
		"rdma_rc_example: option -s (--size) is rdma_bench's, not rdma_rc_example's\n");
	expect_usage_error(
		parse("-n", "10", (char *)NULL),
		"rdma_rc_example: option -n (--iters) is rdma_bench's, not rdma_rc_example's\n");
	expect_usage_error(
		parse_bench("lat", "-a", "-s", "1", (char *)NULL),
		"rdma_bench: invalid --size value '1' with --all (the sizes start at 2)\n");
	expect_usage_error(
		parse_bench("lat", "--op", "cmp_swap", "-s", "16",
			    (char *)NULL),
		"rdma_bench: invalid --size value '16' for --op cmp_swap (atomics move exactly 8 bytes)\n");
	expect_usage_error(
		parse_bench("bw", "--tx-depth", "8", "--cq-mod", "16",
			    (char *)NULL),
		"rdma_bench: invalid --cq-mod value '16' (more than --tx-depth 8: the send queue would fill before a completion)\n");
	/* a long-only option's val is a number: the line names it as typed */
	expect_usage_error(
		parse_bench("bw", "--report_gbits=1", (char *)NULL),
		"rdma_bench: option '--report_gbits=1': --report_gbits takes no value\n");
	expect_usage_error(
		parse("--busy-poll", (char *)NULL),
		"rdma_rc_example: option --busy-poll is rdma_bench's, not rdma_rc_example's\n");
	expect_usage_error(
		parse_bench("lat", "-e", "--busy-poll", (char *)NULL),
		"rdma_bench: options -e and --busy-poll contradict (sleep on the completion channel, or never)\n");
	expect_usage_error(
		parse_bench("lat", "-D", "10", "-H", (char *)NULL),
		"rdma_bench: option --report-histogram needs every sample: give -n, not --duration\n");
	rr = parse_bench("lat", "-D", "10", (char *)NULL);
	assert_int_equal(rr.ret, 0);
	assert_int_equal(rr.bench.duration, 10);
	free_result(&rr);
	expect_usage_error(
		parse_bench("bw", "-D", "10", "-a", (char *)NULL),
		"rdma_bench: option --duration runs one size for a time: leave out --all\n");
	expect_usage_error(
		parse_bench("bw", "-D", "10", "-n", "100", (char *)NULL),
		"rdma_bench: option --duration runs one size for a time: leave out --iters\n");
	expect_usage_error(
		parse_bench("bw", "-D", "4", (char *)NULL),
		"rdma_bench: invalid --duration value '4' (expected a number from 5 to 36000)\n");
	expect_usage_error(parse_bench("lat", "-b", (char *)NULL),
			   "rdma_bench: option --bidirectional needs bw\n");
	expect_usage_error(
		parse_bench("bw", "-b", "-D", "10", (char *)NULL),
		"rdma_bench: option --bidirectional counts the messages each way: give -n, not --duration (a timed run goes one way)\n");
	expect_usage_error(parse_bench("lat", "--run_infinitely", (char *)NULL),
			   "rdma_bench: option --run_infinitely needs bw\n");
	expect_usage_error(
		parse_bench("bw", "--run_infinitely", "-n", "100",
			    (char *)NULL),
		"rdma_bench: option --run_infinitely runs one size until stopped: leave out --iters\n");
	expect_usage_error(
		parse_bench("bw", "--run_infinitely", "-b", (char *)NULL),
		"rdma_bench: option --run_infinitely runs one size until stopped: leave out --bidirectional (it needs a count)\n");
	rr = parse_bench("bw", "--run_infinitely", (char *)NULL);
	assert_int_equal(rr.ret, 0);
	assert_true(rr.bench.infinite);
	assert_int_equal(rr.bench.duration, 5); /* the period, as perftest's */
	free_result(&rr);
	rr = parse_bench("bw", "--run_infinitely", "-D", "7", "-q", "2",
			 (char *)NULL);
	assert_int_equal(rr.ret, 0);
	assert_int_equal(rr.bench.duration, 7);
	assert_int_equal(rr.bench.qps, 2);
	free_result(&rr);
	expect_usage_error(
		parse_bench("lat", "-q", "2", (char *)NULL),
		"rdma_bench: option --qp needs bw (a latency sample is one QP's round trip)\n");
	/* -R connects each QP through RDMA_CM. */
	rr = parse_bench("bw", "-q", "4", "-R", (char *)NULL);
	assert_int_equal(rr.ret, 0);
	assert_int_equal(rr.bench.qps, 4);
	assert_true(rr.cfg.use_rdma_cm);
	free_result(&rr);
	expect_usage_error(
		parse_bench("bw", "--qp", "17", (char *)NULL),
		"rdma_bench: invalid --qp value '17' (expected a number from 1 to 16)\n");
	expect_usage_error(
		parse_bench("bw", "-q", "0", (char *)NULL),
		"rdma_bench: invalid --qp value '0' (expected a number from 1 to 16)\n");
	expect_usage_error(
		parse_bench("bw", "-H", (char *)NULL),
		"rdma_bench: option --report-histogram needs lat (bandwidth has no latency samples)\n");
}

static void bench_needs_rc(void **state)
{
	struct parse_result r;

	(void)state;
	expect_usage_error(
		parse_bench("lat", "-c", "UD", (char *)NULL),
		"rdma_bench: invalid --connection value 'UD': rdma_bench measures RC only (perftest's UC, UD, XRC, DC and SRD are not offered)\n");
	r = parse_bench("lat", "-c", "RC", (char *)NULL);
	assert_int_equal(r.ret, 0);
	free_result(&r);
	/* RDMA_CM connects the same RC QP: how iWARP devices connect */
	r = parse_bench("bw", "-R", "--op", "read", (char *)NULL);
	assert_int_equal(r.ret, 0);
	assert_true(r.cfg.use_rdma_cm);
	assert_string_equal(r.err, "");
	free_result(&r);
}

/* --- the parameter message --- */

static void params_round_trip(void **state)
{
	const struct bench_params p = {
		.mode = BENCH_BW,
		.op = BENCH_OP_WRITE_IMM,
		.all_sizes = 1,
		.size = 65536,
		.iters = 123456,
		.tx_depth = 8192,
		.cq_mod = 300,
		.duration = 36000,
		.bidir = true,
		.qps = 16,
	};
	uint8_t wire[BENCH_PARAMS_WIRE_SIZE], wire2[BENCH_PARAMS_WIRE_SIZE];
	struct bench_params q, p2;
	const char *why = NULL;
	char text[128];

	(void)state;
	bench_params_encode(&p, wire);
	assert_int_equal(bench_params_decode(wire, &q, &why), 0);
	assert_int_equal(bench_params_match(&p, &q, text, sizeof(text)), 0);
	assert_int_equal(q.iters, 123456);
	assert_int_equal(q.tx_depth, 8192);
	assert_int_equal(q.cq_mod, 300);
	/* big-endian, where version 1 had reserved bytes */
	assert_int_equal(wire[20], 0x20);
	assert_int_equal(wire[21], 0x00);
	assert_int_equal(wire[22], 0x01);
	assert_int_equal(wire[23], 0x2c);
	/* -D, where version 2 had reserved bytes */
	assert_int_equal(q.duration, 36000);
	assert_true(q.bidir);
	/* -q less one in the flags' high four bits */
	assert_int_equal(q.qps, 16);
	assert_int_equal(wire[9], 0xf1);
	assert_false(q.infinite);
	p2 = p;
	p2.infinite = true;
	bench_params_encode(&p2, wire2);
	assert_int_equal(wire2[9], 0xf3);
	assert_int_equal(bench_params_decode(wire2, &q, &why), 0);
	assert_true(q.infinite);
	assert_false(q.reversed);
	/* --reversed in flag 4 */
	p2 = p;
	p2.reversed = true;
	bench_params_encode(&p2, wire2);
	assert_int_equal(wire2[9], 0xf5);
	assert_int_equal(bench_params_decode(wire2, &q, &why), 0);
	assert_true(q.reversed);
	assert_int_equal(bench_params_match(&p, &q, text, sizeof(text)),
			 -EPROTO);
	assert_string_equal(
		text, "the peer runs --reversed, this side without --reversed");
	bench_params_decode(wire, &q, &why);
	assert_int_equal(wire[10], 0x8c);
	assert_int_equal(wire[11], 0xa0);
	assert_int_equal(wire[5], 6);
	wire[5] = 5; /* a version 5 peer: it knows no --reversed */
	assert_int_equal(bench_params_decode(wire, &q, &why), -EPROTO);
	assert_string_equal(why, "unsupported benchmark parameter version");
	wire[5] = 4; /* a version 4 peer: it knows no -q */
	assert_int_equal(bench_params_decode(wire, &q, &why), -EPROTO);
	assert_string_equal(why, "unsupported benchmark parameter version");
	wire[5] = 3; /* a version 3 peer: it never beats */
	assert_int_equal(bench_params_decode(wire, &q, &why), -EPROTO);
	assert_string_equal(why, "unsupported benchmark parameter version");
	wire[5] = 2; /* a version 2 peer */
	assert_int_equal(bench_params_decode(wire, &q, &why), -EPROTO);
	assert_string_equal(why, "unsupported benchmark parameter version");
	wire[5] = 1; /* a version 1 peer */
	assert_int_equal(bench_params_decode(wire, &q, &why), -EPROTO);
	assert_string_equal(why, "unsupported benchmark parameter version");
	wire[5] = 6;
	wire[0] ^= 0xff;
	assert_int_equal(bench_params_decode(wire, &q, &why), -EPROTO);
	assert_string_equal(why, "not a benchmark parameter message");
}

static void params_mismatch_names_the_difference(void **state)
{
	struct bench_params a = {.mode = BENCH_LAT,
				 .op = BENCH_OP_SEND,
				 .size = 2,
				 .iters = 1000,
				 .tx_depth = 1,
				 .cq_mod = 1,
				 .qps = 1};
	struct bench_params b = a;
	char why[128];

	(void)state;
	b.op = BENCH_OP_WRITE;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(why,
			    "the peer runs --op write, this side --op send");
	b = a;
	b.all_sizes = 1;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "the peer runs -a -s 2, this side -s 2");
	b = a;
	b.iters = 10;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "the peer runs -n 10, this side -n 1000");
	b = a;
	b.tx_depth = 16;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(
		why, "the peer runs --tx-depth 16, this side --tx-depth 1");
	b = a;
	b.cq_mod = 4;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(why,
			    "the peer runs --cq-mod 4, this side --cq-mod 1");
	b = a;
	b.bidir = true;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "the peer runs -b, this side without -b");
	b = a;
	b.infinite = true;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(
		why,
		"the peer runs --run_infinitely, this side without --run_infinitely");
	b = a;
	b.qps = 4;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "the peer runs -q 4, this side -q 1");
	b = a;
	b.duration = 30;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "the peer runs -D 30, this side -D 0");
	/* timed on both sides: -n is not used, and may differ */
	a.duration = 30;
	b.iters = 10;
	assert_int_equal(bench_params_match(&a, &b, why, sizeof(why)), 0);
}

/*
 * Spin on bench_patience_next (from @p as it is) with nothing arriving, as
 * a wait does; return how it ended and count the empty polls. The cap only
 * keeps a broken bound from hanging the test.
 */
static enum bench_next spin_on(struct bench_patience *p, uint64_t spin_ns,
			       uint64_t *spins)
{
	enum bench_next next;

	*spins = 0;
	do {
		next = bench_patience_next(p, spin_ns);
		(*spins)++;
	} while (next == BENCH_POLL && *spins < 1000000000u);
	return next;
}

/* spin_on a fresh wait of a run that shares its CPU or keeps it. */
static enum bench_next spin_until_decided(bool own_cpu, int timeout_ms,
					  uint64_t spin_ns, uint64_t *spins)
{
	struct bench_run run = {
		.own_cpu = own_cpu,
		.spin_ns = spin_ns,
		.timeout_ms = timeout_ms,
	};
	struct bench_patience p;

	bench_patience_init(&p, &run);
	return spin_on(&p, spin_ns, spins);
}

/* With nothing arriving, a wait gives up at its 20 ms bound, and only on
 * a clock read: after a multiple of @every empty polls. */
static void expect_give_up_at_bound(bool own_cpu, unsigned int every)
{
	uint64_t start = bench_now_ns(), spins;

	assert_int_equal(spin_until_decided(own_cpu, 20, UINT64_MAX, &spins),
			 BENCH_GIVE_UP);
	assert_true(bench_now_ns() - start >= 20 * 1000000ull);
	assert_int_equal(spins % every, 0);
}

/* A wait that keeps its CPU (no yields, the clock every 1024 polls) still
 * gives up at its bound. */
static void patience_own_cpu_gives_up_at_its_bound(void **state)
{
	(void)state;
	expect_give_up_at_bound(true, 1024);
}

/* A wait that shares its CPU looks at the clock every 16 polls: it gives
 * up at its bound too, and says it may sleep once spin_ns has passed. */
static void patience_shared_cpu_sleeps_then_gives_up(void **state)
{
	uint64_t start, spins;

	(void)state;
	expect_give_up_at_bound(false, 16);

	start = bench_now_ns();
	assert_int_equal(spin_until_decided(false, 10000, 1000000, &spins),
			 BENCH_SLEEP);
	assert_true(bench_now_ns() - start >= 1000000);
	assert_int_equal(spins % 16, 0);
}

/*
 * A wait of @run that finds nothing: it polls until run->spin_ns has
 * passed, on a clock read every @every polls, and then says sleep on
 * every empty poll (the next @every - 1 are checked) until something
 * arrives.
 */
static void expect_spin_then_sleep(const struct bench_run *run,
				   unsigned int every, struct bench_patience *p)
{
	uint64_t start = bench_now_ns(), spins;
	unsigned int i;

	bench_patience_init(p, run);
	assert_int_equal(p->look_every, every);
	assert_int_equal(spin_on(p, run->spin_ns, &spins), BENCH_SLEEP);
	assert_true(bench_now_ns() - start >= run->spin_ns);
	assert_int_equal(spins % every, 0);
	for (i = 0; i + 1 < every; i++)
		assert_int_equal(bench_patience_next(p, run->spin_ns),
				 BENCH_SLEEP);
}

/*
 * A wait that naps after a short spin keeps its CPU while it spins (no
 * yields) but looks at the clock every 16 polls. Once spin_ns has passed,
 * every empty poll says it may sleep, until something arrives; napping
 * between polls, it still gives up at its bound.
 */
static void patience_napping_wait(void **state)
{
	struct bench_run run = {
		.own_cpu = true,
		.spin_ns = (uint64_t)BENCH_SPIN_US * 1000,
		.nap_ns = 20000,
		.timeout_ms = 20,
	};
	struct bench_patience p;
	enum bench_next next;
	uint64_t start;

	(void)state;
	expect_spin_then_sleep(&run, 16, &p);
	bench_patience_renew(&p);
	assert_int_equal(bench_patience_next(&p, run.spin_ns), BENCH_POLL);

	/* The cap of 10 s only keeps a broken bound from hanging the test. */
	start = bench_now_ns();
	bench_patience_init(&p, &run);
	do {
		next = bench_patience_next(&p, 0);
		if (next == BENCH_SLEEP)
			bench_nap(&run);
	} while (next != BENCH_GIVE_UP &&
		 bench_now_ns() - start < 10000000000ull);
	assert_int_equal(next, BENCH_GIVE_UP);
	assert_true(bench_now_ns() - start >= 20 * 1000000ull);
}

/*
 * A READ or atomic between ports spins for BENCH_LONG_SPIN_US before it
 * naps: a spin that long needs the clock only every 1024 polls, as a wait
 * that polls only. After it, every empty poll says sleep.
 */
static void patience_long_spin_looks_every_1024(void **state)
{
	struct bench_run run = {
		.own_cpu = true,
		.spin_ns = (uint64_t)BENCH_LONG_SPIN_US * 1000,
		.nap_ns = 20000,
		.timeout_ms = 10000,
	};
	struct bench_patience p;

	(void)state;
	expect_spin_then_sleep(&run, 1024, &p);
}

/* --- the wait, and where the peer is --- */

static struct bench_run wait_for(const struct bench_config *bc,
				 bool has_channel, bool use_events,
				 bool peer_here)
{
	struct bench_run run = {.bc = bc};

	bench_wait_choose(&run, has_channel, use_events, peer_here);
	return run;
}

/* What the waits: line says after "waits: ". */
static void expect_wait_words(const struct bench_run *run, const char *want)
{
	char words[256], line[384];

	bench_wait_describe(run, words, sizeof(words));
	snprintf(line, sizeof(line), "%s (%s)", words, bench_wait_reason(run));
	if (strcmp(line, want) != 0)
		fail_msg("waits: '%s', expected '%s'", line, want);
}

/* The wait of a latency run that polls 4 ms, then naps 20 us, for @why. */
static void expect_poll_then_nap(const struct bench_run *run,
				 enum bench_wait_why why, const char *words)
{
	assert_int_equal(run->wait_why, why);
	assert_true(run->own_cpu);
	assert_int_equal(run->spin_ns, 4000000);
	assert_int_equal(run->nap_ns, 20000);
	expect_wait_words(run, words);
	assert_string_equal(bench_wait_name(run->wait_why), "poll-then-nap");
}

/* Between two hosts a latency run polls as perftest's does, 4 ms, then
 * naps; on one host it spins 100 us, then sleeps on the channel, except
 * for a READ or atomic, which polls as between two hosts. */
static void wait_follows_where_the_peer_is(void **state)
{
	struct bench_config lat = {.mode = BENCH_LAT, .op = BENCH_OP_SEND};
	struct bench_config read = {.mode = BENCH_LAT, .op = BENCH_OP_READ};
	struct bench_config atomic = {.mode = BENCH_LAT,
				      .op = BENCH_OP_FETCH_ADD};
	struct bench_config bw = {.mode = BENCH_BW, .op = BENCH_OP_SEND};
	struct bench_config read_bw = {.mode = BENCH_BW, .op = BENCH_OP_READ};
	const char *one_sided_words =
		"poll for 4000 us, then nap 20 us at a time (latency of a READ or atomic: only the peer's device answers, wherever the peer is)";
	struct bench_run run;

	(void)state;
	run = wait_for(&lat, true, false, false);
	expect_poll_then_nap(
		&run, BENCH_WHY_OTHER_HOST,
		"poll for 4000 us, then nap 20 us at a time (latency, the peer's GID is not one of this device's: another host)");
	/* READ and atomic latency poll the same way, on one host too */
	run = wait_for(&read, true, false, false);
	expect_poll_then_nap(&run, BENCH_WHY_ONE_SIDED, one_sided_words);
	run = wait_for(&read, true, false, true);
	expect_poll_then_nap(&run, BENCH_WHY_ONE_SIDED, one_sided_words);
	assert_true(run.peer_here);
	run = wait_for(&atomic, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_ONE_SIDED);
	run = wait_for(&read_bw, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_ONE_HOST);

	run = wait_for(&lat, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_ONE_HOST);
	assert_false(run.own_cpu);
	assert_int_equal(run.spin_ns, 100000);
	assert_int_equal(run.nap_ns, 0);
	assert_true(run.peer_here);
	expect_wait_words(
		&run,
		"poll for 100 us, then sleep on the completion channel (the peer's GID is one of this device's: both sides on this host)");

	run = wait_for(&bw, true, false, false);
	assert_int_equal(run.wait_why, BENCH_WHY_BANDWIDTH);
	assert_int_equal(run.spin_ns, 100000);
	assert_int_equal(run.nap_ns, 0);
	assert_false(run.peer_here);
}

/*
 * On iWARP with the peer on this host, the receiver of a one-way SEND or
 * WRITE with immediate bandwidth run polls only; its sender, a side of
 * -b, a receiver on soft-RoCE and one whose peer is elsewhere keep their
 * sleep.
 */
static void iwarp_receiver_polls_only(void **state)
{
	struct bench_config bw = {.mode = BENCH_BW, .op = BENCH_OP_SEND};
	struct bench_config imm = {.mode = BENCH_BW, .op = BENCH_OP_WRITE_IMM};
	struct bench_config both = {
		.mode = BENCH_BW, .op = BENCH_OP_SEND, .bidir = true};
	struct bench_config write = {.mode = BENCH_BW, .op = BENCH_OP_WRITE};
	struct bench_run run = {
		.bc = &bw, .iwarp = true, .peer_rule = BENCH_PEER_BY_ADDRESS};

	(void)state;
	bench_wait_choose(&run, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_IWARP_RECEIVER);
	assert_int_equal(run.spin_ns, UINT64_MAX);
	assert_int_equal(run.nap_ns, 0);
	assert_string_equal(bench_wait_name(run.wait_why), "poll");
	expect_wait_words(
		&run,
		"polling only (the receiver of a bandwidth run on iWARP, both sides on this host: a sleep's wake-ups take the CPU from soft-iWARP's kernel threads)");
	run.bc = &imm;
	bench_wait_choose(&run, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_IWARP_RECEIVER);
	/* -e and --busy-poll still decide for themselves */
	bench_wait_choose(&run, true, true, true);
	assert_int_equal(run.wait_why, BENCH_WHY_EVENTS);
	bench_wait_choose(&run, false, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_BUSY_POLL);

	run.bc = &bw;
	run.sender = true;
	bench_wait_choose(&run, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_ONE_HOST);
	run.sender = false;
	run.bc = &both;
	bench_wait_choose(&run, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_ONE_HOST);
	run.bc = &write; /* the server of a WRITE takes no messages */
	bench_wait_choose(&run, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_ONE_HOST);
	run.bc = &bw;
	bench_wait_choose(&run, true, false, false);
	assert_int_equal(run.wait_why, BENCH_WHY_BANDWIDTH);
	run.iwarp = false;
	bench_wait_choose(&run, true, false, true);
	assert_int_equal(run.wait_why, BENCH_WHY_ONE_HOST);
	assert_int_equal(run.spin_ns, 100000);
}

/* -R: the peer is here when its address is this side's own (both ends of
 * one host's connection); other addresses, families or none: elsewhere. */
static void peer_by_its_address(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(20000)};
	struct sockaddr_in a_other_port = a, b = a;
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6};
	struct sockaddr_in6 b6 = a6;
	struct sockaddr_storage none = {.ss_family = AF_UNSPEC};

	(void)state;
	inet_pton(AF_INET, "198.51.100.1", &a.sin_addr);
	a_other_port = a;
	a_other_port.sin_port = htons(41234);
	inet_pton(AF_INET, "198.51.100.2", &b.sin_addr);
	inet_pton(AF_INET6, "fd00::1", &a6.sin6_addr);
	inet_pton(AF_INET6, "fd00::2", &b6.sin6_addr);
	assert_true(bench_addr_is_own((struct sockaddr *)&a,
				      (struct sockaddr *)&a_other_port));
	assert_false(bench_addr_is_own((struct sockaddr *)&a,
				       (struct sockaddr *)&b));
	assert_true(bench_addr_is_own((struct sockaddr *)&a6,
				      (struct sockaddr *)&a6));
	assert_false(bench_addr_is_own((struct sockaddr *)&a6,
				       (struct sockaddr *)&b6));
	assert_false(bench_addr_is_own((struct sockaddr *)&a,
				       (struct sockaddr *)&a6));
	assert_false(bench_addr_is_own((struct sockaddr *)&none,
				       (struct sockaddr *)&none));
}

/* The waits: line names the rule that told where the peer is. */
static void wait_reason_names_the_address_rule(void **state)
{
	struct bench_config lat = {.mode = BENCH_LAT, .op = BENCH_OP_SEND};
	struct bench_run run = {.bc = &lat, .peer_rule = BENCH_PEER_BY_ADDRESS};

	(void)state;
	bench_wait_choose(&run, true, false, true);
	expect_wait_words(
		&run,
		"poll for 100 us, then sleep on the completion channel (the peer's address is this side's own: both sides on this host)");
	bench_wait_choose(&run, true, false, false);
	expect_wait_words(
		&run,
		"poll for 4000 us, then nap 20 us at a time (latency, the peer's address is not this side's: another host)");
	assert_string_equal(bench_peer_rule_name(run.peer_rule), "address");
	assert_string_equal(bench_peer_rule_name(BENCH_PEER_BY_GID), "gid");
}

static void wait_options_override_where(void **state)
{
	struct bench_config lat = {.mode = BENCH_LAT, .op = BENCH_OP_SEND};
	struct bench_config read = {.mode = BENCH_LAT, .op = BENCH_OP_READ};
	struct bench_run run;

	(void)state;
	/* --busy-poll makes no channel: it polls, yielding on one host */
	run = wait_for(&lat, false, false, false);
	assert_int_equal(run.wait_why, BENCH_WHY_BUSY_POLL);
	assert_int_equal(run.spin_ns, UINT64_MAX);
	assert_true(run.own_cpu);
	expect_wait_words(&run, "polling only (--busy-poll)");
	run = wait_for(&lat, false, false, true);
	assert_false(run.own_cpu);
	/* ... but not for a READ's latency: only the device answers it */
	run = wait_for(&read, false, false, true);
	assert_true(run.own_cpu);
	run = wait_for(&lat, true, true, false);
	assert_int_equal(run.wait_why, BENCH_WHY_EVENTS);
	assert_int_equal(run.spin_ns, 0);
	expect_wait_words(&run, "sleep on the completion channel at once (-e)");
}

static void gid_listed_in_the_table(void **state)
{
	struct ibv_gid_entry table[3] = {0};
	uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff, 192, 0, 2, 1};
	uint8_t other[16] = {[10] = 0xff, [11] = 0xff, 192, 0, 2, 2};

	(void)state;
	table[0].gid.raw[0] = 0xfe; /* fe80::, a link-local one */
	table[0].gid.raw[1] = 0x80;
	memcpy(table[2].gid.raw, mapped, 16);
	assert_true(bench_gid_listed(table, 3, mapped));
	assert_false(bench_gid_listed(table, 3, other));
	assert_false(bench_gid_listed(table, 2, mapped));
	assert_false(bench_gid_listed(table, 0, mapped));
}

/* Without a GID (InfiniBand without a GRH) the LID tells, and RoCE's LID
 * of 0 tells nothing: the GID table is not looked at. */
static void peer_without_gid_by_its_lid(void **state)
{
	struct qp_info local = {.lid = 5}, remote = {.lid = 5};
	struct gid_table none = {0};

	(void)state;
	assert_true(bench_peer_on_this_host(&none, &local, &remote));
	remote.lid = 6;
	assert_false(bench_peer_on_this_host(&none, &local, &remote));
	local.lid = remote.lid = 0;
	assert_false(bench_peer_on_this_host(&none, &local, &remote));
}

/* --- the JSON --- */

/* The JSON written for @count results of @bc, read back into @buf. */
static void json_of(const struct bench_config *bc,
		    const struct bench_result *results, size_t count,
		    bool complete, char *buf, size_t len)
{
	struct bench_run run = {.bc = bc, .signal_every = 1, .max_inline = 236};
	struct bench_test_info info = {
		.device = "rxe0",
		.port = 1,
		.link_layer = "Ethernet",
		.path_mtu = 1024,
		.gid_index = 1,
		.gid_type = "RoCE v2",
		.transport = "RC",
		.started = 1700000000, /* 2023-11-14T22:13:20Z */
	};
	char path[] = "/tmp/test_bench_jsonXXXXXX";
	size_t n;
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	bench_wait_choose(&run, true, false, false);
	assert_int_equal(bench_write_json(bc, path, &run, &info, results, count,
					  complete),
			 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
}

static void expect_in(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("'%s' not in:\n%s", want, text);
}

static void json_has_test_info_and_schema(void **state)
{
	struct bench_config bc = {
		.mode = BENCH_LAT, .op = BENCH_OP_SEND, .tx_depth = 1};
	struct bench_result r = {.size = 2, .iters = 1000};
	char buf[4096];

	(void)state;
	r.lat.t_typical = 380.25;
	json_of(&bc, &r, 1, true, buf, sizeof(buf));
	expect_in(buf, "{\"schema_version\": 4, \"mode\": \"lat\"");
	expect_in(
		buf,
		"\"test_info\": {\"program\": \"rdma_bench\", \"version\": \"");
	expect_in(
		buf,
		"\"device\": \"rxe0\", \"port\": 1, \"link_layer\": \"Ethernet\", \"path_mtu\": 1024, \"gid_index\": 1, \"gid_type\": \"RoCE v2\", \"transport\": \"RC\", \"tx_depth\": 1, \"cq_mod\": 1, \"max_inline\": 236, ");
	expect_in(
		buf,
		"\"wait\": {\"name\": \"poll-then-nap\", \"spin_us\": 4000, \"nap_us\": 20, \"peer_on_this_host\": false, \"peer_told_by\": \"gid\", \"words\": \"poll for 4000 us, then nap 20 us at a time\", \"reason\": \"latency, the peer's GID is not one of this device's: another host\"}");
	expect_in(buf, "\"timestamp\": \"2023-11-14T22:13:20Z\"}");
	expect_in(buf, "\"complete\": true, \"results\": [");
	expect_in(buf, "\"t_typical\": 380.250");
}

/* Sizes done before a failure are kept; a figure that is not finite is
 * null, as JSON has no NaN or infinity. */
static void json_keeps_the_sizes_done_and_no_nan(void **state)
{
	struct bench_config bc = {.mode = BENCH_BW, .op = BENCH_OP_WRITE};
	struct bench_result r[2] = {{.size = 2, .iters = 5},
				    {.size = 4, .iters = 5}};
	char buf[4096];

	(void)state;
	r[0].bw.avg_bytes_per_sec = NAN;
	r[0].bw.peak_bytes_per_sec = INFINITY;
	r[0].bw.msg_rate_mpps = 0.5;
	r[0].cpu_client = 97.25;
	r[0].cpu_server = NAN;
	json_of(&bc, r, 1, false, buf, sizeof(buf));
	expect_in(buf,
		  "\"complete\": false, \"results\": [\n  {\"bytes\": 2, ");
	expect_in(
		buf,
		"\"bw_peak\": null, \"bw_avg\": null, \"msg_rate\": 0.500000, \"cpu_client_percent\": 97.2, \"cpu_server_percent\": null}\n]}");
	assert_null(strstr(buf, "\"bytes\": 4"));
	assert_null(strstr(buf, ": nan"));
	assert_null(strstr(buf, ": inf"));
	assert_null(strstr(buf, ": -nan"));
}

/* -H in the JSON: the samples, and each bucket with its edges and count. */
static void json_has_the_histogram(void **state)
{
	struct bench_config bc = {.mode = BENCH_LAT, .op = BENCH_OP_SEND};
	static struct bench_result r = {.size = 2, .iters = 4};
	uint64_t d[3] = {1000, 1000, 2000};
	char buf[8192];

	(void)state;
	lat_histogram_compute(d, 3, 1, &r.hist);
	json_of(&bc, &r, 1, true, buf, sizeof(buf));
	expect_in(
		buf,
		"\"histogram\": {\"samples\": 3, \"buckets_per_octave\": 4, \"buckets\": [[0.8611, 1.0240, 2], [1.0240, 1.2177, 0], [1.2177, 1.4482, 0], [1.4482, 1.7222, 0], [1.7222, 2.0480, 1]]}");
}

/* -b in the JSON: the row's sum, then each direction. */
static void json_has_both_directions(void **state)
{
	struct bench_config bc = {
		.mode = BENCH_BW, .op = BENCH_OP_WRITE, .bidir = true};
	static struct bench_result r = {.size = 4096, .iters = 100};
	char buf[8192];

	(void)state;
	r.bw = (struct bw_stats){3 * 1048576.0, 1048576.0, 0.25};
	r.bw_back = (struct bw_stats){1048576.0, 2 * 1048576.0, 0.5};
	r.cpu_client = r.cpu_server = NAN;
	json_of(&bc, &r, 1, true, buf, sizeof(buf));
	expect_in(
		buf,
		"\"bw_peak\": 4.000, \"bw_avg\": 3.000, \"msg_rate\": 0.750000, \"directions\": {\"client_to_server\": {\"bw_peak\": 3.000, \"bw_avg\": 1.000, \"msg_rate\": 0.250000}, \"server_to_client\": {\"bw_peak\": 1.000, \"bw_avg\": 2.000, \"msg_rate\": 0.500000}}");
}

/* -q in the JSON: each QP's messages and figures after the row's. */
static void json_has_each_qp(void **state)
{
	struct bench_config bc = {
		.mode = BENCH_BW, .op = BENCH_OP_WRITE, .qps = 2};
	static struct bench_result r = {.size = 4096, .iters = 200, .qps = 2};
	char buf[8192];

	(void)state;
	r.bw = (struct bw_stats){NAN, 3 * 1048576.0, 0.75};
	r.per_qp[0] = (struct bench_qp_result){
		0x11, 100, {1048576.0, 1048576.0, 0.25}};
	r.per_qp[1] = (struct bench_qp_result){
		0x12, 100, {2 * 1048576.0, 2 * 1048576.0, 0.5}};
	r.cpu_client = r.cpu_server = NAN;
	json_of(&bc, &r, 1, true, buf, sizeof(buf));
	expect_in(
		buf,
		"\"iterations\": 200, \"bw_peak\": null, \"bw_avg\": 3.000, \"msg_rate\": 0.750000, \"per_qp\": [{\"qp_num\": 17, \"messages\": 100, \"bw_peak\": 1.000, \"bw_avg\": 1.000, \"msg_rate\": 0.250000}, {\"qp_num\": 18, \"messages\": 100, \"bw_peak\": 2.000, \"bw_avg\": 2.000, \"msg_rate\": 0.500000}]");
}

/* --run_infinitely in the JSON: the whole run's row, then each period. */
static void json_has_the_periods(void **state)
{
	struct bench_config bc = {
		.mode = BENCH_BW, .op = BENCH_OP_WRITE, .infinite = true};
	static const struct bench_period p[2] = {
		{5.0, 100, {NAN, 1048576.0, 0.25}},
		{5.5, 0, {NAN, 0, 0}},
	};
	static struct bench_result r = {.size = 4096, .iters = 100};
	char buf[8192];

	(void)state;
	r.periods = p;
	r.period_count = 2;
	r.seconds = 10.5;
	r.bw = (struct bw_stats){NAN, 0.5 * 1048576.0, 0.125};
	r.cpu_client = r.cpu_server = NAN;
	json_of(&bc, &r, 1, true, buf, sizeof(buf));
	expect_in(
		buf,
		"\"periods\": [{\"seconds\": 5.000, \"iterations\": 100, \"bw_peak\": null, \"bw_avg\": 1.000, \"msg_rate\": 0.250000}, {\"seconds\": 5.500, \"iterations\": 0, \"bw_peak\": null, \"bw_avg\": 0.000, \"msg_rate\": 0.000000}]");
}

/* --report-counters in the JSON: the counters that moved, and resends. */
static void json_has_the_counters(void **state)
{
	struct bench_config bc = {.mode = BENCH_BW, .op = BENCH_OP_WRITE};
	static struct bench_result r = {.size = 2, .iters = 5};
	static struct port_counters before, after;
	struct bench_test_info info = {
		.device = "rxe0",
		.port = 1,
		.link_layer = "Ethernet",
		.path_mtu = 1024,
		.gid_index = 1,
		.gid_type = "RoCE v2",
		.transport = "RC",
	};
	struct bench_run run = {.bc = &bc, .signal_every = 1};
	char path[] = "/tmp/test_bench_jsonXXXXXX";
	char buf[8192];
	size_t n;
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	before = (struct port_counters){
		.port_dir = "/sys/class/infiniband/rxe0/ports/1",
		.folders = 1,
		.count = 3,
		.c = {{"completer_retry_err", 1},
		      {"rcvd_pkts", 10},
		      {"sent_pkts", 100}}};
	after = before;
	after.c[0].value = 4;
	after.c[2].value = 2100;
	info.counters_before = &before;
	info.counters_after = &after;
	assert_true(fd >= 0);
	close(fd);
	bench_wait_choose(&run, true, false, false);
	assert_int_equal(bench_write_json(&bc, path, &run, &info, &r, 1, true),
			 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	expect_in(
		buf,
		"\"counters\": {\"port_dir\": \"/sys/class/infiniband/rxe0/ports/1\", \"moved\": {\"completer_retry_err\": 3, \"sent_pkts\": 2000}, \"resent\": 3}");
}

/* --out_json_file names a file the client could not write after the run: refused
 * before it starts, one line. */
static void json_path_unwritable_is_refused(void **state)
{
	(void)state;
	expect_usage_error(
		parse_bench("lat", "--out_json_file",
			    "/nonexistent/dir/out.json", "host", (char *)NULL),
		"rdma_bench: invalid --out_json_file value '/nonexistent/dir/out.json' (cannot write it: No such file or directory)\n");
	expect_usage_error(
		parse_bench("lat", "--out_json_file", "/tmp", "host",
			    (char *)NULL),
		"rdma_bench: invalid --out_json_file value '/tmp' (cannot write it: Is a directory)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(median_of_odd_and_even_counts),
		cmocka_unit_test(patience_own_cpu_gives_up_at_its_bound),
		cmocka_unit_test(patience_shared_cpu_sleeps_then_gives_up),
		cmocka_unit_test(patience_napping_wait),
		cmocka_unit_test(patience_long_spin_looks_every_1024),
		cmocka_unit_test(lat_stats_known_array),
		cmocka_unit_test(lat_stats_halves_round_trips),
		cmocka_unit_test(lat_stats_needs_more_than_the_tail),
		cmocka_unit_test(bw_stats_known_times),
		cmocka_unit_test(bw_stats_peak_finds_the_fastest_window),
		cmocka_unit_test(bw_stats_peak_of_a_burst),
		cmocka_unit_test(bw_stats_peak_matches_pair_by_pair),
		cmocka_unit_test(bw_stats_peak_at_the_largest_n),
		cmocka_unit_test(bw_stats_refuses_no_time),
		cmocka_unit_test(tick_rate_from_two_readings),
		cmocka_unit_test(ticks_to_ns_keeps_missing_times),
		cmocka_unit_test(ticks_keep_a_steady_rate),
		cmocka_unit_test(bench_help_needs_no_measurement),
		cmocka_unit_test(bench_lat_defaults_are_perftest_ones),
		cmocka_unit_test(bench_bw_defaults_are_perftest_ones),
		cmocka_unit_test(bench_bw_large_sizes_signal_every_send),
		cmocka_unit_test(bench_every_option),
		cmocka_unit_test(bench_lat_send_queue_follows_cq_mod),
		cmocka_unit_test(bench_all_sizes_are_perftest_ones),
		cmocka_unit_test(bench_all_sizes_up_to_size),
		cmocka_unit_test(bench_atomics_are_eight_bytes),
		cmocka_unit_test(bench_cq_mod_follows_a_small_tx_depth),
		cmocka_unit_test(bench_region_halves_are_64k),
		cmocka_unit_test(bench_rx_depth_covers_the_send_window),
		cmocka_unit_test(bench_bad_values),
		cmocka_unit_test(bench_bad_combinations),
		cmocka_unit_test(bench_needs_rc),
		cmocka_unit_test(params_round_trip),
		cmocka_unit_test(params_mismatch_names_the_difference),
		cmocka_unit_test(wait_follows_where_the_peer_is),
		cmocka_unit_test(iwarp_receiver_polls_only),
		cmocka_unit_test(wait_options_override_where),
		cmocka_unit_test(peer_by_its_address),
		cmocka_unit_test(wait_reason_names_the_address_rule),
		cmocka_unit_test(gid_listed_in_the_table),
		cmocka_unit_test(peer_without_gid_by_its_lid),
		cmocka_unit_test(json_has_test_info_and_schema),
		cmocka_unit_test(json_keeps_the_sizes_done_and_no_nan),
		cmocka_unit_test(json_path_unwritable_is_refused),
		cmocka_unit_test(bench_takes_perftest_options),
		cmocka_unit_test(bench_refuses_perftest_options_it_lacks),
		cmocka_unit_test(bench_path_options),
		cmocka_unit_test(bench_post_list_and_inline_take_effect),
		cmocka_unit_test(bench_new_api_reaches_the_resources),
		cmocka_unit_test(json_has_the_histogram),
		cmocka_unit_test(json_has_both_directions),
		cmocka_unit_test(json_has_each_qp),
		cmocka_unit_test(lat_timed_stats_average_alone),
		cmocka_unit_test(json_has_the_periods),
		cmocka_unit_test(bw_timed_stats_known_counts),
		cmocka_unit_test(bench_duration_option),
		cmocka_unit_test(json_has_the_counters),
		cmocka_unit_test(histogram_buckets_a_doubling_in_four),
		cmocka_unit_test(histogram_halves_round_trips),
		cmocka_unit_test(counters_read_from_both_folders),
		cmocka_unit_test(counters_of_a_port_without_any),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
