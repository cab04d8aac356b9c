// SPDX-License-Identifier: MIT
/*
 * The teaching lines of rdma_mc_example. The -v trace is the RC
 * example's trace_step (src/common/trace.c), so both programs trace alike.
 */
#include <stdarg.h>
#include <stdio.h>

#include "mc/mc_trace.h"

void mc_step(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("==> ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}
