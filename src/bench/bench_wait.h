/* SPDX-License-Identifier: MIT */
/* How a side waits for a completion, and why (bench_wait.c). */
#ifndef BENCH_WAIT_H
#define BENCH_WAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <sys/socket.h>

struct bench_run;
struct gid_table;
struct qp_info;

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

#endif
