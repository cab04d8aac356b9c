// SPDX-License-Identifier: MIT
/*
 * post_receive and post_send on the UD QP. A UD send names its
 * destination in every work request: the address handle, the remote QPN
 * (for a group, the multicast QPN 0xffffff) and the remote Q_Key.
 */
#include <err.h>
#include <string.h>

#include "mc/mc_trace.h"
#include "mc/mc_xfer.h"

int mc_post_receive(struct mc_resources *res, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mc_slot(res, slot),
		.length = (uint32_t)res->slot_size, /* GRH + payload */
		.lkey = res->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = slot,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	int err;

	err = ibv_post_recv(res->qp, &wr, &bad);
	if (err) {
		warnx("failed to post receive %u on QP 0x%x: %s", slot,
		      res->qp->qp_num, strerror(err));
		return -err;
	}
	return 0;
}

int mc_post_receives(struct mc_resources *res, const struct mc_config *cfg)
{
	unsigned int i;
	int ret;

	for (i = 0; i < res->slots; i++) {
		ret = mc_post_receive(res, i);
		if (ret)
			return ret;
	}
	trace_step(&cfg->trace, "ibv_post_recv x %u", res->slots);
	mc_step("posted %u receive buffers of %zu bytes (%d for the GRH)",
		res->slots, res->slot_size, MC_GRH_SIZE);
	return 0;
}

int mc_post_send(struct mc_resources *res, const struct mc_group *group,
		 const struct mc_config *cfg)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(mc_slot(res, 0) + MC_GRH_SIZE),
		.length = cfg->size, /* no GRH: the HCA builds the headers */
		.lkey = res->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud.ah = group->ah,
		.wr.ud.remote_qpn = group->remote_qpn,
		.wr.ud.remote_qkey = group->remote_qkey,
	};
	struct ibv_send_wr *bad;
	int err;

	err = ibv_post_send(res->qp, &wr, &bad);
	if (err) {
		warnx("failed to post send on QP 0x%x to group %s: %s",
		      res->qp->qp_num, cfg->group_str, strerror(err));
		return -err;
	}
	trace_step(&cfg->trace,
		   "ibv_post_send: %u bytes to QPN 0x%x, Q_Key 0x%x", cfg->size,
		   group->remote_qpn, group->remote_qkey);
	return 0;
}
