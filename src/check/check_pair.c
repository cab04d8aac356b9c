// SPDX-License-Identifier: MIT
/*
 * The pair's checks: the manual's steps between the two hosts, each timed
 * and judged: TCP, the QP-info exchange, the GIDs of both sides, the path
 * MTU, then one SEND, READ, WRITE and atomic, frames of every size each
 * way (check_path.c), and the packets lost over them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_priv.h"
#include "cm/cm.h"
#include "common/interrupt.h"
#include "ops/ops.h"
#include "qp.h"
#include "sock.h"

/* The RoCE v2 UDP port: the route check aims at it, sends nothing. */
#define ROCE_V2_UDP_PORT 4791

static void check_tcp(struct check_report *r, struct pair *p, int ret,
		      long long ms)
{
	const struct config *cfg = p->cfg;
	/* the program's own socket: with -R, the port after -p */
	unsigned int port = config_sock_port(cfg);
	char fix[CHECK_FIX_MAX];

	if (!ret) {
		if (p->client)
			check_add(r, "tcp", CHECK_PASS, NULL,
				  "connected to %s port %u in %lld ms",
				  cfg->server_name, port, ms);
		else
			check_add(r, "tcp", CHECK_PASS, NULL,
				  "a client connected to port %u after %lld ms",
				  port, ms);
		return;
	}
	if (!p->client && ret != -ETIMEDOUT) {
		check_add(
			r, "tcp", CHECK_FAIL,
			ret == -EADDRINUSE
				? "stop what holds the port, or give both sides another -p"
				: NULL,
			"port %u: %s", port, strerror(-ret));
		return;
	}
	if (!p->client) {
		snprintf(
			fix, sizeof(fix),
			"run rdma_check -p %u THIS_HOST on the peer within --accept-timeout",
			cfg->tcp_port);
		check_add(r, "tcp", CHECK_FAIL, fix,
			  "no client on port %u within %d s: %s", port,
			  cfg->accept_timeout_sec, strerror(-ret));
		return;
	}
	if (ret == -ECONNREFUSED) {
		snprintf(fix, sizeof(fix),
			 "start rdma_check --pair -p %u on %s first",
			 cfg->tcp_port, cfg->server_name);
		check_add(
			r, "tcp", CHECK_FAIL, fix,
			"%s port %u refused the connection for %d s: nothing listens there",
			cfg->server_name, port, cfg->connect_timeout_sec);
	} else if (ret == -ETIMEDOUT) {
		snprintf(
			fix, sizeof(fix),
			"let TCP port %u through the firewall of %s (iptables -I INPUT -p tcp --dport %u -j ACCEPT), and check the route: ping %s",
			port, cfg->server_name, port, cfg->server_name);
		check_add(
			r, "tcp", CHECK_FAIL, fix,
			"no answer from %s port %u within %d s: the packets are dropped on the way",
			cfg->server_name, port, cfg->connect_timeout_sec);
	} else {
		check_add(r, "tcp", CHECK_FAIL, NULL, "%s port %u: %s",
			  cfg->server_name, port, strerror(-ret));
	}
}

/* The QP info both sides sent: did it arrive, does the peer run rdma_check? */
static bool check_exchange(struct check_report *r, const struct pair *p,
			   int ret)
{
	char text[INET6_ADDRSTRLEN];
	union ibv_gid gid;
	const char *why;

	/* A QP number of 0 is the SMI's: the peer's info never came. */
	if (p->conn.remote.qp_num == 0) {
		check_add(r, "exchange", CHECK_FAIL,
			  "run the same version of rdma_check on both sides",
			  "no QP info from the peer: %s", strerror(-ret));
		return false;
	}
	if (qp_info_match(&p->conn.local, &p->conn.remote, &why)) {
		check_add(r, "exchange", CHECK_FAIL,
			  "run rdma_check on both sides",
			  "the peer runs something else: %s", why);
		return false;
	}
	memcpy(gid.raw, p->conn.remote.gid, sizeof(gid.raw));
	check_add(r, "exchange", CHECK_PASS, NULL,
		  "peer QP 0x%06x, LID 0x%04x, GID %s", p->conn.remote.qp_num,
		  p->conn.remote.lid,
		  p->conn.remote.flags & QP_INFO_HAS_GID
			  ? gid_to_str(&gid, text, sizeof(text))
			  : "none");
	return true;
}

/*
 * Is there a route from our GID's address to the peer's? A UDP socket
 * connected to it asks the kernel's routing table and sends nothing.
 */
static int find_route(const union ibv_gid *to, const char *netdev, char *src,
		      size_t len)
{
	struct sockaddr_storage ss = {0};
	socklen_t slen;
	int s, ret = 0;

	if (gid_is_ipv4_mapped(to)) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(ROCE_V2_UDP_PORT);
		memcpy(&in->sin_addr, to->raw + 12, 4);
		slen = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(ROCE_V2_UDP_PORT);
		memcpy(&in6->sin6_addr, to->raw, 16);
		/* a link-local address is reached only through its link */
		in6->sin6_scope_id = netdev[0] ? if_nametoindex(netdev) : 0;
		slen = sizeof(*in6);
	}
	s = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&ss, slen) < 0)
		ret = -errno;
	slen = sizeof(ss);
	if (!ret && getsockname(s, (struct sockaddr *)&ss, &slen) == 0)
		inet_ntop(
			ss.ss_family,
			ss.ss_family == AF_INET
				? (void *)&((struct sockaddr_in *)&ss)->sin_addr
				: (void *)&((struct sockaddr_in6 *)&ss)
					  ->sin6_addr,
			src, (socklen_t)len);
	close(s);
	return ret;
}

/* The netdev of our GID, for a link-local peer. */
static void gid_netdev(const struct pair *p, char *buf, size_t len)
{
	char path[200];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%d",
		 ibv_get_device_name(p->res.ctx->device), p->cfg->ib_port,
		 p->res.gid.index);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static bool check_gid_pair(struct check_report *r, const struct pair *p)
{
	const struct qp_info *local = &p->conn.local, *remote = &p->conn.remote;
	char ours[INET6_ADDRSTRLEN], theirs[INET6_ADDRSTRLEN];
	char src[INET6_ADDRSTRLEN] = "", netdev[IF_NAMESIZE];
	union ibv_gid gid;
	const char *why;
	int ret;

	if (!(local->flags & QP_INFO_HAS_GID) &&
	    !(remote->flags & QP_INFO_HAS_GID)) {
		check_add(r, "gid-pair", CHECK_PASS, NULL,
			  "neither side uses a GRH: routed by LID");
		return true;
	}
	memcpy(gid.raw, local->gid, sizeof(gid.raw));
	gid_to_str(&gid, ours, sizeof(ours));
	memcpy(gid.raw, remote->gid, sizeof(gid.raw));
	gid_to_str(&gid, theirs, sizeof(theirs));
	if (qp_info_match_path(local, remote, &why)) {
		check_add(
			r, "gid-pair", CHECK_FAIL,
			"the same -g on both sides, or none: without -g each side takes the GID of its TCP connection's address",
			"ours %s %s, the peer's %s %s: %s",
			gid_type_str((enum ibv_gid_type)local->gid_type), ours,
			gid_type_str((enum ibv_gid_type)remote->gid_type),
			theirs, why);
		return false;
	}
	if (local->gid_type != IBV_GID_TYPE_ROCE_V2) {
		check_add(r, "gid-pair", CHECK_PASS, NULL,
			  "both %s: ours %s, the peer's %s",
			  gid_type_str((enum ibv_gid_type)local->gid_type),
			  ours, theirs);
		return true;
	}
	gid_netdev(p, netdev, sizeof(netdev));
	ret = find_route(&gid, netdev, src, sizeof(src));
	if (ret) {
		check_add(
			r, "gid-pair", CHECK_FAIL,
			"give both hosts addresses in one subnet, or a route between them (ip route)",
			"both RoCE v2, but no route from %s to %s: %s", ours,
			theirs, strerror(-ret));
		return false;
	}
	check_add(r, "gid-pair", CHECK_PASS, NULL,
		  "both RoCE v2 %s: ours %s, the peer's %s, routed from %s",
		  gid_is_ipv4_mapped(&gid) ? "IPv4" : "IPv6", ours, theirs,
		  src);
	return true;
}

/*
 * With -g on RoCE: is the GID given the one of the address this host's
 * TCP connection to the peer goes from? That address reached the peer;
 * another one may lie in another subnet or VLAN, on a path that does not
 * (a run then ends in retry exceeded). A warning with the -g that would
 * take the TCP connection's path; nothing to judge on one host. Without
 * -g, when TCP runs over another network: which GID was taken instead.
 */
static void check_gid_path(struct check_report *r, const struct pair *p)
{
	char ours[INET6_ADDRSTRLEN], tcp[INET6_ADDRSTRLEN], fix[160];
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	union ibv_gid want;
	int index;

	if ((p->res.gid.automatic && !p->res.gid.tcp_elsewhere) ||
	    p->res.gid.index < 0 ||
	    p->res.port_attr.link_layer != IBV_LINK_LAYER_ETHERNET ||
	    getsockname(p->sock, (struct sockaddr *)&local, &len) ||
	    address_is_loopback((struct sockaddr *)&local) ||
	    gid_of_address((struct sockaddr *)&local, &want))
		return;
	index = gid_pick_by_address(p->res.gids.entries, p->res.gids.count,
				    &want);
	gid_address_text(&p->res.gid.gid, ours, sizeof(ours));
	gid_address_text(&want, tcp, sizeof(tcp));
	if (p->res.gid.tcp_elsewhere) {
		/* The transfers that follow prove the path RDMA takes. */
		check_add(
			r, "gid-path", CHECK_PASS, NULL,
			"the TCP connection to the peer goes from %s, an address of no GID of this port: TCP runs over another network than RDMA, which takes GID index %d, %s, the port's one routable RoCE v2 GID",
			tcp, p->res.gid.index, ours);
	} else if (index == p->res.gid.index) {
		check_add(
			r, "gid-path", CHECK_PASS, NULL,
			"-g %d is %s, the address of the TCP connection to the peer",
			p->res.gid.index, ours);
	} else if (index >= 0) {
		snprintf(
			fix, sizeof(fix),
			"-g %d, or leave -g out: each side then takes the GID of its TCP connection's address",
			index);
		check_add(
			r, "gid-path", CHECK_WARN, fix,
			"-g %d is %s, but the TCP connection to the peer goes from %s (GID index %d): RDMA takes another path than TCP, which may not reach the peer",
			p->res.gid.index, ours, tcp, index);
	} else {
		check_add(
			r, "gid-path", CHECK_WARN,
			"connect to an address of this port, so that RDMA and TCP take one path",
			"-g %d is %s, but the TCP connection to the peer goes from %s, an address of no GID of this port: RDMA and TCP take different paths",
			p->res.gid.index, ours, tcp);
	}
}

static void check_path_mtu(struct check_report *r, const struct pair *p)
{
	int ours = mtu_to_bytes((enum ibv_mtu)p->conn.local.mtu);
	int theirs = mtu_to_bytes((enum ibv_mtu)p->conn.remote.mtu);

	if (p->cfg->path_mtu)
		check_add(r, "path-mtu", CHECK_PASS, NULL,
			  "%d bytes, as -m asks (this port's active MTU: %d)",
			  mtu_to_bytes(p->res.mtu),
			  mtu_to_bytes(p->res.port_attr.active_mtu));
	else if (ours == theirs)
		check_add(r, "path-mtu", CHECK_PASS, NULL,
			  "%d bytes, both ports' active MTU", ours);
	else
		check_add(
			r, "path-mtu", CHECK_WARN,
			"raise the smaller side's netdev MTU (ip link set NETDEV mtu N): larger packets, fewer of them",
			"%d bytes: ours %d, the peer's %d; the smaller one wins",
			ours < theirs ? ours : theirs, ours, theirs);
}

/* Connect the QP as a run does, and judge each part of it. */
static bool check_connect(struct check_report *r, struct pair *p)
{
	long long start = now_ms();
	int ret = connect_qp(&p->res, p->cfg, p->sock, &p->conn);
	long long ms = now_ms() - start;

	if (!check_exchange(r, p, ret) || !check_gid_pair(r, p))
		return false;
	check_gid_path(r, p);
	check_path_mtu(r, p);
	if (ret) {
		check_add(
			r, "connect", CHECK_FAIL, NULL,
			"QP 0x%06x to RTS: %s (its line on stderr names the transition)",
			p->res.qp->qp_num, strerror(-ret));
		return false;
	}
	check_add(r, "connect", CHECK_PASS, NULL,
		  "QP 0x%06x INIT, RTR, RTS and synced in %lld ms",
		  p->res.qp->qp_num, ms);
	return true;
}

/* One operation's half, timed; false once one failed (the QP is in error). */
static bool check_op(struct check_report *r, struct pair *p, enum op_id id,
		     const char *name)
{
	const struct op_desc *op = op_find(id);
	struct op_ctx ctx = {
		.res = &p->res,
		.conn = &p->conn,
		.sock = p->sock,
		.timeout_ms = config_timeout_ms(p->cfg),
	};
	long long start = now_ms();
	const char *fix;
	int ret = p->client ? op->client(&ctx) : op->server(&ctx);
	long long ms = now_ms() - start;

	if (ret) {
		const char *what = check_op_failure(ret, &fix);

		check_add(r, name, CHECK_FAIL, fix,
			  "%s failed after %lld ms: %s", op->name, ms, what);
		return false;
	}
	check_add(r, name, CHECK_PASS, NULL, "%s %s in %lld ms", op->name,
		  p->client ? "done" : "served", ms);
	return true;
}

/* The pair's operations; true if none failed. */
static bool check_ops(struct check_report *r, struct pair *p)
{
	unsigned int both = p->conn.local.flags & p->conn.remote.flags;

	if (!check_op(r, p, OP_SEND, "send") ||
	    !check_op(r, p, OP_READ, "read") ||
	    !check_op(r, p, OP_WRITE, "write"))
		return false;
	if (both & QP_INFO_HAS_ATOMICS)
		return check_op(r, p, OP_FETCH_ADD, "atomic");
	check_add(
		r, "atomic", CHECK_WARN,
		"use devices with remote atomics on both sides for those lessons",
		"not run: %s device has no remote atomics",
		p->conn.local.flags & QP_INFO_HAS_ATOMICS ? "the peer's"
							  : "this");
	return true;
}

/* The port's counters now, into @pc. */
static void read_port_counters(const struct pair *p, struct port_counters *pc)
{
	char dir[256];

	port_counters_path(ibv_get_device_name(p->res.ctx->device),
			   p->cfg->ib_port, dir, sizeof(dir));
	port_counters_read(dir, pc);
}

/* What a side's port counters moved over the transfers, as sent. */
struct loss_count {
	uint64_t counted; /* 1 if the port has counters, else 0 */
	struct port_counters_loss moved;
};

/*
 * How many of @from's packets toward @to's side were lost, by both
 * sides' counts. Where both count their RoCE packets apart (soft-RoCE),
 * those @from sent that @to never received. Else: a gap @to saw in the
 * sequence is a loss for sure (each resend of @from's then mended one);
 * and a resend whose first copy @to did not get twice. A resend @to got
 * twice was no loss of @from's: an ack came late (a busy peer) or was
 * lost the other way.
 */
static uint64_t lost_toward(const struct loss_count *from,
			    const struct loss_count *to)
{
	const struct port_counters_loss *f = &from->moved, *t = &to->moved;

	if (!to->counted)
		return f->resent;
	if (f->sent && t->received)
		return f->sent > t->received ? f->sent - t->received : 0;
	if (t->out_of_seq)
		return f->resent > t->out_of_seq ? f->resent : t->out_of_seq;
	return f->resent > t->duplicate ? f->resent - t->duplicate : 0;
}

/* Trade @mine for the peer's counts. */
static int trade_loss(const struct pair *p, const struct loss_count *mine,
		      struct loss_count *theirs)
{
	const uint64_t out[6] = {mine->counted,		 mine->moved.resent,
				 mine->moved.out_of_seq, mine->moved.duplicate,
				 mine->moved.sent,	 mine->moved.received};
	uint64_t in[6];
	int ret = check_trade(p, out, in, 6, config_timeout_ms(p->cfg));

	if (ret)
		return ret;
	theirs->counted = in[0];
	theirs->moved = (struct port_counters_loss){
		.resent = in[1],
		.out_of_seq = in[2],
		.duplicate = in[3],
		.sent = in[4],
		.received = in[5],
	};
	return 0;
}

/*
 * The packets lost either way over the pair's transfers, from both
 * sides' port counters (rdma_bench --report-counters reads the same),
 * traded so that each side names both directions. RoCE wants a lossless
 * link: more than @max_lost lost in all fails; fewer warn.
 */
static void check_loss(struct check_report *r, struct pair *p,
		       unsigned long max_lost)
{
	static const char *const fix =
		"look at the link from the side whose packets were lost: the cable, the switch port's error and discard counters, PFC or ECN (ethtool -S)";
	struct port_counter moved[PORT_COUNTERS_MAX];
	struct port_counters after;
	struct loss_count mine = {0}, theirs;
	uint64_t out, in;
	char text[CHECK_FIX_MAX];
	int ret;

	read_port_counters(p, &after);
	if (p->before.folders) {
		mine.counted = 1;
		port_counters_moved(&p->before, &after, moved, &mine.moved);
	}
	ret = trade_loss(p, &mine, &theirs);
	if (ret) {
		check_add(r, "loss", CHECK_WARN, NULL,
			  "not known: the peer's counts did not come: %s",
			  strerror(-ret));
		return;
	}
	if (!mine.counted && !theirs.counted) {
		check_add(
			r, "loss", CHECK_PASS, NULL,
			"not measured: neither port has counters (soft-iWARP keeps none)");
		return;
	}
	out = lost_toward(&mine, &theirs);
	in = lost_toward(&theirs, &mine);
	if (!out && !in) {
		check_add(
			r, "loss", CHECK_PASS, NULL,
			"none either way over the pair's transfers (%s; resends: this side %" PRIu64
			", the peer %" PRIu64 ")",
			mine.counted && theirs.counted ? "both ports' counters"
			: mine.counted
				? "this port's counters; the peer's has none"
				: "the peer's port counters; this one has none",
			mine.moved.resent, theirs.moved.resent);
		return;
	}
	if (out + in > max_lost)
		snprintf(text, sizeof(text),
			 "%s; to accept this many, --max-lost %" PRIu64, fix,
			 out + in);
	else
		snprintf(text, sizeof(text),
			 " (at most %lu allowed by --max-lost)", max_lost);
	check_add(r, "loss", out + in > max_lost ? CHECK_FAIL : CHECK_WARN,
		  out + in > max_lost ? text : fix,
		  "packets lost: %" PRIu64
		  " of this side's toward the peer, %" PRIu64
		  " of the peer's toward this side (resends: this side %" PRIu64
		  ", the peer %" PRIu64
		  "), by the ports' counters over the pair's transfers%s",
		  out, in, mine.moved.resent, theirs.moved.resent,
		  out + in > max_lost ? "" : text);
}

/*
 * -R: RDMA_CM resolved the path and connected the QP; what it was told,
 * and the GIDs it chose.
 */
static bool check_cm_connect(struct check_report *r, const struct pair *p,
			     int ret, long long ms)
{
	char ours[INET6_ADDRSTRLEN], theirs[INET6_ADDRSTRLEN];
	union ibv_gid gid;

	if (ret) {
		check_add(
			r, "connect", CHECK_FAIL,
			"check the address and the route between the hosts (ping), and rdma_ucm on both",
			"RDMA_CM: %s (its line on stderr names the event)",
			strerror(-ret));
		return false;
	}
	if (!check_exchange(r, p, ret))
		return false;
	memcpy(gid.raw, p->conn.local.gid, sizeof(gid.raw));
	gid_to_str(&gid, ours, sizeof(ours));
	memcpy(gid.raw, p->conn.remote.gid, sizeof(gid.raw));
	gid_to_str(&gid, theirs, sizeof(theirs));
	check_add(r, "gid-pair", CHECK_PASS, NULL,
		  "RDMA_CM resolved the path: ours %s, the peer's %s", ours,
		  theirs);
	check_add(r, "connect", CHECK_PASS, NULL,
		  "RDMA_CM connected QP 0x%06x and synced in %lld ms",
		  p->res.qp->qp_num, ms);
	return true;
}

/* -R: the pair round as main's run_rdma_cm makes it; TCP for the syncs. */
static void check_pair_cm(struct check_report *r, struct pair *p,
			  const struct resources_sizes *sizes,
			  unsigned long max_lost)
{
	long long start;
	struct cm cm;
	int ret, synced;

	ret = cm_open(&cm, p->cfg, &sizes->needs, 1);
	if (ret) {
		check_add(r, "rdma-cm", CHECK_FAIL, NULL,
			  "cm_open: %s (its line on stderr names the step)",
			  strerror(-ret));
		return;
	}
	start = now_ms();
	ret = sock_connect(p->cfg, &p->sock);
	check_tcp(r, p, ret, now_ms() - start);
	if (!ret) {
		start = now_ms();
		ret = cm_connect_qp(&cm, &p->res, p->cfg, sizes, p->sock,
				    &p->conn);
		/*
		 * RDMA_CM opened the device as it connected: counters now,
		 * and a sync after them, so that the server's first SEND
		 * cannot reach a client that has not read its own yet.
		 */
		synced = ret;
		if (!ret) {
			read_port_counters(p, &p->before);
			synced = sock_sync(p->sock, config_timeout_ms(p->cfg));
		}
		if (check_cm_connect(r, p, synced, now_ms() - start) &&
		    check_ops(r, p) && check_path(r, p))
			check_loss(r, p, max_lost);
		if (!ret) {
			cm_disconnect(&cm);
			resources_destroy(&p->res);
		}
		close(p->sock);
	}
	cm_close(&cm);
}

void check_pair(struct check_report *r, const struct config *cfg,
		const struct resources_sizes *sizes, unsigned long max_lost)
{
	struct pair p = {
		.cfg = cfg,
		.client = cfg->server_name != NULL,
	};
	/* a run's, and the path check's area after the buffer */
	struct resources_sizes pair_sizes = *sizes;
	long long start;
	int ret;

	pair_sizes.buf_size = CHECK_PAIR_BUF_SIZE;
	if (cfg->use_rdma_cm) {
		check_pair_cm(r, &p, &pair_sizes, max_lost);
		return;
	}
	ret = resources_create(&p.res, cfg, &pair_sizes, NULL);
	if (ret) {
		check_add(r, "resources", CHECK_FAIL, NULL,
			  "resources_create for the pair: %s", strerror(-ret));
		return;
	}
	start = now_ms();
	ret = sock_connect(cfg, &p.sock);
	check_tcp(r, &p, ret, now_ms() - start);
	if (!ret) {
		read_port_counters(&p, &p.before);
		if (check_connect(r, &p) && check_ops(r, &p) &&
		    check_path(r, &p))
			check_loss(r, &p, max_lost);
		close(p.sock);
	}
	resources_destroy(&p.res);
}
