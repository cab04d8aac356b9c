/* SPDX-License-Identifier: MIT */
/* The -v step trace of rdma_mc_example: one place for its format. */
#ifndef MC_TRACE_H
#define MC_TRACE_H

#include <stdbool.h>

/* Print "  [trace] ..." on stdout when @verbose is set, else nothing. */
void mc_trace(bool verbose, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print one teaching line ("==> step") on stdout, always. */
void mc_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* MC_TRACE_H */
