// SPDX-License-Identifier: MIT
/*
 * rdma_rc_example: the RC example of the "RDMA Aware Networks Programming
 * User Manual". A server and a client connect an RC QP, then the server
 * SENDs a message, the client RDMA READs the server's buffer and RDMA
 * WRITEs a new text into it.
 */
#include <stdio.h>
#include <unistd.h>

#include "bench.h"
#include "cm.h"
#include "config.h"
#include "interrupt.h"
#include "ops.h"
#include "qp.h"
#include "resources.h"
#include "sock.h"

/* Exit statuses. */
#define EXIT_PASSED 0
#define EXIT_FAILED 1
#define EXIT_USAGE  2

/* Step 9 onwards: the operations (or the benchmark), on a connected QP. */
static int run_ops(const struct config *cfg, struct resources *res,
		   const struct connection *conn, int sock)
{
	struct op_ctx ctx = {
		.res = res,
		.conn = conn,
		.sock = sock,
		.timeout_ms = cfg->timeout_sec * 1000,
	};

	if (bench_is_on(&cfg->bench))
		return bench_run(cfg, res, conn, sock);
	return ops_run(cfg, &ctx);
}

/*
 * -R: RDMA_CM connects the QP and finds the device; the TCP connection is
 * kept only for the syncs between operations, so that they never mix with
 * the operations' own completions on the QP.
 */
static int run_rdma_cm(const struct config *cfg)
{
	struct cm cm;
	struct resources res;
	struct connection conn;
	int sock, ret, destroy_ret;

	ret = cm_open(&cm, cfg);
	if (ret)
		return ret;
	ret = sock_connect(cfg, &sock);
	if (ret)
		goto close_cm;
	ret = cm_connect_qp(&cm, &res, cfg, sock, &conn);
	if (ret)
		goto close_sock;
	ret = run_ops(cfg, &res, &conn, sock);
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
static int run(const struct config *cfg)
{
	struct resources res;
	struct connection conn;
	int sock, ret, destroy_ret;

	if (cfg->use_rdma_cm)
		return run_rdma_cm(cfg);
	ret = resources_create(&res, cfg);
	if (ret)
		return ret;
	ret = sock_connect(cfg, &sock);
	if (ret)
		goto destroy_resources;
	ret = connect_qp(&res, cfg, sock, &conn);
	if (ret)
		goto close_sock;
	ret = run_ops(cfg, &res, &conn, sock);
close_sock:
	close(sock);
destroy_resources:
	destroy_ret = resources_destroy(&res);
	return ret ? ret : destroy_ret;
}

int main(int argc, char **argv)
{
	struct config cfg;
	int ret;

	/* Progress lines show up as they happen, also in a pipe or a log. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = config_parse(&cfg, argc, argv, stdout, stderr);
	if (ret)
		return ret > 0 ? EXIT_PASSED : EXIT_USAGE;
	ret = interrupt_install();
	if (!ret)
		ret = run(&cfg);
	if (ret && interrupted())
		fprintf(stderr,
			"rdma_rc_example: stopped by %s, resources freed\n",
			interrupt_signal_name());
	printf("\ntest result is %d\n", ret);
	return ret ? EXIT_FAILED : EXIT_PASSED;
}
