// SPDX-License-Identifier: MIT
/* --new-api: the extended verbs in the manual's steps (see new_api.h). */
#include <err.h>
#include <errno.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/cq_wait.h"
#include "post.h"
#include "variants/new_api.h"

/*
 * An extended CQ. Its completions are read field by field after
 * ibv_start_poll, and only the fields named here beside wr_id, status,
 * opcode and flags can be read.
 */
static int create_cq_ex(struct resources *res, int entries)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = (uint32_t)entries,
		.channel = res->comp_channel,
		.wc_flags = NEW_API_WC_FLAGS,
	};
	int ret;

	res->cq_ex = ibv_create_cq_ex(res->ctx, &attr);
	if (!res->cq_ex) {
		ret = -errno;
		warnx("failed to create CQ of %d entries with ibv_create_cq_ex: %s",
		      entries, strerror(-ret));
		return ret;
	}
	res->cq = ibv_cq_ex_to_cq(res->cq_ex);
	trace_step(
		&res->trace,
		"created CQ with %d entries (ibv_create_cq_ex: byte_len, imm_data, qp_num and src_qp readable)",
		res->cq->cqe);
	return 0;
}

/*
 * --new-api: the work requests a QP of @transport posts with the ibv_wr_*
 * calls (ibv_create_qp_ex's send_ops_flags): SEND and WRITE, each also
 * with immediate data (UD: SEND only); on RC, READ and, if the device has
 * them, the atomics.
 */
static uint64_t send_ops(const struct resources *res, enum transport transport)
{
	uint64_t ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

	if (transport == TRANSPORT_UD)
		return ops;
	ops |= IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	if (transport != TRANSPORT_RC)
		return ops;
	ops |= IBV_QP_EX_WITH_RDMA_READ;
	if (resources_have_atomics(res))
		ops |= IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
	return ops;
}

/*
 * The QP of @attr, made by ibv_create_qp_ex with the work requests it will
 * post with the ibv_wr_* calls (send_ops_flags); it fails if the device
 * cannot post one. attr->cap becomes what the device gave.
 */
static int create_qp_ex(struct resources *res, struct ibv_qp_init_attr *attr,
			struct ibv_qp **qp)
{
	struct ibv_qp_init_attr_ex ex = {
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = res->pd,
		.send_ops_flags = send_ops(res, res->sizes.transport),
	};
	int ret;

	*qp = ibv_create_qp_ex(res->ctx, &ex);
	if (!*qp) {
		ret = -errno;
		warnx("failed to create %s QP with ibv_create_qp_ex (send_ops_flags 0x%" PRIx64
		      "): %s; without --new-api the QP posts with ibv_post_send",
		      transport_name(res->sizes.transport), ex.send_ops_flags,
		      strerror(-ret));
		return ret;
	}
	attr->cap = ex.cap;
	return 0;
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

/*
 * No struct: ibv_wr_start opens the QP's posting, a builder names the
 * operation and its remote side (reading wr_id and wr_flags as it is
 * called), setters add the local buffer and, on UD, the address;
 * ibv_wr_complete rings the doorbell once for all built since
 * ibv_wr_start, here one request.
 */
static int post_send_ex(const struct resources *res, struct ibv_qp *qp,
			const struct send_request *req)
{
	/* A QP ibv_create_qp_ex made with send_ops_flags has the ibv_wr_*
	 * calls: a provider may make a QP of ibv_create_qp without the field
	 * ibv_qp_to_qp_ex reads. */
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	const char *builder = wr_builder(req->opcode);
	int ret;

	if (!builder) {
		warnx("failed to post %s on QP 0x%06x: %s (no ibv_wr_* builder for it here)",
		      wr_opcode_str(req->opcode), qp->qp_num,
		      strerror(EOPNOTSUPP));
		return -EOPNOTSUPP;
	}
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
		ibv_wr_atomic_fetch_add(qpx, req->rkey, req->remote_addr,
					req->compare_add);
	else
		ibv_wr_atomic_cmp_swp(qpx, req->rkey, req->remote_addr,
				      req->compare_add, req->swap);
	ibv_wr_set_sge(qpx, req->sge.lkey, req->sge.addr, req->sge.length);
	if (req->ah)
		ibv_wr_set_ud_addr(qpx, req->ah, req->remote_qpn,
				   req->remote_qkey);
	/* The builders return nothing: a fault shows here. */
	ret = ibv_wr_complete(qpx);
	if (ret) {
		warnx("failed to post %s on QP 0x%06x with %s: %s",
		      wr_opcode_str(req->opcode), qp->qp_num, builder,
		      strerror(ret));
		return -ret;
	}
	post_trace(&res->trace, req, builder);
	return 0;
}

/*
 * --new-api: the completion ibv_start_poll points at, field by field into
 * the struct the judge reads. Of a failed completion only wr_id, status,
 * the QP number and the vendor error are valid (ibv_poll_cq(3)); of a good
 * one, the fields the CQ was made to give (NEW_API_WC_FLAGS) too, each
 * a call.
 */
static void read_polled(struct ibv_cq_ex *cqx, struct ibv_wc *wc)
{
	*wc = (struct ibv_wc){
		.wr_id = cqx->wr_id,
		.status = cqx->status,
		.vendor_err = ibv_wc_read_vendor_err(cqx),
		.qp_num = ibv_wc_read_qp_num(cqx),
	};
	if (wc->status != IBV_WC_SUCCESS)
		return;
	wc->opcode = ibv_wc_read_opcode(cqx);
	wc->byte_len = ibv_wc_read_byte_len(cqx);
	wc->src_qp = ibv_wc_read_src_qp(cqx);
	wc->wc_flags = ibv_wc_read_wc_flags(cqx);
	if (wc->wc_flags & IBV_WC_WITH_IMM)
		wc->imm_data = ibv_wc_read_imm_data(cqx);
}

/*
 * One look at the extended CQ, as ibv_poll_cq(cq, 1, wc) looks: 1 with
 * the completion in @wc, 0 for none, negative on failure. ENOENT is
 * nothing yet (and no ibv_end_poll). A batch would go on with
 * ibv_next_poll; a step takes one.
 */
static int poll_cq_ex(struct resources *res, struct ibv_wc *wc)
{
	struct ibv_poll_cq_attr attr = {0};
	int ret = ibv_start_poll(res->cq_ex, &attr);

	if (ret == ENOENT)
		return 0;
	if (ret)
		return -ret;
	read_polled(res->cq_ex, wc);
	ibv_end_poll(res->cq_ex);
	trace_step(
		&res->trace,
		"ibv_start_poll: a completion; its fields read with ibv_wc_read_*, then ibv_end_poll");
	return 1;
}

const struct extended_verbs new_api_verbs = {
	.create_cq = create_cq_ex,
	.create_qp = create_qp_ex,
	.qp_note = " with ibv_create_qp_ex: it posts with ibv_wr_*",
	.post_send = post_send_ex,
	.poll = poll_cq_ex,
};
