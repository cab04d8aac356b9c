// SPDX-License-Identifier: MIT
/*
 * rdma_bench: what perftest's ib_*_lat and ib_*_bw measure, measured the
 * same way, on an RC QP that the manual's steps (src/) connect, over the
 * TCP exchange or with -R through RDMA_CM (and -q's other QPs beside it).
 *
 *   rdma_bench lat|bw [options]            the server: waits for one client
 *   rdma_bench lat|bw [options] SERVER     the client
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cm/cm.h"
#include "common/interrupt.h"
#include "common/program.h"
#include "extras/report.h"
#include "config.h"
#include "qp.h"
#include "extras/cq_events.h"
#include "resources.h"
#include "sock.h"

/* What the resources must hold for @bc: the benchmark's queues and region. */
static void plan_sizes(const struct config *cfg, const struct bench_config *bc,
		       struct resources_sizes *sizes)
{
	resources_default_sizes(sizes, cfg);
	/* -e: the CQ's completion channel, which bench_size_resources may
	 * ask for too */
	sizes->events = cfg->use_events ? &cq_events : NULL;
	bench_size_resources(bc, sizes);
}

/* -R: RDMA_CM connects the QP; the TCP connection carries the syncs. */
static int bench_over_cm(const struct config *cfg,
			 const struct bench_config *bc,
			 const struct resources_sizes *sizes, FILE *report)
{
	struct connection conn;
	struct resources res;
	int sock, ret;
	struct cm cm;

	ret = cm_connect_run(&cm, &res, cfg, sizes, &sock, &conn);
	if (ret)
		return ret;
	ret = bench_run(cfg, bc, &res, &conn, &cm, sock, report);
	return cm_close_run(&cm, &res, sock, ret);
}

/* The manual's steps 1-8 over the TCP exchange, the benchmark as step 9. */
static int bench_over_tcp(const struct config *cfg,
			  const struct bench_config *bc,
			  const struct resources_sizes *sizes, FILE *report)
{
	struct connection conn;
	struct resources res;
	int sock, ret, destroy_ret;

	ret = resources_create(&res, cfg, sizes, NULL);
	if (ret)
		return ret;
	ret = sock_connect(cfg, &sock);
	if (ret)
		goto destroy_resources;
	ret = connect_qp(&res, cfg, sock, &conn);
	if (!ret)
		ret = bench_run(cfg, bc, &res, &conn, NULL, sock, report);
	close(sock);
destroy_resources:
	destroy_ret = resources_destroy(&res);
	return ret ? ret : destroy_ret;
}

int main(int argc, char **argv)
{
	struct resources_sizes sizes;
	struct bench_config bench;
	struct config cfg;
	FILE *report;
	int ret, status, saved = -1;
	bool aside;

	/* Each size's line shows up as it is measured, also in a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = bench_parse_command_line(&cfg, &bench, argc, argv, stdout,
				       stderr);
	if (ret)
		return ret > 0 ? EXIT_PASSED : EXIT_USAGE;
	plan_sizes(&cfg, &bench, &sizes);
	aside = bench.output != BENCH_OUTPUT_TABLE;
	/* --output: the numbers alone on stdout, the rest to /dev/null */
	report = stdout;
	ret = aside ? report_open(true, &report, &saved) : 0;
	if (ret)
		return EXIT_FAILED;
	ret = interrupt_install();
	if (!ret)
		ret = cfg.use_rdma_cm
			      ? bench_over_cm(&cfg, &bench, &sizes, report)
			      : bench_over_tcp(&cfg, &bench, &sizes, report);
	status = program_result(ret);
	if (aside)
		report_close(report, saved);
	return status;
}
