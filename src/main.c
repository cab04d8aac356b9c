// SPDX-License-Identifier: MIT
/*
 * rdma_rc_example: the RC example of the "RDMA Aware Networks Programming
 * User Manual". A server and a client connect an RC QP, then the server
 * SENDs a message, the client RDMA READs the server's buffer and RDMA
 * WRITEs a new text into it. With --ops, the other lessons; with -c, UC or
 * UD; with -R, RDMA_CM connects the QP. The benchmark (rdma_bench) and the
 * checks (rdma_check) are programs of their own, built on the same steps.
 */
#include <stdio.h>
#include <unistd.h>

#include "cm/cm.h"
#include "config.h"
#include "common/interrupt.h"
#include "ops/ops.h"
#include "qp.h"
#include "resources.h"
#include "sock.h"

/* Exit statuses. */
#define EXIT_PASSED 0
#define EXIT_FAILED 1
#define EXIT_USAGE  2

/* What the command line chose, and what the resources must hold for it. */
struct run {
	struct config cfg;
	struct resources_sizes sizes;
};

/* What the resources must hold for the operations -o names. */
static void plan_run(struct run *run)
{
	resources_default_sizes(&run->sizes, &run->cfg);
	run->sizes.early_receives = ops_receives_before_rtr(&run->cfg);
	ops_device_needs(&run->cfg, &run->sizes.needs);
}

/* Step 9: the operations post and poll on the QP. */
static int run_ops(const struct run *run, struct resources *res,
		   const struct connection *conn, int sock)
{
	struct op_ctx ctx = {
		.res = res,
		.conn = conn,
		.sock = sock,
		.timeout_ms = config_timeout_ms(&run->cfg),
	};

	return ops_run(&run->cfg, &ctx);
}

/*
 * -R: RDMA_CM connects the QP and finds the device; the TCP connection is
 * kept only for the syncs between operations, so that they never mix with
 * the operations' own completions on the QP.
 */
static int run_rdma_cm(const struct run *run)
{
	struct cm cm;
	struct resources res;
	struct connection conn;
	int sock, ret, destroy_ret;

	ret = cm_open(&cm, &run->cfg, &run->sizes.needs);
	if (ret)
		return ret;
	ret = sock_connect(&run->cfg, &sock);
	if (ret)
		goto close_cm;
	ret = cm_connect_qp(&cm, &res, &run->cfg, &run->sizes, sock, &conn);
	if (ret)
		goto close_sock;
	ret = run_ops(run, &res, &conn, sock);
	cm_disconnect(&cm);
	destroy_ret = resources_destroy(&res);
	if (!ret)
		ret = destroy_ret;
close_sock:
	close(sock);
close_cm:
	cm_close(&cm);
	return ret;
}

/* The manual's steps, in its order, once the options are known. */
static int run_steps(const struct run *run)
{
	const struct config *cfg = &run->cfg;
	struct resources res;
	struct connection conn;
	int sock, ret, destroy_ret;

	if (cfg->use_rdma_cm)
		return run_rdma_cm(run);
	/* Steps 1-7: device list, device, its port, PD, memory region, CQ, QP. */
	ret = resources_create(&res, cfg, &run->sizes);
	if (ret)
		return ret;
	/* Step 8: over a TCP connection, exchange QP info; INIT, RTR, RTS. */
	ret = sock_connect(cfg, &sock);
	if (ret)
		goto destroy_resources;
	ret = connect_qp(&res, cfg, sock, &conn);
	if (ret)
		goto close_sock;
	ret = run_ops(run, &res, &conn, sock);
close_sock:
	close(sock);
destroy_resources:
	/* Step 10: everything, in the reverse order of creation. */
	destroy_ret = resources_destroy(&res);
	return ret ? ret : destroy_ret;
}

int main(int argc, char **argv)
{
	struct run run;
	int ret;

	/* Progress lines show up as they happen, also in a pipe or a log. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Before the steps: the command line. */
	ret = config_parse(&run.cfg, NULL, argc, argv, stdout, stderr);
	if (ret)
		return ret > 0 ? EXIT_PASSED : EXIT_USAGE;
	plan_run(&run);
	ret = interrupt_install();
	if (!ret)
		ret = run_steps(&run);
	if (ret && interrupted())
		fprintf(stderr,
			"rdma_rc_example: stopped by %s, resources freed\n",
			interrupt_signal_name());
	printf("\ntest result is %d\n", ret);
	return ret ? EXIT_FAILED : EXIT_PASSED;
}
