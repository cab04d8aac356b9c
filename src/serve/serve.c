// SPDX-License-Identifier: MIT
/*
 * The server for several clients: the manual's steps once for the device,
 * PD, buffer, CQ (and with --srq the SRQ), then step 8 once per client, on
 * a QP of its own; the operations for all of them; step 10 for each QP,
 * then for the rest. A client that fails is left out, and the others are
 * served to their end.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "serve/serve.h"
#include "serve_priv.h"
#include "common/async.h"
#include "extras/async_wait.h"
#include "common/interrupt.h"
#include "sock.h"
#include "variants/srq.h"
#include "variants/sock_peer.h"

/* How long to wait for each QP's last-WQE event at the end. */
#define SERVE_LAST_WQE_MS 2000
/* How long a client that came may take to read why its run ends. */
#define SERVE_END_NOTICE_MS 2000

bool serve_wanted(const struct config *cfg, const struct lessons *lessons)
{
	size_t i;

	if (cfg->server_name)
		return false;
	if (lessons->clients > 1 || lessons->use_srq)
		return true;
	for (i = 0; i < lessons->ops.count; i++) {
		const struct op_desc *op = op_find(lessons->ops.ids[i]);

		if (op && (op->flags & OP_SERVED_TOGETHER))
			return true;
	}
	return false;
}

/*
 * connect_qp for @qp, a QP of @res other than res->qp: one per client, all
 * on the same PD and CQ.
 */
static int connect_qp_of(struct resources *res, struct ibv_qp *qp,
			 const struct config *cfg, int sock,
			 struct connection *conn)
{
	struct ibv_qp *own = res->qp;
	int ret;

	/* connect_qp, the manual's step, connects res->qp: lend @qp its place */
	res->qp = qp;
	ret = connect_qp(res, cfg, sock, conn);
	res->qp = own;
	return ret;
}

/* TCP: accept the next client and connect a QP to it over the socket. */
static int take_tcp_client(struct serve *s, int listener,
			   struct serve_client *c)
{
	long long deadline = now_ms() + config_accept_timeout_ms(s->cfg);
	int ret;

	ret = sock_accept(s->cfg, listener, deadline, &c->sock);
	if (ret)
		return ret;
	s->count++;
	printf("client %u of %u: TCP connection was established\n", c->number,
	       s->lessons->clients);
	if (c->number == 1)
		c->qp = s->res.qp;
	else
		ret = resources_create_qp(&s->res, &c->qp);
	if (!ret)
		ret = connect_qp_of(&s->res, c->qp, s->cfg, c->sock, &c->conn);
	if (ret)
		serve_drop(c, ret, "its QP could not be connected");
	return 0;
}

/*
 * Step 8 for client number s->count + 1: 0 once it is in (connected, or
 * left out), or why no client came.
 */
static int take_client(struct serve *s, int listener)
{
	struct serve_client *c = &s->clients[s->count];
	int ret;

	*c = (struct serve_client){.number = s->count + 1, .sock = -1};
	if (s->cfg->use_rdma_cm)
		ret = serve_cm_take_client(s, listener, c);
	else
		ret = take_tcp_client(s, listener, c);
	if (ret || c->failed)
		return ret;
	c->ctx = (struct op_ctx){
		.res = &s->res,
		.conn = &c->conn,
		.sock = c->sock,
		.timeout_ms = s->ctx_timeout_ms,
	};
	/* It is an ordinary client: it sends its list, and must run ours. */
	ret = ops_agree_list(&s->lessons->ops, c->sock, s->ctx_timeout_ms);
	if (ret) {
		serve_drop(c, ret, "it runs other operations");
		return 0;
	}
	printf("client %u of %u: our QP 0x%06x, its QP 0x%06x%s\n", c->number,
	       s->lessons->clients, c->qp->qp_num, c->conn.remote.qp_num,
	       s->res.srq ? ", receives from the SRQ" : "");
	return 0;
}

/*
 * Fewer clients came than --clients: say which did, and end the run for
 * each of them with the reason, which its next sync prints.
 */
static void end_short(struct serve *s)
{
	char who[OPS_CLIENTS_MAX * 48] = "", addr[48], why[128];
	size_t used = 0;
	unsigned int i;

	for (i = 0; i < s->count && used < sizeof(who); i++) {
		sock_peer_name(s->clients[i].sock, addr, sizeof(addr));
		used += (size_t)snprintf(who + used, sizeof(who) - used,
					 "%sclient %u from %s", i ? ", " : "",
					 s->clients[i].number, addr);
	}
	warnx("%u of %u clients came within %d s (%s): the run ends for them; fix: start every client within --accept-timeout, or give --clients %u",
	      s->count, s->lessons->clients, s->cfg->accept_timeout_sec, who,
	      s->count);
	snprintf(
		why, sizeof(why),
		"only %u of the %u clients it waits for came within its --accept-timeout (%d s)",
		s->count, s->lessons->clients, s->cfg->accept_timeout_sec);
	for (i = 0; i < s->count; i++)
		if (!s->clients[i].failed)
			sock_send_end(s->clients[i].sock, why,
				      SERVE_END_NOTICE_MS);
}

/*
 * Every client, then no more: once the last is in, the port is closed,
 * and a client beyond them is refused by its own connect.
 */
static int take_clients(struct serve *s)
{
	int listener = -1, ret;

	ret = sock_listen(s->cfg, (int)s->lessons->clients, &listener);
	while (!ret && s->count < s->lessons->clients)
		ret = take_client(s, listener);
	if (listener >= 0)
		close(listener);
	if (!ret)
		printf("all %u clients are in: the port is closed to more\n",
		       s->count);
	else if (s->count && ret != -EINTR)
		end_short(s);
	return ret;
}

/* Operation @op: hello for all clients at once; any other client by client. */
static int run_op(struct serve *s, const struct op_desc *op)
{
	unsigned int i;
	int ret;

	if (op->flags & OP_SERVED_TOGETHER) {
		ret = recv_pool_create(s);
		return ret ? ret : serve_hello(s);
	}
	for (i = 0; i < s->count; i++) {
		struct serve_client *c = &s->clients[i];

		if (c->failed)
			continue;
		/* Not a work request to a QP that is gone: a retry's wait. */
		if (serve_client_closed(c)) {
			serve_drop(
				c, -ECONNRESET,
				"it closed its TCP connection: it ended or was killed");
			continue;
		}
		ops_trace_start(&c->ctx, op->id, false);
		printf("client %u: operation %s\n", c->number, op->name);
		ret = op->server(&c->ctx);
		if (ret == -EINTR || interrupted())
			return -EINTR;
		if (ret)
			serve_drop(c, ret, "its operation failed");
	}
	return 0;
}

/*
 * A QP on an SRQ may still be taking a receive from it when it fails: the
 * device says IBV_EVENT_QP_LAST_WQE_REACHED once it never will again, and
 * only then is the QP safe to destroy without a lost message. Move each to
 * the error state, then wait for those events, all within one bound.
 */
static void leave_srq(struct serve *s)
{
	struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
	long long deadline = now_ms() + SERVE_LAST_WQE_MS;
	unsigned int i, moved = 0, reached = 0;
	int ret;

	for (i = 0; i < s->count; i++) {
		struct ibv_qp *qp = s->clients[i].qp;

		if (!qp)
			continue;
		ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
		if (ret) {
			warnx("failed to modify QP 0x%06x to ERR: %s",
			      qp->qp_num, strerror(ret));
			continue;
		}
		moved++;
		printf("QP 0x%06x of client %u leaves the SRQ: moved to ERR\n",
		       qp->qp_num, s->clients[i].number);
	}
	/* Each event prints as it comes, naming its QP. */
	while (reached < moved && now_ms() < deadline &&
	       !async_events_wait(s->res.ctx, IBV_EVENT_QP_LAST_WQE_REACHED,
				  (int)(deadline - now_ms())))
		reached++;
	if (reached < moved)
		printf("IBV_EVENT_QP_LAST_WQE_REACHED came for %u of %u QPs within %d ms: this device does not raise it for all\n",
		       reached, moved, SERVE_LAST_WQE_MS);
}

/* Step 10: each client's socket and QP, the receives, then the rest. */
static int serve_destroy(struct serve *s)
{
	int first = 0, ret;
	unsigned int i;

	if (s->res.srq)
		leave_srq(s);
	for (i = 0; i < s->count; i++) {
		struct serve_client *c = &s->clients[i];

		/* -R: the connection first, while the QP is there */
		if (c->cm.id)
			cm_disconnect(&c->cm);
		if (c->sock >= 0)
			close(c->sock);
		if (c->qp && c->qp != s->res.qp)
			resources_note_failure(&first, ibv_destroy_qp(c->qp),
					       "destroy a client's QP");
	}
	ret = recv_pool_free(s);
	if (!first)
		first = ret;
	ret = resources_destroy(&s->res);
	/* -R: the ids, once the QPs on their device are gone */
	serve_cm_close(s);
	return first ? first : ret;
}

/* How it went for each client; the first error, or 0. */
static int summary(const struct serve *s)
{
	unsigned int i;
	int first = 0;

	for (i = 0; i < s->count; i++)
		if (s->clients[i].failed && !first)
			first = s->clients[i].failed;
	printf("served %u of %u clients to the end\n", serve_live(s),
	       s->lessons->clients);
	return first;
}

int serve_clients(const struct config *cfg, const struct lessons *lessons,
		  struct resources_sizes *sizes)
{
	struct serve s = {
		.cfg = cfg,
		.lessons = lessons,
		.sizes = sizes,
		.ctx_timeout_ms = config_timeout_ms(cfg),
	};
	const struct ops_list *ops = &lessons->ops;
	size_t i;
	int ret, destroy_ret;

	/* One CQ for every client's QP: room for each one's completions. */
	sizes->qps = lessons->clients;
	if (lessons->use_srq)
		resources_share_receives(sizes, "option --srq");
	/*
	 * Steps 1-7: device, PD, buffer, CQ (SRQ) and the first client's QP;
	 * -R: listen, and make them on the device the first request came on.
	 */
	if (cfg->use_rdma_cm)
		ret = cm_open(&s.cm, cfg, &sizes->needs, (int)lessons->clients);
	else
		ret = resources_create(&s.res, cfg, sizes, NULL);
	if (ret)
		return ret;
	/* Step 8, once per client. */
	ret = take_clients(&s);
	/* Step 9: the operations, for every client still served. */
	for (i = 0; !ret && i < ops->count && serve_live(&s); i++)
		ret = run_op(&s, op_find(ops->ids[i]));
	if (!ret)
		ret = summary(&s);
	destroy_ret = serve_destroy(&s);
	return ret ? ret : destroy_ret;
}
