/* SPDX-License-Identifier: MIT */
/* -q's other QPs, connected beside the first (bench_qps.c). */
#ifndef BENCH_QPS_H
#define BENCH_QPS_H

struct bench_run;
struct cm;
struct config;
struct connection;
struct resources;

/*
 * bench_qps.c, -q: create, connect (with the peer over @sock, or each
 * through RDMA_CM beside @cm's connection with -R) and free the lanes
 * after the first. Connect does nothing with one QP.
 */
int bench_lanes_connect(struct bench_run *run, const struct config *cfg,
			struct resources *res, const struct connection *conn,
			struct cm *cm, int sock);
int bench_lanes_destroy(struct bench_run *run);

#endif
