/* SPDX-License-Identifier: MIT */
/*
 * -R: connect the QP through RDMA_CM instead of the TCP exchange. The
 * CM resolves the peer's IP address to a device, port and GID, carries the
 * QP numbers and PSNs in its own messages and computes the QP attributes
 * (rdma_init_qp_attr); what it does not know (buffer address, rkey)
 * travels in the private data of the connect and the accept.
 *
 * The QP is ours (ibv_create_qp on the CM's device context, same PD/CQ
 * flow as the TCP path), not the CM's: this program moves it through
 * INIT, RTR and RTS itself, with the attributes rdma_init_qp_attr gives
 * for each, so each step shows. Two are ours rather than the CM's: the
 * access rights at INIT (those of our region) and the RNR timer at RTR
 * (the TCP path's, not the CM's longest one).
 *
 * A UD QP (-c ud) has no connection: the CM resolves the server's QP
 * number and Q_Key instead (SIDR, src/cm/datagram.c).
 */
#ifndef CM_H
#define CM_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include "config.h"
#include "common/device_caps.h"
#include "exchange.h"
#include "qp.h"
#include "resources.h"

/*
 * What the private data carries, in network byte order (30 bytes):
 *   magic u32, version u8, transport u8, flags u8, a zero byte,
 *   buffer address u64, buffer length u32, rkey u32, QP number u32,
 *   sync port u16.
 * The QP-info message of the TCP path carries more: its PSN, LID, GID,
 * MTU and READ depth are the CM's own business here, so they are left
 * out. The QP number is the IB CM's too,
 * but iWARP's CM names no QP (the TCP connection is the QP's address):
 * ours travels here, for the "Remote QP number" line. The magic number is
 * the program's, as in the QP-info message (program_magic).
 */
/*
 * 3: the QP number at the end; 4: the program in the magic number; 5: the
 * client's TCP sync port, so a server of several clients (src/serve)
 * knows which TCP connection goes with which request; 6: no list of
 * operations (rdma_rc_example agrees on it over the sync socket).
 */
#define CM_PRIV_VERSION 6
#define CM_PRIV_SIZE	30
/* The private data an RDMA_CM connect request may carry on IB/RoCE. */
#define CM_REQ_PRIVATE_DATA_MAX 56

/* The event channel and the ids: the listener (server) and the connection. */
struct cm {
	struct rdma_event_channel *channel;
	struct rdma_cm_id *listen_id;  /* server only: IPv6 */
	struct rdma_cm_id *listen_id4; /* server only: IPv4 */
	struct rdma_cm_id *id;	       /* the connection's id */
	/*
	 * Server: the READ/atomic depth the connect request offered, from
	 * our side (the client's initiator depth is our responder depth).
	 */
	struct qp_rd_atomic_depth request_depth;
	/* The depth this side offers in its connect or accept. */
	struct qp_rd_atomic_depth depth;
	enum program_id program; /* ours, to name a peer that differs */
	/* RDMA_PS_TCP for an RC QP, RDMA_PS_UDP for a UD one (-c ud) */
	enum rdma_port_space port_space;
	int backlog; /* server: requests that may wait to be accepted */
	/*
	 * What the command line asks of the path (rdma_bench's -T, -m, -u):
	 * the type of service (-1: the CM's default), a path MTU below the
	 * route's (0: the route's), the ack timeout; and the RNR retries the
	 * peer's sends to us may make (rdma_bench's: for ever).
	 */
	int tos;
	uint8_t path_mtu;
	uint8_t ack_timeout;
	uint8_t rnr_retry;
	/*
	 * One more connection beside a first one (-q): the lines the first
	 * printed (device, peer, path MTU) are not printed again.
	 */
	bool lane;
	/*
	 * The TCP connection to the peer, once there is one (watch_peer): a
	 * wait for an event ends as soon as the peer closes it, since a peer
	 * that ended sends no more of the CM's messages.
	 */
	bool watch_peer;
	int peer_sock;
	struct trace trace;
};

/*
 * Server: refuse @needs if no device here (or -d's) can do them, then
 * create the channel, bind to the wildcard address on cfg->tcp_port (IPv6
 * and IPv4) and listen, with room for @backlog requests waiting to be
 * accepted. Client (@backlog unused): resolve cfg->server_name:cfg->tcp_port to
 * an address and a route, trying each address the name has in turn, all
 * within cfg->timeout_sec, then refuse @needs if the device it resolved to
 * cannot do them. A refusal is one line on stderr.
 */
int cm_open(struct cm *cm, const struct config *cfg,
	    const struct device_needs *needs, int backlog);

/*
 * Create the resources (of @sizes) on the CM's device, connect the QP to
 * RTS and sync over @sock, filling @conn as connect_qp does, refusing a
 * peer that runs another program. On failure nothing of @res is left.
 */
int cm_connect_qp(struct cm *cm, struct resources *res,
		  const struct config *cfg, const struct resources_sizes *sizes,
		  int sock, struct connection *conn);

/*
 * The server for several clients (--clients with -R), client by client:
 * wait on @listener (cm_open's) for the next connect request, and give its
 * id an event channel of its own in @client (rdma_migrate_id), so that its
 * events never mix with the other clients'. The request's private data
 * goes to conn->remote. On failure, cm_close(@client) frees what was made.
 */
int cm_next_client(struct cm *listener, const struct config *cfg,
		   struct cm *client, struct connection *conn);

/*
 * Then connect @qp to that client, as cm_connect_qp's server half, and
 * sync over @sock. @qp NULL: the first client; the resources (of @sizes)
 * are created on its device first, and res->qp is its QP. A later client
 * whose request came on another device is refused.
 */
int cm_connect_client(struct cm *client, struct resources *res,
		      struct ibv_qp *qp, const struct config *cfg,
		      const struct resources_sizes *sizes, int sock,
		      struct connection *conn);

/*
 * -q with -R: one more connection beside @first's, for @qp, a QP of @res
 * (on its PD and CQ) still in RESET. The client resolves the server
 * again and connects; the server takes the next connect request on
 * @first's listener, refusing one from another client than @first_conn's
 * (the sync port in its private data says which). Both sides call it in
 * the same order, and sync over @sock once the QP is in RTS. The lines
 * the first connection printed are not printed again. On failure,
 * cm_close(@lane) frees what was made.
 */
int cm_connect_lane(struct cm *first, const struct connection *first_conn,
		    struct cm *lane, struct resources *res, struct ibv_qp *qp,
		    const struct config *cfg, int sock);

/* rdma_disconnect, before the QP goes. */
void cm_disconnect(struct cm *cm);

/*
 * Steps 1-8 for a program of one peer: cm_open, the TCP connection for
 * the syncs (*@sock), then cm_connect_qp. On failure nothing is left open
 * and *@sock is -1.
 */
int cm_connect_run(struct cm *cm, struct resources *res,
		   const struct config *cfg,
		   const struct resources_sizes *sizes, int *sock,
		   struct connection *conn);

/*
 * Step 10 after cm_connect_run: disconnect, then the resources, @sock and
 * @cm. Returns @ret, or if it is 0 the error of the teardown.
 */
int cm_close_run(struct cm *cm, struct resources *res, int sock, int ret);

/* Destroy the ids and the channel. */
void cm_close(struct cm *cm);

/* Pure, unit tested: the private data. */
void cm_priv_encode(const struct qp_info *info, uint8_t out[CM_PRIV_SIZE]);
/*
 * Decode @len (>= CM_PRIV_SIZE; the CM may pad) bytes and check the fields
 * with qp_info_check (QP_INFO_FROM_CM); -EPROTO + why.
 */
int cm_priv_decode(const uint8_t *buf, size_t len, struct qp_info *info,
		   const char **why);

#endif
