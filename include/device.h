/* SPDX-License-Identifier: MIT */
#ifndef DEVICE_H
#define DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include <sys/socket.h>

#include <infiniband/verbs.h>

#include "common/trace.h"

struct gid_table;

/* The source GID the QP uses, and how it was chosen. */
struct gid_choice {
	int index; /* -1: no GRH (InfiniBand without -g) */
	union ibv_gid gid;
	enum ibv_gid_type type;
	bool automatic;
	/* RoCE without -g: chosen when connecting, by the address of the TCP
	 * connection to the peer (device_choose_peer_gid); index -1 until */
	bool by_peer;
	/* by_peer, and that address has no GID here (TCP over another
	 * network): the port's one routable RoCE v2 GID was taken */
	bool tcp_elsewhere;
	uint32_t ndev_ifindex; /* RoCE: the netdev under the GID; 0: none */
};

/*
 * The bytes a RoCE v2 packet adds to its payload on the netdev: IPv6 (40,
 * the larger IP header), UDP 8, BTH 12, the largest extended header of the
 * operations here (AtomicETH 28) and the ICRC 4. The netdev's MTU must
 * carry the IB MTU plus these.
 */
#define ROCE_PACKET_OVERHEAD (40 + 8 + 12 + 28 + 4)
/* A netdev MTU every Ethernet takes, to suggest in a fix. */
#define ETHERNET_MTU 1500

/*
 * The device a program uses from @list (@count devices): the one called
 * @name, or without a name the first one that is not iWARP (the TCP
 * exchange cannot connect an iWARP QP), or with iWARP devices alone the
 * first of them. NULL if there is none. Pure: every program that opens a
 * device without -d chooses with it, so that all speak of one device.
 */
struct ibv_device *device_find(struct ibv_device **list, int count,
			       const char *name);

/* Open the device called @name (NULL: the one device_find chooses). */
int device_open(const char *name, struct ibv_context **ctx,
		const struct trace *tr);

/* Query port @port of @ctx and check that it is usable (ACTIVE). */
int device_query_port(struct ibv_context *ctx, uint8_t port,
		      struct ibv_port_attr *attr, const struct trace *tr);

/* The largest line device_no_gids_line writes, with its '\0'. */
#define DEVICE_NO_GIDS_MAX 256

/*
 * The line for port @port of device @dev whose GID table of @slots
 * entries holds none (a RoCE port gets its GIDs from its network
 * interface's addresses): what device_choose_gid says instead of a
 * failure to allocate an empty table. Pure.
 */
void device_no_gids_line(char *line, size_t len, const char *dev, uint8_t port,
			 int slots);

/*
 * Choose the source GID from @table, the port's: @requested (>= 0) if
 * given; on iWARP its one GID; on InfiniBand none (no GRH); with
 * @through_cm, none yet: RDMA_CM's, of the address it resolved; on RoCE
 * without -g, none yet: out->by_peer says that device_choose_peer_gid
 * chooses it once the TCP connection to the peer is there (the port must
 * have GIDs).
 */
int device_choose_gid(struct ibv_context *ctx, uint8_t port,
		      const struct ibv_port_attr *attr,
		      const struct gid_table *table, int requested,
		      bool through_cm, struct gid_choice *out,
		      const struct trace *tr);

/*
 * RoCE without -g: the GID of @port whose address is the local address of
 * @sock, this host's TCP connection to the peer (the client's source, the
 * address the server was reached on), RoCE v2 before v1, as RDMA_CM binds.
 * A loopback connection (the peer on this host) takes the first RoCE v2
 * IPv4-mapped GID. When no GID carries the address (TCP over another
 * network), the port's one routable RoCE v2 GID (out->tcp_elsewhere).
 * Says which GID and why in one line, and with -v the port's GID table;
 * when nothing decides, one line naming the address, the candidates (or
 * the port's GIDs) and the fix.
 */
int device_choose_peer_gid(struct ibv_context *ctx, uint8_t port,
			   const struct gid_table *table, int sock,
			   struct gid_choice *out, const struct trace *tr);

/*
 * The valid entries of a port's GID table, in index order: each one's
 * index, GID, type and the ifindex of the netdev under it (RoCE).
 */
struct gid_table {
	struct ibv_gid_entry *entries; /* device_free_gid_table() frees them */
	size_t count;
};

/*
 * Read the GID table of port @port of a device of @ports ports (its
 * phys_port_cnt) into @table with one ibv_query_gid_table, and with -v
 * show it (@tr may be NULL). The one reader of GIDs for every program: a connection reads it
 * once (resources_create), and every choice is made from what it read.
 * Prints nothing else: each program says a failure in its own words (a
 * run's is device_print_gid_table_error). 0, or -errno; @table is empty
 * then.
 */
int device_read_gid_table(struct ibv_context *ctx, uint8_t ports, uint8_t port,
			  struct gid_table *table, const struct trace *tr);

void device_free_gid_table(struct gid_table *table);

/* A run's line on stderr for device_read_gid_table's failure @err. */
void device_print_gid_table_error(struct ibv_context *ctx, uint8_t port,
				  int err);

/* The MTU of network interface @netdev, from sysfs; -errno if unknown. */
int netdev_mtu(const char *netdev, long *mtu);

/*
 * RoCE: if the netdev under @gid cannot carry packets of @path_mtu, say
 * so in one line on stderr (a warning: small messages still arrive).
 */
void device_warn_small_netdev(const struct gid_choice *gid,
			      enum ibv_mtu path_mtu);

/* Pure choices from given port data, for the above and for unit tests. */

/* True for ::ffff:a.b.c.d, the GID RoCE v2 derives from an IPv4 address. */
bool gid_is_ipv4_mapped(const union ibv_gid *gid);

/* The entry of GID index @index among @entries, or NULL if it is empty. */
const struct ibv_gid_entry *gid_entry_find(const struct ibv_gid_entry *entries,
					   size_t count, int index);

/*
 * The index of the one RoCE v2 entry whose address is routable (IPv4
 * outside 169.254.0.0/16, IPv6 outside fe80::/10): -ENOENT if there is
 * none, -E2BIG if there are several.
 */
int gid_pick_only_routable(const struct ibv_gid_entry *entries, size_t count);

/* Index (gid_index) of the first RoCE v2 IPv4-mapped entry, or -ENOENT. */
int gid_pick_roce_v2_ipv4(const struct ibv_gid_entry *entries, size_t count);

/*
 * The GID RoCE gives address @addr (AF_INET: ::ffff:a.b.c.d; AF_INET6: its
 * 16 bytes) into *@gid: 0, or -EAFNOSUPPORT for another family.
 */
int gid_of_address(const struct sockaddr *addr, union ibv_gid *gid);

/* @gid's address as people write it (an IPv4-mapped one as IPv4). */
void gid_address_text(const union ibv_gid *gid, char *buf, size_t len);

/* True if @addr is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x). */
bool address_is_loopback(const struct sockaddr *addr);

/*
 * Index of the entry whose GID is @gid: RoCE v2 first, then RoCE v1;
 * -ENOENT if none.
 */
int gid_pick_by_address(const struct ibv_gid_entry *entries, size_t count,
			const union ibv_gid *gid);

/* The path MTU to use on a port: its active MTU; -EINVAL if not valid. */
int mtu_choose(const struct ibv_port_attr *attr);

#endif
