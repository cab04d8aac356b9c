// SPDX-License-Identifier: MIT
/* The step lines and the -v trace of rdma_mc_example, in one format. */
#include <stdarg.h>
#include <stdio.h>

#include "mc_trace.h"

void mc_trace(bool verbose, const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	fputs("  [trace] ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

void mc_step(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("==> ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}
