// SPDX-License-Identifier: MIT
/*
 * rdma_rc_example: the RC example of the "RDMA Aware Networks Programming
 * User Manual". A server and a client connect an RC QP over a TCP
 * exchange, then the server SENDs a message, the client RDMA READs the
 * server's buffer and RDMA WRITEs a new text into it. The manual's other
 * lessons are rdma_lessons; the checks, rdma_check; the benchmark,
 * rdma_bench: programs of their own, on the same steps.
 */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "common/device_caps.h"
#include "common/interrupt.h"
#include "common/program.h"
#include "config.h"
#include "operations.h"
#include "options.h"
#include "qp.h"
#include "resources.h"
#include "sock.h"

/*
 * What the resources must hold: the manual's buffer, queues and CQ; the
 * client's receive for the SEND, posted before RTR; and RDMA READ, which
 * the device must allow in flight. iWARP connects only through RDMA_CM,
 * which is rdma_lessons's -R.
 */
static void plan_resources(struct resources_sizes *sizes,
			   const struct config *cfg)
{
	resources_default_sizes(sizes, cfg);
	sizes->early_receives = 1;
	device_needs_add(sizes->needs.rd_atomic, "operation read");
	sizes->needs.without_cm_fix = "run rdma_lessons -R";
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct resources_sizes sizes;
	struct resources res;
	struct connection conn;
	struct op_ctx ctx = {.res = &res, .conn = &conn, .sock = -1};
	bool client;
	int ret, destroy_ret;

	/* Progress lines show up as they happen, also in a pipe or a log. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = parse_command_line(&cfg, argc, argv, stdout, stderr);
	if (ret)
		return ret > 0 ? EXIT_PASSED : EXIT_USAGE;
	client = cfg.server_name != NULL;
	ctx.timeout_ms = config_timeout_ms(&cfg);
	ret = interrupt_install();
	if (ret)
		return program_result(ret);
	/* Steps 1-7: device list, device, its port and GID table, PD, MR,
	 * CQ, QP. */
	plan_resources(&sizes, &cfg);
	ret = resources_create(&res, &cfg, &sizes, NULL);
	if (ret)
		return program_result(ret);
	/* Step 8: the TCP connection; over it the GID (without -g: the
	 * connection's address's) and the QP info; INIT, RTR, RTS. */
	ret = sock_connect(&cfg, &ctx.sock);
	if (!ret)
		ret = connect_qp(&res, &cfg, ctx.sock, &conn);
	/* Step 9: the server SENDs; the client READs the server's buffer,
	 * then WRITEs a new text into it. */
	if (!ret)
		ret = client ? op_send_client(&ctx) : op_send_server(&ctx);
	if (!ret)
		ret = client ? op_read_client(&ctx) : op_read_server(&ctx);
	if (!ret)
		ret = client ? op_write_client(&ctx) : op_write_server(&ctx);
	/* Step 10: everything, in the reverse order of creation. */
	if (ctx.sock >= 0)
		close(ctx.sock);
	destroy_ret = resources_destroy(&res);
	return program_result(ret ? ret : destroy_ret);
}
