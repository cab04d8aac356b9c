/* SPDX-License-Identifier: MIT */
/* The bound on a wait that sees no progress, inline in the hot loops. */
#ifndef BENCH_PATIENCE_H
#define BENCH_PATIENCE_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_run.h"
#include "bench_wait.h"
#include "common/cq_wait.h"
#include "common/interrupt.h"

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

#endif
