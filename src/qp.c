// SPDX-License-Identifier: MIT
/* Step 8 of the manual: bring the QP from RESET through INIT and RTR to RTS. */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ops.h"
#include "post.h"
#include "qp.h"
#include "sock.h"
#include "uc.h"
#include "ud.h"

/* Ack timeout (code 14 = 4.096 us * 2^14, about 67 ms) before a resend. */
#define QP_ACK_TIMEOUT 14
/* Resends after a lost packet before the QP fails: 7 is the maximum. */
#define QP_RETRY_CNT 7
/* Resends after an RNR NAK; 6, because 7 would mean retry forever. */
#define QP_RNR_RETRY 6
/* RDMA READs and atomics in flight at once: this example issues one. */
#define QP_MAX_RD_ATOMIC 1
/* ...a benchmark as many as both devices allow; the attribute is 8 bits. */
#define QP_MAX_RD_ATOMIC_LIMIT 255
/* Routers a RoCE v2 packet may cross (the GRH hop limit). */
#define QP_HOP_LIMIT 64

int modify_qp_to_init(struct ibv_qp *qp, uint8_t port, unsigned int access,
		      const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
		.qp_access_flags = (int)access,
	};
	char flags[96];
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |		  /* to INIT */
				    IBV_QP_PKEY_INDEX |	  /* partition */
				    IBV_QP_PORT |	  /* local port */
				    IBV_QP_ACCESS_FLAGS); /* peer's rights */
	if (ret) {
		fprintf(stderr, "failed to modify QP 0x%06x to INIT: %s\n",
			qp->qp_num, strerror(ret));
		return -ret;
	}
	trace_step(tr,
		   "QP 0x%06x RESET -> INIT: port %u, pkey index 0, access %s",
		   qp->qp_num, port,
		   access_flags_str(access, flags, sizeof(flags)));
	return 0;
}

struct ibv_ah_attr qp_peer_address(const struct qp_path *path,
				   const struct qp_info *remote)
{
	struct ibv_ah_attr ah = {
		.dlid = remote->lid,
		.sl = 0,
		.src_path_bits = 0,
		.port_num = path->port,
	};

	if (path->gid_index >= 0) {
		ah.is_global = 1;
		memcpy(ah.grh.dgid.raw, remote->gid, sizeof(remote->gid));
		ah.grh.sgid_index = (uint8_t)path->gid_index;
		ah.grh.hop_limit = QP_HOP_LIMIT;
		ah.grh.traffic_class = 0;
		ah.grh.flow_label = 0;
	}
	return ah;
}

int modify_qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path,
		     const struct qp_info *remote, const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = path->mtu,
		.dest_qp_num = remote->qp_num,
		.rq_psn = remote->psn,
		.max_dest_rd_atomic = path->max_dest_rd_atomic,
		.min_rnr_timer = QP_MIN_RNR_TIMER,
		.ah_attr = qp_peer_address(path, remote),
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |	      /* to RTR */
				    IBV_QP_AV |	      /* peer address */
				    IBV_QP_PATH_MTU | /* packet size */
				    IBV_QP_DEST_QPN | /* peer QP */
				    IBV_QP_RQ_PSN |   /* peer's first PSN */
				    IBV_QP_MAX_DEST_RD_ATOMIC | /* its READs */
				    IBV_QP_MIN_RNR_TIMER); /* RNR NAK wait */
	if (ret) {
		fprintf(stderr, "failed to modify QP 0x%06x to RTR: %s\n",
			qp->qp_num, strerror(ret));
		return -ret;
	}
	trace_step(
		tr,
		"QP 0x%06x INIT -> RTR: dest QPN 0x%06x, rq PSN 0x%06x, MTU %d, dest LID 0x%04x, %s%d, max dest rd atomic %d, min RNR timer %d",
		qp->qp_num, remote->qp_num, remote->psn,
		mtu_to_bytes(path->mtu), remote->lid,
		path->gid_index >= 0 ? "GRH with sgid index " : "no GRH ",
		path->gid_index, path->max_dest_rd_atomic, QP_MIN_RNR_TIMER);
	return 0;
}

int modify_qp_to_rts(struct ibv_qp *qp, uint32_t psn, uint8_t max_rd_atomic,
		     const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = psn,
		.timeout = QP_ACK_TIMEOUT,
		.retry_cnt = QP_RETRY_CNT,
		.rnr_retry = QP_RNR_RETRY,
		.max_rd_atomic = max_rd_atomic,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |	       /* to RTS */
				    IBV_QP_SQ_PSN |    /* our first PSN */
				    IBV_QP_TIMEOUT |   /* ack timeout */
				    IBV_QP_RETRY_CNT | /* resends */
				    IBV_QP_RNR_RETRY | /* RNR resends */
				    IBV_QP_MAX_QP_RD_ATOMIC); /* our READs */
	if (ret) {
		fprintf(stderr, "failed to modify QP 0x%06x to RTS: %s\n",
			qp->qp_num, strerror(ret));
		return -ret;
	}
	trace_step(
		tr,
		"QP 0x%06x RTR -> RTS: sq PSN 0x%06x, ack timeout %d, retry count %d, RNR retry %d, max rd atomic %d",
		qp->qp_num, psn, QP_ACK_TIMEOUT, QP_RETRY_CNT, QP_RNR_RETRY,
		max_rd_atomic);
	return 0;
}

/*
 * A first PSN that differs from run to run when the kernel has no random
 * bytes yet: the clock's nanoseconds and our process id, mixed.
 */
static uint32_t clock_psn(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint32_t)now.tv_nsec ^ (uint32_t)now.tv_sec << 8 ^
	       (uint32_t)getpid() << 4;
}

/*
 * A random first PSN, as the IB spec advises, masked to its 24 bits. Early
 * in a boot the kernel may not have gathered enough entropy: rather than
 * wait for it without bound, take a PSN from the clock.
 */
static int random_psn(uint32_t *psn, const struct trace *tr)
{
	ssize_t got = getrandom(psn, sizeof(*psn), GRND_NONBLOCK);
	int err = got < 0 ? errno : 0;

	if (err == EAGAIN) {
		*psn = clock_psn();
		trace_step(tr, "no random bytes yet: first PSN from the clock");
	} else if (err) {
		fprintf(stderr, "failed to get a random PSN: %s\n",
			strerror(err));
		return -err;
	} else if (got != sizeof(*psn)) {
		fprintf(stderr,
			"failed to get a random PSN: %zd of %zu bytes\n", got,
			sizeof(*psn));
		return -EIO;
	}
	*psn &= QP_INFO_24BIT_MASK;
	return 0;
}

/*
 * READs and atomics in flight: one, or for a benchmark @device_max, which is
 * max_qp_rd_atom (as responder) or max_qp_init_rd_atom (as initiator).
 */
static uint8_t rd_atomic_limit(int device_max, const struct config *cfg)
{
	if (!bench_is_on(&cfg->bench) || device_max < QP_MAX_RD_ATOMIC)
		return QP_MAX_RD_ATOMIC;
	if (device_max > QP_MAX_RD_ATOMIC_LIMIT)
		return QP_MAX_RD_ATOMIC_LIMIT;
	return (uint8_t)device_max;
}

int qp_describe_local(const struct resources *res, const struct config *cfg,
		      struct qp_info *info)
{
	size_t i;

	*info = (struct qp_info){
		.addr = (uintptr_t)res->buf,
		.len = (uint32_t)res->buf_size,
		.rkey = res->mr->rkey,
		.qp_num = res->qp->qp_num,
		.lid = res->port_attr.lid,
		.mtu = (uint8_t)res->mtu,
		.transport = (uint8_t)cfg->transport,
		.op_count = (uint8_t)cfg->op_count,
		.max_dest_rd_atomic =
			rd_atomic_limit(res->dev_attr.max_qp_rd_atom, cfg),
	};
	if (res->gid.index >= 0) {
		info->flags |= QP_INFO_HAS_GID;
		memcpy(info->gid, res->gid.gid.raw, sizeof(info->gid));
		info->gid_type = (uint8_t)res->gid.type;
	}
	for (i = 0; i < cfg->op_count; i++)
		info->ops[i] = (uint8_t)cfg->ops[i];
	if (res->comp_channel)
		info->flags |= QP_INFO_USES_EVENTS;
	if (resources_have_atomics(res))
		info->flags |= QP_INFO_HAS_ATOMICS;
	if (res->mr_access & IBV_ACCESS_MW_BIND)
		info->flags |= QP_INFO_HAS_MW;
	if (bench_is_on(&cfg->bench))
		info->flags |= QP_INFO_BENCH;
	return random_psn(&info->psn, &res->trace);
}

void qp_print_remote(const struct qp_info *remote)
{
	union ibv_gid gid;
	char text[INET6_ADDRSTRLEN];

	memcpy(gid.raw, remote->gid, sizeof(gid.raw));
	printf("Remote address = 0x%" PRIx64 "\n", remote->addr);
	printf("Remote rkey = 0x%x\n", remote->rkey);
	printf("Remote QP number = 0x%x\n", remote->qp_num);
	printf("Remote LID = 0x%x\n", remote->lid);
	printf("Remote GID = %s\n", gid_to_str(&gid, text, sizeof(text)));
}

static int exchange_info(struct resources *res, const struct config *cfg,
			 int sock, struct connection *conn)
{
	int timeout_ms = cfg->timeout_sec * 1000;
	const char *why;
	int ret;

	ret = qp_describe_local(res, cfg, &conn->local);
	if (ret)
		return ret;
	ret = sock_exchange_qp_info(sock, &conn->local, &conn->remote,
				    timeout_ms);
	if (ret)
		return ret;
	qp_print_remote(&conn->remote);
	ret = qp_info_match(&conn->local, &conn->remote, &why);
	if (!ret)
		ret = qp_info_match_path(&conn->local, &conn->remote, &why);
	if (ret) {
		fprintf(stderr, "failed to agree with the peer: %s\n", why);
		return ret;
	}
	/* Neither side may send a packet larger than the other can take. */
	if (conn->remote.mtu < res->mtu) {
		trace_step(
			&res->trace,
			"path MTU lowered to the peer's %d (this port's is %d)",
			mtu_to_bytes((enum ibv_mtu)conn->remote.mtu),
			mtu_to_bytes(res->mtu));
		res->mtu = (enum ibv_mtu)conn->remote.mtu;
	}
	return 0;
}

int qp_post_early_receives(struct resources *res, const struct config *cfg)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)res->buf->msg,
		.length = sizeof(res->buf->msg),
		.lkey = res->mr->lkey,
	};
	size_t i, count = ops_receives_before_rtr(cfg);
	int ret;

	/* A benchmark posts receives of its own, per message size. */
	if (!cfg->server_name || bench_is_on(&cfg->bench))
		return 0;
	if (cfg->transport == TRANSPORT_UD) {
		/* A UD receive starts with the GRH area, right before msg. */
		sge.addr = (uintptr_t)res->buf->grh;
		sge.length += sizeof(res->buf->grh);
	}
	for (i = 0; i < count; i++) {
		ret = post_receive(res->qp, &sge, i, &res->trace);
		if (ret)
			return ret;
	}
	return 0;
}

/* RESET -> INIT: the transport decides what the QP accepts. */
static int qp_to_init(struct resources *res, const struct config *cfg)
{
	switch (cfg->transport) {
	case TRANSPORT_UC:
		return modify_qp_to_init(res->qp, cfg->ib_port,
					 res->mr_access & UC_REMOTE_ACCESS,
					 &res->trace);
	case TRANSPORT_UD:
		return ud_modify_qp_to_init(res->qp, cfg->ib_port, &res->trace);
	case TRANSPORT_RC:
		break;
	}
	return modify_qp_to_init(res->qp, cfg->ib_port,
				 res->mr_access & QP_REMOTE_ACCESS,
				 &res->trace);
}

/*
 * UC and UD go to RTS with our first PSN alone: without acknowledgements
 * there is no ack timeout, retry count, RNR retry or READ depth to set.
 */
static int modify_qp_to_rts_unacked(struct ibv_qp *qp, uint32_t psn,
				    enum transport transport,
				    const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = psn,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |	    /* to RTS */
				    IBV_QP_SQ_PSN); /* our first PSN */
	if (ret) {
		fprintf(stderr, "failed to modify %s QP 0x%06x to RTS: %s\n",
			transport_name(transport), qp->qp_num, strerror(ret));
		return -ret;
	}
	trace_step(tr, "QP 0x%06x RTR -> RTS (%s): sq PSN 0x%06x", qp->qp_num,
		   transport_name(transport), psn);
	return 0;
}

/* INIT -> RTR -> RTS, and for UD the address handle to the peer. */
static int qp_to_rts(struct resources *res, const struct config *cfg,
		     const struct qp_path *path, const struct connection *conn)
{
	int ret;

	switch (cfg->transport) {
	case TRANSPORT_UC:
		ret = uc_modify_qp_to_rtr(res->qp, path, &conn->remote,
					  &res->trace);
		return ret ? ret
			   : modify_qp_to_rts_unacked(res->qp, conn->local.psn,
						      TRANSPORT_UC,
						      &res->trace);
	case TRANSPORT_UD:
		ret = ud_modify_qp_to_rtr(res->qp, &res->trace);
		if (!ret)
			ret = modify_qp_to_rts_unacked(res->qp, conn->local.psn,
						       TRANSPORT_UD,
						       &res->trace);
		return ret ? ret
			   : ud_create_ah(res->pd, path, &conn->remote,
					  &res->ah, &res->trace);
	case TRANSPORT_RC:
		break;
	}
	ret = modify_qp_to_rtr(res->qp, path, &conn->remote, &res->trace);
	return ret ? ret
		   : modify_qp_to_rts(res->qp, conn->local.psn,
				      path->max_rd_atomic, &res->trace);
}

/*
 * As initiator, no more READs and atomics in flight than our device can
 * issue and the peer said its QP takes as responder: a request past the
 * peer's limit would be refused there and break the connection.
 */
static uint8_t agreed_rd_atomic(const struct resources *res,
				const struct config *cfg,
				const struct qp_info *remote)
{
	uint8_t ours = rd_atomic_limit(res->dev_attr.max_qp_init_rd_atom, cfg);

	if (remote->max_dest_rd_atomic >= ours)
		return ours;
	trace_step(
		&res->trace,
		"max rd atomic lowered to the peer's max dest rd atomic %u (this device issues %u)",
		remote->max_dest_rd_atomic, ours);
	return remote->max_dest_rd_atomic;
}

int connect_qp(struct resources *res, const struct config *cfg, int sock,
	       struct connection *conn)
{
	struct qp_path path = {
		.port = cfg->ib_port,
		.gid_index = res->gid.index,
	};
	int ret;

	*conn = (struct connection){.qp = res->qp};
	ret = exchange_info(res, cfg, sock, conn);
	if (ret)
		return ret;
	path.mtu = res->mtu; /* now the smaller of the two ports' */
	path.max_dest_rd_atomic = conn->local.max_dest_rd_atomic;
	path.max_rd_atomic = agreed_rd_atomic(res, cfg, &conn->remote);
	ret = qp_to_init(res, cfg);
	if (ret)
		return ret;
	ret = qp_post_early_receives(res, cfg);
	if (ret)
		return ret;
	ret = qp_to_rts(res, cfg, &path, conn);
	if (ret)
		return ret;
	/* Neither side may send before the other's QP is ready to receive. */
	return sock_sync(sock, cfg->timeout_sec * 1000);
}
