/* SPDX-License-Identifier: MIT */
/*
 * UC and UD (rdma_lessons -c uc, -c ud): the QPs of the manual's other
 * transports. Neither is acknowledged, so their transitions set less than
 * RC's (qp.c); UD connects nothing: it has a Q_Key, and each send names
 * the peer through an address handle. resources_set_transport hands
 * connect_qp these transitions (resources_sizes.bring_up).
 */
#ifndef VARIANTS_UC_UD_H
#define VARIANTS_UC_UD_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "config.h"
#include "operations.h"
#include "qp.h"
#include "resources.h"
#include "common/trace.h"

/* The Q_Key of our UD QP: a datagram that carries another is dropped. */
#define UD_QKEY 0x11111111u
/* UC has no RDMA READ and no atomics: of the remote rights, WRITE alone. */
#define UC_REMOTE_ACCESS IBV_ACCESS_REMOTE_WRITE

/*
 * Make the QPs of @transport: its QP type, asked of the device, and for
 * UC and UD the transitions below in place of RC's.
 */
void resources_set_transport(struct resources_sizes *sizes,
			     enum transport transport);

/*
 * UC and UD through the TCP exchange: INIT, the client's receives (on UD
 * with room for the GRH), RTR and RTS; on UD then the address handle to
 * the peer. connect_qp calls it once the QP infos are traded.
 */
int uc_ud_bring_up(struct resources *res, const struct config *cfg,
		   const struct qp_path *path, struct connection *conn);

/* RESET -> INIT, UD: the port and the Q_Key we accept. */
int modify_ud_qp_to_init(struct ibv_qp *qp, uint8_t port,
			 const struct trace *tr);
/* INIT -> RTR, UD: no peer to name. */
int modify_ud_qp_to_rtr(struct ibv_qp *qp, const struct trace *tr);
/* RTR -> RTS, UC and UD: our first PSN alone, no acks to wait for. */
int modify_unacked_qp_to_rts(struct ibv_qp *qp, enum transport transport,
			     uint32_t psn, const struct trace *tr);

/*
 * UD, once in INIT (by the TCP exchange's transition or RDMA_CM's): the
 * client's receives, then RTR and RTS from our first PSN @psn.
 */
int ud_init_to_rts(struct resources *res, const struct config *cfg,
		   uint32_t psn);

/* UD: the client's receives for the server's SENDs, GRH area first. */
int ud_post_early_receives(struct resources *res, const struct config *cfg);

/*
 * UD: the address handle every send names the peer with, from @attr,
 * into res->ah; 0, or -errno after one line.
 */
int qp_create_peer_ah(struct resources *res, struct ibv_ah_attr *attr);

/*
 * What a UD receive adds (op_ctx.received): the "GRH source GID: ..."
 * line, from the 40 bytes in front of the message.
 */
void ud_print_grh_source(const struct op_ctx *ctx, const struct ibv_wc *wc);

#endif
