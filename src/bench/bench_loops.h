/* SPDX-License-Identifier: MIT */
/* The measuring loops, called by bench.c for each size. */
#ifndef BENCH_LOOPS_H
#define BENCH_LOOPS_H

struct bench_run;

/* bench_lat.c and bench_bw.c: one size each, filling tposted/tcompleted. */
int bench_lat_size(struct bench_run *run);
int bench_bw_size(struct bench_run *run);

#endif
