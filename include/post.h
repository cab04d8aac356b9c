/* SPDX-License-Identifier: MIT */
#ifndef POST_H
#define POST_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "common/trace.h"
#include "resources.h"

/* One send-queue work request; post_send fills the verbs WR per opcode. */
struct send_request {
	enum ibv_wr_opcode opcode;
	uint64_t wr_id;
	struct ibv_sge sge;
	uint64_t remote_addr; /* RDMA READ/WRITE and atomics */
	uint32_t rkey;
	/* UD: where the datagram goes (NULL ah: a connected QP) */
	struct ibv_ah *ah;
	uint32_t remote_qpn;
	uint32_t remote_qkey;
	uint32_t imm_data; /* *_WITH_IMM, host order: post_send converts */
	uint64_t
		compare_add; /* FETCH_AND_ADD: the addend; CMP_AND_SWP: compare */
	uint64_t swap;	     /* CMP_AND_SWP: the new value */
};

/*
 * The manual's post_send: post @req on @qp, one of @res's QPs, signaled,
 * with ibv_post_send, or with the ibv_wr_* calls when @res was made for
 * them (--new-api: sizes.extended); the trace line says which.
 */
int post_send(const struct resources *res, struct ibv_qp *qp,
	      const struct send_request *req);

/* The -v lines of @req just posted, @via the call that built it (NULL:
 * ibv_post_send's struct). */
void post_trace(const struct trace *tr, const struct send_request *req,
		const char *via);

/* Post one receive of @sge to @qp; NULL @sge: a receive with no buffer
 * (enough for an RDMA WRITE with immediate, whose data goes elsewhere). */
int post_receive(struct ibv_qp *qp, const struct ibv_sge *sge, uint64_t wr_id,
		 const struct trace *tr);

#endif
