// SPDX-License-Identifier: MIT
/*
 * One buffer, two registrations: the same memory may be registered more
 * than once, each time with its own access rights, and each registration
 * gets its own lkey and rkey. The server registers its message area again
 * twice, once with remote read only and once with remote read and write,
 * and sends the client both rkeys over TCP. The client READs through each
 * (both work), WRITEs through the read-write one (the server prints what
 * arrived), then WRITEs through the read-only one: the server's device
 * refuses it (IBV_WC_REM_ACCESS_ERR), the bytes stay, and both QPs end
 * in the error state: last only.
 */
#include <err.h>
#include <inttypes.h>

#include "op_halves.h"
#include "completion.h"
#include "post.h"
#include "resources.h"
#include "sock.h"

#define TWO_MR_START_MESSAGE  "one buffer, two registrations"
#define TWO_MR_WRITE_MESSAGE  "written through the read-write key"
#define TWO_MR_DENIED_MESSAGE "written through the read-only key"
/* The rights of each registration (a remote write needs a local one). */
#define TWO_MR_READ_ONLY IBV_ACCESS_REMOTE_READ
#define TWO_MR_READ_WRITE                                  \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
	 IBV_ACCESS_REMOTE_WRITE)

/* Which of the area's rkeys is which. */
enum { KEY_READ_ONLY, KEY_READ_WRITE };

/* The two extra registrations of the server's message area. */
struct two_mr_state {
	struct ibv_mr *read_only;
	struct ibv_mr *read_write;
};

/* Register our message area once more with @access into *@mr, and say so. */
static int register_again(struct op_ctx *ctx, unsigned int access,
			  const char *rights, struct ibv_mr **mr)
{
	int ret;

	*mr = ibv_reg_mr(ctx->res->pd, ctx->res->buf->msg,
			 sizeof(ctx->res->buf->msg), (int)access);
	if (!*mr) {
		ret = -errno;
		warnx("failed to register the message area again (%s): %s",
		      rights, strerror(-ret));
		return ret;
	}
	printf("Registered the same %zu bytes again, %s: rkey 0x%x\n",
	       sizeof(ctx->res->buf->msg), rights, (*mr)->rkey);
	return 0;
}

static int release_registrations(struct two_mr_state *st)
{
	int first = 0;

	if (st->read_write)
		resources_note_failure(&first, ibv_dereg_mr(st->read_write),
				       "deregister the read-write MR");
	if (st->read_only)
		resources_note_failure(&first, ibv_dereg_mr(st->read_only),
				       "deregister the read-only MR");
	*st = (struct two_mr_state){0};
	return first;
}

/* Both registrations made: the client learns the address and both rkeys. */
static int hand_out_keys(struct op_ctx *ctx, const struct two_mr_state *st)
{
	struct op_area area = {
		.addr = (uintptr_t)ctx->res->buf->msg,
		.length = sizeof(ctx->res->buf->msg),
		.rkey = {[KEY_READ_ONLY] = st->read_only->rkey,
			 [KEY_READ_WRITE] = st->read_write->rkey},
	};

	return op_send_area(ctx, &area);
}

/* Let the client read, write, and be refused; show each outcome. */
static int serve_keys(struct op_ctx *ctx, const struct two_mr_state *st)
{
	int ret;

	op_set_msg(ctx, TWO_MR_START_MESSAGE);
	ret = hand_out_keys(ctx, st);
	/* The client has read twice and written through the read-write key. */
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	printf("Contents of server buffer: '%s'\n", op_msg(ctx));
	/* Printed: the client may try the read-only key... */
	ret = sock_sync(ctx->sock, ctx->timeout_ms);
	/* ...and has been refused. */
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (ret)
		return ret;
	printf("Contents of server buffer: '%s' (unchanged)\n", op_msg(ctx));
	return op_show_responder_error(ctx);
}

int op_two_mr_server(struct op_ctx *ctx)
{
	struct two_mr_state st = {0};
	int ret, release_ret;

	ret = register_again(ctx, TWO_MR_READ_ONLY, "remote read only",
			     &st.read_only);
	if (!ret)
		ret = register_again(ctx, TWO_MR_READ_WRITE,
				     "remote read and write", &st.read_write);
	if (!ret)
		ret = serve_keys(ctx, &st);
	release_ret = release_registrations(&st);
	return ret ? ret : release_ret;
}

/* Post @opcode through @rkey at @addr; its completion, whatever it is. */
static int access_through(struct op_ctx *ctx, enum ibv_wr_opcode opcode,
			  uint64_t addr, uint32_t rkey, struct ibv_wc *wc)
{
	struct send_request req = {
		.opcode = opcode,
		.wr_id = OP_TWO_MR,
		.sge = op_local_msg(ctx),
		.remote_addr = addr,
		.rkey = rkey,
	};
	int ret;

	if (opcode == IBV_WR_RDMA_WRITE)
		req.sge.length = (uint32_t)strlen(op_msg(ctx)) + 1;
	ret = post_send(ctx->res, ctx->conn->qp, &req);
	if (ret)
		return ret;
	/* A failed completion is the point of the last one: callers judge. */
	ret = cq_wait(ctx->res->cq, ctx->res->sizes.events, ctx->timeout_ms,
		      ctx->sock, wc, &ctx->res->trace);
	return completion_wait_failed(ret, ctx->timeout_ms);
}

/* An access that must have worked: one line if it did not. */
static int check_success(const struct ibv_wc *wc, const char *what,
			 uint32_t rkey)
{
	if (wc->status == IBV_WC_SUCCESS)
		return 0;
	warnx("failed %s through rkey 0x%x: %s (vendor error 0x%x)", what, rkey,
	      ibv_wc_status_str(wc->status), wc->vendor_err);
	return -EIO;
}

/* RDMA READ the server's area through @rkey into ours, and print it. */
static int read_through(struct op_ctx *ctx, const struct op_area *keys,
			uint32_t rkey, const char *rights)
{
	struct ibv_wc wc;
	int ret;

	op_set_msg(ctx, "");
	ret = access_through(ctx, IBV_WR_RDMA_READ, keys->addr, rkey, &wc);
	if (!ret)
		ret = check_success(&wc, "RDMA READ", rkey);
	if (!ret)
		printf("RDMA READ through rkey 0x%x (%s): '%s'\n", rkey, rights,
		       op_msg(ctx));
	return ret;
}

/* RDMA WRITE @text through @rkey; its completion into *@wc. */
static int write_through(struct op_ctx *ctx, const struct op_area *keys,
			 uint32_t rkey, const char *text, struct ibv_wc *wc)
{
	op_set_msg(ctx, text);
	printf("RDMA WRITE of '%s' through rkey 0x%x\n", text, rkey);
	return access_through(ctx, IBV_WR_RDMA_WRITE, keys->addr, rkey, wc);
}

/* The WRITE through the read-only key: refused, for the right reason. */
static int check_refused(const struct ibv_wc *wc, uint32_t rkey)
{
	if (wc->status != IBV_WC_REM_ACCESS_ERR) {
		warnx("failed to see the WRITE through rkey 0x%x refused: status %s, expected %s (%s)",
		      rkey, ibv_wc_status_str(wc->status),
		      ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
		      strerror(EPROTO));
		return -EPROTO;
	}
	printf("RDMA WRITE completed with status '%s' (IBV_WC_REM_ACCESS_ERR), as expected: rkey 0x%x grants remote read, not remote write\n",
	       ibv_wc_status_str(wc->status), rkey);
	return 0;
}

/* Both READs, then the WRITE the read-write key allows. */
static int use_keys(struct op_ctx *ctx, const struct op_area *keys)
{
	struct ibv_wc wc;
	int ret;

	ret = read_through(ctx, keys, keys->rkey[KEY_READ_ONLY],
			   "remote read only");
	if (!ret)
		ret = read_through(ctx, keys, keys->rkey[KEY_READ_WRITE],
				   "remote read and write");
	if (!ret)
		ret = write_through(ctx, keys, keys->rkey[KEY_READ_WRITE],
				    TWO_MR_WRITE_MESSAGE, &wc);
	if (!ret)
		ret = check_success(&wc, "RDMA WRITE",
				    keys->rkey[KEY_READ_WRITE]);
	if (!ret)
		printf("RDMA WRITE through rkey 0x%x: success\n",
		       keys->rkey[KEY_READ_WRITE]);
	return ret;
}

int op_two_mr_client(struct op_ctx *ctx)
{
	struct op_area keys;
	struct ibv_wc wc;
	int ret;

	ret = op_receive_area(ctx, &keys);
	if (ret)
		return ret;
	printf("Server's area at 0x%" PRIx64
	       ", registered twice: rkey 0x%x (remote read only), rkey 0x%x (remote read and write)\n",
	       keys.addr, keys.rkey[KEY_READ_ONLY], keys.rkey[KEY_READ_WRITE]);
	ret = use_keys(ctx, &keys);
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	/* The server printed what the WRITE placed. */
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (!ret)
		ret = write_through(ctx, &keys, keys.rkey[KEY_READ_ONLY],
				    TWO_MR_DENIED_MESSAGE, &wc);
	if (!ret)
		ret = check_refused(&wc, keys.rkey[KEY_READ_ONLY]);
	if (ret)
		return ret;
	return sock_sync(ctx->sock, ctx->timeout_ms);
}
