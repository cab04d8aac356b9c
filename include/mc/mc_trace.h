/* SPDX-License-Identifier: MIT */
/*
 * The step lines of rdma_mc_example; its -v trace is trace_step() of
 * the RC example's include/common/trace.h.
 */
#ifndef MC_TRACE_H
#define MC_TRACE_H

#include "common/trace.h"

/* Print one teaching line ("==> step") on stdout, always. */
void mc_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* MC_TRACE_H */
