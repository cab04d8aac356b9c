// SPDX-License-Identifier: MIT
/*
 * -q N: N - 1 more RC QPs beside the one the manual's steps connected, on
 * the same PD, CQ and memory region, so that a bandwidth run spreads its
 * messages over N QPs, as perftest's -q.
 *
 * Over the TCP exchange, each new QP goes to INIT, RTR and RTS through the
 * manual's functions (qp.c) with the first QP's path; the two sides swap
 * only what differs from one QP to the next, its number and first PSN,
 * over the TCP connection, in network byte order:
 *
 *   for each QP after the first: QP number u32, first PSN u32
 *
 * With -R, each new QP has an RDMA_CM connection of its own, made as the
 * first one was (the client connects them one after another, the server
 * takes them from its listener in that order), so that the CM sets its
 * path and READ depth; on iWARP there is no other way to connect a QP.
 */
#include <err.h>
#include <errno.h>
#include <string.h>

#include "bench_config.h"
#include "bench_qps.h"
#include "bench_run.h"
#include "cm/cm.h"
#include "common/wire.h"
#include "config.h"
#include "exchange.h"
#include "qp.h"
#include "resources.h"
#include "sock.h"

#define LANE_WIRE_SIZE 8

/* Where lane @k's pair sits in the message (lane 0 has none). */
static size_t lane_offset(unsigned int k)
{
	return (size_t)(k - 1) * LANE_WIRE_SIZE;
}

/* The first QP's capacities, path MTU and READ depths: the others copy them. */
static int query_first(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		       struct ibv_qp_init_attr *init)
{
	int ret = ibv_query_qp(qp, attr,
			       IBV_QP_CAP | IBV_QP_PATH_MTU |
				       IBV_QP_MAX_QP_RD_ATOMIC |
				       IBV_QP_MAX_DEST_RD_ATOMIC,
			       init);

	if (ret) {
		warnx("failed to query QP 0x%06x: %s", qp->qp_num,
		      strerror(ret));
		return -ret;
	}
	return 0;
}

/*
 * Create lane @k's QP as the first was made; it stays in RESET. With
 * --new-api the steps' own call makes it (ibv_create_qp_ex, the same
 * sizes and send ops as the first), and its line says if it failed.
 */
static int create_lane(struct bench_run *run, unsigned int k,
		       struct resources *res,
		       const struct ibv_qp_init_attr *first)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = res->cq,
		.recv_cq = res->cq,
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0, /* each work request says */
		.cap = first->cap,
	};
	struct ibv_qp *qp = NULL;
	int ret;

	if (run->bc->new_api) {
		ret = resources_create_qp(res, &qp);
		if (ret)
			return ret;
		run->lanes[k].qpx = ibv_qp_to_qp_ex(qp);
	} else {
		qp = ibv_create_qp(res->pd, &attr);
	}
	if (!qp) {
		ret = -errno;
		warnx("failed to create RC QP %u of %u (-q): %s", k + 1,
		      run->qps, strerror(-ret));
		return ret;
	}
	run->lanes[k].qp = qp;
	trace_step(&res->trace, "created RC QP 0x%06x, %u of %u (-q)",
		   qp->qp_num, k + 1, run->qps);
	return 0;
}

/*
 * Any first PSN will do, as long as the peer learns it: the first QP's
 * random one, moved on by a large odd step for each lane.
 */
static uint32_t lane_psn(const struct connection *conn, unsigned int k)
{
	return (conn->local.psn + k * 0x9e3779u) & QP_INFO_24BIT_MASK;
}

/* The peer's lane @k from @in: the first QP's info with its own QPN, PSN. */
static int peer_lane(const struct connection *conn, const uint8_t *in,
		     struct qp_info *remote)
{
	*remote = conn->remote;
	remote->qp_num = get_u32(in);
	remote->psn = get_u32(in + 4);
	if (remote->qp_num == 0 || remote->qp_num > QP_INFO_24BIT_MASK ||
	    remote->psn > QP_INFO_24BIT_MASK) {
		warnx("failed to agree with the peer: %s (QP 0x%x, PSN 0x%x)",
		      strerror(EPROTO), remote->qp_num, remote->psn);
		return -EPROTO;
	}
	return 0;
}

/* Over the TCP exchange: INIT, the numbers swapped, RTR and RTS. */
static int connect_over_tcp(struct bench_run *run, const struct config *cfg,
			    struct resources *res,
			    const struct connection *conn,
			    const struct ibv_qp_attr *attr, int sock)
{
	uint8_t out[(BENCH_QPS_MAX - 1) * LANE_WIRE_SIZE];
	uint8_t in[sizeof(out)];
	size_t len = lane_offset(run->qps);
	int timeout_ms = config_timeout_ms(cfg);
	struct qp_path path;
	unsigned int k;
	int ret = 0;

	for (k = 1; !ret && k < run->qps; k++)
		ret = modify_qp_to_init(run->lanes[k].qp, cfg->ib_port,
					res->mr_access & QP_REMOTE_ACCESS,
					&res->trace);
	for (k = 1; k < run->qps; k++) {
		put_u32(out + lane_offset(k), run->lanes[k].qp->qp_num);
		put_u32(out + lane_offset(k) + 4, lane_psn(conn, k));
	}
	if (!ret)
		ret = sock_sync_data(sock, out, in, len, timeout_ms);
	path = (struct qp_path){
		.port = cfg->ib_port,
		.gid_index = res->gid.index,
		.mtu = attr->path_mtu,
		.max_rd_atomic = attr->max_rd_atomic,
		.max_dest_rd_atomic = attr->max_dest_rd_atomic,
		.sl = cfg->sl,
		.traffic_class = cfg->traffic_class,
		.ack_timeout = qp_ack_timeout(cfg),
		.rnr_retry = qp_rnr_retry(cfg),
	};
	for (k = 1; !ret && k < run->qps; k++) {
		struct qp_info remote;

		ret = peer_lane(conn, in + lane_offset(k), &remote);
		if (!ret)
			ret = modify_qp_to_rtr(run->lanes[k].qp, &path, &remote,
					       &res->trace);
		if (!ret)
			ret = modify_qp_to_rts(run->lanes[k].qp,
					       lane_psn(conn, k), &path,
					       &res->trace);
	}
	/* Neither side sends on them before the other's are ready. */
	return ret ? ret : sock_sync(sock, timeout_ms);
}

int bench_lanes_connect(struct bench_run *run, const struct config *cfg,
			struct resources *res, const struct connection *conn,
			struct cm *cm, int sock)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	unsigned int k;
	int ret;

	if (run->qps < 2)
		return 0;
	ret = query_first(res->qp, &attr, &init);
	for (k = 1; !ret && k < run->qps; k++)
		ret = create_lane(run, k, res, &init);
	if (ret)
		return ret;
	if (!cm)
		return connect_over_tcp(run, cfg, res, conn, &attr, sock);
	/* Each lane's connection syncs the two sides once its QP is in RTS. */
	for (k = 1; !ret && k < run->qps; k++)
		ret = cm_connect_lane(cm, conn, &run->lanes[k].cm, res,
				      run->lanes[k].qp, cfg, sock);
	return ret;
}

int bench_lanes_destroy(struct bench_run *run)
{
	unsigned int k;
	int first = 0;

	for (k = 1; k < run->qps; k++) {
		struct bench_lane *lane = &run->lanes[k];

		cm_disconnect(&lane->cm);
		if (lane->qp)
			resources_note_failure(&first, ibv_destroy_qp(lane->qp),
					       "destroy QP");
		lane->qp = NULL;
		lane->qpx = NULL;
		cm_close(&lane->cm);
	}
	return first;
}
