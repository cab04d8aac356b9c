// SPDX-License-Identifier: MIT
/*
 * Where the clients' hello messages land, and what that memory costs. A
 * receive is a buffer posted before the message comes: without an SRQ,
 * each client's QP needs its own, as many as that client may send before
 * the server posts again; with one, the server keeps a single pool for
 * all of them, sized for what arrives between two refills, not for the
 * number of clients.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_priv.h"
#include "common/async.h"
#include "extras/async_wait.h"
#include "post.h"

static struct ibv_sge slot_sge(const struct recv_pool *pool, uint32_t slot)
{
	return (struct ibv_sge){
		.addr = (uintptr_t)(pool->bytes + (size_t)slot * RC_MSG_SIZE),
		.length = RC_MSG_SIZE,
		.lkey = pool->mr->lkey,
	};
}

/* One receive of slot @slot into the SRQ (the wr_id is the slot). */
static int post_srq_receive(struct serve *s, uint32_t slot)
{
	struct ibv_sge sge = slot_sge(&s->pool, slot);
	struct ibv_recv_wr wr = {
		.wr_id = slot,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	int ret;

	ret = ibv_post_srq_recv(s->res.srq, &wr, &bad);
	if (ret) {
		warnx("failed to post a receive to the SRQ: %s", strerror(ret));
		return -ret;
	}
	s->pool.posted++;
	trace_step(&s->res.trace,
		   "posted RECV to the SRQ: wr_id %u, local 0x%" PRIx64
		   " len %u lkey 0x%x",
		   slot, sge.addr, sge.length, sge.lkey);
	return 0;
}

/* Arm the SRQ's limit: the device raises one event when it drops below. */
static int arm_limit(struct serve *s)
{
	struct ibv_srq_attr attr = {.srq_limit = SERVE_SRQ_LIMIT};
	int ret;

	ret = ibv_modify_srq(s->res.srq, &attr, IBV_SRQ_LIMIT);
	if (ret) {
		warnx("failed to arm the SRQ limit at %u: %s", SERVE_SRQ_LIMIT,
		      strerror(ret));
		return -ret;
	}
	return 0;
}

static int post_all(struct serve *s)
{
	uint32_t slot;
	unsigned int i;
	int ret = 0;

	if (s->res.srq) {
		for (slot = 0; !ret && slot < s->pool.slots; slot++)
			ret = post_srq_receive(s, slot);
		return ret;
	}
	/* Client i's QP: slots i * HELLO_MESSAGES onwards. */
	for (i = 0; !ret && i < s->count; i++) {
		for (slot = 0; !ret && slot < HELLO_MESSAGES; slot++) {
			uint32_t n = i * HELLO_MESSAGES + slot;
			struct ibv_sge sge = slot_sge(&s->pool, n);

			if (s->clients[i].failed)
				continue;
			ret = post_receive(s->clients[i].qp, &sge, n,
					   &s->res.trace);
			if (!ret)
				s->pool.posted++;
		}
	}
	return ret;
}

/*
 * What the receives cost, and what they would cost the other way for as
 * many clients: a queue of HELLO_MESSAGES for each, or the one SRQ.
 */
static void print_cost(const struct serve *s)
{
	uint32_t each = s->count * HELLO_MESSAGES;
	const char *plural = s->count == 1 ? "" : "s";

	printf("receive memory: %u receives posted, %zu bytes registered for them ",
	       s->pool.posted, (size_t)s->pool.slots * RC_MSG_SIZE);
	if (s->res.srq)
		printf("(one shared receive queue for %u client%s; a queue for each would take %u, %zu bytes)\n",
		       s->count, plural, each, (size_t)each * RC_MSG_SIZE);
	else
		printf("(a receive queue for each of %u client%s; one shared queue would take %u, %zu bytes)\n",
		       s->count, plural, RESOURCES_SRQ_WR,
		       (size_t)RESOURCES_SRQ_WR * RC_MSG_SIZE);
}

int recv_pool_create(struct serve *s)
{
	struct recv_pool *pool = &s->pool;
	size_t bytes;
	int ret;

	pool->slots = s->res.srq ? RESOURCES_SRQ_WR : s->count * HELLO_MESSAGES;
	bytes = (size_t)pool->slots * RC_MSG_SIZE;
	pool->bytes = calloc(pool->slots, RC_MSG_SIZE);
	pool->done = calloc(pool->slots, sizeof(*pool->done));
	if (!pool->bytes || !pool->done) {
		warnx("failed to allocate %zu bytes for the receives: %s",
		      bytes, strerror(ENOMEM));
		return -ENOMEM;
	}
	/* Only the device writes here, on our behalf: local write only. */
	pool->mr = ibv_reg_mr(s->res.pd, pool->bytes, bytes,
			      IBV_ACCESS_LOCAL_WRITE);
	if (!pool->mr) {
		ret = -errno;
		warnx("failed to register MR of %zu bytes for the receives: %s",
		      bytes, strerror(-ret));
		return ret;
	}
	ret = post_all(s);
	if (ret)
		return ret;
	print_cost(s);
	if (!s->res.srq)
		return 0;
	ret = arm_limit(s);
	if (!ret)
		printf("SRQ limit armed at %u: the device says when fewer receives are left\n",
		       SERVE_SRQ_LIMIT);
	return ret;
}

int recv_pool_free(struct serve *s)
{
	struct recv_pool *pool = &s->pool;
	int first = 0;

	if (pool->mr)
		resources_note_failure(&first, ibv_dereg_mr(pool->mr),
				       "deregister the receives' MR");
	free(pool->bytes);
	free(pool->done);
	*pool = (struct recv_pool){0};
	return first;
}

int recv_pool_refill(struct serve *s)
{
	struct recv_pool *pool = &s->pool;
	uint32_t again = pool->done_count;
	int ret = 0;

	if (!s->res.srq || pool->posted >= SERVE_SRQ_LIMIT)
		return 0;
	/*
	 * Below the limit: the device must have said so (printed there). One
	 * that did not is named, and the queue refilled all the same.
	 */
	ret = async_events_wait(s->res.ctx, IBV_EVENT_SRQ_LIMIT_REACHED,
				s->ctx_timeout_ms);
	if (ret == -ETIMEDOUT)
		printf("no IBV_EVENT_SRQ_LIMIT_REACHED within %d ms, though the SRQ holds %u receives, below its limit %u: refilling without it\n",
		       s->ctx_timeout_ms, pool->posted, SERVE_SRQ_LIMIT);
	else if (ret)
		return ret;
	ret = 0;
	while (!ret && pool->done_count)
		ret = post_srq_receive(s, pool->done[--pool->done_count]);
	if (ret)
		return ret;
	printf("refilled the SRQ: posted %u receives again, %u in it\n", again,
	       pool->posted);
	ret = arm_limit(s);
	if (!ret)
		printf("SRQ limit armed at %u again\n", SERVE_SRQ_LIMIT);
	return ret;
}
