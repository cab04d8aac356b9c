// SPDX-License-Identifier: MIT
/*
 * -R: the RC QP connected through RDMA_CM. The server binds and listens on
 * the port, for IPv6 and IPv4 clients; the client resolves the server's
 * addresses in turn until one gives a route; the QP (ours, on the CM's
 * device) goes to INIT, RTR and RTS with the attributes the CM computes;
 * the buffer address, rkey and operations travel in the private data of
 * rdma_connect and rdma_accept. Every event is waited for with a timeout:
 * poll() on the event channel's file descriptor.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "cm.h"
#include "cm_event.h"
#include "interrupt.h"
#include "qp.h"
#include "sock.h"
#include "trace.h"

_Static_assert(CM_PRIV_SIZE <= CM_REQ_PRIVATE_DATA_MAX,
	       "the private data fits an RDMA_CM connect request");

/* Byte offsets of the private data's fields (see cm.h). */
enum cm_priv_offset {
	PRIV_MAGIC = 0,
	PRIV_VERSION = 4,
	PRIV_TRANSPORT = 5,
	PRIV_FLAGS = 6,
	PRIV_OP_COUNT = 7,
	PRIV_ADDR = 8,
	PRIV_LEN = 16,
	PRIV_RKEY = 20,
	PRIV_OPS = 24,
	PRIV_END = PRIV_OPS + OPS_MAX,
};
_Static_assert(PRIV_END == CM_PRIV_SIZE, "private data layout and size");

/* RDMA READs and atomics in flight at once, each way: this example has one. */
#define CM_RD_ATOMIC 1
/* Resends after a lost packet before the QP fails: 7 is the maximum. */
#define CM_RETRY_COUNT 7
/* Resends after an RNR NAK; 6, because 7 would mean retry forever. */
#define CM_RNR_RETRY_COUNT 6
/* One connection at a time is all this example serves. */
#define CM_LISTEN_BACKLOG 1
#define MS_PER_SEC	  1000
/* Room for why a wait or an address failed, for the one error line. */
#define CM_WHY_LEN 128

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return ntohl(v);
}

void cm_priv_encode(const struct qp_info *info, uint8_t out[CM_PRIV_SIZE])
{
	memset(out, 0, CM_PRIV_SIZE);
	put_be32(out + PRIV_MAGIC, CM_PRIV_MAGIC);
	out[PRIV_VERSION] = CM_PRIV_VERSION;
	out[PRIV_TRANSPORT] = info->transport;
	out[PRIV_FLAGS] = info->flags;
	out[PRIV_OP_COUNT] = info->op_count;
	put_be32(out + PRIV_ADDR, (uint32_t)(info->addr >> 32));
	put_be32(out + PRIV_ADDR + 4, (uint32_t)info->addr);
	put_be32(out + PRIV_LEN, info->len);
	put_be32(out + PRIV_RKEY, info->rkey);
	memcpy(out + PRIV_OPS, info->ops, OPS_MAX);
}

int cm_priv_decode(const uint8_t *buf, size_t len, struct qp_info *info,
		   const char **why)
{
	if (!buf || len < CM_PRIV_SIZE) {
		*why = "private data too short";
		return -EPROTO;
	}
	if (get_be32(buf + PRIV_MAGIC) != CM_PRIV_MAGIC) {
		*why = "private data is not from rdma_rc_example";
		return -EPROTO;
	}
	if (buf[PRIV_VERSION] != CM_PRIV_VERSION) {
		*why = "private data of another version";
		return -EPROTO;
	}
	if (buf[PRIV_OP_COUNT] == 0 || buf[PRIV_OP_COUNT] > OPS_MAX) {
		*why = "operation count out of range";
		return -EPROTO;
	}
	*info = (struct qp_info){
		.addr = (uint64_t)get_be32(buf + PRIV_ADDR) << 32 |
			get_be32(buf + PRIV_ADDR + 4),
		.len = get_be32(buf + PRIV_LEN),
		.rkey = get_be32(buf + PRIV_RKEY),
		.transport = buf[PRIV_TRANSPORT],
		.flags = buf[PRIV_FLAGS],
		.op_count = buf[PRIV_OP_COUNT],
	};
	memcpy(info->ops, buf + PRIV_OPS, OPS_MAX);
	return 0;
}

/*
 * Wait until @deadline for the next event; it must be @expected. On
 * success the caller owns *@event and acks it; on failure @why says what
 * happened instead, for the caller to report.
 */
static int take_event(struct cm *cm, long long deadline,
		      enum rdma_cm_event_type expected,
		      struct rdma_cm_event **event, char *why, size_t why_len)
{
	struct pollfd pfd = {.fd = cm->channel->fd, .events = POLLIN};
	int ret, event_err, waited_ms = ms_left(deadline);

	do
		ret = interruptible_poll(&pfd, 1, ms_left(deadline));
	while (ret == -EINTR && !interrupted());
	if (ret == 0) {
		snprintf(why, why_len, "no event within %d ms: %s", waited_ms,
			 strerror(ETIMEDOUT));
		return -ETIMEDOUT;
	}
	if (ret < 0) {
		snprintf(why, why_len, "%s", strerror(-ret));
		return ret;
	}
	ret = cm_event_get(cm->channel, event, &event_err);
	if (ret) {
		snprintf(why, why_len, "%s", strerror(-ret));
		return ret;
	}
	trace_step(&cm->trace, "RDMA_CM event %s, status %d",
		   rdma_event_str((*event)->event), (*event)->status);
	if ((*event)->event == expected)
		return 0;
	/* A failed step has its own event; a rejection carries no errno. */
	ret = cm_event_error(*event, event_err, -ECONNREFUSED);
	snprintf(why, why_len, "got %s, status %d (%s)",
		 rdma_event_str((*event)->event), (*event)->status,
		 strerror(-ret));
	rdma_ack_cm_event(*event);
	*event = NULL;
	return ret;
}

/* take_event within @timeout_sec, with one line on stderr if it fails. */
static int wait_event(struct cm *cm, int timeout_sec,
		      enum rdma_cm_event_type expected,
		      struct rdma_cm_event **event)
{
	char why[CM_WHY_LEN];
	int ret;

	ret = take_event(cm, now_ms() + (long long)timeout_sec * MS_PER_SEC,
			 expected, event, why, sizeof(why));
	if (ret)
		fprintf(stderr, "failed to get RDMA_CM event %s: %s\n",
			rdma_event_str(expected), why);
	return ret;
}

/* Bind @id to the wildcard address of @family on @port. */
static int bind_wildcard(struct rdma_cm_id *id, int family, uint16_t port)
{
	struct sockaddr_in6 any6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	struct sockaddr_in any4 = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	/* 0: the IPv6 wildcard takes IPv4 clients too (IPV6_V6ONLY off) */
	int afonly = 0;

	if (family == AF_INET6 &&
	    rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &afonly,
			    sizeof(afonly)))
		return -errno;
	if (rdma_bind_addr(id, family == AF_INET6 ? (struct sockaddr *)&any6
						  : (struct sockaddr *)&any4))
		return -errno;
	return 0;
}

static int create_id(struct cm *cm, struct rdma_cm_id **id)
{
	int ret;

	if (rdma_create_id(cm->channel, id, NULL, RDMA_PS_TCP)) {
		ret = -errno;
		fprintf(stderr, "failed to create RDMA_CM id: %s\n",
			strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * Server: any local address on the port, IPv6 and IPv4 alike, then listen.
 * Left to itself the kernel binds an IPv4 wildcard for IPv4 only, and an
 * IPv6 one as the net.ipv6.bindv6only sysctl says: so the IPv6 wildcard,
 * with AFONLY off. A kernel without IPv6 (EAFNOSUPPORT, EADDRNOTAVAIL)
 * gets the IPv4 wildcard; any other failure, a port in use say, is one.
 */
static int listen_on_port(struct cm *cm, const struct config *cfg)
{
	int ret;

	ret = create_id(cm, &cm->listen_id);
	if (ret)
		return ret;
	ret = bind_wildcard(cm->listen_id, AF_INET6, cfg->tcp_port);
	if (ret && ret != -EAFNOSUPPORT && ret != -EADDRNOTAVAIL) {
		fprintf(stderr,
			"failed to bind RDMA_CM id to [::] port %u: %s\n",
			cfg->tcp_port, strerror(-ret));
		return ret;
	}
	if (ret) {
		trace_step(
			&cm->trace,
			"cannot bind RDMA_CM id to [::] port %u: %s; IPv4 only",
			cfg->tcp_port, strerror(-ret));
		rdma_destroy_id(cm->listen_id);
		cm->listen_id = NULL;
		ret = create_id(cm, &cm->listen_id);
		if (ret)
			return ret;
		ret = bind_wildcard(cm->listen_id, AF_INET, cfg->tcp_port);
		if (ret) {
			fprintf(stderr,
				"failed to bind RDMA_CM id to 0.0.0.0 port %u: %s\n",
				cfg->tcp_port, strerror(-ret));
			return ret;
		}
	}
	if (rdma_listen(cm->listen_id, CM_LISTEN_BACKLOG)) {
		ret = -errno;
		fprintf(stderr, "failed to listen on RDMA_CM port %u: %s\n",
			cfg->tcp_port, strerror(-ret));
		return ret;
	}
	printf("waiting on port %u for RDMA_CM connection\n", cfg->tcp_port);
	return 0;
}

/*
 * Client: one of the server's addresses to a device, then a route, by
 * @deadline, on a new cm->id. On failure @why says which step failed.
 */
static int resolve_address(struct cm *cm, const struct addrinfo *ai,
			   long long deadline, char *why, size_t why_len)
{
	struct rdma_cm_event *event;
	int ret;

	if (rdma_create_id(cm->channel, &cm->id, NULL, RDMA_PS_TCP)) {
		ret = -errno;
		snprintf(why, why_len, "rdma_create_id: %s", strerror(-ret));
		return ret;
	}
	if (rdma_resolve_addr(cm->id, NULL, ai->ai_addr, ms_left(deadline))) {
		ret = -errno;
		snprintf(why, why_len, "rdma_resolve_addr: %s", strerror(-ret));
		return ret;
	}
	ret = take_event(cm, deadline, RDMA_CM_EVENT_ADDR_RESOLVED, &event, why,
			 why_len);
	if (ret)
		return ret;
	rdma_ack_cm_event(event);
	if (rdma_resolve_route(cm->id, ms_left(deadline))) {
		ret = -errno;
		snprintf(why, why_len, "rdma_resolve_route: %s",
			 strerror(-ret));
		return ret;
	}
	ret = take_event(cm, deadline, RDMA_CM_EVENT_ROUTE_RESOLVED, &event,
			 why, why_len);
	if (ret)
		return ret;
	rdma_ack_cm_event(event);
	return 0;
}

/* One line for a server none of whose @tried addresses gave a route. */
static void report_unresolved(const struct config *cfg, int tried,
			      const char *last, const char *why)
{
	if (tried > 1)
		fprintf(stderr,
			"failed to resolve an RDMA route to %s port %u (%d addresses tried; the last, %s): %s\n",
			cfg->server_name, cfg->tcp_port, tried, last, why);
	else if (tried == 1 && strcmp(last, cfg->server_name) != 0)
		fprintf(stderr,
			"failed to resolve an RDMA route to %s port %u (%s): %s\n",
			cfg->server_name, cfg->tcp_port, last, why);
	else
		fprintf(stderr,
			"failed to resolve an RDMA route to %s port %u: %s\n",
			cfg->server_name, cfg->tcp_port, why);
}

/*
 * How long one of the server's addresses may take to resolve: one that
 * gets no answer (an IPv6 neighbour that never replies, say) must leave
 * time for the next. On a working network both steps take milliseconds.
 */
#define CM_ATTEMPT_MS 3000

/* Client: try the server's addresses in turn, all within -t. */
static int resolve_server(struct cm *cm, const struct config *cfg)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV,
	};
	long long deadline =
		now_ms() + (long long)cfg->timeout_sec * MS_PER_SEC;
	char port[8], why[CM_WHY_LEN] = "", host[INET6_ADDRSTRLEN] = "?";
	struct addrinfo *list, *ai;
	int ret, tried = 0;

	snprintf(port, sizeof(port), "%u", cfg->tcp_port);
	ret = getaddrinfo(cfg->server_name, port, &hints, &list);
	if (ret) {
		fprintf(stderr, "failed to resolve %s: %s\n", cfg->server_name,
			gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	ret = -ETIMEDOUT;
	for (ai = list; ai && ms_left(deadline) > 0 && !interrupted();
	     ai = ai->ai_next) {
		getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof(host),
			    NULL, 0, NI_NUMERICHOST);
		trace_step(&cm->trace, "RDMA_CM resolving %s port %s", host,
			   port);
		tried++;
		/* the last address may take all the time that is left */
		ret = resolve_address(
			cm, ai,
			ai->ai_next ? deadline_within(deadline, CM_ATTEMPT_MS)
				    : deadline,
			why, sizeof(why));
		if (!ret)
			break;
		trace_step(&cm->trace, "RDMA_CM gave up on %s: %s", host, why);
		if (cm->id)
			rdma_destroy_id(cm->id);
		cm->id = NULL;
	}
	freeaddrinfo(list);
	if (ret && interrupted()) {
		ret = -EINTR;
		snprintf(why, sizeof(why), "%s", strerror(EINTR));
	}
	if (ret)
		report_unresolved(cfg, tried, host,
				  tried ? why : strerror(-ret));
	return ret;
}

int cm_open(struct cm *cm, const struct config *cfg)
{
	int ret;

	*cm = (struct cm){.trace = {.on = cfg->verbose}};
	cm->channel = rdma_create_event_channel();
	if (!cm->channel) {
		ret = -errno;
		fprintf(stderr, "failed to create RDMA_CM event channel: %s\n",
			strerror(-ret));
		return ret;
	}
	ret = cfg->server_name ? resolve_server(cm, cfg)
			       : listen_on_port(cm, cfg);
	if (ret)
		cm_close(cm);
	return ret;
}

/* Server: the client's request; its private data is the peer's info. */
static int wait_request(struct cm *cm, const struct config *cfg,
			struct qp_info *remote)
{
	struct rdma_cm_event *event;
	const char *why;
	int ret;

	ret = wait_event(cm, cfg->accept_timeout_sec,
			 RDMA_CM_EVENT_CONNECT_REQUEST, &event);
	if (ret)
		return ret;
	cm->id = event->id;
	ret = cm_priv_decode(event->param.conn.private_data,
			     event->param.conn.private_data_len, remote, &why);
	remote->qp_num = event->param.conn.qp_num;
	rdma_ack_cm_event(event);
	if (ret) {
		fprintf(stderr, "failed to accept the connect request: %s\n",
			why);
		rdma_reject(cm->id, NULL, 0);
	}
	return ret;
}

/* The attributes and mask the CM computed for moving our QP to @state. */
static int cm_qp_attr(struct cm *cm, struct ibv_qp *qp, enum ibv_qp_state state,
		      struct ibv_qp_attr *attr, int *mask)
{
	int ret;

	*attr = (struct ibv_qp_attr){.qp_state = state};
	if (rdma_init_qp_attr(cm->id, attr, mask)) {
		ret = -errno;
		fprintf(stderr,
			"failed to get RDMA_CM attributes of QP 0x%06x for %s: %s\n",
			qp->qp_num, qp_state_str(state), strerror(-ret));
		return ret;
	}
	return 0;
}

static int modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int ret;

	ret = ibv_modify_qp(qp, attr, mask);
	if (ret) {
		fprintf(stderr, "failed to modify QP 0x%06x to %s: %s\n",
			qp->qp_num, qp_state_str(attr->qp_state),
			strerror(ret));
		return -ret;
	}
	return 0;
}

/*
 * RESET -> INIT: the CM's port and pkey index, with our access rights
 * (the CM grants what the connection's READ depth implies, not what our
 * region allows).
 */
static int cm_qp_to_init(struct cm *cm, struct resources *res)
{
	struct ibv_qp_attr attr;
	char flags[96];
	int mask, ret;

	ret = cm_qp_attr(cm, res->qp, IBV_QPS_INIT, &attr, &mask);
	if (ret)
		return ret;
	attr.qp_access_flags = (int)(res->mr_access & QP_REMOTE_ACCESS);
	mask |= IBV_QP_ACCESS_FLAGS;
	ret = modify_qp(res->qp, &attr, mask);
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

/*
 * The GID the QP sends from is the one the CM put in the RTR address
 * vector: take its index and type from there, since one address may have
 * several entries (RoCE v1 and v2) with the same bytes.
 */
static int cm_note_gid(struct cm *cm, struct resources *res,
		       const struct ibv_ah_attr *ah)
{
	struct ibv_gid_entry entry;
	char text[INET6_ADDRSTRLEN];
	int ret;

	if (ah->is_global) {
		ret = ibv_query_gid_ex(cm->id->verbs, cm->id->port_num,
				       ah->grh.sgid_index, &entry, 0);
		if (ret) {
			fprintf(stderr,
				"failed to query GID %u of %s port %u: %s\n",
				ah->grh.sgid_index,
				ibv_get_device_name(cm->id->verbs->device),
				cm->id->port_num, strerror(ret));
			return -ret;
		}
		res->gid.index = ah->grh.sgid_index;
		res->gid.gid = entry.gid;
		res->gid.type = entry.gid_type;
	}
	printf("RDMA_CM connection on device %s port %u, GID index %d (%s)\n",
	       ibv_get_device_name(cm->id->verbs->device), cm->id->port_num,
	       res->gid.index, gid_to_str(&res->gid.gid, text, sizeof(text)));
	trace_step(&res->trace,
		   "the CM's address vector sends from GID index %d, type %s",
		   res->gid.index, gid_type_str(res->gid.type));
	return 0;
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

/* RTR, then RTS, as the CM says; what it says about the peer goes to @conn. */
static int cm_qp_to_rts(struct cm *cm, struct resources *res,
			struct connection *conn)
{
	struct ibv_qp_attr attr;
	char gid[INET6_ADDRSTRLEN];
	int mask, ret;

	ret = cm_qp_attr(cm, res->qp, IBV_QPS_RTR, &attr, &mask);
	if (ret)
		return ret;
	set_rnr_timer(res->qp, &attr, &mask);
	ret = modify_qp(res->qp, &attr, mask);
	if (ret)
		return ret;
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
	ret = cm_note_gid(cm, res, &attr.ah_attr);
	if (ret)
		return ret;
	ret = cm_qp_attr(cm, res->qp, IBV_QPS_RTS, &attr, &mask);
	if (!ret)
		ret = modify_qp(res->qp, &attr, mask);
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

/* Our side of the connection: private data and the limits of the QP. */
static struct rdma_conn_param conn_param(const struct connection *conn,
					 const uint8_t *priv)
{
	return (struct rdma_conn_param){
		.private_data = priv,
		.private_data_len = CM_PRIV_SIZE,
		.responder_resources = CM_RD_ATOMIC,
		.initiator_depth = CM_RD_ATOMIC,
		.retry_count = CM_RETRY_COUNT,
		.rnr_retry_count = CM_RNR_RETRY_COUNT,
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
	param = conn_param(conn, priv);
	if (rdma_connect(cm->id, &param)) {
		ret = -errno;
		fprintf(stderr, "failed to connect through RDMA_CM: %s\n",
			strerror(-ret));
		return ret;
	}
	/* Not ESTABLISHED: with a QP of our own the CM leaves RTR to us. */
	ret = wait_event(cm, cfg->timeout_sec, RDMA_CM_EVENT_CONNECT_RESPONSE,
			 &event);
	if (ret)
		return ret;
	ret = cm_priv_decode(event->param.conn.private_data,
			     event->param.conn.private_data_len, &conn->remote,
			     &why);
	conn->remote.qp_num = event->param.conn.qp_num;
	rdma_ack_cm_event(event);
	if (ret) {
		fprintf(stderr, "failed to accept the server's reply: %s\n",
			why);
		return ret;
	}
	ret = cm_qp_to_rts(cm, res, conn);
	if (ret)
		return ret;
	if (rdma_establish(cm->id)) {
		ret = -errno;
		fprintf(stderr,
			"failed to establish the RDMA_CM connection: %s\n",
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

	ret = cm_qp_to_rts(cm, res, conn);
	if (ret)
		return ret;
	cm_priv_encode(&conn->local, priv);
	param = conn_param(conn, priv);
	if (rdma_accept(cm->id, &param)) {
		ret = -errno;
		fprintf(stderr, "failed to accept through RDMA_CM: %s\n",
			strerror(-ret));
		return ret;
	}
	ret = wait_event(cm, cfg->timeout_sec, RDMA_CM_EVENT_ESTABLISHED,
			 &event);
	if (ret)
		return ret;
	rdma_ack_cm_event(event);
	return 0;
}

/* INIT, then each side's half of the handshake. */
static int connect_on_id(struct cm *cm, struct resources *res,
			 const struct config *cfg, struct connection *conn)
{
	const char *why;
	int ret;

	ret = qp_describe_local(res, cfg, &conn->local);
	if (ret)
		return ret;
	if (!cfg->server_name) {
		ret = qp_info_match(&conn->local, &conn->remote, &why);
		if (ret) {
			fprintf(stderr, "failed to agree with the peer: %s\n",
				why);
			rdma_reject(cm->id, NULL, 0);
			return ret;
		}
	}
	ret = cm_qp_to_init(cm, res);
	if (ret)
		return ret;
	ret = cfg->server_name ? client_connect(cm, cfg, res, conn)
			       : server_accept(cm, cfg, res, conn);
	if (ret)
		return ret;
	qp_print_remote(&conn->remote);
	/* The server checked the request before accepting it. */
	ret = cfg->server_name
		      ? qp_info_match(&conn->local, &conn->remote, &why)
		      : 0;
	if (ret)
		fprintf(stderr, "failed to agree with the peer: %s\n", why);
	return ret;
}

/*
 * An index of the GID the CM resolved our address to (for RoCE, the GID
 * made from the IP address), in the table of the id's port: the first
 * entry with those bytes. Enough to create the resources; which entry the
 * QP uses (RoCE v1 and v2 may share the bytes) the CM says at RTR.
 */
static int cm_gid_index(struct rdma_cm_id *id, int *index)
{
	const union ibv_gid *sgid = &id->route.addr.addr.ibaddr.sgid;
	char text[INET6_ADDRSTRLEN];
	struct ibv_port_attr port;
	union ibv_gid gid;
	int i, ret;

	ret = ibv_query_port(id->verbs, id->port_num, &port);
	if (ret) {
		fprintf(stderr, "failed to query port %u of %s: %s\n",
			id->port_num, ibv_get_device_name(id->verbs->device),
			strerror(ret));
		return -ret;
	}
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (ibv_query_gid(id->verbs, id->port_num, i, &gid) == 0 &&
		    memcmp(gid.raw, sgid->raw, sizeof(gid.raw)) == 0) {
			*index = i;
			return 0;
		}
	}
	fprintf(stderr,
		"failed to find GID %s in the table of %s port %u: %s\n",
		gid_to_str(sgid, text, sizeof(text)),
		ibv_get_device_name(id->verbs->device), id->port_num,
		strerror(ENOENT));
	return -ENOENT;
}

int cm_connect_qp(struct cm *cm, struct resources *res,
		  const struct config *cfg, int sock, struct connection *conn)
{
	struct config on_id = *cfg;
	int ret;

	*conn = (struct connection){0};
	if (!cfg->server_name) {
		ret = wait_request(cm, cfg, &conn->remote);
		if (ret)
			return ret;
	}
	/* The device, port and GID are the ones the CM found for the address. */
	on_id.ib_port = cm->id->port_num;
	ret = cm_gid_index(cm->id, &on_id.gid_idx);
	if (ret)
		return ret;
	ret = resources_create_on(res, &on_id, cm->id->verbs);
	if (ret)
		return ret;
	conn->qp = res->qp;
	ret = connect_on_id(cm, res, cfg, conn);
	if (!ret)
		/* As in the TCP path: both QPs are in RTS before any send. */
		ret = sock_sync(sock, cfg->timeout_sec * MS_PER_SEC);
	if (ret)
		resources_destroy(res);
	return ret;
}

void cm_disconnect(struct cm *cm)
{
	/* The peer may have disconnected first: then there is nothing to do. */
	if (cm->id && rdma_disconnect(cm->id))
		trace_step(&cm->trace, "rdma_disconnect: %s", strerror(errno));
}

void cm_close(struct cm *cm)
{
	if (cm->id && rdma_destroy_id(cm->id))
		fprintf(stderr, "failed to destroy RDMA_CM id: %s\n",
			strerror(errno));
	if (cm->listen_id && rdma_destroy_id(cm->listen_id))
		fprintf(stderr, "failed to destroy RDMA_CM listening id: %s\n",
			strerror(errno));
	if (cm->channel)
		rdma_destroy_event_channel(cm->channel);
	*cm = (struct cm){0};
}
