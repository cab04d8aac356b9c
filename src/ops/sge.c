// SPDX-License-Identifier: MIT
/*
 * Scatter/gather: a work request carries a list of SGEs, each an address,
 * a length and the lkey of the region it lies in. The sender's device
 * gathers the list into one message; the receiver's scatters the message
 * over its receive's list, filling each SGE before the next. The two lists
 * need not match: here the client gathers its SEND from three SGEs in two
 * regions (its buffer and an area registered apart), and the server
 * scatters it into two SGEs split at another byte (its buffer, then an
 * area of its own). An RDMA WRITE gathers too: two SGEs of the client's
 * land as one run of bytes in the server's buffer. Nothing of the lists
 * goes on the wire: the peer sees one message, one packet here.
 */
#include <err.h>
#include <inttypes.h>
#include <stdlib.h>

#include "op_halves.h"
#include "completion.h"
#include "resources.h"
#include "sock.h"

/* The SEND's pieces: the first and last from the buffer, one from the area. */
#define SGE_PIECE_0 "gathered from "
#define SGE_PIECE_1 "three SGEs "
#define SGE_PIECE_2 "in two regions"
/* Where the last piece sits in the client's message area. */
#define SGE_PIECE_2_OFFSET 32
/* The server's first receive SGE takes this many bytes, the second the rest. */
#define SGE_SPLIT 20
/* The WRITE's pieces, the second with its '\0' so the server can print it. */
#define SGE_WRITE_0 "written from "
#define SGE_WRITE_1 "two SGEs"
/* A piece's length, without a '\0': the pieces are joined, not strings. */
#define PIECE_LEN(piece) ((uint32_t)sizeof(piece) - 1)
/* The SGEs a receive scatters into, and a WRITE gathers from. */
#define SGE_RECV_COUNT	2
#define SGE_WRITE_COUNT 2

/* A second registered area, besides the buffer's region. */
struct sge_area {
	char *bytes;
	struct ibv_mr *mr;
};

static int area_register(struct op_ctx *ctx, struct sge_area *area)
{
	int ret;

	area->bytes = calloc(1, RC_MSG_SIZE);
	if (!area->bytes) {
		warnx("failed to allocate an area of %d bytes: %s", RC_MSG_SIZE,
		      strerror(ENOMEM));
		return -ENOMEM;
	}
	area->mr = ibv_reg_mr(ctx->res->pd, area->bytes, RC_MSG_SIZE,
			      IBV_ACCESS_LOCAL_WRITE);
	if (!area->mr) {
		ret = -errno;
		warnx("failed to register MR of %d bytes for the second area: %s",
		      RC_MSG_SIZE, strerror(-ret));
		return ret;
	}
	printf("Registered a second area of %d bytes: a region of its own, lkey differs from the buffer's\n",
	       RC_MSG_SIZE);
	return 0;
}

static int area_release(struct sge_area *area)
{
	int first = 0;

	if (area->mr)
		resources_note_failure(&first, ibv_dereg_mr(area->mr),
				       "deregister the second area's MR");
	free(area->bytes);
	*area = (struct sge_area){0};
	return first;
}

/* @length bytes at @addr in @mr, as an SGE. */
static struct ibv_sge sge_of(const void *addr, uint32_t length,
			     const struct ibv_mr *mr)
{
	return (struct ibv_sge){
		.addr = (uintptr_t)addr,
		.length = length,
		.lkey = mr->lkey,
	};
}

/*
 * Print SGE @i of a list, at @text: the @bytes of it the message used, its
 * region, and those bytes as text (up to a '\0' the sender put in).
 */
static void show_sge(const char *side, int i, const char *text, uint32_t bytes,
		     const char *region)
{
	printf("%s SGE %d: %u bytes in %s: '%.*s'\n", side, i, bytes, region,
	       (int)strnlen(text, bytes), text);
}

/* Post @wr (signalled, a list of SGEs); wait for its @expected completion. */
static int post_list(struct op_ctx *ctx, struct ibv_send_wr *wr,
		     enum ibv_wc_opcode expected)
{
	struct ibv_send_wr *bad_wr = NULL;
	int ret;

	ret = ibv_post_send(ctx->conn->qp, wr, &bad_wr);
	if (ret) {
		warnx("failed to post %s of %d SGEs on QP 0x%06x: %s",
		      wr_opcode_str(wr->opcode), wr->num_sge,
		      ctx->conn->qp->qp_num, strerror(ret));
		return -ret;
	}
	trace_step(&ctx->res->trace, "posted %s: wr_id %" PRIu64 ", %d SGEs",
		   wr_opcode_str(wr->opcode), wr->wr_id, wr->num_sge);
	return poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, NULL,
			       expected, NULL);
}

/*
 * The server's receive: the first SGE_SPLIT bytes in the buffer, the rest
 * in the area. Posted before the client is told to send.
 */
static int post_scatter(struct op_ctx *ctx, const struct sge_area *area)
{
	/* ibv_post_recv copies the list: it need not outlive the call */
	struct ibv_sge list[SGE_RECV_COUNT];
	struct ibv_recv_wr wr = {
		.wr_id = OP_SGE,
		.sg_list = list,
		.num_sge = SGE_RECV_COUNT,
	};
	struct ibv_recv_wr *bad_wr = NULL;
	int ret;

	memset(ctx->res->buf->msg, 0, sizeof(ctx->res->buf->msg));
	list[0] = sge_of(ctx->res->buf->msg, SGE_SPLIT, ctx->res->mr);
	list[1] = sge_of(area->bytes, RC_MSG_SIZE, area->mr);
	ret = ibv_post_recv(ctx->conn->qp, &wr, &bad_wr);
	if (ret) {
		warnx("failed to post a receive of %d SGEs on QP 0x%06x: %s",
		      SGE_RECV_COUNT, ctx->conn->qp->qp_num, strerror(ret));
		return -ret;
	}
	printf("Posted a receive of %d SGEs: %d bytes in the buffer, then up to %d in the second area\n",
	       SGE_RECV_COUNT, SGE_SPLIT, RC_MSG_SIZE);
	return 0;
}

/* The message arrived: what each of the receive's SGEs holds. */
static int show_scattered(struct op_ctx *ctx, const struct sge_area *area)
{
	struct ibv_wc wc;
	uint32_t rest;
	int ret;

	ret = poll_completion(ctx->res, ctx->timeout_ms, ctx->sock, NULL,
			      IBV_WC_RECV, &wc);
	if (ret)
		return ret;
	printf("Received one message of %u bytes, scattered:\n", wc.byte_len);
	rest = wc.byte_len > SGE_SPLIT ? wc.byte_len - SGE_SPLIT : 0;
	show_sge("server", 0, ctx->res->buf->msg,
		 wc.byte_len < SGE_SPLIT ? wc.byte_len : SGE_SPLIT,
		 "the buffer");
	show_sge("server", 1, area->bytes, rest, "the second area");
	return 0;
}

int op_sge_server(struct op_ctx *ctx)
{
	struct sge_area area = {0};
	int ret, release_ret;

	ret = area_register(ctx, &area);
	if (!ret)
		ret = post_scatter(ctx, &area);
	/* The receive is posted: the client may send. */
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (!ret)
		ret = show_scattered(ctx, &area);
	if (!ret) {
		/* Clean, so what the WRITE places is all that shows. */
		memset(ctx->res->buf->msg, 0, sizeof(ctx->res->buf->msg));
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	}
	/* The client's WRITE is done. */
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (!ret)
		printf("Contents of server buffer: '%s' (one RDMA WRITE of %d SGEs)\n",
		       op_msg(ctx), SGE_WRITE_COUNT);
	release_ret = area_release(&area);
	return ret ? ret : release_ret;
}

/* The client's SEND: three pieces, two in the buffer and one in the area. */
static int send_gathered(struct op_ctx *ctx, struct sge_area *area)
{
	char *msg = ctx->res->buf->msg;
	struct ibv_sge list[OP_SGE_MAX] = {
		sge_of(msg, PIECE_LEN(SGE_PIECE_0), ctx->res->mr),
		sge_of(area->bytes, PIECE_LEN(SGE_PIECE_1), area->mr),
		sge_of(msg + SGE_PIECE_2_OFFSET, PIECE_LEN(SGE_PIECE_2),
		       ctx->res->mr),
	};
	struct ibv_send_wr wr = {
		.wr_id = OP_SGE,
		.sg_list = list,
		.num_sge = OP_SGE_MAX,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};

	memset(msg, 0, sizeof(ctx->res->buf->msg));
	memcpy(msg, SGE_PIECE_0, PIECE_LEN(SGE_PIECE_0));
	memcpy(area->bytes, SGE_PIECE_1, PIECE_LEN(SGE_PIECE_1));
	memcpy(msg + SGE_PIECE_2_OFFSET, SGE_PIECE_2, PIECE_LEN(SGE_PIECE_2));
	printf("SEND of one message gathered from %d SGEs in 2 regions:\n",
	       OP_SGE_MAX);
	show_sge("client", 0, msg, list[0].length, "the buffer");
	show_sge("client", 1, area->bytes, list[1].length, "the second area");
	show_sge("client", 2, msg + SGE_PIECE_2_OFFSET, list[2].length,
		 "the buffer, 32 bytes in");
	return post_list(ctx, &wr, IBV_WC_SEND);
}

/* The client's WRITE: the area's piece, then the buffer's with its '\0'. */
static int write_gathered(struct op_ctx *ctx, struct sge_area *area)
{
	char *msg = ctx->res->buf->msg;
	struct ibv_sge list[SGE_WRITE_COUNT] = {
		sge_of(area->bytes, PIECE_LEN(SGE_WRITE_0), area->mr),
		sge_of(msg, PIECE_LEN(SGE_WRITE_1) + 1, ctx->res->mr),
	};
	struct ibv_send_wr wr = {
		.wr_id = OP_SGE,
		.sg_list = list,
		.num_sge = SGE_WRITE_COUNT,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = op_remote_msg(ctx),
		.wr.rdma.rkey = ctx->conn->remote.rkey,
	};

	memcpy(area->bytes, SGE_WRITE_0, PIECE_LEN(SGE_WRITE_0));
	op_set_msg(ctx, SGE_WRITE_1);
	printf("RDMA WRITE gathered from %d SGEs:\n", SGE_WRITE_COUNT);
	show_sge("client", 0, area->bytes, list[0].length, "the second area");
	show_sge("client", 1, msg, list[1].length,
		 "the buffer (the text and its '\\0')");
	return post_list(ctx, &wr, IBV_WC_RDMA_WRITE);
}

int op_sge_client(struct op_ctx *ctx)
{
	struct sge_area area = {0};
	int ret, release_ret;

	ret = area_register(ctx, &area);
	/* Wait until the server's receive is posted. */
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (!ret)
		ret = send_gathered(ctx, &area);
	/* The server has printed what it received. */
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	if (!ret)
		ret = write_gathered(ctx, &area);
	if (!ret)
		ret = sock_sync(ctx->sock, ctx->timeout_ms);
	release_ret = area_release(&area);
	return ret ? ret : release_ret;
}
