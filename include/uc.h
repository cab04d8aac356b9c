/* SPDX-License-Identifier: MIT */
/*
 * The UC QP's states. UC is connected like RC but sends no acks: no
 * timeout, no retries, no RNR NAKs, no RDMA READ or atomics, so each
 * transition carries only what UC has.
 */
#ifndef UC_H
#define UC_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "exchange.h"
#include "qp.h"
#include "trace.h"

/* The one remote right UC has: RDMA WRITE. */
#define UC_REMOTE_ACCESS IBV_ACCESS_REMOTE_WRITE

/* INIT is RC's (port, pkey index, access), with UC_REMOTE_ACCESS. */
int uc_modify_qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path,
			const struct qp_info *remote, const struct trace *tr);

#endif
