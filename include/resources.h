/* SPDX-License-Identifier: MIT */
#ifndef RESOURCES_H
#define RESOURCES_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "config.h"
#include "device.h"
#include "common/device_caps.h"
#include "common/trace.h"

struct connection;
struct qp_info;
struct qp_path;
struct resources;
struct send_request;

/* The most completions kept for a later wait: one per operation's half
 * beside the one waited for is plenty for the lessons' flows. */
#define COMPLETION_SHELF_MAX 8

/* Successful completions not yet claimed, in the order they arrived. */
struct completion_shelf {
	struct ibv_wc wc[COMPLETION_SHELF_MAX];
	size_t count;
};

/* Room for the longest message an operation sends, with its '\0'. */
#define RC_MSG_SIZE 64

/*
 * The layout of the one registered region. The struct keeps the atomic
 * counter 8-byte aligned, as the verbs atomics require of their target.
 */
struct rc_buffer {
	/* rdma_lessons -c ud: a UD receive lands here, the 40 bytes of the
	 * GRH first (extras/grh.h), then the msg */
	unsigned char grh[40];
	char msg[RC_MSG_SIZE];
	uint64_t atomic_counter;
};

/*
 * --srq: the receives of the shared receive queue, whatever the number of
 * clients (src/serve refills it at half, and a round takes at most one a
 * client, OPS_CLIENTS_MAX).
 */
#define RESOURCES_SRQ_WR 16u
/* Receives a QP's own receive queue holds by default (max_recv_wr). */
#define RESOURCES_RECV_WR 16u

/*
 * The steps of the extended verbs (a program's --new-api:
 * new_api_verbs), which the manual's steps call in place of
 * ibv_create_cq, ibv_create_qp, ibv_post_send and ibv_poll_cq. Each says
 * its own failure in one line.
 */
struct extended_verbs {
	/* res->cq_ex and res->cq, of @entries entries: 0, or -errno */
	int (*create_cq)(struct resources *res, int entries);
	/* a QP of @attr (attr->cap becomes what was given): 0, or -errno */
	int (*create_qp)(struct resources *res, struct ibv_qp_init_attr *attr,
			 struct ibv_qp **qp);
	const char *qp_note; /* what the trace line of a QP adds */
	/* post_send's work: 0, or -errno */
	int (*post_send)(const struct resources *res, struct ibv_qp *qp,
			 const struct send_request *req);
	/* one look at the CQ, as ibv_poll_cq(cq, 1, wc) looks */
	int (*poll)(struct resources *res, struct ibv_wc *wc);
};

/*
 * How big to make what resources_create makes, and what the connection
 * sets up for the run: main fills it with resources_default_sizes, for
 * the operations, and a mode that needs more changes what it needs.
 */
struct resources_sizes {
	size_t buf_size; /* bytes of the one registered region */
	/* the QPs that share the CQ: 1, or one per client of a server for
	 * several, or the QPs a run makes beside the first */
	unsigned int qps;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_inline_data; /* 0: none; dropped if the device has none */
	bool sq_sig_all;	  /* every send completes, as in the manual */
	/* -e, and a program's waits that sleep: the CQ's completion
	 * channel and the sleep on it (cq_events, extras/cq_events.h);
	 * NULL: no channel, busy polling */
	const struct cq_events *events;
	/* RDMA READs and atomics in flight, each way: the devices may allow
	 * fewer, and never fewer than 1 is asked */
	uint8_t max_rd_atomic;
	/* receives the client posts in INIT, for the SENDs it is sent */
	size_t early_receives;
	/* receives the shared receive queue holds (0: no SRQ, each QP has
	 * its own receive queue of max_recv_wr) */
	uint32_t srq_wr;
	/* --new-api: the extended verbs that make the CQ and the QPs, post
	 * and poll in place of the manual's (new_api_verbs,
	 * src/variants/new_api.c); NULL: the manual's verbs */
	const struct extended_verbs *extended;
	/*
	 * How connect_qp trades QP infos over the TCP connection: NULL,
	 * this project's message (sock_exchange_qp_info); rdma_lessons
	 * --manual-peer gives the manual's packed struct instead
	 * (manual_trade_info), which may adjust @local to what it sends.
	 */
	int (*trade_info)(int sock, struct qp_info *local,
			  struct qp_info *remote, int timeout_ms);
	/* the QPs' transport: RC unless a lesson says (rdma_lessons -c,
	 * resources_set_transport) */
	enum transport transport;
	/*
	 * How connect_qp brings a QP of another transport than RC to RTS,
	 * once the QP infos are traded: NULL, the manual's RC transitions
	 * (UC and UD: uc_ud_bring_up, src/variants/uc_ud.c).
	 */
	int (*bring_up)(struct resources *res, const struct config *cfg,
			const struct qp_path *path, struct connection *conn);
	/* what the run asks of the device: checked once it is open, before
	 * anything is connected (resources_default_sizes fills the
	 * transport and -R; the lessons add what they need) */
	struct device_needs needs;
};

/*
 * The sizes the operations need (-e: with a completion channel), and the
 * transport and -R in sizes->needs.
 */
void resources_default_sizes(struct resources_sizes *sizes,
			     const struct config *cfg);

/*
 * A few CQ entries beyond what the queues can hold: the CQ is made before
 * the QP, whose depths the device may round up past what was asked.
 */
#define RESOURCES_CQ_MARGIN 4

/*
 * Pure, unit tested: the CQ's entries for @sizes, room for a completion
 * of every work request the QPs can hold at once: @qps times the send
 * queue and the receive queue (or once the shared receive queue's), and
 * RESOURCES_CQ_MARGIN.
 */
int resources_cq_entries(const struct resources_sizes *sizes);

/* Everything resources_create makes, destroyed by resources_destroy. */
struct resources {
	struct ibv_context *ctx;
	bool ctx_borrowed; /* -R: RDMA_CM's context, RDMA_CM closes it */
	struct ibv_device_attr dev_attr;
	struct ibv_port_attr port_attr;
	uint8_t ib_port;
	/* The port's GID table, read once (device_read_gid_table): every
	 * choice of a GID for this connection is made from it. */
	struct gid_table gids;
	struct gid_choice gid;
	/* The port's active MTU; connect_qp lowers it to the peer's if smaller:
	 * then the path MTU of the QP and the largest UD message. */
	enum ibv_mtu mtu;
	struct ibv_pd *pd;
	struct rc_buffer *buf;
	size_t buf_size;
	unsigned int mr_access;
	struct ibv_mr *mr;
	struct ibv_comp_channel *comp_channel; /* sizes.events, else NULL */
	struct ibv_cq *cq;
	/* sizes.extended: the CQ as ibv_create_cq_ex made it (cq is the
	 * same CQ as the other verbs take it), else NULL */
	struct ibv_cq_ex *cq_ex;
	struct ibv_srq *srq; /* sizes.srq_wr, else NULL */
	struct ibv_qp *qp;
	struct ibv_ah *ah; /* -c ud: the address of the peer, once known */
	struct resources_sizes sizes;
	struct trace trace;
	/* Completions that arrived while another was waited for: each is
	 * taken by the wait for its work request (poll_completion). */
	struct completion_shelf shelf;
};

/*
 * The manual's resources_create: open the device, query it and its port,
 * choose the MTU and the GID, allocate PD, buffer, MR, CQ and QP. With
 * @borrowed, on a device context someone else opened and will close (the
 * one RDMA_CM resolved the peer's address to, -R) instead of opening one;
 * NULL: open cfg->ib_devname's. On failure nothing of @res is left.
 */
int resources_create(struct resources *res, const struct config *cfg,
		     const struct resources_sizes *sizes,
		     struct ibv_context *borrowed);

/*
 * One more QP like res->qp, on the same PD and CQ (and SRQ), for another
 * peer: the server for several clients makes one per client after the
 * first. Destroyed by its maker, before resources_destroy.
 */
int resources_create_qp(struct resources *res, struct ibv_qp **qp);

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
