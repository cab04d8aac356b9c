/* SPDX-License-Identifier: MIT */
/*
 * What a port's counters moved over a run (port_counters.c): rdma_bench's
 * --report-counters, and the resends rdma_check --pair judges.
 */
#ifndef EXTRAS_PORT_COUNTERS_H
#define EXTRAS_PORT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PORT_COUNTERS_MAX 160
struct port_counter {
	char name[48];
	uint64_t value;
};

/* The numbers in a port's counters and hw_counters folders, by name. */
struct port_counters {
	char port_dir[256];   /* /sys/class/infiniband/DEV/ports/N */
	unsigned int folders; /* how many of the two folders exist */
	size_t count;
	struct port_counter c[PORT_COUNTERS_MAX];
};

/* The sysfs folder of @device's @port into @out. */
void port_counters_path(const char *device, unsigned int port, char *out,
			size_t len);
/* Every counter under @port_dir, sorted by name; none if it has none. */
void port_counters_read(const char *port_dir, struct port_counters *pc);
/*
 * What the counters that tell of loss moved, summed over the drivers'
 * names for each: this side sending again (after an ack timeout or a
 * sequence NAK), packets that arrived after a gap in the sequence (one
 * before them was lost on the way here), packets that arrived twice
 * (the peer sent again what had come: its ack was late, or lost), and
 * the packets sent and received.
 */
struct port_counters_loss {
	uint64_t resent;
	uint64_t out_of_seq;
	uint64_t duplicate;
	/*
	 * The RoCE packets sent and received, where the driver counts them
	 * apart from the netdev's other traffic (soft-RoCE's sent_pkts and
	 * rcvd_pkts); 0 where it does not.
	 */
	uint64_t sent;
	uint64_t received;
};

/*
 * The counters that went up from @before to @after, by how much, into
 * @moved (room for PORT_COUNTERS_MAX), and what they tell of loss in
 * *@loss. Returns how many moved.
 */
size_t port_counters_moved(const struct port_counters *before,
			   const struct port_counters *after,
			   struct port_counter *moved,
			   struct port_counters_loss *loss);
/*
 * The lines of --report-counters: each counter that moved, then the
 * resends, and the packets that came out of sequence or twice.
 */
void port_counters_print(const struct port_counters *before,
			 const struct port_counters *after, FILE *out);

#endif
