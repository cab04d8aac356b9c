// SPDX-License-Identifier: MIT
/*
 * Step 8 of the manual: trade QP infos with the peer, then bring the RC QP
 * from RESET through INIT and RTR to RTS. (UC and UD, rdma_lessons -c, are
 * src/variants/uc_ud.c.)
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "post.h"
#include "qp.h"
#include "sock.h"

const char *qp_modify_hint(enum ibv_qp_state state, int err)
{
	if (state != IBV_QPS_RTR)
		return NULL;
	/* On RoCE the kernel resolves the peer's GID to a MAC address here. */
	if (err == ETIMEDOUT)
		return "on RoCE, the peer's GID address (Remote GID) did not answer ARP or neighbour discovery: check that it is the peer's address and that its link is up";
	return "check that both sides use GIDs of one type and IP version (-g), a path MTU both ports support, and the peer's QP number";
}

int qp_modify_failed(const struct ibv_qp *qp, const struct ibv_qp_attr *attr,
		     int err, const char *kind)
{
	const char *hint = qp_modify_hint(attr->qp_state, err);

	warnx("failed to modify %sQP 0x%06x to %s: %s%s%s", kind, qp->qp_num,
	      qp_state_str(attr->qp_state), strerror(err), hint ? "; " : "",
	      hint ? hint : "");
	return -err;
}

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
			    IBV_QP_STATE |		/* to INIT */
				    IBV_QP_PKEY_INDEX | /* partition */
				    IBV_QP_PORT |	/* local port */
				    IBV_QP_ACCESS_FLAGS /* peer's rights */);
	if (ret)
		return qp_modify_failed(qp, &attr, ret, "");
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
		.sl = path->sl,
		.src_path_bits = 0,
		.port_num = path->port,
	};

	if (path->gid_index >= 0) {
		ah.is_global = 1;
		memcpy(ah.grh.dgid.raw, remote->gid, sizeof(remote->gid));
		ah.grh.sgid_index = (uint8_t)path->gid_index;
		ah.grh.hop_limit = QP_HOP_LIMIT;
		ah.grh.traffic_class = path->traffic_class;
		ah.grh.flow_label = 0;
	}
	return ah;
}

struct ibv_qp_attr qp_rtr_attr(const struct qp_path *path,
			       const struct qp_info *remote)
{
	return (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = path->mtu,
		.dest_qp_num = remote->qp_num,
		.rq_psn = remote->psn,
		.ah_attr = qp_peer_address(path, remote),
	};
}

/*
 * ", SL 3, traffic class 104" for the RTR trace line when either was asked
 * for (perftest's -S and --tclass); "" when both are 0.
 */
static const char *class_text(const struct qp_path *path, char *buf, size_t len)
{
	if (!path->sl && !path->traffic_class)
		return "";
	snprintf(buf, len, ", SL %u, traffic class %u", path->sl,
		 path->traffic_class);
	return buf;
}

int modify_qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path,
		     const struct qp_info *remote, const struct trace *tr)
{
	struct ibv_qp_attr attr = qp_rtr_attr(path, remote);
	char class[40];
	int ret;

	attr.max_dest_rd_atomic = path->max_dest_rd_atomic;
	attr.min_rnr_timer = QP_MIN_RNR_TIMER;
	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |	      /* to RTR */
				    IBV_QP_AV |	      /* peer address */
				    IBV_QP_PATH_MTU | /* packet size */
				    IBV_QP_DEST_QPN | /* peer QP */
				    IBV_QP_RQ_PSN |   /* peer's first PSN */
				    IBV_QP_MAX_DEST_RD_ATOMIC | /* its READs */
				    IBV_QP_MIN_RNR_TIMER /* RNR NAK wait */);
	if (ret)
		return qp_modify_failed(qp, &attr, ret, "");
	trace_step(
		tr,
		"QP 0x%06x INIT -> RTR: dest QPN 0x%06x, rq PSN 0x%06x, MTU %d, dest LID 0x%04x, %s%d, max dest rd atomic %d, min RNR timer %d%s",
		qp->qp_num, remote->qp_num, remote->psn,
		mtu_to_bytes(path->mtu), remote->lid,
		path->gid_index >= 0 ? "GRH with sgid index " : "no GRH ",
		path->gid_index, path->max_dest_rd_atomic, QP_MIN_RNR_TIMER,
		class_text(path, class, sizeof(class)));
	return 0;
}

uint8_t qp_ack_timeout(const struct config *cfg)
{
	return cfg->ack_timeout >= 0 ? (uint8_t)cfg->ack_timeout
				     : QP_ACK_TIMEOUT;
}

uint8_t qp_rnr_retry(const struct config *cfg)
{
	return cfg->rnr_retry >= 0 ? (uint8_t)cfg->rnr_retry : QP_RNR_RETRY;
}

int modify_qp_to_rts(struct ibv_qp *qp, uint32_t psn,
		     const struct qp_path *path, const struct trace *tr)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = psn,
		.timeout = path->ack_timeout,
		.retry_cnt = QP_RETRY_CNT,
		.rnr_retry = path->rnr_retry,
		.max_rd_atomic = path->max_rd_atomic,
	};
	int ret;

	ret = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE |	       /* to RTS */
				    IBV_QP_SQ_PSN |    /* our first PSN */
				    IBV_QP_TIMEOUT |   /* ack timeout */
				    IBV_QP_RETRY_CNT | /* resends */
				    IBV_QP_RNR_RETRY | /* RNR resends */
				    IBV_QP_MAX_QP_RD_ATOMIC /* our READs */);
	if (ret)
		return qp_modify_failed(qp, &attr, ret, "");
	trace_step(
		tr,
		"QP 0x%06x RTR -> RTS: sq PSN 0x%06x, ack timeout %d, retry count %d, RNR retry %d, max rd atomic %d",
		qp->qp_num, psn, attr.timeout, QP_RETRY_CNT, attr.rnr_retry,
		attr.max_rd_atomic);
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
		warnx("failed to get a random PSN: %s", strerror(err));
		return -err;
	} else if (got != sizeof(*psn)) {
		warnx("failed to get a random PSN: %zd of %zu bytes", got,
		      sizeof(*psn));
		return -EIO;
	}
	*psn &= QP_INFO_24BIT_MASK;
	return 0;
}

/*
 * READs and atomics in flight: as many as the run wants, no more than
 * @device_max (max_qp_rd_atom as responder, max_qp_init_rd_atom as
 * initiator), and never fewer than QP_MAX_RD_ATOMIC; none on a device
 * that has none (a run that READs was refused by device_refusal).
 */
static uint8_t rd_atomic_limit(int device_max, const struct resources *res)
{
	uint8_t wanted = res->sizes.max_rd_atomic;

	if (device_max < 1)
		return 0;
	if (device_max < QP_MAX_RD_ATOMIC || wanted < QP_MAX_RD_ATOMIC)
		return QP_MAX_RD_ATOMIC;
	return device_max < wanted ? (uint8_t)device_max : wanted;
}

struct qp_rd_atomic_depth qp_rd_atomic_depth(const struct resources *res)
{
	return (struct qp_rd_atomic_depth){
		.initiator =
			rd_atomic_limit(res->dev_attr.max_qp_init_rd_atom, res),
		.responder = rd_atomic_limit(res->dev_attr.max_qp_rd_atom, res),
	};
}

int qp_describe_local(const struct resources *res, const struct config *cfg,
		      struct qp_info *info)
{
	*info = (struct qp_info){
		.program = (uint8_t)cfg->program,
		.addr = (uintptr_t)res->buf,
		.len = (uint32_t)res->buf_size,
		.rkey = res->mr->rkey,
		.qp_num = res->qp->qp_num,
		.lid = res->port_attr.lid,
		.mtu = (uint8_t)res->mtu,
		.transport = (uint8_t)res->sizes.transport,
		.max_dest_rd_atomic = qp_rd_atomic_depth(res).responder,
		.sl = cfg->sl,
		.traffic_class = cfg->traffic_class,
	};
	if (res->gid.index >= 0) {
		info->flags |= QP_INFO_HAS_GID;
		memcpy(info->gid, res->gid.gid.raw, sizeof(info->gid));
		info->gid_type = (uint8_t)res->gid.type;
	}
	if (resources_have_atomics(res))
		info->flags |= QP_INFO_HAS_ATOMICS;
	if (res->mr_access & IBV_ACCESS_MW_BIND)
		info->flags |= QP_INFO_HAS_MW;
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

void qp_print_path_mtu(const struct resources *res)
{
	printf("Path MTU = %d bytes\n", mtu_to_bytes(res->mtu));
	device_warn_small_netdev(&res->gid, res->mtu);
}

int qp_cap_mtu(struct resources *res, const struct config *cfg)
{
	enum ibv_mtu asked = (enum ibv_mtu)cfg->path_mtu;

	if (!asked || asked == res->mtu)
		return 0;
	if (asked > res->mtu) {
		warnx("failed to use a path MTU of %d bytes: port %u's active MTU is %d",
		      mtu_to_bytes(asked), cfg->ib_port,
		      mtu_to_bytes(res->mtu));
		return -EINVAL;
	}
	trace_step(&res->trace, "path MTU %d as asked (this port's is %d)",
		   mtu_to_bytes(asked), mtu_to_bytes(res->mtu));
	res->mtu = asked;
	return 0;
}

static int exchange_info(struct resources *res, const struct config *cfg,
			 int sock, struct connection *conn)
{
	int timeout_ms = config_timeout_ms(cfg);
	const char *why;
	int ret;

	/* The MTU this side offers the peer: the port's, or less if asked. */
	ret = qp_cap_mtu(res, cfg);
	if (!ret)
		ret = qp_describe_local(res, cfg, &conn->local);
	if (ret)
		return ret;
	if (res->sizes.trade_info)
		ret = res->sizes.trade_info(sock, &conn->local, &conn->remote,
					    timeout_ms);
	else
		ret = sock_exchange_qp_info(sock, &conn->local, &conn->remote,
					    timeout_ms);
	if (ret)
		return ret;
	qp_print_remote(&conn->remote);
	ret = qp_info_match(&conn->local, &conn->remote, &why);
	if (!ret)
		ret = qp_info_match_path(&conn->local, &conn->remote, &why);
	if (ret) {
		warnx("failed to agree with the peer: %s", why);
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
	qp_print_path_mtu(res);
	return 0;
}

/* Where the client's early receives land: the message area. */
static struct ibv_sge early_receive_sge(const struct resources *res)
{
	return (struct ibv_sge){
		.addr = (uintptr_t)res->buf->msg,
		.length = sizeof(res->buf->msg),
		.lkey = res->mr->lkey,
	};
}

/* The client receives the server's SENDs: that many receives, in INIT. */
static size_t early_receives(const struct resources *res,
			     const struct config *cfg)
{
	return cfg->server_name ? res->sizes.early_receives : 0;
}

int qp_post_early_receives(struct resources *res, const struct config *cfg)
{
	struct ibv_sge sge = early_receive_sge(res);
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < early_receives(res, cfg); i++)
		ret = post_receive(res->qp, &sge, i, &res->trace);
	return ret;
}

/*
 * As initiator, no more READs and atomics in flight than our device can
 * issue and the peer said its QP takes as responder: a request past the
 * peer's limit would be refused there and break the connection.
 */
static uint8_t agreed_rd_atomic(const struct resources *res,
				const struct qp_info *remote)
{
	uint8_t ours = qp_rd_atomic_depth(res).initiator;

	if (remote->max_dest_rd_atomic >= ours)
		return ours;
	trace_step(
		&res->trace,
		"max rd atomic lowered to the peer's max dest rd atomic %u (this device issues %u)",
		remote->max_dest_rd_atomic, ours);
	return remote->max_dest_rd_atomic;
}

/* The path both sides agreed on in the exchange, for RTR and RTS. */
static struct qp_path agreed_path(const struct resources *res,
				  const struct config *cfg,
				  const struct connection *conn)
{
	return (struct qp_path){
		.port = cfg->ib_port,
		.gid_index = res->gid.index,
		.mtu = res->mtu, /* now the smaller of the two ports' */
		.max_dest_rd_atomic = conn->local.max_dest_rd_atomic,
		.max_rd_atomic = agreed_rd_atomic(res, &conn->remote),
		.sl = cfg->sl,
		.traffic_class = cfg->traffic_class,
		.ack_timeout = qp_ack_timeout(cfg),
		.rnr_retry = qp_rnr_retry(cfg),
	};
}

int connect_qp(struct resources *res, const struct config *cfg, int sock,
	       struct connection *conn)
{
	struct ibv_sge sge = early_receive_sge(res);
	struct qp_path path;
	size_t i;
	int ret;

	*conn = (struct connection){.qp = res->qp};
	/* RoCE without -g: the GID of the address this connection uses. */
	if (res->gid.by_peer) {
		ret = device_choose_peer_gid(res->ctx, cfg->ib_port, &res->gids,
					     sock, &res->gid, &res->trace);
		if (ret)
			return ret;
	}
	ret = exchange_info(res, cfg, sock, conn);
	if (ret)
		return ret;
	path = agreed_path(res, cfg, conn);
	if (res->sizes.bring_up) {
		/* UC, UD (rdma_lessons -c): transitions of their own */
		ret = res->sizes.bring_up(res, cfg, &path, conn);
	} else {
		ret = modify_qp_to_init(res->qp, cfg->ib_port,
					res->mr_access & QP_REMOTE_ACCESS,
					&res->trace);
		/* Before RTR, so that no SEND of the server's finds none. */
		for (i = 0; !ret && i < early_receives(res, cfg); i++)
			ret = post_receive(res->qp, &sge, i, &res->trace);
		if (!ret)
			ret = modify_qp_to_rtr(res->qp, &path, &conn->remote,
					       &res->trace);
		if (!ret)
			ret = modify_qp_to_rts(res->qp, conn->local.psn, &path,
					       &res->trace);
	}
	if (ret)
		return ret;
	/* Neither side may send before the other's QP is ready to receive. */
	return sock_sync(sock, config_timeout_ms(cfg));
}
