// SPDX-License-Identifier: MIT
/*
 * -R, what the QP's steps take from RDMA_CM, for RC (connect.c) and UD
 * (datagram.c) alike: the attributes it computes for each state, and the
 * GID its address vector sends from.
 */
#include <err.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cm_internal.h"
#include "device.h"
#include "qp.h"
#include "common/trace.h"

int cm_qp_attr(struct cm *cm, struct ibv_qp *qp, enum ibv_qp_state state,
	       struct ibv_qp_attr *attr, int *mask)
{
	int ret;

	*attr = (struct ibv_qp_attr){.qp_state = state};
	if (rdma_init_qp_attr(cm->id, attr, mask)) {
		ret = -errno;
		warnx("failed to get RDMA_CM attributes of QP 0x%06x for %s: %s",
		      qp->qp_num, qp_state_str(state), strerror(-ret));
		return ret;
	}
	return 0;
}

int cm_note_gid(struct cm *cm, struct resources *res,
		const struct ibv_ah_attr *ah)
{
	const struct ibv_gid_entry *entry;
	char text[INET6_ADDRSTRLEN];

	if (ah->is_global) {
		/* RDMA_CM's choice, from the table resources_create read */
		entry = gid_entry_find(res->gids.entries, res->gids.count,
				       ah->grh.sgid_index);
		if (!entry) {
			warnx("failed to find GID index %u of %s port %u, RDMA_CM's choice, in the port's GID table: %s",
			      ah->grh.sgid_index,
			      ibv_get_device_name(cm->id->verbs->device),
			      cm->id->port_num, strerror(ENODATA));
			return -ENODATA;
		}
		res->gid.index = ah->grh.sgid_index;
		res->gid.gid = entry->gid;
		res->gid.type = entry->gid_type;
		res->gid.ndev_ifindex = entry->ndev_ifindex;
	}
	if (!cm->lane)
		printf("RDMA_CM connection on device %s port %u, GID index %d (%s)\n",
		       ibv_get_device_name(cm->id->verbs->device),
		       cm->id->port_num, res->gid.index,
		       gid_to_str(&res->gid.gid, text, sizeof(text)));
	trace_step(&res->trace,
		   "the CM's address vector sends from GID index %d, type %s",
		   res->gid.index, gid_type_str(res->gid.type));
	return 0;
}

/* ibv_modify_qp, then qp_modify_failed if it refused. */
int qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
	      const char *kind)
{
	int ret = ibv_modify_qp(qp, attr, mask);

	return ret ? qp_modify_failed(qp, attr, ret, kind) : 0;
}
