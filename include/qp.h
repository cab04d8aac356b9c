/* SPDX-License-Identifier: MIT */
#ifndef QP_H
#define QP_H

#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include "config.h"
#include "exchange.h"
#include "resources.h"
#include "common/trace.h"

/*
 * The QP's constants, each with its why; the TCP exchange and RDMA_CM
 * (src/cm) connect with the same ones.
 *
 * RNR NAK timer (code 12 = 0.64 ms): how long a sender we refuse waits.
 * RDMA_CM's own choice would be code 0, the longest wait there is
 * (655.36 ms).
 */
#define QP_MIN_RNR_TIMER 12
/*
 * Ack timeout (code 18 = 4.096 us * 2^18, about 1.07 s, the manual's
 * 0x12) before a resend. Long enough that a peer which is only slow (a
 * guest of a busy host, a congested switch) is never taken for a lost
 * packet: with 67 ms, guests of a busy rig resent requests up to 13 times.
 * A lost packet is rarely waited for: the responder NAKs the next one out
 * of sequence, and the requester resends at once.
 */
#define QP_ACK_TIMEOUT 18
/*
 * Resends after an ack timeout before the QP fails with retry exceeded:
 * the manual's 6, so a peer that is gone or a path that drops RoCE ends
 * in IBV_WC_RETRY_EXC_ERR after 7 tries, about 7.5 s. Not 7: soft-RoCE
 * takes 7 as "retry for ever", as the spec does for RNR retries.
 */
#define QP_RETRY_CNT 6
/*
 * Resends after an RNR NAK: 6, because 7 would mean retry forever, and a
 * lesson's peer that posts no receive should end in IBV_WC_RNR_RETRY_EXC_ERR.
 */
#define QP_RNR_RETRY 6
/*
 * RNR NAKs retried for ever (the spec's 7), for a program whose receiver
 * may fall behind for a while, as perftest's does: a process descheduled
 * for a few ms outlasts 6 tries of 0.64 ms. The sender is slowed, not
 * failed; -t still ends a wait that sees no completion.
 */
#define QP_RNR_RETRY_FOREVER 7
/* RDMA READs and atomics in flight at once: the operations issue one. */
#define QP_MAX_RD_ATOMIC 1
/* The QP takes only the remote rights of the MR's access flags. */
#define QP_REMOTE_ACCESS                                    \
	(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | \
	 IBV_ACCESS_REMOTE_ATOMIC)
/* Routers a RoCE v2 packet may cross (the GRH hop limit). */
#define QP_HOP_LIMIT 64

/*
 * The result of connecting, however it was made (TCP exchange now, RDMA_CM
 * later): a QP in RTS and what each side told the other.
 */
struct connection {
	struct ibv_qp *qp;
	struct qp_info local;
	struct qp_info remote;
	/* -R: the CM id's two IP addresses; AF_UNSPEC on the TCP path */
	struct sockaddr_storage local_addr;
	struct sockaddr_storage peer_addr;
	/* UD (rdma_lessons -c ud): the Q_Key our datagrams to the peer
	 * carry (src/variants/uc_ud.c) */
	uint32_t remote_qkey;
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
	/* The address's service level and, with a GRH, traffic class */
	uint8_t sl;
	uint8_t traffic_class;
	/* RC: how long to wait for an ack, 4.096 us * 2^N (0: for ever) */
	uint8_t ack_timeout;
	/* RC: resends after an RNR NAK (QP_RNR_RETRY_FOREVER: no end) */
	uint8_t rnr_retry;
};

/*
 * Lower res->mtu to the path MTU @cfg asks for (perftest's -m), if any:
 * 0, or -EINVAL after one line if the port's active MTU is smaller.
 */
int qp_cap_mtu(struct resources *res, const struct config *cfg);

/* The ack timeout @cfg asks for (-u), or QP_ACK_TIMEOUT. */
uint8_t qp_ack_timeout(const struct config *cfg);

/* The RNR retries @cfg asks for, or QP_RNR_RETRY. */
uint8_t qp_rnr_retry(const struct config *cfg);

/*
 * ibv_modify_qp to attr->qp_state refused with errno @err (positive): the
 * one error line naming the QP ("failed to modify @kind QP 0x11 to RTR:
 * ..."; @kind "UC ", "UD " or ""), with qp_modify_hint's hint. Returns
 * -@err. The transitions call it after the verb returns.
 */
int qp_modify_failed(const struct ibv_qp *qp, const struct ibv_qp_attr *attr,
		     int err, const char *kind);

/*
 * Pure, unit tested: what a transition to @state refused with errno @err
 * (positive) most likely means, for its error line; NULL if nothing.
 */
const char *qp_modify_hint(enum ibv_qp_state state, int err);

/*
 * The manual's three transitions of an RC QP. INIT: the port and the
 * remote rights @access. RTR: the peer's QP, PSN and address, the path
 * MTU, the READ depth and the RNR timer. RTS: our first PSN, the ack
 * timeout, the retries and our READ depth.
 */
int modify_qp_to_init(struct ibv_qp *qp, uint8_t port, unsigned int access,
		      const struct trace *tr);
int modify_qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path,
		     const struct qp_info *remote, const struct trace *tr);
int modify_qp_to_rts(struct ibv_qp *qp, uint32_t psn,
		     const struct qp_path *path, const struct trace *tr);

/* The address of the peer: LID, and with a GRH its GID (RTR, a UD AH). */
struct ibv_ah_attr qp_peer_address(const struct qp_path *path,
				   const struct qp_info *remote);

/* What RTR sets on a connected QP, RC and UC alike: the peer and the path. */
struct ibv_qp_attr qp_rtr_attr(const struct qp_path *path,
			       const struct qp_info *remote);

/*
 * READs and atomics in flight a QP of @res may have: @initiator as the
 * side that issues them (max_rd_atomic, at most the device's
 * max_qp_init_rd_atom), @responder as the side that serves them
 * (max_dest_rd_atomic, at most max_qp_rd_atom); as deep as the run asks
 * (resources_sizes.max_rd_atomic), never below QP_MAX_RD_ATOMIC.
 */
struct qp_rd_atomic_depth {
	uint8_t initiator;
	uint8_t responder;
};

struct qp_rd_atomic_depth qp_rd_atomic_depth(const struct resources *res);

/*
 * Our QP info, with a random first PSN (the QP-info message's content),
 * sent under the magic number of the program that runs (cfg->program).
 */
int qp_describe_local(const struct resources *res, const struct config *cfg,
		      struct qp_info *info);
/* The manual's "Remote address = ..." lines. */
void qp_print_remote(const struct qp_info *remote);
/*
 * "Path MTU = 1024 bytes": the MTU both sides agreed on (perftest's "Mtu"),
 * and a warning if the netdev under our GID cannot carry it.
 */
void qp_print_path_mtu(const struct resources *res);
/* The client receives the server's SENDs: post those receives (in INIT). */
int qp_post_early_receives(struct resources *res, const struct config *cfg);

/*
 * Exchange QP info over @sock (refusing a peer that runs another program
 * or transport), bring res->qp to RTS (another transport than RC: with
 * res->sizes.bring_up), sync.
 */
int connect_qp(struct resources *res, const struct config *cfg, int sock,
	       struct connection *conn);

#endif
