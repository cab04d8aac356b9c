// SPDX-License-Identifier: MIT
/*
 * resources_create / resources_destroy for rdma_mc_example: everything is
 * made on the device that address resolution bound the rdma_cm_id to
 * (id->verbs), and destroyed in the reverse order.
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/async.h"
#include "mc/mc_resources.h"
#include "mc/mc_trace.h"

/*
 * Receive buffers kept posted. The receiver posts them all before it
 * joins and posts each again as soon as it is read, so a burst this long
 * can arrive before the receiver runs again without a message dropped.
 */
#define MC_RECV_SLOTS 64
/* The sender waits for each send's completion before the next one. */
#define MC_SEND_SLOTS 1
/* A scatter/gather list of one entry: one buffer per message. */
#define MC_MAX_SGE 1

int mc_check_size(struct rdma_cm_id *id, const struct mc_config *cfg,
		  unsigned int *port_mtu)
{
	const char *dev = ibv_get_device_name(id->verbs->device);
	struct ibv_port_attr port;
	int err;

	err = ibv_query_port(id->verbs, id->port_num, &port);
	if (err) {
		warnx("failed to query port %u of %s: %s", id->port_num, dev,
		      strerror(err));
		return -err;
	}
	*port_mtu = (unsigned int)mtu_to_bytes(port.active_mtu); /* trace.c */
	trace_step(&cfg->trace, "ibv_query_port: active MTU %u bytes",
		   *port_mtu);
	if (cfg->send && cfg->size > *port_mtu) {
		warnx("invalid -S/--size '%u': larger than the active MTU %u of %s port %u (a UD message is one packet)",
		      cfg->size, *port_mtu, dev, id->port_num);
		return -EMSGSIZE;
	}
	return 0;
}

char *mc_slot(const struct mc_resources *res, unsigned int i)
{
	return res->buf + (size_t)i * res->slot_size;
}

static int create_cq(struct mc_resources *res, struct ibv_context *verbs,
		     const struct mc_config *cfg)
{
	int ret;

	/* The wait reads async events as they come: without blocking. */
	ret = async_events_init(verbs);
	if (ret)
		return ret;
	/* Completions wake us through this channel: no busy polling. */
	res->comp_channel = ibv_create_comp_channel(verbs);
	if (!res->comp_channel) {
		ret = -errno;
		warnx("failed to create completion channel: %s",
		      strerror(-ret));
		return ret;
	}
	res->cq = ibv_create_cq(verbs, (int)res->slots, NULL, res->comp_channel,
				0);
	if (!res->cq) {
		ret = -errno;
		warnx("failed to create CQ of %u entries: %s", res->slots,
		      strerror(-ret));
		goto destroy_comp_channel;
	}
	trace_step(&cfg->trace,
		   "ibv_create_cq: %d entries, completion channel fd %d",
		   res->cq->cqe, res->comp_channel->fd);
	return 0;

destroy_comp_channel:
	ibv_destroy_comp_channel(res->comp_channel);
	return ret;
}

/*
 * rdma_create_qp, not ibv_create_qp: the CM moves the UD QP to RTS itself,
 * with the port's P_Key and the Q_Key of RDMA_PS_UDP, and attaches it to
 * the group when the join completes.
 */
static int create_qp(struct mc_resources *res, struct rdma_cm_id *id,
		     const struct mc_config *cfg)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = res->cq,
		.recv_cq = res->cq,
		.qp_type = IBV_QPT_UD,
		.cap.max_send_wr = MC_SEND_SLOTS,
		.cap.max_recv_wr = res->slots,
		.cap.max_send_sge = MC_MAX_SGE,
		.cap.max_recv_sge = MC_MAX_SGE,
	};

	if (rdma_create_qp(id, res->pd, &attr)) {
		int ret = -errno;

		warnx("failed to create UD QP: %s", strerror(-ret));
		return ret;
	}
	res->qp = id->qp;
	trace_step(&cfg->trace,
		   "rdma_create_qp: UD QP 0x%x, %u send / %u receive WRs",
		   res->qp->qp_num, attr.cap.max_send_wr, attr.cap.max_recv_wr);
	return 0;
}

static int register_buffers(struct mc_resources *res,
			    const struct mc_config *cfg)
{
	size_t len = res->slot_size * res->slots;
	int err;

	err = posix_memalign((void **)&res->buf, (size_t)sysconf(_SC_PAGESIZE),
			     len);
	if (err) {
		warnx("failed to allocate %zu bytes of buffers: %s", len,
		      strerror(err));
		return -err;
	}
	memset(res->buf, 0, len);
	/* Local write: receives are written into these buffers. */
	res->mr = ibv_reg_mr(res->pd, res->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!res->mr) {
		err = errno;
		warnx("failed to register MR of %zu bytes: %s", len,
		      strerror(err));
		free(res->buf);
		return -err;
	}
	trace_step(
		&cfg->trace,
		"ibv_reg_mr: %u slots of %zu bytes (%d GRH + %zu payload), lkey 0x%x",
		res->slots, res->slot_size, MC_GRH_SIZE,
		res->slot_size - MC_GRH_SIZE, res->mr->lkey);
	return 0;
}

/*
 * Bytes of payload a slot holds. The sender's slot holds its own message.
 * A receive slot holds the largest message the port can take in, its
 * active MTU: a receive too small for what arrives completes in error
 * ("local length error"; rxe says "local QP operation error"), so it must
 * fit any sender's -S, whatever this receiver's own.
 */
static size_t payload_room(const struct mc_config *cfg, unsigned int port_mtu)
{
	return cfg->send ? cfg->size : port_mtu;
}

int mc_resources_create(struct mc_resources *res, struct rdma_cm_id *id,
			const struct mc_config *cfg, unsigned int port_mtu)
{
	int ret;

	*res = (struct mc_resources){
		.slot_size = MC_GRH_SIZE + payload_room(cfg, port_mtu),
		.slots = cfg->send ? MC_SEND_SLOTS : MC_RECV_SLOTS,
	};
	res->pd = ibv_alloc_pd(id->verbs);
	if (!res->pd) {
		ret = -errno;
		warnx("failed to allocate PD on %s: %s",
		      ibv_get_device_name(id->verbs->device), strerror(-ret));
		return ret;
	}
	trace_step(&cfg->trace, "ibv_alloc_pd");
	ret = create_cq(res, id->verbs, cfg);
	if (ret)
		goto dealloc_pd;
	ret = create_qp(res, id, cfg);
	if (ret)
		goto destroy_cq;
	ret = register_buffers(res, cfg);
	if (ret)
		goto destroy_qp;
	mc_step("resources created: PD, CQ, UD QP 0x%x, %u buffer(s) of %zu bytes",
		res->qp->qp_num, res->slots, res->slot_size - MC_GRH_SIZE);
	return 0;

destroy_qp:
	rdma_destroy_qp(id);
destroy_cq:
	ibv_destroy_cq(res->cq);
	ibv_destroy_comp_channel(res->comp_channel);
dealloc_pd:
	ibv_dealloc_pd(res->pd);
	*res = (struct mc_resources){0};
	return ret;
}

/* Report a failed destroy and go on: a teardown never stops half-way. */
static void check_destroy(int err, const char *what)
{
	if (err)
		warnx("failed to destroy %s: %s", what, strerror(err));
}

void mc_resources_destroy(struct mc_resources *res, struct rdma_cm_id *id,
			  const struct mc_config *cfg)
{
	check_destroy(ibv_dereg_mr(res->mr), "MR");
	free(res->buf);
	rdma_destroy_qp(id);
	check_destroy(ibv_destroy_cq(res->cq), "CQ");
	check_destroy(ibv_destroy_comp_channel(res->comp_channel),
		      "completion channel");
	check_destroy(ibv_dealloc_pd(res->pd), "PD");
	trace_step(&cfg->trace,
		   "resources destroyed: MR, QP, CQ, completion channel, PD");
	*res = (struct mc_resources){0};
}
