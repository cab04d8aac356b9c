/* SPDX-License-Identifier: MIT */
/* Private to src/cm: the event waits that both halves of -R use. */
#ifndef CM_INTERNAL_H
#define CM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <rdma/rdma_cma.h>

#include "cm/cm.h"

/* Room for why a wait or an address failed, for the one error line. */
#define CM_WHY_LEN 256

/*
 * Wait until @deadline (now_ms) for the next event; it must be @expected.
 * On success the caller owns *@event and acks it; on failure @why says
 * what happened instead, for the caller to report.
 */
int cm_take_event(struct cm *cm, long long deadline,
		  enum rdma_cm_event_type expected,
		  struct rdma_cm_event **event, char *why, size_t why_len);

/* cm_take_event within @timeout_sec, with one line on stderr if it fails. */
int cm_wait_event(struct cm *cm, int timeout_sec,
		  enum rdma_cm_event_type expected,
		  struct rdma_cm_event **event);

/*
 * -d with -R: the device RDMA_CM found for the address (client) or the
 * request came on (server) must be the one named, if one was. Otherwise
 * one line and -ENODEV; the server rejects the request, so the client
 * hears.
 */
int cm_check_device(struct cm *cm, const struct config *cfg);

/*
 * Client, -q: a channel and an id of @lane's own, resolved to the server
 * as cm_open resolves it (the device was checked on the first id).
 */
int cm_open_lane(struct cm *lane, const struct cm *first,
		 const struct config *cfg);

/* The attributes and mask the CM computed for moving our QP to @state. */
int cm_qp_attr(struct cm *cm, struct ibv_qp *qp, enum ibv_qp_state state,
	       struct ibv_qp_attr *attr, int *mask);

/*
 * The GID the QP sends from is the one the CM put in the address vector
 * @ah: take its index and type from there, since one address may have
 * several entries (RoCE v1 and v2) with the same bytes; then the
 * "RDMA_CM connection on device ..." line.
 */
int cm_note_gid(struct cm *cm, struct resources *res,
		const struct ibv_ah_attr *ah);

/* True when @cm's id is of RDMA_PS_UDP: a UD QP, resolved by SIDR. */
static inline bool cm_is_ud(const struct cm *cm)
{
	return cm->port_space == RDMA_PS_UDP;
}

/*
 * UD (datagram.c): our QP of @res through INIT, RTR and RTS, with the
 * CM's Q_Key; then the client resolves the server's QP number, Q_Key and
 * address (rdma_connect, a SIDR request), the server answers with ours
 * (rdma_accept), and each side makes the address handle it sends with.
 * conn->local is ours; on the server conn->remote is the request's.
 */
int cm_ud_connect(struct cm *cm, const struct config *cfg,
		  struct resources *res, struct connection *conn);

/* ibv_modify_qp, then qp_modify_failed if it refused (RDMA_CM's path). */
int qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
	      const char *kind);

#endif
