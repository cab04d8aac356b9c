/* SPDX-License-Identifier: MIT */
#ifndef RESOURCES_H
#define RESOURCES_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "config.h"
#include "device.h"
#include "grh.h"
#include "trace.h"

/* Room for the longest message an operation sends, with its '\0'. */
#define RC_MSG_SIZE 64

/*
 * The layout of the one registered region. The struct keeps the atomic
 * counter 8-byte aligned, as the verbs atomics require of their target.
 */
struct rc_buffer {
	/* -c ud: a receive lands here, the GRH area first, then the msg */
	unsigned char grh[GRH_SIZE];
	char msg[RC_MSG_SIZE];
	uint64_t atomic_counter;
};

/* Everything resources_create makes, destroyed by resources_destroy. */
struct resources {
	struct ibv_context *ctx;
	bool ctx_borrowed; /* -R: RDMA_CM's context, RDMA_CM closes it */
	struct ibv_device_attr dev_attr;
	struct ibv_port_attr port_attr;
	uint8_t ib_port;
	struct gid_choice gid;
	/* The port's active MTU; connect_qp lowers it to the peer's if smaller:
	 * then the path MTU of the QP and the largest UD message. */
	enum ibv_mtu mtu;
	struct ibv_pd *pd;
	struct rc_buffer *buf;
	size_t buf_size;
	unsigned int mr_access;
	struct ibv_mr *mr;
	struct ibv_comp_channel *comp_channel; /* -e only, else NULL */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah; /* -c ud: the address of the peer, once known */
	struct trace trace;
};

/* Open the device, query it, allocate PD, buffer, MR, CQ and QP. */
int resources_create(struct resources *res, const struct config *cfg);

/*
 * The same on a device context someone else opened and will close (the
 * one RDMA_CM resolved the peer's address to).
 */
int resources_create_on(struct resources *res, const struct config *cfg,
			struct ibv_context *ctx);

/* Free what resources_create made, in reverse order; first error or 0. */
int resources_destroy(struct resources *res);

/*
 * One step of a teardown that never stops early: @ret is what the destroy
 * call returned (0, or an errno value); a failure is reported as "failed
 * to @what: ..." and the first one kept in *@first, as -errno.
 */
void resources_note_failure(int *first, int ret, const char *what);

/* True if the device supports the remote atomics. */
bool resources_have_atomics(const struct resources *res);

#endif
