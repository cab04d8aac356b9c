// SPDX-License-Identifier: MIT
/*
 * rdma_check: can this host do RDMA with these options, and with a peer,
 * this pair of hosts? One line per check, each failure with its fix, the
 * verdict last. It runs the manual's steps (src/) to find out, but is a
 * program of its own: the example stays a lesson.
 */
#include <stdio.h>

#include "check/check.h"
#include "common/interrupt.h"
#include "common/program.h"
#include "config.h"

int main(int argc, char **argv)
{
	struct check_config check;
	struct config_tool tool;
	struct config cfg;
	bool passed = false;
	int ret;

	/* Each check's line shows up as it is made, also in a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	check_config_tool(&check, &tool);
	ret = config_parse(&cfg, &tool, argc, argv, stdout, stderr);
	if (ret)
		return ret > 0 ? EXIT_PASSED : EXIT_USAGE;
	ret = interrupt_install();
	if (!ret)
		ret = check_run(&cfg, &check, &passed);
	return ret || !passed ? EXIT_FAILED : EXIT_PASSED;
}
