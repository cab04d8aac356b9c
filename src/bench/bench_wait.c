// SPDX-License-Identifier: MIT
/*
 * How the benchmark's waits go: whether the peer runs on this host, and the
 * wait that suits where it is (bench_wait.h says how a wait polls, naps and
 * sleeps).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include "bench_config.h"
#include "bench_run.h"
#include "bench_wait.h"
#include "device.h"
#include "exchange.h"

bool bench_gid_listed(const struct ibv_gid_entry *entries, size_t count,
		      const uint8_t gid[16])
{
	size_t i;

	for (i = 0; i < count; i++)
		if (memcmp(entries[i].gid.raw, gid, 16) == 0)
			return true;
	return false;
}

/*
 * On one host an RDMA_CM client connects to this host's own address and
 * sends from it, so both ends of the connection have one address; hosts
 * apart have two. A pair told apart wrongly can only be one host taken
 * for two, whose wait is sound anywhere.
 */
bool bench_addr_is_own(const struct sockaddr *local,
		       const struct sockaddr *peer)
{
	const struct sockaddr_in *l4 = (const struct sockaddr_in *)local;
	const struct sockaddr_in *p4 = (const struct sockaddr_in *)peer;
	const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)local;
	const struct sockaddr_in6 *p6 = (const struct sockaddr_in6 *)peer;

	if (local->sa_family != peer->sa_family)
		return false;
	if (local->sa_family == AF_INET)
		return l4->sin_addr.s_addr == p4->sin_addr.s_addr;
	if (local->sa_family == AF_INET6)
		return memcmp(&l6->sin6_addr, &p6->sin6_addr,
			      sizeof(l6->sin6_addr)) == 0;
	return false;
}

static bool gid_is_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return memcmp(gid, zero, sizeof(zero)) == 0;
}

/*
 * A GID is the address of a port: a peer whose GID is in our port's table
 * sends from this port, so it runs on this host, and one whose GID is not
 * runs elsewhere, or behind another port or device of this host (taken for
 * another host: it gets perftest's wait, which is sound anywhere). The
 * table is the one the resources read for the connection.
 */
bool bench_peer_on_this_host(const struct gid_table *gids,
			     const struct qp_info *local,
			     const struct qp_info *remote)
{
	/* InfiniBand without a GRH: only a LID names the port. RoCE has no
	 * LIDs (0 on both sides): no GID there tells nothing, so elsewhere. */
	if (gid_is_zero(remote->gid))
		return remote->lid != 0 && remote->lid == local->lid;
	return bench_gid_listed(gids->entries, gids->count, remote->gid);
}

/*
 * The wait for where the peer is:
 *
 * - --busy-poll polls only, -e sleeps on the channel at once.
 * - The peer on this host: poll for BENCH_SPIN_US, then sleep on the
 *   channel. Under soft-RoCE one CPU may run both sides and the device's
 *   work, and a side that sleeps hands that work the CPU: on a one-vCPU
 *   guest perftest's two polling sides hand the CPU over once a 4 ms
 *   scheduler tick, and a 2-byte SEND ping-pong is then 4 ms a half round
 *   trip against about 0.1 ms with the sleep (on the rig).
 * - Bandwidth with the peer on another host: the same, as the work for the
 *   messages in flight runs on this CPU while the wait sleeps (4 KiB SEND
 *   between two guests: 7.7-9.3 MiB/s with the sleep, 3.2-6.2 polling).
 * - Latency with the peer on another host: poll as perftest does, for
 *   BENCH_LONG_SPIN_US, then nap BENCH_NAP_US at a time. A ping-pong, a
 *   READ or an atomic of a small message comes back well within the spin,
 *   on a real NIC and under soft-RoCE alike, and polling is the fastest
 *   way to see it: with naps after 100 us, a 2-byte SEND ping-pong between
 *   two guests was 1.36 times perftest's half round trip, polling through
 *   even with it (on the rig). Only an answer that takes longer than the
 *   spin (a 1 MiB message under soft-RoCE: many frames for this side's
 *   kernel, and with guests on one host for QEMU's threads) is better
 *   served by giving the CPU away: 1 MiB READ between two guests, 30 ms
 *   with the naps against 35 polling through.
 * - READ and atomic latency, wherever the peer is: the same, and
 *   --busy-poll never yields there. No program of the peer takes part,
 *   only its device, so there is no side to hand the CPU to. With both
 *   sides on one guest, siw0 (whose work runs in kernel threads) was
 *   slower with the yields and the sleep: in four rounds, by the median,
 *   64 KiB READ took 354-599 us polling 100 us with yields and then
 *   sleeping, 237-464 polling only (three rounds under 264), perftest
 *   252-686; 4 KiB 115-136, 97-120 and 98-131. Over rxe0 the two waits
 *   were even at 4 KiB, 64 KiB and fetch_add (on the rig; why the
 *   kernel's scheduling does this is not traced).
 * - The receiver of a one-way SEND (or WRITE with immediate) bandwidth
 *   run on iWARP, with the peer on this host: poll only. Each message
 *   woke a sleeping receiver, which took the CPU and polled its 100 us
 *   while the client and soft-iWARP's kernel threads, which move the
 *   data, waited. On one guest's siw0, 64 KiB SENDs over four QPs gave
 *   190-206 MiB/s with the sleep, 244-268 polling (perftest 193-228);
 *   over one QP 174-190 against 246-266 (perftest 210-235), and at
 *   4 KiB 26-31 against 37-40 (perftest 27-29). On rxe0 the same change
 *   halved the figures (95-98 MiB/s against 50-54 over four QPs), so
 *   soft-RoCE's receiver keeps the sleep; a side that also sends (-b)
 *   measured even either way on siw0 and keeps it too.
 */
void bench_wait_choose(struct bench_run *run, bool has_channel, bool use_events,
		       bool peer_here)
{
	const struct bench_config *bc = run->bc;
	/* READ or atomic latency: only the peer's device answers */
	bool one_sided = bc->mode == BENCH_LAT && (bc->op == BENCH_OP_READ ||
						   bench_op_is_atomic(bc->op));
	/* the side that only takes the messages of a one-way bw run */
	bool receiver =
		bc->mode == BENCH_BW && !bc->bidir && !run->sender &&
		(bc->op == BENCH_OP_SEND || bc->op == BENCH_OP_WRITE_IMM);

	run->spin_ns = (uint64_t)BENCH_SPIN_US * 1000;
	run->nap_ns = 0;
	run->own_cpu = false;
	run->peer_here = peer_here;
	if (!has_channel) {
		run->spin_ns = UINT64_MAX; /* --busy-poll made no channel */
		run->own_cpu = !peer_here || one_sided;
		run->wait_why = BENCH_WHY_BUSY_POLL;
	} else if (use_events) {
		run->spin_ns = 0;
		run->wait_why = BENCH_WHY_EVENTS;
	} else if (peer_here && receiver && run->iwarp) {
		run->spin_ns = UINT64_MAX;
		run->wait_why = BENCH_WHY_IWARP_RECEIVER;
	} else if (peer_here && !one_sided) {
		run->wait_why = BENCH_WHY_ONE_HOST;
	} else if (bc->mode == BENCH_BW) {
		run->wait_why = BENCH_WHY_BANDWIDTH;
	} else {
		run->own_cpu = true;
		run->spin_ns = (uint64_t)BENCH_LONG_SPIN_US * 1000;
		run->nap_ns = (uint64_t)BENCH_NAP_US * 1000;
		run->wait_why =
			one_sided ? BENCH_WHY_ONE_SIDED : BENCH_WHY_OTHER_HOST;
	}
}

const char *bench_wait_reason(const struct bench_run *run)
{
	bool by_address = run->peer_rule == BENCH_PEER_BY_ADDRESS;

	switch (run->wait_why) {
	case BENCH_WHY_BUSY_POLL:
		return "--busy-poll";
	case BENCH_WHY_EVENTS:
		return "-e";
	case BENCH_WHY_ONE_HOST:
		return by_address
			       ? "the peer's address is this side's own: both sides on this host"
			       : "the peer's GID is one of this device's: both sides on this host";
	case BENCH_WHY_BANDWIDTH:
		return "bandwidth, the peer on another host: the CPU does the device's work while the wait sleeps";
	case BENCH_WHY_OTHER_HOST:
		return by_address
			       ? "latency, the peer's address is not this side's: another host"
			       : "latency, the peer's GID is not one of this device's: another host";
	case BENCH_WHY_ONE_SIDED:
		return "latency of a READ or atomic: only the peer's device answers, wherever the peer is";
	case BENCH_WHY_IWARP_RECEIVER:
		return "the receiver of a bandwidth run on iWARP, both sides on this host: a sleep's wake-ups take the CPU from soft-iWARP's kernel threads";
	}
	return "unknown";
}

const char *bench_peer_rule_name(enum bench_peer_rule rule)
{
	return rule == BENCH_PEER_BY_ADDRESS ? "address" : "gid";
}

const char *bench_wait_name(enum bench_wait_why why)
{
	switch (why) {
	case BENCH_WHY_BUSY_POLL:
	case BENCH_WHY_IWARP_RECEIVER:
		return "poll";
	case BENCH_WHY_EVENTS:
		return "sleep";
	case BENCH_WHY_ONE_HOST:
	case BENCH_WHY_BANDWIDTH:
		return "poll-then-sleep";
	case BENCH_WHY_OTHER_HOST:
	case BENCH_WHY_ONE_SIDED:
		return "poll-then-nap";
	}
	return "unknown";
}

int bench_wait_describe(const struct bench_run *run, char *buf, size_t len)
{
	switch (run->wait_why) {
	case BENCH_WHY_BUSY_POLL:
	case BENCH_WHY_IWARP_RECEIVER:
		return snprintf(buf, len, "polling only");
	case BENCH_WHY_EVENTS:
		return snprintf(buf, len,
				"sleep on the completion channel at once");
	case BENCH_WHY_ONE_HOST:
	case BENCH_WHY_BANDWIDTH:
		return snprintf(
			buf, len,
			"poll for %u us, then sleep on the completion channel",
			(unsigned int)(run->spin_ns / 1000));
	case BENCH_WHY_OTHER_HOST:
	case BENCH_WHY_ONE_SIDED:
		return snprintf(buf, len,
				"poll for %u us, then nap %u us at a time",
				(unsigned int)(run->spin_ns / 1000),
				(unsigned int)(run->nap_ns / 1000));
	}
	return snprintf(buf, len, "unknown");
}
