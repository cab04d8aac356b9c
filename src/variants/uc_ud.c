// SPDX-License-Identifier: MIT
/*
 * UC and UD: the transitions of QPs that nothing acknowledges, UD's
 * address handle, and the GRH in front of a UD receive (see uc_ud.h).
 */
#include <err.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "extras/grh.h"
#include "post.h"
#include "variants/uc_ud.h"

_Static_assert(sizeof(((struct rc_buffer *)0)->grh) == GRH_SIZE,
	       "a UD receive lands its GRH in rc_buffer.grh");

/* "UC " and "UD " in an error line. */
static const char *kind_of(enum transport transport)
{
	return transport == TRANSPORT_UC ? "UC " : "UD ";
}

static enum ibv_qp_type qp_type_of(enum transport transport)
{
	switch (transport) {
	case TRANSPORT_RC:
		break;
	case TRANSPORT_UC:
		return IBV_QPT_UC;
	case TRANSPORT_UD:
		return IBV_QPT_UD;
	}
	return IBV_QPT_RC;
}

void resources_set_transport(struct resources_sizes *sizes,
			     enum transport transport)
{
	sizes->transport = transport;
	sizes->needs.qp_type = qp_type_of(transport);
	sizes->bring_up = transport == TRANSPORT_RC ? NULL : uc_ud_bring_up;
}

int modify_ud_qp_to_init(struct ibv_qp *qp, uint8_t port,
			 const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
		.qkey = UD_QKEY,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |		/* to INIT */
				    IBV_QP_PKEY_INDEX | /* partition */
				    IBV_QP_PORT |	/* local port */
				    IBV_QP_QKEY /* what we accept */);
	if (ret)
		return qp_modify_failed(qp, &attr, ret, kind_of(TRANSPORT_UD));
	trace_step(
		tr,
		"QP 0x%06x RESET -> INIT (UD): port %u, pkey index 0, Q_Key 0x%08x",
		qp->qp_num, port, UD_QKEY);
	return 0;
}

/*
 * INIT -> RTR, UC: RC's transition without what acknowledgements and
 * READs need (no READ depth, no RNR timer).
 */
static int modify_uc_qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path,
			       const struct qp_info *remote,
			       const struct trace *tr)
{
	struct ibv_qp_attr attr = qp_rtr_attr(path, remote);
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |	      /* to RTR */
				    IBV_QP_AV |	      /* peer address */
				    IBV_QP_PATH_MTU | /* packet size */
				    IBV_QP_DEST_QPN | /* peer QP */
				    IBV_QP_RQ_PSN /* peer's first PSN */);
	if (ret)
		return qp_modify_failed(qp, &attr, ret, kind_of(TRANSPORT_UC));
	trace_step(
		tr,
		"QP 0x%06x INIT -> RTR (UC): dest QPN 0x%06x, rq PSN 0x%06x, MTU %d, dest LID 0x%04x, %s%d",
		qp->qp_num, remote->qp_num, remote->psn,
		mtu_to_bytes(path->mtu), remote->lid,
		path->gid_index >= 0 ? "GRH with sgid index " : "no GRH ",
		path->gid_index);
	return 0;
}

int modify_ud_qp_to_rtr(struct ibv_qp *qp, const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	if (ret)
		return qp_modify_failed(qp, &attr, ret, kind_of(TRANSPORT_UD));
	trace_step(tr, "QP 0x%06x INIT -> RTR (UD)", qp->qp_num);
	return 0;
}

/*
 * Without acknowledgements there is no ack timeout, retry count, RNR
 * retry or READ depth to set.
 */
int modify_unacked_qp_to_rts(struct ibv_qp *qp, enum transport transport,
			     uint32_t psn, const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = psn,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE | /* to RTS */
				    IBV_QP_SQ_PSN /* our first PSN */);
	if (ret)
		return qp_modify_failed(qp, &attr, ret, kind_of(transport));
	trace_step(tr, "QP 0x%06x RTR -> RTS (%s): sq PSN 0x%06x", qp->qp_num,
		   transport_name(transport), psn);
	return 0;
}

int ud_init_to_rts(struct resources *res, const struct config *cfg,
		   uint32_t psn)
{
	int ret;

	ret = ud_post_early_receives(res, cfg);
	if (!ret)
		ret = modify_ud_qp_to_rtr(res->qp, &res->trace);
	if (!ret)
		ret = modify_unacked_qp_to_rts(res->qp, TRANSPORT_UD, psn,
					       &res->trace);
	return ret;
}

int ud_post_early_receives(struct resources *res, const struct config *cfg)
{
	/* A UD receive fills the 40 bytes of the GRH area before the msg. */
	struct ibv_sge sge = {
		.addr = (uintptr_t)res->buf->grh,
		.length = sizeof(res->buf->grh) + sizeof(res->buf->msg),
		.lkey = res->mr->lkey,
	};
	size_t i, count = cfg->server_name ? res->sizes.early_receives : 0;
	int ret = 0;

	for (i = 0; !ret && i < count; i++)
		ret = post_receive(res->qp, &sge, i, &res->trace);
	return ret;
}

int qp_create_peer_ah(struct resources *res, struct ibv_ah_attr *attr)
{
	char text[INET6_ADDRSTRLEN];

	res->ah = ibv_create_ah(res->pd, attr);
	if (!res->ah) {
		int ret = -errno;

		warnx("failed to create an address handle to LID 0x%04x GID %s: %s",
		      attr->dlid,
		      gid_to_str(&attr->grh.dgid, text, sizeof(text)),
		      strerror(-ret));
		return ret;
	}
	trace_step(&res->trace,
		   "created AH: port %u, dest LID 0x%04x, %s%s, sgid index %d",
		   attr->port_num, attr->dlid,
		   attr->is_global ? "GRH to GID " : "no GRH",
		   attr->is_global
			   ? gid_to_str(&attr->grh.dgid, text, sizeof(text))
			   : "",
		   attr->is_global ? attr->grh.sgid_index : -1);
	return 0;
}

/* UD: INIT, receives, RTR, RTS, then the peer's address as it sent it. */
static int ud_bring_up(struct resources *res, const struct config *cfg,
		       const struct qp_path *path, struct connection *conn)
{
	struct ibv_ah_attr ah = qp_peer_address(path, &conn->remote);
	int ret;

	ret = modify_ud_qp_to_init(res->qp, cfg->ib_port, &res->trace);
	if (!ret)
		ret = ud_init_to_rts(res, cfg, conn->local.psn);
	if (!ret)
		ret = qp_create_peer_ah(res, &ah);
	conn->remote_qkey = UD_QKEY;
	return ret;
}

int uc_ud_bring_up(struct resources *res, const struct config *cfg,
		   const struct qp_path *path, struct connection *conn)
{
	int ret;

	if (res->sizes.transport == TRANSPORT_UD)
		return ud_bring_up(res, cfg, path, conn);
	/* UC: RC's INIT, with the one remote right UC has */
	ret = modify_qp_to_init(res->qp, cfg->ib_port,
				res->mr_access & UC_REMOTE_ACCESS, &res->trace);
	if (!ret)
		ret = qp_post_early_receives(res, cfg);
	if (!ret)
		ret = modify_uc_qp_to_rtr(res->qp, path, &conn->remote,
					  &res->trace);
	if (!ret)
		ret = modify_unacked_qp_to_rts(res->qp, TRANSPORT_UC,
					       conn->local.psn, &res->trace);
	return ret;
}

void ud_print_grh_source(const struct op_ctx *ctx, const struct ibv_wc *wc)
{
	union ibv_gid sgid;
	char text[INET6_ADDRSTRLEN];

	if (!(wc->wc_flags & IBV_WC_GRH))
		return;
	if (grh_source_gid(ctx->res->buf->grh, &sgid) == GRH_HEADER_UNKNOWN) {
		printf("GRH source GID: unknown (no GRH, IPv6 or IPv4 header in the first 40 bytes)\n");
		return;
	}
	printf("GRH source GID: %s\n", gid_to_str(&sgid, text, sizeof(text)));
}
