// SPDX-License-Identifier: MIT
/*
 * -R, the connection: the QP (ours, on the CM's device) goes to INIT, RTR
 * and RTS with the attributes the CM computes and our constants (qp.h);
 * the buffer address, rkey and operations travel in the private data of
 * rdma_connect and rdma_accept.
 */
#include <err.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cm/cm.h"
#include "cm_internal.h"
#include "extras/cm_event.h"
#include "device.h"
#include "qp.h"
#include "sock.h"
#include "variants/sock_peer.h"
#include "common/trace.h"

/*
 * The peer's QP number as the IB CM carried it; iWARP's CM names none,
 * and the one from the private data stays.
 */
static void take_cm_qp_num(const struct rdma_cm_event *event,
			   struct qp_info *remote)
{
	if (event->param.conn.qp_num)
		remote->qp_num = event->param.conn.qp_num;
}

/*
 * iWARP: the CM itself moves the QP from INIT to RTS once the MPA
 * exchange (over the TCP connection) completes, so that the QP must be
 * handed to rdma_connect or rdma_accept in INIT; and a connected client
 * hears ESTABLISHED, not CONNECT_RESPONSE.
 */
static bool cm_moves_qp(const struct cm *cm)
{
	return cm->id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

/*
 * Server: the client's request; its private data is the peer's info. A
 * UD request (SIDR) carries that alone: no depths, no QP number.
 */
static int wait_request(struct cm *cm, const struct config *cfg,
			struct qp_info *remote)
{
	struct rdma_cm_event *event;
	const char *why;
	int ret;

	ret = cm_wait_event(cm, cfg->accept_timeout_sec,
			    RDMA_CM_EVENT_CONNECT_REQUEST, &event);
	if (ret)
		return ret;
	cm->id = event->id;
	if (cm_is_ud(cm)) {
		ret = cm_priv_decode(event->param.ud.private_data,
				     event->param.ud.private_data_len, remote,
				     &why);
	} else {
		/* The CM turned the client's figures round: ours to serve. */
		cm->request_depth = (struct qp_rd_atomic_depth){
			.initiator = event->param.conn.initiator_depth,
			.responder = event->param.conn.responder_resources,
		};
		ret = cm_priv_decode(event->param.conn.private_data,
				     event->param.conn.private_data_len, remote,
				     &why);
		take_cm_qp_num(event, remote);
	}
	rdma_ack_cm_event(event);
	if (ret) {
		warnx("failed to accept the connect request: %s", why);
		rdma_reject(cm->id, NULL, 0);
	}
	return ret;
}

/*
 * RESET -> INIT: the CM's port and pkey index, with our access rights
 * (the CM grants what the connection's READ depth implies, not what our
 * region allows).
 */
static int cm_modify_qp_to_init(struct cm *cm, struct resources *res)
{
	struct ibv_qp_attr attr;
	char flags[96];
	int mask, ret;

	ret = cm_qp_attr(cm, res->qp, IBV_QPS_INIT, &attr, &mask);
	if (ret)
		return ret;
	attr.qp_access_flags = (int)(res->mr_access & QP_REMOTE_ACCESS);
	mask |= IBV_QP_ACCESS_FLAGS;
	ret = qp_modify(res->qp, &attr, mask, "");
	if (ret)
		return ret;
	trace_step(
		&res->trace,
		"QP 0x%06x RESET -> INIT (RDMA_CM): port %u, pkey index %u, access %s",
		res->qp->qp_num, attr.port_num, attr.pkey_index,
		access_flags_str((unsigned int)attr.qp_access_flags, flags,
				 sizeof(flags)));
	return 0;
}

/* iWARP: what the steps after RTR note, from the route instead. */
static int cm_note_iwarp(struct cm *cm, struct resources *res,
			 struct connection *conn)
{
	const struct ibv_ah_attr no_grh = {0};
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	memcpy(conn->remote.gid, cm->id->route.addr.addr.ibaddr.dgid.raw,
	       sizeof(conn->remote.gid));
	/* The depths the MPA exchange settled (IRD and ORD), as the QP has them. */
	if (ibv_query_qp(res->qp, &attr,
			 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC,
			 &init))
		trace_step(&res->trace, "ibv_query_qp of QP 0x%06x: %s",
			   res->qp->qp_num, strerror(errno));
	else
		trace_step(
			&res->trace,
			"QP 0x%06x INIT -> RTS by the iWARP CM, once MPA over TCP connected: max rd atomic %u, max dest rd atomic %u",
			res->qp->qp_num, attr.max_rd_atomic,
			attr.max_dest_rd_atomic);
	return cm_note_gid(cm, res, &no_grh);
}

/* The RNR timer of the TCP path; UC has no RNR NAK to time. */
static void set_rnr_timer(const struct ibv_qp *qp, struct ibv_qp_attr *attr,
			  int *mask)
{
	if (qp->qp_type != IBV_QPT_RC)
		return;
	attr->min_rnr_timer = QP_MIN_RNR_TIMER;
	*mask |= IBV_QP_MIN_RNR_TIMER;
}

/* INIT -> RTR, as the CM says; what it says about the peer goes to @conn. */
static int cm_modify_qp_to_rtr(struct cm *cm, struct resources *res,
			       struct connection *conn)
{
	struct ibv_qp_attr attr;
	char gid[INET6_ADDRSTRLEN];
	int mask, ret;

	ret = cm_qp_attr(cm, res->qp, IBV_QPS_RTR, &attr, &mask);
	if (ret)
		return ret;
	set_rnr_timer(res->qp, &attr, &mask);
	/* The server moves its QP before it accepts: the request's depth. */
	if (attr.max_dest_rd_atomic > cm->depth.responder)
		attr.max_dest_rd_atomic = cm->depth.responder;
	/* -m: a smaller MTU than the route's, on both sides alike. */
	if (cm->path_mtu && cm->path_mtu < attr.path_mtu)
		attr.path_mtu = (enum ibv_mtu)cm->path_mtu;
	ret = qp_modify(res->qp, &attr, mask, "");
	if (ret)
		return ret;
	/* The CM chose the path MTU from the route: it is the one used. */
	res->mtu = attr.path_mtu;
	conn->remote.psn = attr.rq_psn;
	conn->remote.lid = attr.ah_attr.dlid;
	memcpy(conn->remote.gid, attr.ah_attr.grh.dgid.raw,
	       sizeof(conn->remote.gid));
	trace_step(
		&res->trace,
		"QP 0x%06x INIT -> RTR (RDMA_CM): dest QPN 0x%06x, rq PSN 0x%06x, MTU %d, dest GID %s, sgid index %u, max dest rd atomic %u, min RNR timer %u",
		res->qp->qp_num, attr.dest_qp_num, attr.rq_psn,
		mtu_to_bytes(attr.path_mtu),
		gid_to_str(&attr.ah_attr.grh.dgid, gid, sizeof(gid)),
		attr.ah_attr.grh.sgid_index, attr.max_dest_rd_atomic,
		attr.min_rnr_timer);
	return cm_note_gid(cm, res, &attr.ah_attr);
}

/* RTR -> RTS, as the CM says: our first PSN goes to @conn. */
static int cm_modify_qp_to_rts(struct cm *cm, struct resources *res,
			       struct connection *conn)
{
	struct ibv_qp_attr attr;
	int mask, ret;

	ret = cm_qp_attr(cm, res->qp, IBV_QPS_RTS, &attr, &mask);
	if (attr.max_rd_atomic > cm->depth.initiator)
		attr.max_rd_atomic = cm->depth.initiator;
	/* The CM derives the ack timeout from the path's packet life time
	 * (code 19, 2.1 s, on soft-RoCE): the TCP path's, as the manual's,
	 * or -u's. */
	attr.timeout = cm->ack_timeout;
	if (!ret)
		ret = qp_modify(res->qp, &attr, mask, "");
	if (ret)
		return ret;
	conn->local.psn = attr.sq_psn;
	trace_step(
		&res->trace,
		"QP 0x%06x RTR -> RTS (RDMA_CM): sq PSN 0x%06x, ack timeout %u, retry count %u, RNR retry %u, max rd atomic %u",
		res->qp->qp_num, attr.sq_psn, attr.timeout, attr.retry_cnt,
		attr.rnr_retry, attr.max_rd_atomic);
	return 0;
}

/*
 * The READ/atomic depth to offer. The client offers what its device
 * allows (as deep as the run asks); the server takes the smaller of that
 * and its own, so both QPs stay within both devices (the IB CM does not
 * lower them, and a QP past its device's limit fails RTR or RTS).
 */
static struct qp_rd_atomic_depth cm_depth(const struct cm *cm,
					  const struct resources *res,
					  const struct config *cfg)
{
	struct qp_rd_atomic_depth ours = qp_rd_atomic_depth(res);

	if (cfg->server_name)
		return ours;
	if (cm->request_depth.initiator < ours.initiator)
		ours.initiator = cm->request_depth.initiator;
	if (cm->request_depth.responder < ours.responder)
		ours.responder = cm->request_depth.responder;
	return ours;
}

/* Our side of the connection: private data and the limits of the QP. */
static struct rdma_conn_param conn_param(const struct cm *cm,
					 const struct connection *conn,
					 const uint8_t *priv)
{
	return (struct rdma_conn_param){
		.private_data = priv,
		.private_data_len = CM_PRIV_SIZE,
		.responder_resources = cm->depth.responder,
		.initiator_depth = cm->depth.initiator,
		.retry_count = QP_RETRY_CNT,
		.rnr_retry_count = cm->rnr_retry,
		/* the QP is not the id's: tell the CM its number */
		.qp_num = conn->qp->qp_num,
	};
}

/* Client: connect, take the server's reply, RTR, RTS, then RTU. */
static int client_connect(struct cm *cm, const struct config *cfg,
			  struct resources *res, struct connection *conn)
{
	uint8_t priv[CM_PRIV_SIZE];
	struct rdma_conn_param param;
	struct rdma_cm_event *event;
	const char *why;
	int ret;

	ret = qp_post_early_receives(res, cfg);
	if (ret)
		return ret;
	cm_priv_encode(&conn->local, priv);
	param = conn_param(cm, conn, priv);
	if (rdma_connect(cm->id, &param)) {
		ret = -errno;
		warnx("failed to connect through RDMA_CM: %s", strerror(-ret));
		return ret;
	}
	/*
	 * Not ESTABLISHED: with a QP of our own the IB CM leaves RTR to us.
	 * The iWARP CM has moved the QP to RTS already.
	 */
	ret = cm_wait_event(cm, cfg->timeout_sec,
			    cm_moves_qp(cm) ? RDMA_CM_EVENT_ESTABLISHED
					    : RDMA_CM_EVENT_CONNECT_RESPONSE,
			    &event);
	if (ret)
		return ret;
	ret = cm_priv_decode(event->param.conn.private_data,
			     event->param.conn.private_data_len, &conn->remote,
			     &why);
	take_cm_qp_num(event, &conn->remote);
	rdma_ack_cm_event(event);
	if (ret) {
		warnx("failed to accept the server's reply: %s", why);
		return ret;
	}
	if (cm_moves_qp(cm))
		return cm_note_iwarp(cm, res, conn);
	ret = cm_modify_qp_to_rtr(cm, res, conn);
	if (!ret)
		ret = cm_modify_qp_to_rts(cm, res, conn);
	if (ret)
		return ret;
	if (rdma_establish(cm->id)) {
		ret = -errno;
		warnx("failed to establish the RDMA_CM connection: %s",
		      strerror(-ret));
		return ret;
	}
	return 0;
}

/* Server: RTR and RTS first, so the QP is ready when the client hears. */
static int server_accept(struct cm *cm, const struct config *cfg,
			 struct resources *res, struct connection *conn)
{
	uint8_t priv[CM_PRIV_SIZE];
	struct rdma_conn_param param;
	struct rdma_cm_event *event;
	int ret;

	/* iWARP: the CM moves the QP once MPA completes; it must be in INIT. */
	if (!cm_moves_qp(cm)) {
		ret = cm_modify_qp_to_rtr(cm, res, conn);
		if (!ret)
			ret = cm_modify_qp_to_rts(cm, res, conn);
		if (ret)
			return ret;
	}
	cm_priv_encode(&conn->local, priv);
	param = conn_param(cm, conn, priv);
	if (rdma_accept(cm->id, &param)) {
		ret = -errno;
		warnx("failed to accept through RDMA_CM: %s", strerror(-ret));
		return ret;
	}
	ret = cm_wait_event(cm, cfg->timeout_sec, RDMA_CM_EVENT_ESTABLISHED,
			    &event);
	if (ret)
		return ret;
	rdma_ack_cm_event(event);
	return cm_moves_qp(cm) ? cm_note_iwarp(cm, res, conn) : 0;
}

/*
 * Refuse the client's request, telling it who we are: our private data in
 * the rejection lets a client of another program name both (cm_take_event).
 */
static void reject_with_our_info(struct cm *cm, const struct qp_info *local)
{
	uint8_t priv[CM_PRIV_SIZE];

	cm_priv_encode(local, priv);
	rdma_reject(cm->id, priv, CM_PRIV_SIZE);
}

/* INIT, then each side's half of the handshake. */
/*
 * The GID the CM resolved our address to (for RoCE, the one made from the
 * IP address), from the port's table that resources_create read: the
 * first entry with those bytes. Which entry the QP sends from (RoCE v1
 * and v2 may share the bytes) the CM says at RTR (cm_note_gid).
 */
static int take_cm_gid(struct rdma_cm_id *id, struct resources *res)
{
	const union ibv_gid *sgid = &id->route.addr.addr.ibaddr.sgid;
	char text[INET6_ADDRSTRLEN];
	size_t i;

	/*
	 * iWARP addresses a connection by IP and TCP port alone: the CM
	 * gives no GID, and resources_create took the port's one.
	 */
	if (id->verbs->device->transport_type == IBV_TRANSPORT_IWARP)
		return 0;
	for (i = 0; i < res->gids.count; i++) {
		const struct ibv_gid_entry *e = &res->gids.entries[i];

		if (memcmp(e->gid.raw, sgid->raw, sizeof(sgid->raw)) != 0)
			continue;
		res->gid.index = (int)e->gid_index;
		res->gid.gid = e->gid;
		res->gid.type = e->gid_type;
		res->gid.ndev_ifindex = e->ndev_ifindex;
		return 0;
	}
	warnx("failed to find GID %s in the table of %s port %u: %s",
	      gid_to_str(sgid, text, sizeof(text)),
	      ibv_get_device_name(id->verbs->device), id->port_num,
	      strerror(ENOENT));
	return -ENOENT;
}

static int connect_on_id(struct cm *cm, struct resources *res,
			 const struct config *cfg, int sock,
			 struct connection *conn)
{
	const char *why;
	int ret;

	ret = take_cm_gid(cm->id, res);
	if (!ret)
		ret = qp_describe_local(res, cfg, &conn->local);
	if (ret)
		return ret;
	/* Which TCP connection is ours, for a server of several clients. */
	if (cfg->server_name)
		conn->local.sync_port = sock_local_port(sock);
	if (!cfg->server_name) {
		ret = qp_info_match(&conn->local, &conn->remote, &why);
		if (ret) {
			warnx("failed to agree with the peer: %s", why);
			reject_with_our_info(cm, &conn->local);
			return ret;
		}
	}
	if (cm_is_ud(cm)) {
		ret = cm_ud_connect(cm, cfg, res, conn);
	} else {
		cm->depth = cm_depth(cm, res, cfg);
		ret = cm_modify_qp_to_init(cm, res);
		if (!ret)
			ret = cfg->server_name
				      ? client_connect(cm, cfg, res, conn)
				      : server_accept(cm, cfg, res, conn);
	}
	if (ret)
		return ret;
	if (!cm->lane) {
		qp_print_remote(&conn->remote);
		qp_print_path_mtu(res);
	}
	/* The server checked the request before accepting it. */
	ret = cfg->server_name
		      ? qp_info_match(&conn->local, &conn->remote, &why)
		      : 0;
	if (ret)
		warnx("failed to agree with the peer: %s", why);
	return ret;
}

/* @addr into @to if it is an IP address (not AF_IB's): else AF_UNSPEC. */
static void note_address(struct sockaddr_storage *to,
			 const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		memcpy(to, addr, sizeof(struct sockaddr_in));
	else if (addr->sa_family == AF_INET6)
		memcpy(to, addr, sizeof(struct sockaddr_in6));
}

/* From now on a wait of @cm's ends when the peer closes @sock. */
static void watch_peer(struct cm *cm, int sock)
{
	cm->watch_peer = true;
	cm->peer_sock = sock;
}

int cm_connect_qp(struct cm *cm, struct resources *res,
		  const struct config *cfg, const struct resources_sizes *sizes,
		  int sock, struct connection *conn)
{
	struct config on_id = *cfg;
	int ret;

	*conn = (struct connection){0};
	watch_peer(cm, sock);
	if (!cfg->server_name) {
		ret = wait_request(cm, cfg, &conn->remote);
		if (!ret)
			ret = cm_check_device(cm, cfg);
		if (ret)
			return ret;
	}
	/* The device, port and GID are the ones the CM found for the
	 * address: the GID is taken from the port's table once it is read. */
	on_id.ib_port = cm->id->port_num;
	on_id.gid_idx = -1;
	ret = resources_create(res, &on_id, sizes, cm->id->verbs);
	if (ret) {
		/* The server's device cannot: the client hears it at once. */
		if (!cfg->server_name)
			rdma_reject(cm->id, NULL, 0);
		return ret;
	}
	conn->qp = res->qp;
	ret = connect_on_id(cm, res, cfg, sock, conn);
	if (!ret) {
		/* The benchmark tells from them whether the peer is here. */
		note_address(&conn->local_addr, rdma_get_local_addr(cm->id));
		note_address(&conn->peer_addr, rdma_get_peer_addr(cm->id));
		/* As in the TCP path: both QPs are in RTS before any send. */
		ret = sock_sync(sock, config_timeout_ms(cfg));
	}
	if (ret)
		resources_destroy(res);
	return ret;
}

int cm_next_client(struct cm *listener, const struct config *cfg,
		   struct cm *client, struct connection *conn)
{
	struct rdma_cm_id *own = listener->id; /* -q: the first connection's */
	int ret;

	*client = (struct cm){.program = listener->program,
			      .port_space = listener->port_space,
			      .tos = listener->tos,
			      .path_mtu = listener->path_mtu,
			      .ack_timeout = listener->ack_timeout,
			      .rnr_retry = listener->rnr_retry,
			      .trace = listener->trace};
	*conn = (struct connection){0};
	ret = wait_request(listener, cfg, &conn->remote);
	/* The request's id is the client's, whatever came of it. */
	client->id = listener->id;
	client->request_depth = listener->request_depth;
	listener->id = own;
	if (ret)
		return ret;
	ret = cm_event_channel_create(&client->channel);
	if (ret) {
		rdma_reject(client->id, NULL, 0);
		return ret;
	}
	/* The event was acked in wait_request: the id may move. */
	if (rdma_migrate_id(client->id, client->channel)) {
		ret = -errno;
		warnx("failed to give the client's RDMA_CM id a channel of its own: %s",
		      strerror(-ret));
		rdma_reject(client->id, NULL, 0);
		return ret;
	}
	ret = cm_check_device(client, cfg);
	if (!ret)
		note_address(&conn->peer_addr, rdma_get_peer_addr(client->id));
	return ret;
}

/* The resources, for the first client: on the device its request came on. */
static int create_on_id(struct cm *client, struct resources *res,
			const struct config *cfg,
			const struct resources_sizes *sizes)
{
	struct config on_id = *cfg;

	on_id.ib_port = client->id->port_num;
	on_id.gid_idx = -1;
	return resources_create(res, &on_id, sizes, client->id->verbs);
}

/*
 * Connect @qp, a QP of @res, on @cm's id: lend it res->qp's place for the
 * steps, which connect res->qp, then sync over @sock.
 */
static int connect_lent_qp(struct cm *cm, struct resources *res,
			   struct ibv_qp *qp, const struct config *cfg,
			   int sock, struct connection *conn)
{
	struct ibv_qp *own = res->qp;
	int ret;

	res->qp = qp;
	conn->qp = qp;
	watch_peer(cm, sock);
	ret = connect_on_id(cm, res, cfg, sock, conn);
	res->qp = own;
	if (ret)
		return ret;
	note_address(&conn->local_addr, rdma_get_local_addr(cm->id));
	note_address(&conn->peer_addr, rdma_get_peer_addr(cm->id));
	return sock_sync(sock, config_timeout_ms(cfg));
}

/* A later connection on the first one's device, or one line and -ENODEV. */
static int same_device(const struct cm *cm, const struct resources *res,
		       const char *what)
{
	if (cm->id->verbs == res->ctx)
		return 0;
	warnx("failed to take %s: its connection is on device %s, and the first one on %s (%s)",
	      what, ibv_get_device_name(cm->id->verbs->device),
	      ibv_get_device_name(res->ctx->device), strerror(ENODEV));
	return -ENODEV;
}

int cm_connect_client(struct cm *client, struct resources *res,
		      struct ibv_qp *qp, const struct config *cfg,
		      const struct resources_sizes *sizes, int sock,
		      struct connection *conn)
{
	int ret;

	if (!qp) {
		ret = create_on_id(client, res, cfg, sizes);
		qp = res->qp;
	} else {
		ret = same_device(client, res, "the client");
	}
	if (ret) {
		rdma_reject(client->id, NULL, 0);
		return ret;
	}
	return connect_lent_qp(client, res, qp, cfg, sock, conn);
}

/* Server, -q: the request must come from the first connection's client. */
static int same_client(const struct connection *first_conn,
		       const struct connection *conn)
{
	if (conn->remote.sync_port == first_conn->remote.sync_port)
		return 0;
	warnx("failed to connect one more QP (-q): a connect request came from another client (sync port %u, not %u) (%s)",
	      conn->remote.sync_port, first_conn->remote.sync_port,
	      strerror(EPROTO));
	return -EPROTO;
}

int cm_connect_lane(struct cm *first, const struct connection *first_conn,
		    struct cm *lane, struct resources *res, struct ibv_qp *qp,
		    const struct config *cfg, int sock)
{
	struct connection conn = {0};
	int ret;

	if (cfg->server_name) {
		ret = cm_open_lane(lane, first, cfg);
		if (!ret)
			ret = same_device(lane, res, "one more QP (-q)");
	} else {
		ret = cm_next_client(first, cfg, lane, &conn);
		lane->lane = true;
		if (ret)
			return ret;
		ret = same_client(first_conn, &conn);
		if (!ret)
			ret = same_device(lane, res, "one more QP (-q)");
		if (ret)
			rdma_reject(lane->id, NULL, 0);
	}
	if (!ret)
		ret = connect_lent_qp(lane, res, qp, cfg, sock, &conn);
	return ret;
}

void cm_disconnect(struct cm *cm)
{
	/* UD has no connection to end. */
	if (cm->id && cm_is_ud(cm))
		return;
	/* The peer may have disconnected first: then there is nothing to do. */
	if (cm->id && rdma_disconnect(cm->id))
		trace_step(&cm->trace, "rdma_disconnect: %s", strerror(errno));
}
