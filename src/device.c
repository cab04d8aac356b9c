// SPDX-License-Identifier: MIT
/* Steps 1-3 of the manual: find the device, open it, query its port and GID. */
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

/* Room for what an error line adds in parentheses: names, indexes. */
#define HINT_MAX 256

/* " (devices found: ...)": which devices do exist, for the error line. */
static void list_devices(char *buf, size_t len, struct ibv_device **list,
			 int count)
{
	size_t used;
	int i;

	used = (size_t)snprintf(buf, len, " (devices found:");
	for (i = 0; i < count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " %s",
					 ibv_get_device_name(list[i]));
	if (used < len)
		snprintf(buf + used, len - used, "%s)", count ? "" : " none");
}

/*
 * Without -d, the first device, as in the manual, but one this path can
 * connect: the TCP exchange cannot bring up an iWARP QP (only RDMA_CM can),
 * so on a host with both an iWARP and a RoCE or InfiniBand device the
 * default is the latter. With iWARP devices alone, the first of them: its
 * refusal then says to add -R.
 */
struct ibv_device *device_find(struct ibv_device **list, int count,
			       const char *name)
{
	int i;

	if (!name) {
		for (i = 0; i < count; i++)
			if (list[i]->transport_type != IBV_TRANSPORT_IWARP)
				return list[i];
		return count ? list[0] : NULL;
	}
	for (i = 0; i < count; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			return list[i];
	return NULL;
}

int device_open(const char *name, struct ibv_context **ctx,
		const struct trace *tr)
{
	struct ibv_device **list;
	struct ibv_device *dev;
	int count, ret = 0;

	list = ibv_get_device_list(&count);
	if (!list) {
		ret = -errno;
		/* libibverbs finds no uverbs ABI version in sysfs */
		warnx("failed to get the RDMA device list: %s%s",
		      strerror(-ret),
		      ret == -ENOSYS
			      ? "; the kernel module ib_uverbs is not loaded: modprobe ib_uverbs"
			      : "");
		return ret;
	}
	dev = device_find(list, count, name);
	if (!dev) {
		char found[HINT_MAX];

		list_devices(found, sizeof(found), list, count);
		warnx("failed to find RDMA device %s: %s%s",
		      name ? name : "(any)", strerror(ENODEV), found);
		ret = -ENODEV;
		goto free_list;
	}
	*ctx = ibv_open_device(dev);
	if (!*ctx) {
		ret = -errno;
		warnx("failed to open device %s: %s", ibv_get_device_name(dev),
		      strerror(-ret));
		goto free_list;
	}
	trace_step(tr, "opened device %s (%d found)", ibv_get_device_name(dev),
		   count);
free_list:
	ibv_free_device_list(list);
	return ret;
}

/* " (rxe0 has ports 1 to 1)": the ports there are, for the error line. */
static void port_count(char *buf, size_t len, struct ibv_context *ctx)
{
	struct ibv_device_attr attr;

	buf[0] = '\0';
	if (ibv_query_device(ctx, &attr) == 0)
		snprintf(buf, len, " (%s has ports 1 to %u)",
			 ibv_get_device_name(ctx->device), attr.phys_port_cnt);
}

int device_query_port(struct ibv_context *ctx, uint8_t port,
		      struct ibv_port_attr *attr, const struct trace *tr)
{
	const char *dev = ibv_get_device_name(ctx->device);
	int ret;

	ret = ibv_query_port(ctx, port, attr);
	if (ret) {
		char ports[HINT_MAX];

		port_count(ports, sizeof(ports), ctx);
		warnx("failed to query port %u of %s: %s%s", port, dev,
		      strerror(ret), ports);
		return -ret;
	}
	if (attr->state != IBV_PORT_ACTIVE) {
		warnx("failed to use port %u of %s: %s (state %s)", port, dev,
		      strerror(ENETDOWN), ibv_port_state_str(attr->state));
		return -ENETDOWN;
	}
	trace_step(
		tr,
		"port %u of %s: %s, link layer %s, LID 0x%04x, active MTU %d",
		port, dev, ibv_port_state_str(attr->state),
		attr->link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet"
							    : "InfiniBand",
		attr->lid, mtu_to_bytes(attr->active_mtu));
	return 0;
}

bool gid_is_ipv4_mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0,    0,
					   0, 0, 0, 0, 0xff, 0xff};

	return memcmp(gid->raw, prefix, sizeof(prefix)) == 0;
}

int gid_pick_roce_v2_ipv4(const struct ibv_gid_entry *entries, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (entries[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    gid_is_ipv4_mapped(&entries[i].gid))
			return (int)entries[i].gid_index;
	return -ENOENT;
}

int gid_of_address(const struct sockaddr *addr, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (addr->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)addr;

		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &in->sin_addr, 4);
		return 0;
	}
	if (addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 =
			(const struct sockaddr_in6 *)addr;

		memcpy(gid->raw, &in6->sin6_addr, sizeof(gid->raw));
		return 0;
	}
	return -EAFNOSUPPORT;
}

bool address_is_loopback(const struct sockaddr *addr)
{
	static const union ibv_gid ipv6_loopback = {
		.raw = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};
	union ibv_gid gid;

	if (gid_of_address(addr, &gid))
		return false;
	if (gid_is_ipv4_mapped(&gid))
		return gid.raw[12] == 127;
	return memcmp(&gid, &ipv6_loopback, sizeof(gid)) == 0;
}

int gid_pick_by_address(const struct ibv_gid_entry *entries, size_t count,
			const union ibv_gid *gid)
{
	static const enum ibv_gid_type order[] = {IBV_GID_TYPE_ROCE_V2,
						  IBV_GID_TYPE_ROCE_V1};
	size_t i, t;

	for (t = 0; t < sizeof(order) / sizeof(order[0]); t++)
		for (i = 0; i < count; i++)
			if (entries[i].gid_type == order[t] &&
			    memcmp(&entries[i].gid, gid, sizeof(*gid)) == 0)
				return (int)entries[i].gid_index;
	return -ENOENT;
}

/*
 * True for the GID of an address a router forwards: IPv4 outside
 * 169.254.0.0/16, IPv6 outside fe80::/10 (link-local addresses stay on
 * one link).
 */
static bool gid_is_routable(const union ibv_gid *gid)
{
	if (gid_is_ipv4_mapped(gid))
		return !(gid->raw[12] == 169 && gid->raw[13] == 254);
	return !(gid->raw[0] == 0xfe && (gid->raw[1] & 0xc0) == 0x80);
}

/* A GID a connection over another network can fall back on. */
static bool gid_is_candidate(const struct ibv_gid_entry *entry)
{
	return entry->gid_type == IBV_GID_TYPE_ROCE_V2 &&
	       gid_is_routable(&entry->gid);
}

int gid_pick_only_routable(const struct ibv_gid_entry *entries, size_t count)
{
	int found = -ENOENT;
	size_t i;

	for (i = 0; i < count; i++) {
		if (!gid_is_candidate(&entries[i]))
			continue;
		if (found >= 0)
			return -E2BIG;
		found = (int)entries[i].gid_index;
	}
	return found;
}

int mtu_choose(const struct ibv_port_attr *attr)
{
	if (attr->active_mtu < IBV_MTU_256 || attr->active_mtu > IBV_MTU_4096)
		return -EINVAL;
	return attr->active_mtu;
}

const struct ibv_gid_entry *gid_entry_find(const struct ibv_gid_entry *entries,
					   size_t count, int index)
{
	size_t i;

	for (i = 0; i < count; i++)
		if ((int)entries[i].gid_index == index)
			return &entries[i];
	return NULL;
}

void device_free_gid_table(struct gid_table *table)
{
	free(table->entries);
	table->entries = NULL;
	table->count = 0;
}

/* -v: the port's GID table, a row a GID, as rdma-core's show_gids has it. */
static void trace_gid_table(const struct trace *tr, struct ibv_context *ctx,
			    uint8_t port, const struct gid_table *table)
{
	char text[INET6_ADDRSTRLEN], netdev[IF_NAMESIZE];
	size_t i;

	trace_step(tr, "GID table of %s port %u: INDEX GID VER NETDEV",
		   ibv_get_device_name(ctx->device), port);
	for (i = 0; i < table->count; i++) {
		const struct ibv_gid_entry *e = &table->entries[i];

		if (!e->ndev_ifindex ||
		    !if_indextoname(e->ndev_ifindex, netdev))
			snprintf(netdev, sizeof(netdev), "-");
		trace_step(tr, "  %u %s %s %s", e->gid_index,
			   gid_to_str(&e->gid, text, sizeof(text)),
			   gid_type_str(e->gid_type), netdev);
	}
}

/*
 * Room for the GIDs of all @ports ports: ibv_query_gid_table returns
 * every port's.
 */
static int gid_slots(struct ibv_context *ctx, uint8_t ports, size_t *slots)
{
	struct ibv_port_attr port;
	uint8_t p;
	int ret = 0;

	*slots = 0;
	for (p = 1; !ret && p <= ports; p++) {
		ret = ibv_query_port(ctx, p, &port);
		if (!ret && port.gid_tbl_len > 0)
			*slots += (size_t)port.gid_tbl_len;
	}
	return -ret;
}

/* ibv_query_gid_table gives no order: one port's, in index order. */
static int compare_entries(const void *a, const void *b)
{
	const struct ibv_gid_entry *x = a, *y = b;

	if (x->gid_index != y->gid_index)
		return x->gid_index < y->gid_index ? -1 : 1;
	return 0;
}

int device_read_gid_table(struct ibv_context *ctx, uint8_t ports, uint8_t port,
			  struct gid_table *table, const struct trace *tr)
{
	struct ibv_gid_entry *all;
	size_t slots, i;
	ssize_t n;
	int ret;

	*table = (struct gid_table){0};
	ret = gid_slots(ctx, ports, &slots);
	if (ret)
		return ret;
	all = calloc(slots ? slots : 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	n = ibv_query_gid_table(ctx, all, slots ? slots : 1, 0);
	if (n < 0) {
		free(all);
		return (int)n;
	}
	/* Keep @port's entries, in place. */
	for (i = 0; i < (size_t)n; i++)
		if (all[i].port_num == port)
			all[table->count++] = all[i];
	qsort(all, table->count, sizeof(*all), compare_entries);
	table->entries = all;
	trace_gid_table(tr, ctx, port, table);
	return 0;
}

void device_print_gid_table_error(struct ibv_context *ctx, uint8_t port,
				  int err)
{
	warnx("failed to read the GID table of %s port %u with ibv_query_gid_table: %s",
	      ibv_get_device_name(ctx->device), port, strerror(-err));
}

static int choose_automatic_gid(struct ibv_context *ctx, uint8_t port,
				const struct gid_table *table,
				struct gid_choice *out)
{
	int index;

	index = gid_pick_roce_v2_ipv4(table->entries, table->count);
	if (index < 0) {
		warnx("failed to find a RoCE v2 IPv4-mapped GID on %s port %u: %s; choose one with -g",
		      ibv_get_device_name(ctx->device), port, strerror(-index));
		return index;
	}
	out->index = index;
	out->automatic = true;
	return 0;
}

/* " (valid GID indexes: 0 1)": which hold an entry, for the error line. */
static void valid_gids(char *buf, size_t len, const struct gid_table *table)
{
	size_t used, i;

	used = (size_t)snprintf(buf, len, " (valid GID indexes:");
	for (i = 0; i < table->count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " %u",
					 table->entries[i].gid_index);
	if (used < len)
		snprintf(buf + used, len - used, "%s)",
			 table->count ? "" : " none");
}

/* Fill out->gid, out->type and out->ndev_ifindex for out->index. */
static int take_chosen_gid(struct ibv_context *ctx, uint8_t port,
			   const struct gid_table *table,
			   struct gid_choice *out)
{
	const struct ibv_gid_entry *entry;

	entry = gid_entry_find(table->entries, table->count, out->index);
	if (!entry) {
		char valid[HINT_MAX];

		valid_gids(valid, sizeof(valid), table);
		warnx("failed to use GID index %d of %s port %u: the entry is empty%s",
		      out->index, ibv_get_device_name(ctx->device), port,
		      valid);
		return -ENODATA;
	}
	out->gid = entry->gid;
	out->type = entry->gid_type;
	out->ndev_ifindex = entry->ndev_ifindex;
	return 0;
}

/* Room for the port's GIDs in the line that finds none for an address. */
#define GID_LIST_MAX 1024

/*
 * "3 ::ffff:10.0.0.1 (RoCE v2, eth0); ...": the GIDs, for the line; with
 * @candidates, the routable RoCE v2 ones alone, as "-g 3 ...".
 */
static void list_gids(char *buf, size_t len, const struct gid_table *table,
		      bool candidates)
{
	char text[INET6_ADDRSTRLEN], netdev[IF_NAMESIZE];
	size_t used = 0, i;

	buf[0] = '\0';
	for (i = 0; i < table->count && used < len; i++) {
		const struct ibv_gid_entry *e = &table->entries[i];
		int n;

		if (candidates && !gid_is_candidate(e))
			continue;
		if (!e->ndev_ifindex ||
		    !if_indextoname(e->ndev_ifindex, netdev))
			snprintf(netdev, sizeof(netdev), "no netdev");
		n = snprintf(buf + used, len - used, "%s%s%u %s (%s, %s)",
			     used ? "; " : "", candidates ? "-g " : "",
			     e->gid_index,
			     gid_to_str(&e->gid, text, sizeof(text)),
			     gid_type_str(e->gid_type), netdev);
		if (n < 0)
			return;
		used += (size_t)n;
	}
}

void gid_address_text(const union ibv_gid *gid, char *buf, size_t len)
{
	if (gid_is_ipv4_mapped(gid))
		inet_ntop(AF_INET, &gid->raw[12], buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len);
}

/* @addr as text (an IPv4-mapped one as IPv4), for the lines. */
static void address_text(const struct sockaddr *addr, char *buf, size_t len)
{
	union ibv_gid gid;

	if (gid_of_address(addr, &gid)) {
		snprintf(buf, len, "an address of family %d", addr->sa_family);
		return;
	}
	gid_address_text(&gid, buf, len);
}

/* The GID of the address @addr among @table's, or one line saying none. */
static int choose_by_address(struct ibv_context *ctx, uint8_t port,
			     const struct gid_table *table,
			     const struct sockaddr *addr,
			     struct gid_choice *out)
{
	char where[INET6_ADDRSTRLEN], gids[GID_LIST_MAX];
	union ibv_gid want;
	int index;

	if (address_is_loopback(addr))
		return choose_automatic_gid(ctx, port, table, out);
	address_text(addr, where, sizeof(where));
	index = gid_of_address(addr, &want);
	if (!index)
		index = gid_pick_by_address(table->entries, table->count,
					    &want);
	/*
	 * TCP over another network (a management NIC, a tunnel): the port's
	 * own addresses decide when one alone can leave the link.
	 */
	if (index < 0) {
		index = gid_pick_only_routable(table->entries, table->count);
		out->tcp_elsewhere = index >= 0;
	}
	if (index == -E2BIG) {
		list_gids(gids, sizeof(gids), table, true);
		warnx("failed to choose a GID of %s port %u: the TCP connection to the peer uses %s, an address of no GID of this port, and the port has several routable RoCE v2 GIDs (%s); give the -g of the one the peer can reach",
		      ibv_get_device_name(ctx->device), port, where, gids);
		return -ENOENT;
	}
	if (index < 0) {
		list_gids(gids, sizeof(gids), table, false);
		warnx("failed to find the GID of %s, the address this host's TCP connection to the peer uses, on %s port %u (its GIDs: %s); give -g N of a GID the peer can reach, or connect to an address of this port",
		      where, ibv_get_device_name(ctx->device), port, gids);
		return -ENOENT;
	}
	out->index = index;
	out->automatic = true;
	return 0;
}

int device_choose_peer_gid(struct ibv_context *ctx, uint8_t port,
			   const struct gid_table *table, int sock,
			   struct gid_choice *out, const struct trace *tr)
{
	char text[INET6_ADDRSTRLEN], tcp[INET6_ADDRSTRLEN];
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	int ret;

	if (getsockname(sock, (struct sockaddr *)&local, &len) < 0) {
		ret = -errno;
		warnx("failed to read the local address of the TCP connection to the peer: %s",
		      strerror(-ret));
		return ret;
	}
	*out = (struct gid_choice){.index = -1, .by_peer = true};
	ret = choose_by_address(ctx, port, table, (struct sockaddr *)&local,
				out);
	if (!ret)
		ret = take_chosen_gid(ctx, port, table, out);
	if (ret)
		return ret;
	printf("using GID index %d (%s, %s), ", out->index,
	       gid_type_str(out->type),
	       gid_to_str(&out->gid, text, sizeof(text)));
	address_text((struct sockaddr *)&local, tcp, sizeof(tcp));
	if (address_is_loopback((struct sockaddr *)&local))
		printf("the first RoCE v2 IPv4 GID: the peer is on this host (loopback)\n");
	else if (out->tcp_elsewhere)
		printf("the port's one routable RoCE v2 GID: the TCP connection to the peer uses %s, an address of another network\n",
		       tcp);
	else
		printf("the address of the TCP connection to the peer\n");
	trace_step(tr, "GID index %d: %s, type %s", out->index, text,
		   gid_type_str(out->type));
	return 0;
}

void device_no_gids_line(char *line, size_t len, const char *dev, uint8_t port,
			 int slots)
{
	snprintf(
		line, len,
		"failed to choose a GID of %s port %u: the port has no GIDs (%d slots, none in use): give its network interface an IP address, or check that it is up",
		dev, port, slots > 0 ? slots : 0);
}

/* An empty GID table: one line naming the port, not "out of memory". */
static int no_gids(struct ibv_context *ctx, uint8_t port,
		   const struct ibv_port_attr *attr)
{
	char line[DEVICE_NO_GIDS_MAX];

	device_no_gids_line(line, sizeof(line),
			    ibv_get_device_name(ctx->device), port,
			    attr->gid_tbl_len);
	warnx("%s", line);
	return -ENODATA;
}

/* -g's index must be one of the table's. */
static int check_gid_index(struct ibv_context *ctx, uint8_t port,
			   const struct ibv_port_attr *attr, int index)
{
	if (index < attr->gid_tbl_len)
		return 0;
	warnx("failed to use GID index %d of %s port %u: %s (the table has indexes 0 to %d)",
	      index, ibv_get_device_name(ctx->device), port, strerror(EINVAL),
	      attr->gid_tbl_len - 1);
	return -EINVAL;
}

int device_choose_gid(struct ibv_context *ctx, uint8_t port,
		      const struct ibv_port_attr *attr,
		      const struct gid_table *table, int requested,
		      bool through_cm, struct gid_choice *out,
		      const struct trace *tr)
{
	char text[INET6_ADDRSTRLEN];
	int ret;

	*out = (struct gid_choice){.index = requested};
	/*
	 * iWARP addresses by IP, through RDMA_CM: its one GID (the netdev's
	 * MAC) is the one there is, and no RoCE GID is to be picked.
	 */
	if (requested < 0 &&
	    ctx->device->transport_type == IBV_TRANSPORT_IWARP) {
		out->index = 0;
		requested = 0;
	}
	if (requested < 0 && attr->link_layer != IBV_LINK_LAYER_ETHERNET) {
		trace_step(tr,
			   "no GID given on InfiniBand: no GRH, LID routing");
		return 0;
	}
	if (table->count == 0)
		return no_gids(ctx, port, attr);
	ret = check_gid_index(ctx, port, attr, out->index);
	if (ret)
		return ret;
	if (requested < 0 && through_cm) {
		trace_step(
			tr,
			"GID: RDMA_CM's, the one of the address it resolved");
		return 0;
	}
	if (requested < 0) {
		/* RoCE: which GID reaches the peer is known once connected. */
		out->by_peer = true;
		trace_step(
			tr,
			"GID: chosen once connected, by the address of the TCP connection to the peer");
		return 0;
	}
	ret = take_chosen_gid(ctx, port, table, out);
	if (ret)
		return ret;
	gid_to_str(&out->gid, text, sizeof(text));
	trace_step(tr, "GID index %d: %s, type %s", out->index, text,
		   gid_type_str(out->type));
	return 0;
}

int netdev_mtu(const char *netdev, long *mtu)
{
	char path[IF_NAMESIZE + 32], text[16] = "";
	FILE *f;
	int ret = 0;

	*mtu = 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", netdev);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(text, sizeof(text), f))
		ret = -ENODATA;
	fclose(f);
	if (ret)
		return ret;
	*mtu = strtol(text, NULL, 10);
	return *mtu > 0 ? 0 : -EINVAL;
}

void device_warn_small_netdev(const struct gid_choice *gid,
			      enum ibv_mtu path_mtu)
{
	int need = mtu_to_bytes(path_mtu) + ROCE_PACKET_OVERHEAD;
	char name[IF_NAMESIZE];
	long mtu = 0;

	if (!gid->ndev_ifindex || !if_indextoname(gid->ndev_ifindex, name) ||
	    netdev_mtu(name, &mtu) || mtu >= need)
		return;
	warnx("warning: %s's MTU %ld cannot carry RoCE packets of the path MTU %d (they need %d bytes): messages that fill a packet will not arrive; fix: ip link set %s mtu %d",
	      name, mtu, mtu_to_bytes(path_mtu), need, name, ETHERNET_MTU);
}
