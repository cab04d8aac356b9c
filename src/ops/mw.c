// SPDX-License-Identifier: MIT
/*
 * Memory windows: remote access to part of a registered region, granted
 * and revoked without registering anything again. A window gives only
 * the rights its region lacks if that region has none of its own: so the
 * server registers a small area apart, with local write and the right to
 * bind windows (IBV_ACCESS_MW_BIND) but no remote right. Its main buffer
 * would not do: that region grants remote read and write by itself and
 * the client holds its rkey, so revoking a window over it would take
 * nothing away. The server binds a window with remote write over the area
 * and sends the window's rkey over TCP; the client's RDMA WRITE through
 * it succeeds. The server invalidates the window; the client's next WRITE
 * with the same rkey is refused (IBV_WC_REM_ACCESS_ERR), the area's bytes
 * stay as they were, and the server's QP, whose responder saw the bad
 * rkey, gets an asynchronous access error. Both QPs end in the error
 * state: last only.
 *
 * Type 2 windows (used when the device has them) are bound and invalidated
 * by work requests on the QP (IBV_WR_BIND_MW, IBV_WR_LOCAL_INV), in order
 * with the other work. Type 1 windows are bound with ibv_bind_mw() and have
 * no invalidate request; here one is revoked with ibv_dealloc_mw(), the
 * one way every device that has type 1 windows supports.
 */
#include <err.h>
#include <inttypes.h>
#include <stdlib.h>

#include "op_halves.h"
#include "common/async.h"
#include "extras/async_wait.h"
#include "completion.h"
#include "post.h"
#include "resources.h"
#include "sock.h"

#define MW_START_MESSAGE  "server's bytes before any write"
#define MW_FIRST_MESSAGE  "written through the window"
#define MW_SECOND_MESSAGE "written after the window was invalidated"
/* The window's area: as large as the message area the writer sends from. */
#define MW_AREA_SIZE RC_MSG_SIZE
/* Its region: we write the text into it, windows give the remote rights. */
#define MW_AREA_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)

/*
 * How long the server waits for the async access error after the client's
 * sync. The responder raises it when it refuses the WRITE, before its NAK
 * reaches the client, so it is normally queued already; this only covers
 * its delivery to our fd, and bounds the wait on devices that raise none.
 */
#define MW_ASYNC_GRACE_MS 500

/* The window the server made, and the area it opens. */
struct mw_state {
	char *area;
	struct ibv_mr *mr; /* the area's region: no remote rights */
	struct ibv_mw *mw;
	uint32_t rkey; /* the rkey of the current binding */
	bool revoked;  /* a type 1 window deallocated to revoke it */
};

static bool has_type_2(const struct op_ctx *ctx)
{
	return ctx->res->dev_attr.device_cap_flags &
	       (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B);
}

/* Post one signalled BIND_MW or LOCAL_INV request and wait for it. */
static int post_mw_request(struct op_ctx *ctx, struct ibv_send_wr *wr,
			   enum ibv_wc_opcode expected)
{
	struct ibv_send_wr *bad_wr = NULL;
	int ret;

	ret = ibv_post_send(ctx->conn->qp, wr, &bad_wr);
	if (ret) {
		warnx("failed to post %s on QP 0x%06x: %s",
		      wr_opcode_str(wr->opcode), ctx->conn->qp->qp_num,
		      strerror(ret));
		return -ret;
	}
	trace_step(&ctx->res->trace, "posted %s: wr_id %" PRIu64,
		   wr_opcode_str(wr->opcode), wr->wr_id);
	return poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, NULL,
			       expected, NULL);
}

/* The window covers the whole area, with remote write only. */
static struct ibv_mw_bind_info mw_bind_info(const struct mw_state *st)
{
	return (struct ibv_mw_bind_info){
		.mr = st->mr,
		.addr = (uintptr_t)st->area,
		.length = MW_AREA_SIZE,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
}

/* The area as a printable string, however the client filled it. */
static const char *area_text(struct mw_state *st)
{
	st->area[MW_AREA_SIZE - 1] = '\0';
	return st->area;
}

/* Allocate the area, put @text in it, register it without remote rights. */
static int register_area(struct op_ctx *ctx, struct mw_state *st,
			 const char *text)
{
	int ret;

	st->area = calloc(1, MW_AREA_SIZE);
	if (!st->area) {
		warnx("failed to allocate the window's area of %d bytes: %s",
		      MW_AREA_SIZE, strerror(ENOMEM));
		return -ENOMEM;
	}
	snprintf(st->area, MW_AREA_SIZE, "%s", text);
	st->mr = ibv_reg_mr(ctx->res->pd, st->area, MW_AREA_SIZE,
			    MW_AREA_ACCESS);
	if (!st->mr) {
		ret = -errno;
		warnx("failed to register MR of %d bytes for the window: %s",
		      MW_AREA_SIZE, strerror(-ret));
		return ret;
	}
	printf("Registered the window's %d-byte area as a region of its own: local write and MW bind, no remote rights\n",
	       MW_AREA_SIZE);
	return 0;
}

/* Type 2: a BIND_MW work request, in order with the QP's other work. */
static int bind_type_2(struct op_ctx *ctx, struct mw_state *st)
{
	/* A type 2 rkey's low byte is ours to change on each bind. */
	struct ibv_send_wr wr = {
		.wr_id = OP_MW,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw =
			{
				.mw = st->mw,
				.rkey = ibv_inc_rkey(st->mw->rkey),
				.bind_info = mw_bind_info(st),
			},
	};

	st->rkey = wr.bind_mw.rkey;
	return post_mw_request(ctx, &wr, IBV_WC_BIND_MW);
}

/* Type 1: ibv_bind_mw(), which gives the window a new rkey. */
static int bind_type_1(struct op_ctx *ctx, struct mw_state *st)
{
	struct ibv_mw_bind bind = {
		.wr_id = OP_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = mw_bind_info(st),
	};
	int ret;

	ret = ibv_bind_mw(ctx->conn->qp, st->mw, &bind);
	if (ret) {
		warnx("failed to bind memory window on QP 0x%06x: %s",
		      ctx->conn->qp->qp_num, strerror(ret));
		return -ret;
	}
	st->rkey = st->mw->rkey;
	return poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, NULL,
			       IBV_WC_BIND_MW, NULL);
}

static int invalidate_window(struct op_ctx *ctx, struct mw_state *st)
{
	int ret;

	if (st->mw->type == IBV_MW_TYPE_2) {
		struct ibv_send_wr wr = {
			.wr_id = OP_MW,
			.opcode = IBV_WR_LOCAL_INV,
			.send_flags = IBV_SEND_SIGNALED,
			.invalidate_rkey = st->rkey,
		};

		ret = post_mw_request(ctx, &wr, IBV_WC_LOCAL_INV);
		if (!ret)
			printf("Invalidated the window with a LOCAL_INV work request: rkey 0x%x grants nothing now\n",
			       st->rkey);
		return ret;
	}
	ret = ibv_dealloc_mw(st->mw);
	if (ret) {
		warnx("failed to deallocate memory window: %s", strerror(ret));
		return -ret;
	}
	st->revoked = true;
	printf("Deallocated the type 1 window (it has no invalidate request): rkey 0x%x grants nothing now\n",
	       st->rkey);
	return 0;
}

/* Allocate, bind and describe the window; the client learns it over TCP. */
static int grant_window(struct op_ctx *ctx, struct mw_state *st)
{
	enum ibv_mw_type type = has_type_2(ctx) ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1;
	struct ibv_mw_bind_info info = mw_bind_info(st);
	struct op_area area;
	int ret;

	st->mw = ibv_alloc_mw(ctx->res->pd, type);
	if (!st->mw) {
		ret = -errno;
		warnx("failed to allocate a type %d memory window: %s",
		      type == IBV_MW_TYPE_2 ? 2 : 1, strerror(-ret));
		return ret;
	}
	ret = type == IBV_MW_TYPE_2 ? bind_type_2(ctx, st)
				    : bind_type_1(ctx, st);
	if (ret)
		return ret;
	printf("Bound a type %d memory window: %" PRIu64 " bytes at 0x%" PRIx64
	       ", remote write, rkey 0x%x (its region grants no remote access of its own)\n",
	       type == IBV_MW_TYPE_2 ? 2 : 1, info.length, info.addr, st->rkey);
	area = (struct op_area){
		.addr = info.addr,
		.length = (uint32_t)info.length,
		.rkey = {st->rkey},
	};
	return op_send_area(ctx, &area);
}

/* After a denied access, here and in two_mr: the async event, the state. */
int op_show_responder_error(struct op_ctx *ctx)
{
	struct ibv_qp_attr attr;
	int ret;

	ret = async_events_wait(ctx->res->ctx, IBV_EVENT_QP_ACCESS_ERR,
				MW_ASYNC_GRACE_MS);
	if (ret == -ETIMEDOUT)
		printf("No async event for QP 0x%06x within %d ms: this device reports the responder's access error only in the QP state (the spec asks for IBV_EVENT_QP_ACCESS_ERR; rdma_rxe raises none)\n",
		       ctx->conn->qp->qp_num, MW_ASYNC_GRACE_MS);
	else if (ret)
		return ret;
	ret = op_query_qp(ctx, 0, &attr);
	if (ret)
		return ret;
	printf("Server QP 0x%06x is now in state %s\n", ctx->conn->qp->qp_num,
	       qp_state_str(attr.qp_state));
	return 0;
}

/* Grant, let the client write, revoke, let it fail: the server's steps. */
static int serve_window(struct op_ctx *ctx, struct mw_state *st)
{
	int ret;

	ret = grant_window(ctx, st);
	if (ret)
		return ret;
	/* The client's first WRITE is done. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	printf("Contents of server buffer: '%s'\n", area_text(st));
	ret = invalidate_window(ctx, st);
	if (ret)
		return ret;
	/* Invalidated: the client may try again... */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	/* ...and has been refused. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	printf("Contents of server buffer: '%s' (unchanged)\n", area_text(st));
	return op_show_responder_error(ctx);
}

/* Undo what of @st exists, window first: the region it is bound to next. */
static int release_window(struct mw_state *st)
{
	int first = 0;

	if (st->mw && !st->revoked)
		resources_note_failure(&first, ibv_dealloc_mw(st->mw),
				       "deallocate memory window");
	if (st->mr)
		resources_note_failure(&first, ibv_dereg_mr(st->mr),
				       "deregister the window's MR");
	free(st->area);
	*st = (struct mw_state){0};
	return first;
}

int op_mw_server(struct op_ctx *ctx)
{
	struct mw_state st = {0};
	int ret, release_ret;

	ret = register_area(ctx, &st, MW_START_MESSAGE);
	if (!ret)
		ret = serve_window(ctx, &st);
	release_ret = release_window(&st);
	return ret ? ret : release_ret;
}

/* RDMA WRITE @text through the window; its completion into *@wc. */
static int write_through(struct op_ctx *ctx, const struct op_area *win,
			 const char *text, struct ibv_wc *wc)
{
	struct send_request req = {
		.opcode = IBV_WR_RDMA_WRITE,
		.wr_id = OP_MW,
		.sge = op_local_msg(ctx),
		.remote_addr = win->addr,
		.rkey = win->rkey[0],
	};
	int ret;

	op_set_msg(ctx, text);
	req.sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
	printf("RDMA WRITE of '%s' through the window (rkey 0x%x)\n", text,
	       win->rkey[0]);
	ret = post_send(ctx->res, ctx->conn->qp, &req);
	if (ret)
		return ret;
	/* A failed completion is the point here: the caller judges it. */
	ret = cq_wait(ctx->res->cq, ctx->res->sizes.events, ctx->timeout_ms,
		      ctx->sock, wc, &ctx->res->trace);
	return completion_wait_failed(ret, ctx->timeout_ms);
}

/* The second WRITE must have been refused, and for the right reason. */
static int check_denied(const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_REM_ACCESS_ERR) {
		warnx("failed to see the WRITE refused: status %s, expected %s (%s)",
		      ibv_wc_status_str(wc->status),
		      ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
		      strerror(EPROTO));
		return -EPROTO;
	}
	printf("RDMA WRITE completed with status '%s' (IBV_WC_REM_ACCESS_ERR), as expected: the window was invalidated\n",
	       ibv_wc_status_str(wc->status));
	return 0;
}

int op_mw_client(struct op_ctx *ctx)
{
	struct op_area win;
	struct ibv_wc wc;
	int ret;

	ret = op_receive_area(ctx, &win);
	if (ret)
		return ret;
	printf("Server's memory window: %u bytes at 0x%" PRIx64 ", rkey 0x%x\n",
	       win.length, win.addr, win.rkey[0]);
	ret = write_through(ctx, &win, MW_FIRST_MESSAGE, &wc);
	if (ret)
		return ret;
	if (wc.status != IBV_WC_SUCCESS) {
		warnx("failed RDMA WRITE through the window: %s (vendor error 0x%x)",
		      ibv_wc_status_str(wc.status), wc.vendor_err);
		return -EIO;
	}
	printf("RDMA WRITE through the window: success\n");
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	/* Wait until the server has invalidated the window. */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	ret = write_through(ctx, &win, MW_SECOND_MESSAGE, &wc);
	if (ret)
		return ret;
	ret = check_denied(&wc);
	if (ret)
		return ret;
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
