// SPDX-License-Identifier: MIT
/*
 * rdma_lessons: the rest of the "RDMA Aware Networks Programming User
 * Manual", on the steps of its RC example (rdma_rc_example): the
 * operations -o lists (immediate data, atomics, memory windows, RNR,
 * scatter/gather, two registrations, and the manual's three), UC and UD
 * (-c), completion events (-e), RDMA_CM (-R), the post and poll calls of
 * today's API (--new-api), the manual's own program as the peer
 * (--manual-peer) and the server for several clients (--clients, --srq).
 */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "cm/cm.h"
#include "config.h"
#include "extras/cq_events.h"
#include "common/interrupt.h"
#include "common/program.h"
#include "ops/manual_info.h"
#include "ops/options.h"
#include "ops/ops.h"
#include "qp.h"
#include "resources.h"
#include "serve/serve.h"
#include "sock.h"
#include "variants/new_api.h"
#include "variants/uc_ud.h"

/* What main holds, from the command line to the teardown. */
struct run {
	struct config cfg;
	struct lessons lessons; /* -o, and the server's --clients, --srq */
	struct resources_sizes sizes; /* what the resources must hold */
	struct resources res;
	struct connection conn;
	struct cm cm; /* -R only */
	/* What the operations see: the resources, the connection and the
	 * TCP socket (ctx.sock; -R keeps it for the syncs only). */
	struct op_ctx ctx;
};

/* What the resources must hold for the operations -o names. */
static void plan_run(struct run *run)
{
	resources_default_sizes(&run->sizes, &run->cfg);
	/* -e: the CQ's completion channel, and the waits sleep on it */
	run->sizes.events = run->cfg.use_events ? &cq_events : NULL;
	run->sizes.early_receives = ops_receives_before_rtr(&run->lessons.ops);
	ops_device_needs(&run->lessons.ops, &run->sizes.needs);
	/* --new-api: the extended verbs in the steps */
	run->sizes.extended = run->lessons.new_api ? &new_api_verbs : NULL;
	resources_set_transport(&run->sizes, run->lessons.transport);
	/* --manual-peer: connect_qp trades the manual's connection data */
	if (run->lessons.manual_peer)
		run->sizes.trade_info = manual_trade_info;
	run->ctx = (struct op_ctx){
		.res = &run->res,
		.conn = &run->conn,
		.sock = -1,
		.timeout_ms = config_timeout_ms(&run->cfg),
		.gather_ms = (int)config_accept_timeout_ms(&run->cfg),
		/* UD: each message says who sent it (its GRH) */
		.received = run->lessons.transport == TRANSPORT_UD
				    ? ud_print_grh_source
				    : NULL,
	};
}

int main(int argc, char **argv)
{
	struct run run;
	struct op_ctx *ctx = &run.ctx;
	bool client;
	size_t i;
	int ret, destroy_ret;

	/* Progress lines show up as they happen, also in a pipe or a log. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Before the steps: the command line. */
	ret = ops_parse_command_line(&run.cfg, &run.lessons, argc, argv, stdout,
				     stderr);
	if (ret)
		return ret > 0 ? EXIT_PASSED : EXIT_USAGE;
	plan_run(&run);
	client = run.cfg.server_name != NULL;
	ret = interrupt_install();
	if (ret)
		return program_result(ret);
	/* --clients, --srq: the same steps for several clients (src/serve). */
	if (serve_wanted(&run.cfg, &run.lessons))
		return program_result(
			serve_clients(&run.cfg, &run.lessons, &run.sizes));
	if (run.cfg.use_rdma_cm) {
		/*
		 * -R, steps 1-8: RDMA_CM resolves the peer's address to a
		 * device, the resources are made on it and RDMA_CM connects
		 * the QP. The TCP connection is kept only for the syncs
		 * between operations, so that they never mix with the
		 * operations' own completions on the QP.
		 */
		ret = cm_connect_run(&run.cm, &run.res, &run.cfg, &run.sizes,
				     &ctx->sock, &run.conn);
		if (ret)
			return program_result(ret);
	} else {
		/* Steps 1-7: device list, device, its port, PD, MR, CQ, QP. */
		ret = resources_create(&run.res, &run.cfg, &run.sizes, NULL);
		if (ret)
			return program_result(ret);
		/* Step 8: over TCP, the GID (without -g: the connection's
		 * address's), the QP info; INIT, RTR, RTS. */
		ret = sock_connect(&run.cfg, &ctx->sock);
		if (!ret)
			ret = connect_qp(&run.res, &run.cfg, ctx->sock,
					 &run.conn);
	}
	/* Step 9: the operations -o lists (the manual's: send, read, write),
	 * the same list on both sides; with the manual's program as the
	 * peer, its own flow and syncs. */
	if (!ret && run.lessons.manual_peer)
		ret = client ? op_manual_client(ctx) : op_manual_server(ctx);
	else if (!ret)
		ret = ops_agree(&run.lessons.ops, ctx);
	for (i = 0;
	     !ret && !run.lessons.manual_peer && i < run.lessons.ops.count;
	     i++) {
		enum op_id op = run.lessons.ops.ids[i];

		ops_trace_start(ctx, op, client);
		if (op == OP_SEND)
			ret = client ? op_send_client(ctx)
				     : op_send_server(ctx);
		else if (op == OP_READ)
			ret = client ? op_read_client(ctx)
				     : op_read_server(ctx);
		else if (op == OP_WRITE)
			ret = client ? op_write_client(ctx)
				     : op_write_server(ctx);
		else
			ret = ops_run_lesson(ctx, op, client);
	}
	/* Step 10: everything, in the reverse order of creation. */
	if (run.cfg.use_rdma_cm)
		return program_result(
			cm_close_run(&run.cm, &run.res, ctx->sock, ret));
	if (ctx->sock >= 0)
		close(ctx->sock);
	destroy_ret = resources_destroy(&run.res);
	return program_result(ret ? ret : destroy_ret);
}
