// SPDX-License-Identifier: MIT
/*
 * Receiver not ready: on RC a SEND needs a receive posted at the target.
 * If there is none, the target answers with an RNR NAK that tells the
 * sender how long to wait (its min_rnr_timer), and the sender tries again,
 * rnr_retry times. Here the server posts nothing, so every try is refused
 * and the client's SEND completes with IBV_WC_RNR_RETRY_EXC_ERR, which
 * moves the client's QP to the error state: this operation comes last.
 *
 * The QP's usual rnr_retry (6, see qp.c) is already finite and the RNR
 * timer short (0.64 ms; src/cm/connect.c sets the same over RDMA_CM,
 * whose own choice is 655 ms), so this takes milliseconds; with
 * rnr_retry 7 the sender would retry forever and the SEND never complete.
 */
#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "sock.h"

#define RNR_MESSAGE "SEND that finds no receive"

int op_rnr_server(struct op_ctx *ctx)
{
	struct ibv_qp_attr attr;
	int ret;

	printf("Not posting a receive: the client's SEND will find none\n");
	/* Ready: no receive is posted. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	/* The client's SEND has given up. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	ret = op_query_qp(ctx, 0, &attr);
	if (ret)
		return ret;
	/* The responder only refused: its QP is unharmed. */
	printf("Server QP 0x%06x is still in state %s\n", ctx->conn->qp->qp_num,
	       qp_state_str(attr.qp_state));
	return 0;
}

/* Say what the failed SEND means; -EPROTO if it did not fail as it should. */
static int check_rnr(struct op_ctx *ctx, const struct ibv_wc *wc)
{
	struct ibv_qp_attr attr;
	int ret;

	if (wc->status != IBV_WC_RNR_RETRY_EXC_ERR) {
		warnx("failed to see the SEND refused for want of a receive: status %s, expected %s (%s)",
		      ibv_wc_status_str(wc->status),
		      ibv_wc_status_str(IBV_WC_RNR_RETRY_EXC_ERR),
		      strerror(EPROTO));
		return -EPROTO;
	}
	ret = op_query_qp(ctx, IBV_QP_RNR_RETRY, &attr);
	if (ret)
		return ret;
	printf("SEND completed with status '%s' (IBV_WC_RNR_RETRY_EXC_ERR), as expected\n",
	       ibv_wc_status_str(wc->status));
	printf("The server had no receive posted: it answered with RNR NAKs, the client retried %u times (rnr_retry) and gave up\n",
	       attr.rnr_retry);
	printf("Client QP 0x%06x is now in state %s\n", ctx->conn->qp->qp_num,
	       qp_state_str(attr.qp_state));
	return 0;
}

int op_rnr_client(struct op_ctx *ctx)
{
	struct send_request req = {
		.opcode = IBV_WR_SEND,
		.wr_id = OP_RNR,
		.sge = op_local_msg(ctx),
	};
	struct ibv_wc wc;
	int ret;

	op_set_msg(ctx, RNR_MESSAGE);
	req.sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	printf("going to send the message: '%s' (the server has no receive posted)\n",
	       op_msg(ctx));
	ret = post_send(ctx->res, ctx->conn->qp, &req);
	if (ret)
		return ret;
	/* A failed completion is the point here: judge it ourselves. */
	ret = cq_wait(ctx->res->cq, ctx->res->sizes.events, ctx->timeout_ms,
		      ctx->sock, &wc, &ctx->res->trace);
	if (ret)
		return completion_wait_failed(ret, ctx->timeout_ms);
	ret = check_rnr(ctx, &wc);
	if (ret)
		return ret;
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
