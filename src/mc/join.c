// SPDX-License-Identifier: MIT
/*
 * Joining and leaving the multicast group. The join event carries what a
 * sender needs (the UD address of the group: ah_attr, QPN, Q_Key); when
 * it is read, librdmacm attaches the id's QP to the group, so receives
 * posted on it start to match the group's messages.
 */
#include <err.h>
#include <errno.h>
#include <string.h>

#include "mc/mc_cm.h"
#include "mc/mc_trace.h"

static int create_group_ah(struct ibv_pd *pd, const struct rdma_ud_param *ud,
			   const struct mc_config *cfg, struct mc_group *group)
{
	struct ibv_ah_attr ah_attr = ud->ah_attr;
	int ret;

	group->ah = ibv_create_ah(pd, &ah_attr);
	if (!group->ah) {
		ret = -errno;
		warnx("failed to create address handle for group %s: %s",
		      cfg->group_str, strerror(-ret));
		return ret;
	}
	group->remote_qpn = ud->qp_num;
	group->remote_qkey = ud->qkey;
	trace_step(
		&cfg->trace,
		"ibv_create_ah: dlid 0x%x, is_global %u, sgid_index %u, hop_limit %u; remote QPN 0x%x, Q_Key 0x%x",
		ah_attr.dlid, ah_attr.is_global, ah_attr.grh.sgid_index,
		ah_attr.grh.hop_limit, group->remote_qpn, group->remote_qkey);
	return 0;
}

int mc_join(struct mc_cm *cm, const struct mc_config *cfg, struct ibv_pd *pd,
	    struct mc_group *group)
{
	struct rdma_cm_event *event;
	int ret;

	*group = (struct mc_group){0};
	if (rdma_join_multicast(cm->id, (struct sockaddr *)&cfg->group,
				group)) {
		ret = -errno;
		warnx("failed to join multicast group %s: %s", cfg->group_str,
		      strerror(-ret));
		return ret;
	}
	trace_step(&cfg->trace, "rdma_join_multicast: %s", cfg->group_str);

	ret = mc_cm_wait_event(cm, cfg, RDMA_CM_EVENT_MULTICAST_JOIN, &event);
	if (ret)
		goto leave_group;
	ret = create_group_ah(pd, &event->param.ud, cfg, group);
	rdma_ack_cm_event(event);
	if (ret)
		goto leave_group;

	mc_step("joined group %s as %s (remote QPN 0x%x, Q_Key 0x%x)",
		cfg->group_str, cfg->send ? "sender" : "receiver",
		group->remote_qpn, group->remote_qkey);
	return 0;

leave_group:
	rdma_leave_multicast(cm->id, (struct sockaddr *)&cfg->group);
	return ret;
}

int mc_leave(struct mc_cm *cm, const struct mc_config *cfg,
	     struct mc_group *group)
{
	int err, ret = 0;

	err = ibv_destroy_ah(group->ah);
	if (err) {
		warnx("failed to destroy address handle of group %s: %s",
		      cfg->group_str, strerror(err));
		ret = -err;
	}
	trace_step(&cfg->trace, "ibv_destroy_ah");
	if (rdma_leave_multicast(cm->id, (struct sockaddr *)&cfg->group)) {
		err = errno;
		warnx("failed to leave multicast group %s: %s", cfg->group_str,
		      strerror(err));
		ret = ret ? ret : -err;
	}
	trace_step(&cfg->trace, "rdma_leave_multicast: %s", cfg->group_str);
	*group = (struct mc_group){0};
	return ret;
}
