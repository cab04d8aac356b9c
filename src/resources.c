// SPDX-License-Identifier: MIT
/* Steps 2-7 of the manual: device, PD, memory region, CQ and QP. */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/async.h"
#include "common/cq_wait.h"
#include "qp.h"
#include "resources.h"

/* Outstanding sends. */
#define QP_MAX_SEND_WR 16
/*
 * Most work requests describe one contiguous piece of the buffer; a lesson
 * that gathers or scatters a list asks for more (sizes.needs.max_sge).
 */
#define QP_MAX_SGE 1

void resources_default_sizes(struct resources_sizes *sizes,
			     const struct config *cfg)
{
	*sizes = (struct resources_sizes){
		.buf_size = sizeof(struct rc_buffer),
		.qps = 1,
		.max_send_wr = QP_MAX_SEND_WR,
		.max_recv_wr = RESOURCES_RECV_WR,
		.max_inline_data = 0,
		.sq_sig_all = true,
		.max_rd_atomic = QP_MAX_RD_ATOMIC,
		.early_receives = 0,
		.needs = {.through_cm = cfg->use_rdma_cm,
			  .qp_type = IBV_QPT_RC},
	};
}

int resources_cq_entries(const struct resources_sizes *sizes)
{
	uint32_t per_qp =
		sizes->max_send_wr + (sizes->srq_wr ? 0 : sizes->max_recv_wr);

	return (int)(sizes->qps * per_qp + sizes->srq_wr + RESOURCES_CQ_MARGIN);
}

bool resources_have_atomics(const struct resources *res)
{
	return res->dev_attr.atomic_cap != IBV_ATOMIC_NONE;
}

/* The rights the peer gets on our buffer; atomics and MW only if supported. */
static unsigned int choose_mr_access(const struct resources *res)
{
	unsigned int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_WRITE;

	if (resources_have_atomics(res))
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	if (res->dev_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW)
		access |= IBV_ACCESS_MW_BIND;
	return access;
}

/* What the device can do, and whether that is what the run needs. */
static int query_device(struct resources *res)
{
	int ret;

	ret = ibv_query_device(res->ctx, &res->dev_attr);
	if (ret) {
		warnx("failed to query device %s: %s",
		      ibv_get_device_name(res->ctx->device), strerror(ret));
		return -ret;
	}
	/* Before the port and the GID: an iWARP device has no RoCE GID. */
	return device_check_needs(res->ctx, &res->sizes.needs);
}

/* From the port queried: the path MTU to start from, and the source GID. */
static int choose_mtu_and_gid(struct resources *res, const struct config *cfg)
{
	int ret = mtu_choose(&res->port_attr);

	if (ret < 0) {
		warnx("failed to choose the MTU of port %u: %s", cfg->ib_port,
		      strerror(-ret));
		return ret;
	}
	res->mtu = (enum ibv_mtu)ret;
	return device_choose_gid(res->ctx, cfg->ib_port, &res->port_attr,
				 &res->gids, cfg->gid_idx, cfg->use_rdma_cm,
				 &res->gid, &res->trace);
}

static int alloc_pd(struct resources *res)
{
	int ret;

	res->pd = ibv_alloc_pd(res->ctx);
	if (!res->pd) {
		ret = -errno;
		warnx("failed to allocate PD: %s", strerror(-ret));
		return ret;
	}
	trace_step(&res->trace, "allocated PD");
	return 0;
}

static int alloc_buffer(struct resources *res)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t size = res->sizes.buf_size;
	size_t page_size = page > 0 ? (size_t)page : 4096;

	/* Whole pages: the region is pinned page by page anyway. */
	res->buf_size = (size + page_size - 1) / page_size * page_size;
	res->buf = aligned_alloc(page_size, res->buf_size);
	if (!res->buf) {
		warnx("failed to allocate a buffer of %zu bytes: %s",
		      res->buf_size, strerror(ENOMEM));
		return -ENOMEM;
	}
	memset(res->buf, 0, res->buf_size);
	return 0;
}

/*
 * ibv_reg_mr pins the buffer: past RLIMIT_MEMLOCK (without CAP_IPC_LOCK) the
 * kernel refuses with EPERM (limit 0) or ENOMEM. Name the limit if it is one.
 */
static void memlock_hint(char *buf, size_t len, int err)
{
	struct rlimit lim;

	buf[0] = '\0';
	if ((err == EPERM || err == ENOMEM) &&
	    getrlimit(RLIMIT_MEMLOCK, &lim) == 0 &&
	    lim.rlim_cur != RLIM_INFINITY)
		snprintf(
			buf, len,
			" (locked-memory limit is %llu bytes: raise it with ulimit -l)",
			(unsigned long long)lim.rlim_cur);
}

static int register_buffer(struct resources *res)
{
	char flags[96];

	res->mr_access = choose_mr_access(res);
	res->mr = ibv_reg_mr(res->pd, res->buf, res->buf_size,
			     (int)res->mr_access);
	if (!res->mr) {
		int ret = -errno;

		char hint[96];

		memlock_hint(hint, sizeof(hint), -ret);
		warnx("failed to register MR of %zu bytes: %s%s", res->buf_size,
		      strerror(-ret), hint);
		return ret;
	}
	trace_step(
		&res->trace,
		"registered MR: addr %p, length %zu, lkey 0x%x, rkey 0x%x, access %s",
		(void *)res->buf, res->buf_size, res->mr->lkey, res->mr->rkey,
		access_flags_str(res->mr_access, flags, sizeof(flags)));
	return 0;
}

/* The CQ both queues complete into, with its completion channel if asked. */
static int create_cq(struct resources *res)
{
	int cq_entries = resources_cq_entries(&res->sizes);
	int ret;

	/* -e: the completion channel its waits sleep on */
	if (res->sizes.events) {
		ret = res->sizes.events->open(res->ctx, &res->comp_channel,
					      &res->trace);
		if (ret)
			return ret;
	}
	if (res->sizes.extended) /* --new-api: ibv_create_cq_ex */
		return res->sizes.extended->create_cq(res, cq_entries);
	res->cq =
		ibv_create_cq(res->ctx, cq_entries, NULL, res->comp_channel, 0);
	if (!res->cq) {
		ret = -errno;
		warnx("failed to create CQ of %d entries: %s", cq_entries,
		      strerror(-ret));
		return ret;
	}
	trace_step(&res->trace, "created CQ with %d entries", res->cq->cqe);
	return 0;
}

/*
 * --srq: the shared receive queue, on the PD. Its QPs take their receives
 * from it, not from queues of their own: one pool for all the clients.
 */
static int create_srq(struct resources *res)
{
	struct ibv_srq_init_attr attr = {
		.attr =
			{
				.max_wr = res->sizes.srq_wr,
				.max_sge = QP_MAX_SGE,
			},
	};
	int ret;

	res->srq = ibv_create_srq(res->pd, &attr);
	if (!res->srq) {
		ret = -errno;
		warnx("failed to create SRQ of %u receives: %s (the device allows %d SRQs of %d)",
		      res->sizes.srq_wr, strerror(-ret), res->dev_attr.max_srq,
		      res->dev_attr.max_srq_wr);
		return ret;
	}
	trace_step(&res->trace, "created SRQ with %u receives (asked %u)",
		   attr.attr.max_wr, res->sizes.srq_wr);
	return 0;
}

static int create_qp_on(struct resources *res, struct ibv_qp **qp)
{
	uint32_t sges = res->sizes.needs.max_sge > QP_MAX_SGE
				? (uint32_t)res->sizes.needs.max_sge
				: QP_MAX_SGE;
	int first_errno = 0;
	struct ibv_qp_init_attr attr = {
		.send_cq = res->cq,
		.recv_cq = res->cq,
		.qp_type = res->sizes.needs.qp_type,
		.sq_sig_all = res->sizes.sq_sig_all,
		.srq = res->srq, /* NULL: a receive queue of its own */
		.cap =
			{
				.max_send_wr = res->sizes.max_send_wr,
				.max_recv_wr = res->sizes.max_recv_wr,
				.max_send_sge = sges,
				.max_recv_sge = sges,
				.max_inline_data = res->sizes.max_inline_data,
			},
	};

	if (res->sizes.extended) {
		/* --new-api: ibv_create_qp_ex, with what it will post */
		int ret = res->sizes.extended->create_qp(res, &attr, qp);

		if (ret)
			return ret;
	} else {
		*qp = ibv_create_qp(res->pd, &attr);
		first_errno = errno;
		if (!*qp && first_errno == EINVAL && attr.cap.max_inline_data) {
			/*
			 * A device that takes less inline data than asked (or
			 * none) refuses the QP with EINVAL: go without it.
			 * Any other error would only come back again.
			 */
			attr.cap.max_inline_data = 0;
			*qp = ibv_create_qp(res->pd, &attr);
		}
	}
	if (!*qp) {
		/* The first refusal is the one that says what was asked. */
		warnx("failed to create %s QP: %s",
		      transport_name(res->sizes.transport),
		      strerror(first_errno));
		return -first_errno;
	}
	if (res->srq)
		trace_step(
			&res->trace,
			"created %s QP 0x%06x on the SRQ (send WRs %u, SGEs %u)",
			transport_name(res->sizes.transport), (*qp)->qp_num,
			attr.cap.max_send_wr, attr.cap.max_send_sge);
	else
		trace_step(
			&res->trace,
			"created %s QP 0x%06x (send WRs %u, recv WRs %u, SGEs %u)%s",
			transport_name(res->sizes.transport), (*qp)->qp_num,
			attr.cap.max_send_wr, attr.cap.max_recv_wr,
			attr.cap.max_send_sge,
			res->sizes.extended ? res->sizes.extended->qp_note
					    : "");
	return 0;
}

int resources_create_qp(struct resources *res, struct ibv_qp **qp)
{
	return create_qp_on(res, qp);
}

/*
 * A step of resources_create failed, after its own line: free what the
 * steps before it made, in reverse order and without a word (the run did
 * not get as far as using them).
 */
static void undo_create(struct resources *res)
{
	if (res->srq)
		ibv_destroy_srq(res->srq);
	if (res->cq)
		ibv_destroy_cq(res->cq);
	if (res->comp_channel)
		ibv_destroy_comp_channel(res->comp_channel);
	if (res->mr)
		ibv_dereg_mr(res->mr);
	free(res->buf);
	if (res->pd)
		ibv_dealloc_pd(res->pd);
	device_free_gid_table(&res->gids);
	if (res->ctx && !res->ctx_borrowed)
		ibv_close_device(res->ctx);
	*res = (struct resources){0};
}

int resources_create(struct resources *res, const struct config *cfg,
		     const struct resources_sizes *sizes,
		     struct ibv_context *borrowed)
{
	int ret = 0;

	*res = (struct resources){
		.ctx = borrowed,
		.ctx_borrowed = borrowed != NULL,
		.ib_port = cfg->ib_port,
		.sizes = *sizes,
		.trace = {.on = cfg->verbose},
	};
	/* Steps 1-2: find the device and open it, unless RDMA_CM did. */
	if (borrowed)
		trace_step(&res->trace, "using device %s",
			   ibv_get_device_name(borrowed->device));
	else
		ret = device_open(cfg->ib_devname, &res->ctx, &res->trace);
	/* Ours or RDMA_CM's, its async events are watched the same way. */
	if (!ret)
		ret = async_events_init(res->ctx);
	/* Step 3: what the device and its port can do; the MTU, the GID. */
	if (!ret)
		ret = query_device(res);
	if (!ret)
		ret = device_query_port(res->ctx, cfg->ib_port, &res->port_attr,
					&res->trace);
	/* The port's GID table, once for the connection: which GID is
	 * chosen now with -g, or once connected without it, from this. */
	if (!ret) {
		ret = device_read_gid_table(
			res->ctx, res->dev_attr.phys_port_cnt, cfg->ib_port,
			&res->gids, &res->trace);
		if (ret)
			device_print_gid_table_error(res->ctx, cfg->ib_port,
						     ret);
	}
	if (!ret)
		ret = choose_mtu_and_gid(res, cfg);
	/* Steps 4-7: PD, buffer and its MR, CQ, QP. */
	if (!ret)
		ret = alloc_pd(res);
	if (!ret)
		ret = alloc_buffer(res);
	if (!ret)
		ret = register_buffer(res);
	if (!ret)
		ret = create_cq(res);
	/* --srq: the shared receive queue, before the QP that takes from it */
	if (!ret && res->sizes.srq_wr)
		ret = create_srq(res);
	if (!ret)
		ret = create_qp_on(res, &res->qp);
	if (ret)
		undo_create(res);
	return ret;
}

void resources_note_failure(int *first, int ret, const char *what)
{
	if (!ret)
		return;
	warnx("failed to %s: %s", what, strerror(ret));
	if (!*first)
		*first = -ret;
}

int resources_destroy(struct resources *res)
{
	int first = 0;

	/* Print events that came late while their QP still exists. */
	if (res->ctx)
		async_events_drain(res->ctx);
	if (res->ah)
		resources_note_failure(&first, ibv_destroy_ah(res->ah),
				       "destroy AH");
	if (res->qp)
		resources_note_failure(&first, ibv_destroy_qp(res->qp),
				       "destroy QP");
	if (res->srq)
		resources_note_failure(&first, ibv_destroy_srq(res->srq),
				       "destroy SRQ");
	if (res->cq)
		resources_note_failure(&first, ibv_destroy_cq(res->cq),
				       "destroy CQ");
	if (res->comp_channel)
		resources_note_failure(
			&first, ibv_destroy_comp_channel(res->comp_channel),
			"destroy completion channel");
	if (res->mr)
		resources_note_failure(&first, ibv_dereg_mr(res->mr),
				       "deregister MR");
	free(res->buf);
	if (res->pd)
		resources_note_failure(&first, ibv_dealloc_pd(res->pd),
				       "deallocate PD");
	device_free_gid_table(&res->gids);
	/* Unlike the calls above, ibv_close_device returns -1 and sets errno. */
	if (res->ctx && !res->ctx_borrowed)
		resources_note_failure(&first,
				       ibv_close_device(res->ctx) ? errno : 0,
				       "close device");
	trace_step(&res->trace, "destroyed QP, CQ, MR, PD%s",
		   res->ctx_borrowed ? " (the device is RDMA_CM's)"
				     : " and closed the device");
	*res = (struct resources){0};
	return first;
}
