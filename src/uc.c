// SPDX-License-Identifier: MIT
/* UC's RTR: RC's transition without what acks and READs need (RTS: qp.c). */
#include <stdio.h>
#include <string.h>

#include "uc.h"

int uc_modify_qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path,
			const struct qp_info *remote, const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = path->mtu,
		.dest_qp_num = remote->qp_num,
		.rq_psn = remote->psn,
		.ah_attr = qp_peer_address(path, remote),
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |	      /* to RTR */
				    IBV_QP_AV |	      /* peer address */
				    IBV_QP_PATH_MTU | /* packet size */
				    IBV_QP_DEST_QPN | /* peer QP */
				    IBV_QP_RQ_PSN);   /* peer's first PSN */
	if (ret) {
		fprintf(stderr, "failed to modify UC QP 0x%06x to RTR: %s\n",
			qp->qp_num, strerror(ret));
		return -ret;
	}
	trace_step(
		tr,
		"QP 0x%06x INIT -> RTR (UC): dest QPN 0x%06x, rq PSN 0x%06x, MTU %d, dest LID 0x%04x, %s%d",
		qp->qp_num, remote->qp_num, remote->psn,
		mtu_to_bytes(path->mtu), remote->lid,
		path->gid_index >= 0 ? "GRH with sgid index " : "no GRH ",
		path->gid_index);
	return 0;
}
