// SPDX-License-Identifier: MIT
/*
 * -c ud -R: RDMA_CM for a UD QP, in its UDP port space (RDMA_PS_UDP).
 * Nothing is connected. The client's rdma_connect sends a SIDR request
 * (Service ID Resolution) to the server's port; the server's rdma_accept
 * answers with its QP number and the port space's Q_Key; the client's
 * ESTABLISHED event carries both, with the address vector to reach the
 * server. The server learns the client's QP number from our private data
 * and its address from the route of the request's id. Then each side
 * sends through an address handle, as the TCP path's UD does, and the QP
 * goes through INIT, RTR and RTS as there: only INIT takes the CM's
 * attributes (its port, pkey index and Q_Key).
 */
#include <err.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cm/cm.h"
#include "cm_internal.h"
#include "device.h"
#include "qp.h"
#include "variants/uc_ud.h"
#include "common/trace.h"

/* RESET -> INIT with the CM's attributes; the Q_Key it gave in *@qkey. */
static int ud_modify_qp_to_init(struct cm *cm, struct resources *res,
				uint32_t *qkey)
{
	struct ibv_qp_attr attr;
	int mask, ret;

	ret = cm_qp_attr(cm, res->qp, IBV_QPS_INIT, &attr, &mask);
	if (!ret)
		ret = qp_modify(res->qp, &attr, mask, "UD ");
	if (ret)
		return ret;
	*qkey = attr.qkey;
	trace_step(
		&res->trace,
		"QP 0x%06x RESET -> INIT (UD, RDMA_CM): port %u, pkey index %u, Q_Key 0x%08x (RDMA_PS_UDP's)",
		res->qp->qp_num, attr.port_num, attr.pkey_index, attr.qkey);
	return 0;
}

/* INIT, the client's early receives, RTR and RTS: ready before the peer. */
static int ud_qp_to_rts(struct cm *cm, const struct config *cfg,
			struct resources *res, struct connection *conn,
			uint32_t *qkey)
{
	int ret;

	ret = ud_modify_qp_to_init(cm, res, qkey);
	if (!ret)
		ret = ud_init_to_rts(res, cfg, conn->local.psn);
	return ret;
}

/*
 * Both sides: the peer's address @ah, the one every send takes: the GID
 * it sends from, the address handle, and the peer's LID and GID in @conn.
 */
static int ud_use_address(struct cm *cm, struct resources *res,
			  struct connection *conn, struct ibv_ah_attr *ah)
{
	int ret = cm_note_gid(cm, res, ah);

	if (!ret)
		ret = qp_create_peer_ah(res, ah);
	if (ret)
		return ret;
	conn->remote.lid = ah->dlid;
	memcpy(conn->remote.gid, ah->grh.dgid.raw, sizeof(conn->remote.gid));
	return 0;
}

/*
 * Client: the SIDR request, with our info as private data; the reply's
 * QP number, Q_Key and address vector make the address handle.
 */
static int ud_client_resolve(struct cm *cm, const struct config *cfg,
			     struct resources *res, struct connection *conn)
{
	uint8_t priv[CM_PRIV_SIZE];
	struct rdma_conn_param param = {
		.private_data = priv,
		.private_data_len = CM_PRIV_SIZE,
		.qp_num = res->qp->qp_num,
	};
	struct rdma_cm_event *event;
	struct ibv_ah_attr ah;
	const char *why;
	int ret;

	cm_priv_encode(&conn->local, priv);
	if (rdma_connect(cm->id, &param)) {
		ret = -errno;
		warnx("failed to send the SIDR request through RDMA_CM: %s",
		      strerror(-ret));
		return ret;
	}
	ret = cm_wait_event(cm, cfg->timeout_sec, RDMA_CM_EVENT_ESTABLISHED,
			    &event);
	if (ret)
		return ret;
	ret = cm_priv_decode(event->param.ud.private_data,
			     event->param.ud.private_data_len, &conn->remote,
			     &why);
	/* The CM's figures: they are what the server's QP takes. */
	conn->remote.qp_num = event->param.ud.qp_num;
	conn->remote_qkey = event->param.ud.qkey;
	ah = event->param.ud.ah_attr;
	rdma_ack_cm_event(event);
	if (ret) {
		warnx("failed to accept the server's SIDR reply: %s", why);
		return ret;
	}
	trace_step(&res->trace,
		   "SIDR reply: the server's QP 0x%06x, Q_Key 0x%08x",
		   conn->remote.qp_num, conn->remote_qkey);
	return ud_use_address(cm, res, conn, &ah);
}

/*
 * Server: the address of the client the request came from (on RoCE its
 * GID is made from its IP address), sent from our GID of the same kind,
 * RoCE v2 before v1 as the CM's own address vectors are.
 */
static int ud_server_address(struct cm *cm, struct resources *res,
			     struct ibv_ah_attr *ah)
{
	const struct rdma_addr *addr = &cm->id->route.addr;
	int index;

	*ah = (struct ibv_ah_attr){
		/* InfiniBand: the LID of the request's path; RoCE has none */
		.dlid = cm->id->route.num_paths
				? ntohs(cm->id->route.path_rec->dlid)
				: 0,
		.port_num = cm->id->port_num,
		.is_global = 1,
		.grh = {.dgid = addr->addr.ibaddr.dgid,
			.hop_limit = QP_HOP_LIMIT,
			.traffic_class = cm->tos < 0 ? 0 : (uint8_t)cm->tos},
	};
	index = gid_pick_by_address(res->gids.entries, res->gids.count,
				    &addr->addr.ibaddr.sgid);
	if (index < 0) {
		char text[INET6_ADDRSTRLEN];

		warnx("failed to find GID %s in the table of %s port %u: %s",
		      gid_to_str(&addr->addr.ibaddr.sgid, text, sizeof(text)),
		      ibv_get_device_name(cm->id->verbs->device),
		      cm->id->port_num, strerror(-index));
		return index;
	}
	ah->grh.sgid_index = (uint8_t)index;
	return 0;
}

/*
 * Server: the address handle to the client, then the SIDR reply, which
 * carries our QP number and the Q_Key of the port space (the CM's: it
 * takes none from us).
 */
static int ud_server_answer(struct cm *cm, struct resources *res,
			    struct connection *conn, uint32_t qkey)
{
	uint8_t priv[CM_PRIV_SIZE];
	struct rdma_conn_param param = {
		.private_data = priv,
		.private_data_len = CM_PRIV_SIZE,
		.qp_num = res->qp->qp_num,
	};
	struct ibv_ah_attr ah;
	int ret;

	ret = ud_server_address(cm, res, &ah);
	if (!ret)
		ret = ud_use_address(cm, res, conn, &ah);
	if (ret) {
		rdma_reject(cm->id, NULL, 0);
		return ret;
	}
	/* Both QPs are of the port space: the client's takes this Q_Key too. */
	conn->remote_qkey = qkey;
	cm_priv_encode(&conn->local, priv);
	if (rdma_accept(cm->id, &param)) {
		ret = -errno;
		warnx("failed to send the SIDR reply through RDMA_CM: %s",
		      strerror(-ret));
		return ret;
	}
	trace_step(
		&res->trace,
		"SIDR reply sent: our QP 0x%06x, Q_Key 0x%08x; the client's QP 0x%06x",
		res->qp->qp_num, qkey, conn->remote.qp_num);
	return 0;
}

int cm_ud_connect(struct cm *cm, const struct config *cfg,
		  struct resources *res, struct connection *conn)
{
	uint32_t qkey;
	int ret;

	ret = ud_qp_to_rts(cm, cfg, res, conn, &qkey);
	if (ret) {
		if (!cfg->server_name)
			rdma_reject(cm->id, NULL, 0);
		return ret;
	}
	return cfg->server_name ? ud_client_resolve(cm, cfg, res, conn)
				: ud_server_answer(cm, res, conn, qkey);
}
