/* SPDX-License-Identifier: MIT */
/*
 * A report that has stdout to itself: rdma_check's lines, rdma_bench
 * --output's numbers. What the steps print for a run (the peer's address,
 * the banner, the verdict) goes to /dev/null meanwhile.
 */
#ifndef COMMON_REPORT_H
#define COMMON_REPORT_H

#include <stdbool.h>
#include <stdio.h>

/*
 * *@out: a line-buffered stream on what stdout is now; with @quiet,
 * stdout itself moved to /dev/null, *@saved keeping it to put back (-1
 * otherwise). 0, or -errno after one line.
 */
int report_open(bool quiet, FILE **out, int *saved);

/* Put stdout back as report_open found it, and close @out. */
void report_close(FILE *out, int saved);

#endif
