/* SPDX-License-Identifier: MIT */
/* perftest's options that rdma_bench does not offer (bench_perftest.c). */
#ifndef BENCH_PERFTEST_H
#define BENCH_PERFTEST_H

#include <stdio.h>

/*
 * An option perftest has and rdma_bench does not offer, typed as @name
 * (without "--") or @letter: 1 after one line on @err naming it as
 * perftest's and saying why; 0 if it is not perftest's (bench_perftest.c).
 */
int bench_refuse_perftest(const char *name, int letter, FILE *err);

#endif
