// SPDX-License-Identifier: MIT
/*
 * The pair's path check: does every frame size the runs would use cross
 * the path, each way? The ports' active MTU says what the two hosts can
 * send; a switch port, a tunnel or a VLAN on the way may carry less, and
 * then small messages pass while every full-size frame is lost. The
 * client WRITEs into the server's path area (its frames travel toward the
 * server) and READs from it (the responses travel toward the client): a
 * message of each size from 256 bytes to the path MTU, one frame each,
 * then one of several full frames back to back. A size that does not
 * arrive ends in retry exceeded (or -t's wait); the client stops there,
 * sends what it found, and both sides print the same judgment.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check_priv.h"
#include "completion.h"
#include "device.h"
#include "post.h"

_Static_assert(sizeof(struct rc_buffer) <= CHECK_PATH_AREA_OFFSET,
	       "the path area comes after the operations' buffer");

/* The two ways a frame crosses, by what carries it. */
enum path_way {
	PATH_TO_CLIENT, /* READ responses, from the server */
	PATH_TO_SERVER, /* WRITEs, from the client */
	PATH_WAYS,
};

/*
 * The longest a failed size can take on the client before the server
 * hears of it: 7 tries of the ack timeout (about 1.07 s each) and slack.
 */
#define PATH_RETRY_BUDGET_MS 10000

/* What the client found, as both sides judge it. */
struct path_result {
	uint32_t largest[PATH_WAYS]; /* the largest single frame across */
	uint32_t failed_size;	     /* 0: every size crossed */
	uint32_t failed_way;	     /* enum path_way of failed_size */
	uint32_t mtu;		     /* the path MTU, bytes */
};

/* One message of @size bytes @way, into or from the server's area. */
static int path_move(struct pair *p, enum path_way way, uint32_t size,
		     uint64_t wr_id)
{
	struct send_request req = {
		.opcode = way == PATH_TO_SERVER ? IBV_WR_RDMA_WRITE
						: IBV_WR_RDMA_READ,
		.wr_id = wr_id,
		.sge = {.addr = (uintptr_t)p->res.buf + CHECK_PATH_AREA_OFFSET,
			.length = size,
			.lkey = p->res.mr->lkey},
		.remote_addr = p->conn.remote.addr + CHECK_PATH_AREA_OFFSET,
		.rkey = p->conn.remote.rkey,
	};
	int ret = post_send(&p->res, p->res.qp, &req);

	if (ret)
		return ret;
	return poll_completion(
		&p->res, config_timeout_ms(p->cfg), p->sock, &req,
		way == PATH_TO_SERVER ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ,
		NULL);
}

/* The client's probe: each size both ways, small to large, then a burst. */
static void probe(struct pair *p, struct path_result *res)
{
	uint32_t mtu = (uint32_t)mtu_to_bytes(p->res.mtu), size, burst;
	uint64_t wr_id = 1;
	int way;

	*res = (struct path_result){.mtu = mtu};
	for (size = 256; size <= mtu; size *= 2)
		for (way = 0; way < PATH_WAYS; way++) {
			if (path_move(p, (enum path_way)way, size, wr_id++)) {
				res->failed_size = size;
				res->failed_way = (uint32_t)way;
				return;
			}
			res->largest[way] = size;
		}
	burst = CHECK_PATH_BURST_FRAMES * mtu;
	if (burst > CHECK_PATH_AREA_SIZE)
		burst = CHECK_PATH_AREA_SIZE;
	for (way = 0; way < PATH_WAYS; way++)
		if (path_move(p, (enum path_way)way, burst, wr_id++)) {
			res->failed_size = burst;
			res->failed_way = (uint32_t)way;
			return;
		}
}

/* "from the server toward the client (this side): READ responses" */
static const char *way_text(enum path_way way, bool client)
{
	if (way == PATH_TO_SERVER)
		return client ? "from this side (the client) toward the server, as WRITEs"
			      : "from the client toward this side (the server), as WRITEs";
	return client ? "from the server toward this side (the client), as READ responses"
		      : "from this side (the server) toward the client, as READ responses";
}

/* The line both sides print from what the client found. */
static bool judge(struct check_report *r, const struct path_result *res,
		  bool client)
{
	enum path_way way = (enum path_way)res->failed_way;
	uint32_t largest = res->largest[way];
	char fix[CHECK_FIX_MAX];

	if (!res->failed_size) {
		check_add(
			r, "path", CHECK_PASS, NULL,
			"frames of 256 to %u bytes (the path MTU) crossed both ways one at a time, and %u frames back to back: WRITEs toward the server, READ responses toward the client",
			res->mtu, CHECK_PATH_BURST_FRAMES);
		return true;
	}
	if (res->failed_size > res->mtu) {
		check_add(
			r, "path", CHECK_FAIL,
			"look at the switch ports' discard and pause counters on that way (ethtool -S)",
			"frames of every size up to %u bytes crossed one at a time, but a message of %u bytes (%u frames back to back) never arrived %s: the path loses frames in a burst",
			res->mtu, res->failed_size, res->failed_size / res->mtu,
			way_text(way, client));
		return false;
	}
	if (!largest) {
		check_add(
			r, "path", CHECK_FAIL,
			"make every switch port and tunnel on that way carry RoCE frames of 256 bytes at least",
			"frames of %u bytes never arrived %s, though the small messages of the operations did",
			res->failed_size, way_text(way, client));
		return false;
	}
	snprintf(
		fix, sizeof(fix),
		"-m %u (rdma_check, rdma_bench), or give the switch ports, tunnel or VLAN on that way an MTU of %u bytes (%u of payload and a RoCE packet's headers)",
		largest, res->failed_size + ROCE_PACKET_OVERHEAD,
		res->failed_size);
	check_add(
		r, "path", CHECK_FAIL, fix,
		"frames of %u bytes never arrived %s, while frames of %u bytes did: the path carries a smaller MTU than the ports' %u one way, and every transfer that fills a frame fails",
		res->failed_size, way_text(way, client), largest, res->mtu);
	return false;
}

bool check_path(struct check_report *r, struct pair *p)
{
	struct path_result res = {0}, in;
	uint64_t out[5], got[5];
	int timeout_ms = config_timeout_ms(p->cfg), ret;

	if (p->client)
		probe(p, &res);
	else
		timeout_ms += PATH_RETRY_BUDGET_MS;
	out[0] = res.largest[PATH_TO_CLIENT];
	out[1] = res.largest[PATH_TO_SERVER];
	out[2] = res.failed_size;
	out[3] = res.failed_way;
	out[4] = res.mtu;
	ret = check_trade(p, out, got, 5, timeout_ms);
	if (ret) {
		check_add(r, "path", CHECK_FAIL, NULL, "%s: %s",
			  p->client ? "the server did not take the findings"
				    : "the client's findings did not come",
			  strerror(-ret));
		return false;
	}
	in = (struct path_result){
		.largest = {(uint32_t)got[0], (uint32_t)got[1]},
		.failed_size = (uint32_t)got[2],
		.failed_way =
			got[3] < PATH_WAYS ? (uint32_t)got[3] : PATH_TO_SERVER,
		.mtu = (uint32_t)got[4],
	};
	return judge(r, p->client ? &res : &in, p->client);
}
