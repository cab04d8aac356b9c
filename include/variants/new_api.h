/* SPDX-License-Identifier: MIT */
/*
 * --new-api (rdma_lessons, rdma_bench): the manual's flow on today's
 * verbs. The CQ is made by ibv_create_cq_ex, the QPs by ibv_create_qp_ex
 * with the work requests they will post; a send is built with the
 * ibv_wr_* calls between ibv_wr_start and ibv_wr_complete; a completion
 * is read field by field between ibv_start_poll and ibv_end_poll. A
 * program hands these steps to resources_create in
 * resources_sizes.extended, and the manual's steps call them in place of
 * ibv_create_cq, ibv_create_qp, ibv_post_send and ibv_poll_cq.
 */
#ifndef VARIANTS_NEW_API_H
#define VARIANTS_NEW_API_H

#include "resources.h"

/*
 * The fields of a completion, beyond wr_id, status, opcode and flags,
 * that the extended CQ is made to give (read with ibv_wc_read_*).
 */
#define NEW_API_WC_FLAGS                                \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP)

/* The steps of the extended verbs, for resources_sizes.extended. */
extern const struct extended_verbs new_api_verbs;

#endif
