// SPDX-License-Identifier: MIT
/* Step 9 of the manual, first half: post work requests. */
#include <err.h>
#include <errno.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "post.h"

/* The manual's way: @req as the work request struct ibv_post_send takes. */
static void fill_send_wr(struct ibv_send_wr *wr, struct ibv_sge *sge,
			 const struct send_request *req)
{
	*sge = req->sge;
	*wr = (struct ibv_send_wr){
		.wr_id = req->wr_id,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = req->opcode,
		.send_flags = IBV_SEND_SIGNALED,
		/* read by the *_WITH_IMM opcodes only; sent in network order */
		.imm_data = htonl(req->imm_data),
	};
	switch (req->opcode) {
	case IBV_WR_RDMA_READ:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wr->wr.rdma.remote_addr = req->remote_addr;
		wr->wr.rdma.rkey = req->rkey;
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		wr->wr.atomic.remote_addr = req->remote_addr;
		wr->wr.atomic.rkey = req->rkey;
		wr->wr.atomic.compare_add = req->compare_add;
		wr->wr.atomic.swap = req->swap;
		break;
	default:
		break;
	}
	if (req->ah) {
		wr->wr.ud.ah = req->ah;
		wr->wr.ud.remote_qpn = req->remote_qpn;
		wr->wr.ud.remote_qkey = req->remote_qkey;
	}
}

void post_trace(const struct trace *tr, const struct send_request *req,
		const char *via)
{
	if (req->ah)
		trace_step(tr, "UD destination: QPN 0x%06x, Q_Key 0x%08x",
			   req->remote_qpn, req->remote_qkey);
	trace_step(tr,
		   "posted %s%s%s: wr_id %" PRIu64 ", local 0x%" PRIx64
		   " len %u lkey 0x%x, remote 0x%" PRIx64 " rkey 0x%x",
		   wr_opcode_str(req->opcode), via ? " with " : "",
		   via ? via : "", req->wr_id, req->sge.addr, req->sge.length,
		   req->sge.lkey, req->remote_addr, req->rkey);
}

int post_send(const struct resources *res, struct ibv_qp *qp,
	      const struct send_request *req)
{
	struct ibv_send_wr wr, *bad_wr = NULL;
	struct ibv_sge sge;
	int ret;

	if (res->sizes.extended) /* --new-api: the ibv_wr_* calls */
		return res->sizes.extended->post_send(res, qp, req);
	fill_send_wr(&wr, &sge, req);
	ret = ibv_post_send(qp, &wr, &bad_wr);
	if (ret) {
		warnx("failed to post %s on QP 0x%06x: %s",
		      wr_opcode_str(req->opcode), qp->qp_num, strerror(ret));
		return -ret;
	}
	post_trace(&res->trace, req, NULL);
	return 0;
}

int post_receive(struct ibv_qp *qp, const struct ibv_sge *sge, uint64_t wr_id,
		 const struct trace *tr)
{
	struct ibv_sge sg = sge ? *sge : (struct ibv_sge){0};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = sge ? &sg : NULL,
		.num_sge = sge ? 1 : 0,
	};
	struct ibv_recv_wr *bad_wr = NULL;
	int ret;

	ret = ibv_post_recv(qp, &wr, &bad_wr);
	if (ret) {
		warnx("failed to post a receive on QP 0x%06x: %s", qp->qp_num,
		      strerror(ret));
		return -ret;
	}
	trace_step(tr,
		   "posted RECV: wr_id %" PRIu64 ", local 0x%" PRIx64
		   " len %u lkey 0x%x",
		   wr_id, sg.addr, sg.length, sg.lkey);
	return 0;
}
