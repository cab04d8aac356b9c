/* SPDX-License-Identifier: MIT */
#ifndef QP_H
#define QP_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "config.h"
#include "exchange.h"
#include "resources.h"
#include "trace.h"

/*
 * RNR NAK timer (code 12 = 0.64 ms): how long a sender we refuse waits.
 * Both connection paths use it; RDMA_CM's own choice would be code 0, the
 * longest wait there is (655.36 ms).
 */
#define QP_MIN_RNR_TIMER 12
/* The QP takes only the remote rights of the MR's access flags. */
#define QP_REMOTE_ACCESS                                    \
	(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | \
	 IBV_ACCESS_REMOTE_ATOMIC)

/*
 * The result of connecting, however it was made (TCP exchange now, RDMA_CM
 * later): a QP in RTS and what each side told the other.
 */
struct connection {
	struct ibv_qp *qp;
	struct qp_info local;
	struct qp_info remote;
};

/* The local end of the path, for RTR. */
struct qp_path {
	uint8_t port;
	int gid_index; /* -1: no GRH */
	enum ibv_mtu mtu;
	/* READs and atomics we have in flight: no more than the peer takes */
	uint8_t max_rd_atomic;
	/* READs and atomics of the peer's we take in flight (as responder) */
	uint8_t max_dest_rd_atomic;
};

/* The address of the peer: LID, and with a GRH its GID (RTR, UD AH). */
struct ibv_ah_attr qp_peer_address(const struct qp_path *path,
				   const struct qp_info *remote);

int modify_qp_to_init(struct ibv_qp *qp, uint8_t port, unsigned int access,
		      const struct trace *tr);
int modify_qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path,
		     const struct qp_info *remote, const struct trace *tr);
int modify_qp_to_rts(struct ibv_qp *qp, uint32_t psn, uint8_t max_rd_atomic,
		     const struct trace *tr);

/* Our QP info, with a random first PSN (the QP-info message's content). */
int qp_describe_local(const struct resources *res, const struct config *cfg,
		      struct qp_info *info);
/* The manual's "Remote address = ..." lines. */
void qp_print_remote(const struct qp_info *remote);
/* The client receives the server's SENDs: post those receives (in INIT). */
int qp_post_early_receives(struct resources *res, const struct config *cfg);

/* Exchange QP info over @sock, bring res->qp to RTS, sync. */
int connect_qp(struct resources *res, const struct config *cfg, int sock,
	       struct connection *conn);

#endif
