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

/* --new-api: the ibv_wr_* builder that posts @opcode; NULL: none here. */
static const char *wr_builder(enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_SEND:
		return "ibv_wr_send";
	case IBV_WR_SEND_WITH_IMM:
		return "ibv_wr_send_imm";
	case IBV_WR_RDMA_READ:
		return "ibv_wr_rdma_read";
	case IBV_WR_RDMA_WRITE:
		return "ibv_wr_rdma_write";
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return "ibv_wr_rdma_write_imm";
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return "ibv_wr_atomic_fetch_add";
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return "ibv_wr_atomic_cmp_swp";
	default:
		return NULL;
	}
}

int post_send(const struct resources *res, struct ibv_qp *qp,
	      const struct send_request *req)
{
	/* --new-api: the QPs of @res were made by ibv_create_qp_ex with
	 * send_ops_flags, which gives them the ibv_wr_* calls. Only those are
	 * asked: a provider may make a QP of ibv_create_qp without the field
	 * ibv_qp_to_qp_ex reads. */
	struct ibv_qp_ex *qpx = res->sizes.new_api ? ibv_qp_to_qp_ex(qp) : NULL;
	const struct trace *tr = &res->trace;
	const char *builder = qpx ? wr_builder(req->opcode) : NULL;
	struct ibv_send_wr wr, *bad_wr = NULL;
	struct ibv_sge sge;
	int ret = EOPNOTSUPP; /* an operation --new-api has no builder for */

	if (!qpx) {
		fill_send_wr(&wr, &sge, req);
		ret = ibv_post_send(qp, &wr, &bad_wr);
	} else if (builder) {
		/*
		 * No struct: ibv_wr_start opens the QP's posting, a builder
		 * names the operation and its remote side (reading wr_id and
		 * wr_flags as it is called), setters add the local buffer
		 * and, on UD, the address; ibv_wr_complete rings the doorbell
		 * once for all built since ibv_wr_start, here one request.
		 */
		ibv_wr_start(qpx);
		qpx->wr_id = req->wr_id;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		if (req->opcode == IBV_WR_SEND)
			ibv_wr_send(qpx);
		else if (req->opcode == IBV_WR_SEND_WITH_IMM)
			ibv_wr_send_imm(qpx, htonl(req->imm_data));
		else if (req->opcode == IBV_WR_RDMA_READ)
			ibv_wr_rdma_read(qpx, req->rkey, req->remote_addr);
		else if (req->opcode == IBV_WR_RDMA_WRITE)
			ibv_wr_rdma_write(qpx, req->rkey, req->remote_addr);
		else if (req->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
			ibv_wr_rdma_write_imm(qpx, req->rkey, req->remote_addr,
					      htonl(req->imm_data));
		else if (req->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			ibv_wr_atomic_fetch_add(qpx, req->rkey,
						req->remote_addr,
						req->compare_add);
		else
			ibv_wr_atomic_cmp_swp(qpx, req->rkey, req->remote_addr,
					      req->compare_add, req->swap);
		ibv_wr_set_sge(qpx, req->sge.lkey, req->sge.addr,
			       req->sge.length);
		if (req->ah)
			ibv_wr_set_ud_addr(qpx, req->ah, req->remote_qpn,
					   req->remote_qkey);
		/* The builders return nothing: a fault shows here. */
		ret = ibv_wr_complete(qpx);
	}
	if (ret) {
		warnx("failed to post %s on QP 0x%06x%s%s: %s%s",
		      wr_opcode_str(req->opcode), qp->qp_num,
		      builder ? " with " : "", builder ? builder : "",
		      strerror(ret),
		      qpx && !builder ? " (no ibv_wr_* builder for it here)"
				      : "");
		return -ret;
	}
	if (req->ah)
		trace_step(tr, "UD destination: QPN 0x%06x, Q_Key 0x%08x",
			   req->remote_qpn, req->remote_qkey);
	trace_step(tr,
		   "posted %s%s%s: wr_id %" PRIu64 ", local 0x%" PRIx64
		   " len %u lkey 0x%x, remote 0x%" PRIx64 " rkey 0x%x",
		   wr_opcode_str(req->opcode), builder ? " with " : "",
		   builder ? builder : "", req->wr_id, req->sge.addr,
		   req->sge.length, req->sge.lkey, req->remote_addr, req->rkey);
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
