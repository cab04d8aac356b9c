/* SPDX-License-Identifier: MIT */
/* The benchmark's two clocks: the bounds of the waits, the timestamps. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h> /* __rdtsc() */
#endif

/* A reading of the benchmark's tick counter and of CLOCK_MONOTONIC. */
struct bench_clock {
	uint64_t ticks;
	uint64_t ns;
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

#endif
