/*
 * The probe behind the slow-mode figures: a plain CPU loop with no RDMA,
 * timed with CLOCK_MONOTONIC, then 20000 cheap system calls. Run in the
 * guest every half second; a slow stretch of the emulated CPU shows as a
 * longer loop_ms.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

int main(void)
{
	volatile uint64_t x = 0;
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < 20000000ULL; i++)
		x += i * i;
	uint64_t t1 = now_ns();

	uint64_t t2 = now_ns();
	for (int i = 0; i < 20000; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		getppid();
	}
	uint64_t t3 = now_ns();

	printf("loop_ms %.1f sys_ms %.1f\n", (double)(t1 - t0) / 1e6,
	       (double)(t3 - t2) / 1e6);
	return 0;
}
