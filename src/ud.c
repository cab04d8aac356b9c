// SPDX-License-Identifier: MIT
/* The UD QP's states, its address handle, its size limit and the GRH. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "grh.h"
#include "ud.h"

int ud_modify_qp_to_init(struct ibv_qp *qp, uint8_t port,
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
				    IBV_QP_QKEY);	/* what we accept */
	if (ret) {
		fprintf(stderr, "failed to modify UD QP 0x%06x to INIT: %s\n",
			qp->qp_num, strerror(ret));
		return -ret;
	}
	trace_step(
		tr,
		"QP 0x%06x RESET -> INIT (UD): port %u, pkey index 0, Q_Key 0x%08x",
		qp->qp_num, port, UD_QKEY);
	return 0;
}

int ud_modify_qp_to_rtr(struct ibv_qp *qp, const struct trace *tr)
{
	/* No peer to name: each send carries its own address. */
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	if (ret) {
		fprintf(stderr, "failed to modify UD QP 0x%06x to RTR: %s\n",
			qp->qp_num, strerror(ret));
		return -ret;
	}
	trace_step(tr, "QP 0x%06x INIT -> RTR (UD)", qp->qp_num);
	return 0;
}

int ud_create_ah(struct ibv_pd *pd, const struct qp_path *path,
		 const struct qp_info *remote, struct ibv_ah **ah,
		 const struct trace *tr)
{
	struct ibv_ah_attr attr = qp_peer_address(path, remote);
	char text[INET6_ADDRSTRLEN];

	*ah = ibv_create_ah(pd, &attr);
	if (!*ah) {
		int ret = -errno;

		fprintf(stderr,
			"failed to create an address handle to LID 0x%04x GID %s: %s\n",
			remote->lid,
			gid_to_str(&attr.grh.dgid, text, sizeof(text)),
			strerror(-ret));
		return ret;
	}
	trace_step(
		tr, "created AH: port %u, dest LID 0x%04x, %s%s, sgid index %d",
		path->port, remote->lid,
		attr.is_global ? "GRH to GID " : "no GRH",
		attr.is_global ? gid_to_str(&attr.grh.dgid, text, sizeof(text))
			       : "",
		path->gid_index);
	return 0;
}

int ud_check_size(size_t len, enum ibv_mtu mtu)
{
	int limit = mtu_to_bytes(mtu);

	if (limit > 0 && len <= (size_t)limit)
		return 0;
	fprintf(stderr,
		"failed to send %zu bytes over UD: more than the path MTU of %d bytes: %s\n",
		len, limit, strerror(EMSGSIZE));
	return -EMSGSIZE;
}

void ud_print_grh_source(const void *grh)
{
	union ibv_gid sgid;
	char text[INET6_ADDRSTRLEN];

	if (grh_source_gid(grh, &sgid) == GRH_HEADER_UNKNOWN) {
		printf("GRH source GID: unknown (no GRH, IPv6 or IPv4 header in the first 40 bytes)\n");
		return;
	}
	printf("GRH source GID: %s\n", gid_to_str(&sgid, text, sizeof(text)));
}
