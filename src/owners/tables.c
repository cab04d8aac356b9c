// SPDX-License-Identifier: MIT
/* Every program's option table (see owners/tables.h). */
#include "bench/bench.h"
#include "check/check.h"
#include "ops/options.h"
#include "options.h"
#include "owners/tables.h"

const struct config_option *owners_table_of(enum program_id program)
{
	static struct lessons lessons;
	static struct ops_options ops;
	static struct bench_config bench;
	static struct check_config check;
	struct config_tool tool;

	switch (program) {
	case PROGRAM_LESSONS:
		ops_config_tool(&ops, &lessons, &tool);
		break;
	case PROGRAM_BENCH:
		bench_config_tool(&bench, &tool);
		break;
	case PROGRAM_CHECK:
		check_config_tool(&check, &tool);
		break;
	case PROGRAM_RC_EXAMPLE:
	default:
		example_config_tool(&tool);
		break;
	}
	return tool.options;
}
