// SPDX-License-Identifier: MIT
/*
 * The host's checks: what must hold before the manual's steps can work,
 * asked of the kernel and of libibverbs directly, then a real set of the
 * resources a run creates (resources_create) to prove it.
 */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "check_priv.h"
#include "common/device_caps.h"
#include "extras/device_lessons.h"
#include "device.h"
#include "ops/ops.h"

/* ibv_port_attr.phys_state of a port whose link is up. */
#define PHYS_STATE_LINK_UP 5

/* What the checks found so far, for the ones after them. */
struct local {
	struct ibv_device **list;
	int count;
	struct ibv_context *ctx;
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	char netdev[IF_NAMESIZE]; /* "" until known */
	bool port_ok, gid_ok;
	bool iwarp; /* IBV_TRANSPORT_IWARP: QPs connect only through RDMA_CM */
};

/* The first line of the file at @path into @buf, without its newline. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		ret = -ENODATA;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

/* /dev/infiniband entries matching @pattern, as "uverbs0 uverbs1". */
static size_t list_nodes(const char *pattern, char *buf, size_t len)
{
	glob_t g;
	size_t i, used = 0;

	buf[0] = '\0';
	if (glob(pattern, 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? " " : "",
					 strrchr(g.gl_pathv[i], '/') + 1);
	i = g.gl_pathc;
	globfree(&g);
	return i;
}

/* The kernel side: ib_uverbs loaded, its device nodes; the device list. */
static void check_uverbs(struct check_report *r, struct local *l)
{
	char abi[16] = "", nodes[128];
	size_t n;

	l->list = ibv_get_device_list(&l->count);
	if (!l->list && errno == ENOSYS) {
		check_add(
			r, "uverbs", CHECK_FAIL, "modprobe ib_uverbs",
			"ibv_get_device_list: %s: the kernel module ib_uverbs is not loaded",
			strerror(ENOSYS));
		return;
	}
	if (!l->list) {
		check_add(r, "uverbs", CHECK_FAIL, NULL,
			  "ibv_get_device_list: %s", strerror(errno));
		return;
	}
	read_line("/sys/class/infiniband_verbs/abi_version", abi, sizeof(abi));
	n = list_nodes("/dev/infiniband/uverbs*", nodes, sizeof(nodes));
	check_add(r, "uverbs", CHECK_PASS, NULL,
		  "ib_uverbs loaded (ABI %s), /dev/infiniband: %s",
		  abi[0] ? abi : "unknown", n ? nodes : "no uverbs nodes");
}

/* A netdev that could carry soft-RoCE, for a fix: the first one up. */
static void guess_netdev(char *buf, size_t len)
{
	char path[300], state[16];
	const char *name;
	glob_t g;
	size_t i;

	snprintf(buf, len, "NETDEV");
	if (glob("/sys/class/net/*", 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		name = strrchr(g.gl_pathv[i], '/') + 1;
		if (strcmp(name, "lo") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/operstate", g.gl_pathv[i]);
		if (read_line(path, state, sizeof(state)) == 0 &&
		    strcmp(state, "up") == 0) {
			snprintf(buf, len, "%s", name);
			break;
		}
	}
	globfree(&g);
}

static void check_devices(struct check_report *r, struct local *l)
{
	char names[200] = "", netdev[IF_NAMESIZE], fix[CHECK_FIX_MAX];
	size_t used = 0;
	int i;

	if (!l->list)
		return;
	if (l->count == 0) {
		guess_netdev(netdev, sizeof(netdev));
		snprintf(
			fix, sizeof(fix),
			"load the adapter's driver; without one, soft-RoCE: rdma link add rxe0 type rxe netdev %s",
			netdev);
		check_add(r, "devices", CHECK_FAIL, fix,
			  "no RDMA device found");
		return;
	}
	for (i = 0; i < l->count && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used,
					 "%s%s", i ? ", " : "",
					 ibv_get_device_name(l->list[i]));
	check_add(r, "devices", CHECK_PASS, NULL, "%d found: %s", l->count,
		  names);
}

/* How the device was chosen, for its line: -d, or the choice of a run. */
static const char *device_how(const struct config *cfg, const struct local *l,
			      const struct ibv_device *dev)
{
	if (cfg->ib_devname)
		return "";
	if (dev == l->list[0])
		return " (the first one, without -d)";
	return " (the first one that is not iWARP, without -d)";
}

static void check_device(struct check_report *r, const struct config *cfg,
			 struct local *l)
{
	struct ibv_device *dev;
	char fix[CHECK_FIX_MAX];
	int ret;

	if (!l->list || l->count == 0)
		return;
	/* The very choice of a run, so that the check speaks of its device. */
	dev = device_find(l->list, l->count, cfg->ib_devname);
	if (!dev) {
		snprintf(fix, sizeof(fix), "-d %s",
			 ibv_get_device_name(
				 device_find(l->list, l->count, NULL)));
		check_add(r, "device", CHECK_FAIL, fix, "no device %s",
			  cfg->ib_devname);
		return;
	}
	l->ctx = ibv_open_device(dev);
	if (!l->ctx) {
		check_add(r, "device", CHECK_FAIL, NULL,
			  "ibv_open_device %s: %s", ibv_get_device_name(dev),
			  strerror(errno));
		return;
	}
	l->iwarp = l->ctx->device->transport_type == IBV_TRANSPORT_IWARP;
	ret = ibv_query_device(l->ctx, &l->dev);
	if (ret) {
		check_add(r, "device", CHECK_FAIL, NULL,
			  "ibv_query_device %s: %s", ibv_get_device_name(dev),
			  strerror(ret));
		ibv_close_device(l->ctx);
		l->ctx = NULL;
		return;
	}
	check_add(r, "device", CHECK_PASS, NULL, "%s%s, %u port%s, firmware %s",
		  ibv_get_device_name(dev), device_how(cfg, l, dev),
		  l->dev.phys_port_cnt, l->dev.phys_port_cnt == 1 ? "" : "s",
		  l->dev.fw_ver[0] ? l->dev.fw_ver : "unknown");
}

/* What the device's transport and capabilities rule out, as "no atomics, ...". */
static void ruled_out(const struct device_caps *caps, char *buf, size_t len)
{
	bool iwarp = caps->transport == IBV_TRANSPORT_IWARP;
	size_t used = 0;

	buf[0] = '\0';
#define RULE_OUT(cond, text)                                               \
	do {                                                               \
		if ((cond) && used < len)                                  \
			used += (size_t)snprintf(buf + used, len - used,   \
						 "%s%s", used ? ", " : "", \
						 text);                    \
	} while (0)
	RULE_OUT(caps->atomic_cap == IBV_ATOMIC_NONE, "no atomics");
	RULE_OUT(caps->max_mw == 0 ||
			 !(caps->device_cap_flags & IBV_DEVICE_MEM_WINDOW),
		 "no memory windows");
	RULE_OUT(iwarp, "no immediate data");
	RULE_OUT(!(caps->device_cap_flags & IBV_DEVICE_RC_RNR_NAK_GEN),
		 "no RNR NAK (--ops rnr)");
	RULE_OUT(iwarp, "no access NAK (--ops two_mr)");
	RULE_OUT(caps->max_sge < OP_SGE_MAX, "too few SGEs (--ops sge)");
	RULE_OUT(iwarp, "no UC/UD");
	RULE_OUT(caps->max_mcast_grp == 0, "no multicast");
#undef RULE_OUT
}

/*
 * The device's transport, and what it and the capabilities rule out.
 * iWARP connects QPs only through RDMA_CM: without -R that is a FAIL.
 */
static void check_transport_type(struct check_report *r,
				 const struct config *cfg,
				 const struct local *l)
{
	char out[224];
	struct device_caps caps;

	if (!l->ctx)
		return;
	device_caps_of(l->ctx, &l->dev, &caps);
	ruled_out(&caps, out, sizeof(out));
	if (caps.transport == IBV_TRANSPORT_IWARP)
		check_add(
			r, "transport",
			cfg->use_rdma_cm ? CHECK_PASS : CHECK_FAIL,
			cfg->use_rdma_cm ? NULL : "add -R",
			"iWARP (IBV_TRANSPORT_IWARP): connects only with -R%s%s",
			out[0] ? "; " : "", out);
	else
		check_add(r, "transport", CHECK_PASS, NULL, "%s: %s",
			  device_transport_str(caps.transport),
			  out[0] ? out
				 : "every lesson, over the TCP exchange or -R");
}

static const char *phys_state_str(uint8_t state)
{
	static const char *const names[] = {
		"unknown",  "Sleep",  "Polling",	   "Disabled",
		"Training", "LinkUp", "LinkErrorRecovery", "PhyTest",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state]
							: "unknown";
}

/* The netdev under the port, from the GID table's attributes (RoCE). */
static void find_netdev(const struct config *cfg, struct local *l, int index)
{
	char path[200];
	int i;

	for (i = index >= 0 ? index : 0; i < l->port.gid_tbl_len; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%d",
			 ibv_get_device_name(l->ctx->device), cfg->ib_port, i);
		if (read_line(path, l->netdev, sizeof(l->netdev)) == 0 &&
		    l->netdev[0])
			return;
		if (index >= 0)
			break;
	}
	l->netdev[0] = '\0';
}

static void port_fix(const struct config *cfg, const struct local *l, char *fix,
		     size_t len)
{
	const char *dev = ibv_get_device_name(l->ctx->device);

	if (l->port.link_layer != IBV_LINK_LAYER_ETHERNET)
		snprintf(
			fix, len,
			"check the cable and the switch; an INIT port waits for a subnet manager (opensm)");
	else if (l->netdev[0])
		snprintf(fix, len, "ip link set %s up", l->netdev);
	else
		snprintf(
			fix, len,
			"rdma link show %s/%u names the netdev: ip link set NETDEV up",
			dev, cfg->ib_port);
}

static void check_port(struct check_report *r, const struct config *cfg,
		       struct local *l)
{
	const char *dev;
	char fix[CHECK_FIX_MAX];
	char rate[64];
	int ret;

	if (!l->ctx)
		return;
	dev = ibv_get_device_name(l->ctx->device);
	ret = ibv_query_port(l->ctx, cfg->ib_port, &l->port);
	if (ret) {
		snprintf(fix, sizeof(fix), "-i 1 (%s has ports 1 to %u)", dev,
			 l->dev.phys_port_cnt);
		check_add(r, "port", CHECK_FAIL, fix, "port %u of %s: %s",
			  cfg->ib_port, dev, strerror(ret));
		return;
	}
	find_netdev(cfg, l, -1);
	if (l->port.state != IBV_PORT_ACTIVE) {
		port_fix(cfg, l, fix, sizeof(fix));
		check_add(r, "port", CHECK_FAIL, fix,
			  "port %u of %s: %s, physical state %s%s%s",
			  cfg->ib_port, dev, ibv_port_state_str(l->port.state),
			  phys_state_str(l->port.phys_state),
			  l->netdev[0] ? ", netdev " : "", l->netdev);
		return;
	}
	l->port_ok = true;
	/* The rate is what a cluster check's share-of-the-port floor needs. */
	check_port_rate(l->port.active_width, l->port.active_speed, rate,
			sizeof(rate));
	check_add(r, "port", CHECK_PASS, NULL,
		  "port %u of %s: %s, physical state %s, %s", cfg->ib_port, dev,
		  ibv_port_state_str(l->port.state),
		  phys_state_str(l->port.phys_state), rate);
}

static void check_link_layer(struct check_report *r, struct local *l)
{
	if (!l->port_ok)
		return;
	/* iWARP's Ethernet port carries TCP segments, not RoCE packets. */
	if (l->iwarp)
		check_add(
			r, "link-layer", CHECK_PASS, NULL,
			"Ethernet: iWARP, RDMAP in TCP segments (MPA, DDP), no GRH%s%s",
			l->netdev[0] ? ", netdev " : "", l->netdev);
	else if (l->port.link_layer == IBV_LINK_LAYER_ETHERNET)
		check_add(
			r, "link-layer", CHECK_PASS, NULL,
			"Ethernet: RoCE, every packet carries a GRH (GID)%s%s",
			l->netdev[0] ? ", netdev " : "", l->netdev);
	else
		check_add(r, "link-layer", CHECK_PASS, NULL,
			  "InfiniBand: LID 0x%04x, subnet manager LID 0x%04x",
			  l->port.lid, l->port.sm_lid);
}

/* "0 RoCE v2 fe80::1, 1 RoCE v2 ::ffff:192.0.2.1" for @t's entries. */
static void gid_list(const struct gid_table *t, char *buf, size_t len)
{
	const struct ibv_gid_entry *e = t->entries;
	char text[INET6_ADDRSTRLEN];
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < t->count && used < len; i++)
		used += (size_t)snprintf(
			buf + used, len - used, "%s%u %s %s", i ? ", " : "",
			e[i].gid_index, gid_type_str(e[i].gid_type),
			gid_to_str(&e[i].gid, text, sizeof(text)));
}

/* @ret is device_read_gid_table's: @t is the port's table if it is 0. */
static void check_gid_table(struct check_report *r, const struct config *cfg,
			    const struct local *l, const struct gid_table *t,
			    int ret)
{
	char list[CHECK_VALUE_MAX - 40], fix[CHECK_FIX_MAX];

	if (ret) {
		check_add(r, "gid-table", CHECK_FAIL, NULL,
			  "ibv_query_gid_table: %s", strerror(-ret));
		return;
	}
	if (t->count == 0) {
		snprintf(
			fix, sizeof(fix),
			"give %s an IP address: ip addr add ADDRESS/PREFIX dev %s",
			l->netdev[0] ? l->netdev : "the netdev",
			l->netdev[0] ? l->netdev : "NETDEV");
		check_add(r, "gid-table", CHECK_FAIL, fix,
			  "port %u has no GID (of %d slots)", cfg->ib_port,
			  l->port.gid_tbl_len);
		return;
	}
	gid_list(t, list, sizeof(list));
	check_add(r, "gid-table", CHECK_PASS, NULL, "%zu of %d: %s", t->count,
		  l->port.gid_tbl_len, list);
}

/* True for a RoCE GID of an IP address a route can reach: not fe80::/10. */
static bool gid_routable(const struct ibv_gid_entry *e)
{
	if (e->gid_type != IBV_GID_TYPE_ROCE_V2 &&
	    e->gid_type != IBV_GID_TYPE_ROCE_V1)
		return false;
	return !(e->gid.raw[0] == 0xfe && (e->gid.raw[1] & 0xc0) == 0x80);
}

/*
 * Without -g the programs take the GID of the address their TCP connection
 * uses: more than one routable GID means the address a peer is reached on
 * decides, which the check says.
 */
static void check_gid_choice(struct check_report *r, const struct config *cfg,
			     const struct gid_table *t)
{
	char list[CHECK_VALUE_MAX - 120], text[INET6_ADDRSTRLEN];
	size_t i, routable = 0, used = 0;

	list[0] = '\0';
	for (i = 0; i < t->count; i++) {
		if (!gid_routable(&t->entries[i]))
			continue;
		if (used < sizeof(list))
			used += (size_t)snprintf(
				list + used, sizeof(list) - used, "%s%u %s",
				routable ? ", " : "", t->entries[i].gid_index,
				gid_to_str(&t->entries[i].gid, text,
					   sizeof(text)));
		routable++;
	}
	if (cfg->gid_idx >= 0 || routable < 2)
		return;
	check_add(
		r, "gid-choice", CHECK_WARN,
		"connect to the address whose subnet the peer reaches, or give -g N",
		"%zu GIDs with addresses (%s): without -g each run takes the one of the address its TCP connection uses",
		routable, list);
}

/* The first routable RoCE GID of @t (IPv4 first, as RoCE v2's usual), or -ENOENT. */
static int gid_pick_routable(const struct gid_table *t)
{
	int pick = gid_pick_roce_v2_ipv4(t->entries, t->count);
	size_t i;

	for (i = 0; pick < 0 && i < t->count; i++)
		if (t->entries[i].gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    gid_routable(&t->entries[i]))
			pick = (int)t->entries[i].gid_index;
	return pick;
}

/*
 * The GID the run would use: -g's; without it, the one of the address of
 * the TCP connection to the peer (device_choose_peer_gid), so here the
 * first routable one stands for it.
 */
static void check_gid(struct check_report *r, const struct config *cfg,
		      struct local *l, const struct gid_table *t)
{
	const struct ibv_gid_entry *g;
	char text[INET6_ADDRSTRLEN], fix[CHECK_FIX_MAX], list[160];
	int pick = gid_pick_routable(t);

	gid_list(t, list, sizeof(list));
	if (cfg->gid_idx < 0 && l->iwarp) {
		l->gid_ok = true;
		check_add(
			r, "gid", CHECK_PASS, NULL,
			"none to choose on iWARP: RDMA_CM connects by IP address (entries: %s)",
			t->count ? list : "none");
		return;
	}
	if (cfg->gid_idx < 0 && l->port.link_layer != IBV_LINK_LAYER_ETHERNET) {
		l->gid_ok = true;
		check_add(
			r, "gid", CHECK_PASS, NULL,
			"none without -g on InfiniBand: no GRH, routed by LID");
		return;
	}
	if (cfg->gid_idx < 0 && pick < 0) {
		snprintf(
			fix, sizeof(fix),
			"ip addr add ADDRESS/PREFIX dev %s, or choose an index with -g",
			l->netdev[0] ? l->netdev : "NETDEV");
		check_add(
			r, "gid", CHECK_FAIL, fix,
			"no RoCE v2 GID of an IP address (IPv4, or IPv6 not link-local) to choose without -g (entries: %s)",
			t->count ? list : "none");
		return;
	}
	g = gid_entry_find(t->entries, t->count,
			   cfg->gid_idx < 0 ? pick : cfg->gid_idx);
	if (!g) {
		if (pick >= 0)
			snprintf(
				fix, sizeof(fix),
				"-g %d, or leave -g out: it is the index chosen without it",
				pick);
		else
			snprintf(fix, sizeof(fix),
				 "-g with one of the entries");
		check_add(r, "gid", CHECK_FAIL, fix, "-g %d: %s (entries: %s)",
			  cfg->gid_idx,
			  cfg->gid_idx >= l->port.gid_tbl_len
				  ? "outside the table"
				  : "an empty slot, no address",
			  t->count ? list : "none");
		return;
	}
	l->gid_ok = true;
	find_netdev(cfg, l, (int)g->gid_index);
	check_add(
		r, "gid", CHECK_PASS, NULL, "index %u (%s): %s %s%s%s",
		g->gid_index,
		cfg->gid_idx < 0
			? "the first with an address; without -g a run takes its TCP connection's"
			: "-g",
		gid_type_str(g->gid_type),
		gid_to_str(&g->gid, text, sizeof(text)),
		l->netdev[0] ? " on " : "", l->netdev);
}

static void check_gids(struct check_report *r, const struct config *cfg,
		       struct local *l)
{
	struct gid_table t;
	int ret;

	if (!l->port_ok)
		return;
	ret = device_read_gid_table(l->ctx, l->dev.phys_port_cnt, cfg->ib_port,
				    &t, NULL);
	check_gid_table(r, cfg, l, &t, ret);
	if (!ret)
		check_gid(r, cfg, l, &t);
	if (!ret && l->gid_ok && !l->iwarp &&
	    l->port.link_layer == IBV_LINK_LAYER_ETHERNET)
		check_gid_choice(r, cfg, &t);
	device_free_gid_table(&t);
}

static void check_mtu(struct check_report *r, const struct local *l)
{
	int ib = mtu_to_bytes(l->port.active_mtu);
	char fix[CHECK_FIX_MAX];
	long mtu;

	if (!l->port_ok)
		return;
	if (l->port.link_layer != IBV_LINK_LAYER_ETHERNET || !l->netdev[0]) {
		check_add(r, "mtu", CHECK_PASS, NULL,
			  "active %d bytes (port's largest %d)", ib,
			  mtu_to_bytes(l->port.max_mtu));
		return;
	}
	if (netdev_mtu(l->netdev, &mtu)) {
		check_add(r, "mtu", CHECK_WARN, NULL,
			  "active %d bytes; the MTU of %s is unknown", ib,
			  l->netdev);
		return;
	}
	if (mtu < ib + ROCE_PACKET_OVERHEAD) {
		snprintf(fix, sizeof(fix), "ip link set %s mtu %d", l->netdev,
			 ETHERNET_MTU);
		check_add(
			r, "mtu", CHECK_FAIL, fix,
			"active %d bytes, but %s's MTU %ld cannot carry it (RoCE packets of it need %d)",
			ib, l->netdev, mtu, ib + ROCE_PACKET_OVERHEAD);
		return;
	}
	check_add(
		r, "mtu", CHECK_PASS, NULL,
		"active %d bytes (port's largest %d); %s's MTU %ld carries it",
		ib, mtu_to_bytes(l->port.max_mtu), l->netdev, mtu);
}

/* True if this process holds CAP_IPC_LOCK: no locked-memory limit then. */
static bool has_ipc_lock(void)
{
	static const char key[] = "CapEff:";
	char line[128];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, sizeof(key) - 1) == 0) {
			caps = strtoull(line + sizeof(key) - 1, NULL, 16);
			break;
		}
	fclose(f);
	return caps >> CAP_IPC_LOCK & 1;
}

static void check_memlock(struct check_report *r,
			  const struct resources_sizes *sizes)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t psize = page > 0 ? (size_t)page : 4096;
	unsigned long long need = (sizes->buf_size + psize - 1) / psize * psize;
	struct rlimit lim;

	if (getrlimit(RLIMIT_MEMLOCK, &lim)) {
		check_add(r, "memlock", CHECK_WARN, NULL, "getrlimit: %s",
			  strerror(errno));
		return;
	}
	if (lim.rlim_cur == RLIM_INFINITY) {
		check_add(r, "memlock", CHECK_PASS, NULL,
			  "unlimited; a run registers %llu KiB", need / 1024);
		return;
	}
	if (has_ipc_lock()) {
		check_add(
			r, "memlock", CHECK_PASS, NULL,
			"limit %llu KiB, not applied: this process has CAP_IPC_LOCK; a run registers %llu KiB",
			(unsigned long long)lim.rlim_cur / 1024, need / 1024);
		return;
	}
	if (lim.rlim_cur < need) {
		check_add(
			r, "memlock", CHECK_FAIL,
			"ulimit -l unlimited, or a memlock line in /etc/security/limits.conf",
			"limit %llu KiB, a run registers %llu KiB: ibv_reg_mr will fail",
			(unsigned long long)lim.rlim_cur / 1024, need / 1024);
		return;
	}
	check_add(
		r, "memlock", CHECK_PASS, NULL,
		"limit %llu KiB, a run registers %llu KiB (rdma_bench: twice its largest message)",
		(unsigned long long)lim.rlim_cur / 1024, need / 1024);
}

/* The names of the operations with @flag, as "fetch_add, cmp_swap". */
static void ops_needing(unsigned int flag, char *buf, size_t len)
{
	size_t count, i, used = 0;
	const struct op_desc *ops = ops_table(&count);

	buf[0] = '\0';
	for (i = 0; i < count && used < len; i++)
		if (ops[i].flags & flag)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? ", " : "", ops[i].name);
}

static void check_atomics(struct check_report *r, const struct local *l)
{
	char names[64];

	if (!l->ctx)
		return;
	ops_needing(OP_NEEDS_ATOMICS, names, sizeof(names));
	if (l->dev.atomic_cap == IBV_ATOMIC_NONE)
		check_add(
			r, "atomics", CHECK_WARN,
			"use a device with atomic_cap ATOMIC_HCA or ATOMIC_GLOB for these lessons",
			"none: rules out rdma_lessons --ops %s and rdma_bench --op fetch_add|cmp_swap",
			names);
	else
		check_add(r, "atomics", CHECK_PASS, NULL,
			  "%s: rdma_lessons --ops %s",
			  l->dev.atomic_cap == IBV_ATOMIC_GLOB ? "ATOMIC_GLOB"
							       : "ATOMIC_HCA",
			  names);
}

static void check_mw(struct check_report *r, const struct local *l)
{
	char names[64];

	if (!l->ctx)
		return;
	ops_needing(OP_NEEDS_MW, names, sizeof(names));
	if (!(l->dev.device_cap_flags & IBV_DEVICE_MEM_WINDOW))
		check_add(
			r, "mem-window", CHECK_WARN,
			"use a device with MEM_WINDOW in device_cap_flags for this lesson",
			"none: rules out rdma_lessons --ops %s", names);
	else
		check_add(r, "mem-window", CHECK_PASS, NULL,
			  "MEM_WINDOW, up to %d: rdma_lessons --ops %s",
			  l->dev.max_mw, names);
}

/* How many SGEs a work request may carry: sge posts OP_SGE_MAX. */
static void check_sge(struct check_report *r, const struct local *l)
{
	if (!l->ctx)
		return;
	if (l->dev.max_sge < OP_SGE_MAX)
		check_add(
			r, "sge", CHECK_WARN,
			"use a device that allows 3 SGEs a work request for this lesson",
			"max_sge %d, fewer than the %d of rdma_lessons --ops sge: rules it out",
			l->dev.max_sge, OP_SGE_MAX);
	else
		check_add(
			r, "sge", CHECK_PASS, NULL,
			"max_sge %d a work request: rdma_lessons --ops sge posts %d",
			l->dev.max_sge, OP_SGE_MAX);
}

/* Shared receive queues: how many, and how deep each may be. */
static void check_srq(struct check_report *r, const struct local *l)
{
	if (!l->ctx)
		return;
	if (l->dev.max_srq == 0)
		check_add(
			r, "srq", CHECK_WARN,
			"use a device with max_srq above 0 for rdma_lessons --srq",
			"max_srq 0: no shared receive queue");
	else
		check_add(
			r, "srq", CHECK_PASS, NULL,
			"max_srq %d, up to %d receives each (max_srq_wr): rdma_lessons --srq",
			l->dev.max_srq, l->dev.max_srq_wr);
}

/*
 * Whether the provider registers dma-buf memory: ibv_reg_dmabuf_mr for no
 * file at all fails either way, with EOPNOTSUPP only when it has none.
 */
static int dmabuf_probe(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;
	int err;

	if (!pd)
		return errno;
	mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE);
	err = mr ? 0 : errno;
	if (mr)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	return err;
}

/*
 * What the device adds beyond the lessons, for check_features: its
 * extended attributes (all zeros from a provider without the extended
 * query: it has none of them), the dma-buf probe's errno and whether it
 * is an mlx5 device; false when no device was opened.
 */
static bool query_features(const struct local *l,
			   struct ibv_device_attr_ex *attr, int *dmabuf_err,
			   bool *mlx5)
{
	memset(attr, 0, sizeof(*attr));
	if (!l->ctx)
		return false;
	if (ibv_query_device_ex(l->ctx, NULL, attr))
		memset(attr, 0, sizeof(*attr));
	*dmabuf_err = dmabuf_probe(l->ctx);
	/* DC is mlx5's, through its direct verbs: any mlx5 device has it */
	*mlx5 = mlx5dv_is_supported(l->ctx->device);
	return true;
}

/* One QP of @type on @res's PD and CQ, destroyed at once: 0 or -errno. */
static int try_qp(struct resources *res, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = res->cq,
		.recv_cq = res->cq,
		.qp_type = type,
		.cap = {.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	struct ibv_qp *qp = ibv_create_qp(res->pd, &attr);

	if (!qp)
		return -errno;
	return -ibv_destroy_qp(qp);
}

static void check_transports(struct check_report *r, struct resources *res)
{
	int uc = try_qp(res, IBV_QPT_UC), ud = try_qp(res, IBV_QPT_UD);

	if (uc || ud)
		check_add(r, "transports", CHECK_WARN,
			  "use a device with that transport for its lessons",
			  "RC%s%s%s%s: rules out -c%s%s", uc ? "" : ", UC",
			  ud ? "" : ", UD", uc ? "; no UC QP: " : "",
			  uc ? strerror(-uc) : "", uc ? " uc" : "",
			  ud ? " ud" : "");
	else
		check_add(
			r, "transports", CHECK_PASS, NULL,
			"RC, UC and UD QPs can be created: rdma_lessons -c rc|uc|ud");
}

/* The resources of a real run: PD, MR, CQ and QP, then UC and UD QPs. */
static void check_resources(struct check_report *r, const struct config *cfg,
			    const struct resources_sizes *sizes,
			    const struct local *l, struct check_host *host)
{
	struct resources_sizes iwarp_sizes;
	struct resources res;
	int ret;

	if (!l->port_ok || !l->gid_ok)
		return;
	/*
	 * iWARP without -R: the transport line has said so; create what a
	 * run with -R would, to say what else holds.
	 */
	if (l->iwarp && !cfg->use_rdma_cm) {
		iwarp_sizes = *sizes;
		iwarp_sizes.needs.through_cm = true;
		sizes = &iwarp_sizes;
	}
	ret = resources_create(&res, cfg, sizes, NULL);
	if (ret) {
		check_add(
			r, "resources", CHECK_FAIL,
			ret == -ENOMEM || ret == -EPERM
				? "ulimit -l unlimited, or a memlock line in /etc/security/limits.conf"
				: NULL,
			"resources_create: %s (its line on stderr names the step)",
			strerror(-ret));
		return;
	}
	host->usable = true;
	check_add(r, "resources", CHECK_PASS, NULL,
		  "PD, MR of %zu bytes, CQ, RC QP 0x%06x created%s",
		  res.buf_size, res.qp->qp_num,
		  sizes == &iwarp_sizes ? " (as a run with -R creates them)"
					: "");
	check_transports(r, &res);
	resources_destroy(&res);
}

/* -R: librdmacm's kernel side, rdma_ucm, and its device node. */
static void check_rdma_cm(struct check_report *r, const struct config *cfg)
{
	enum check_status missing = cfg->use_rdma_cm ? CHECK_FAIL : CHECK_WARN;
	struct rdma_event_channel *ch;
	struct stat st;
	int err;

	if (stat("/dev/infiniband/rdma_cm", &st)) {
		check_add(
			r, "rdma-cm", missing, "modprobe rdma_ucm",
			"/dev/infiniband/rdma_cm: %s: the kernel module rdma_ucm is not loaded%s",
			strerror(errno),
			cfg->use_rdma_cm ? "" : "; rules out -R");
		return;
	}
	ch = rdma_create_event_channel();
	if (!ch) {
		/* the node is there: ENODEV means no RDMA device behind it */
		err = errno;
		check_add(r, "rdma-cm", missing, NULL,
			  "rdma_create_event_channel: %s%s%s", strerror(err),
			  err == ENODEV ? " (no RDMA device: see devices)" : "",
			  cfg->use_rdma_cm ? "" : "; rules out -R");
		return;
	}
	rdma_destroy_event_channel(ch);
	check_add(r, "rdma-cm", CHECK_PASS, NULL,
		  "/dev/infiniband/rdma_cm opens: -R can work");
}

void check_local(struct check_report *r, const struct config *cfg,
		 const struct resources_sizes *sizes, struct check_host *host)
{
	struct local l = {0};
	struct ibv_device_attr_ex features;
	int dmabuf_err = EOPNOTSUPP;
	bool opened, mlx5 = false;

	*host = (struct check_host){0};
	check_uverbs(r, &l);
	check_devices(r, &l);
	check_device(r, cfg, &l);
	check_transport_type(r, cfg, &l);
	check_port(r, cfg, &l);
	check_link_layer(r, &l);
	check_gids(r, cfg, &l);
	check_mtu(r, &l);
	check_memlock(r, sizes);
	check_atomics(r, &l);
	check_mw(r, &l);
	check_sge(r, &l);
	check_srq(r, &l);
	opened = query_features(&l, &features, &dmabuf_err, &mlx5);
	if (l.ctx) {
		host->is_roce = l.port.link_layer == IBV_LINK_LAYER_ETHERNET;
		ibv_close_device(l.ctx);
	}
	if (l.list)
		ibv_free_device_list(l.list);
	/* With the device closed: resources_create opens it again. */
	check_resources(r, cfg, sizes, &l, host);
	check_rdma_cm(r, cfg);
	/* Last: none of them is needed by the lessons. */
	if (opened)
		check_features(r, &features, dmabuf_err, mlx5);
}
