// SPDX-License-Identifier: MIT
/* The programs built from the manual's steps: names and magic numbers. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/interrupt.h"
#include "common/program.h"

static const struct {
	const char *name;
	uint32_t magic;
} programs[PROGRAM_COUNT] = {
	[PROGRAM_RC_EXAMPLE] = {"rdma_rc_example", 0x52434558u}, /* "RCEX" */
	[PROGRAM_BENCH] = {"rdma_bench", 0x52434258u},		 /* "RCBX" */
	[PROGRAM_CHECK] = {"rdma_check", 0x52434358u},		 /* "RCCX" */
	[PROGRAM_LESSONS] = {"rdma_lessons", 0x52434c58u},	 /* "RCLX" */
};

int program_result(int ret)
{
	if (ret && interrupted())
		warnx("stopped by %s, resources freed",
		      interrupt_signal_name());
	printf("\ntest result is %d\n", ret);
	return ret ? EXIT_FAILED : EXIT_PASSED;
}

const char *program_name(enum program_id program)
{
	if ((unsigned int)program >= PROGRAM_COUNT)
		return "unknown";
	return programs[program].name;
}

uint32_t program_magic(enum program_id program)
{
	if ((unsigned int)program >= PROGRAM_COUNT)
		return 0;
	return programs[program].magic;
}

int program_of_magic(uint32_t magic, uint8_t *program)
{
	unsigned int i;

	for (i = 0; i < PROGRAM_COUNT; i++) {
		if (programs[i].magic == magic) {
			*program = (uint8_t)i;
			return 0;
		}
	}
	return -EPROTO;
}

const char *program_mismatch(uint8_t local, uint8_t remote)
{
	static char why[128];

	if (local >= PROGRAM_COUNT || remote >= PROGRAM_COUNT)
		return "the peer runs another program";
	snprintf(
		why, sizeof(why),
		"the peer runs %s, this side %s: run the same program on both sides",
		programs[remote].name, programs[local].name);
	return why;
}

const char *program_owners_text(unsigned int owners, char *buf, size_t len)
{
	static const enum program_id order[] = {
		PROGRAM_RC_EXAMPLE,
		PROGRAM_LESSONS,
		PROGRAM_CHECK,
		PROGRAM_BENCH,
	};
	unsigned int left = owners;
	size_t used = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(order) / sizeof(order[0]) && used < len; i++) {
		unsigned int bit = 1u << order[i];

		if (!(left & bit))
			continue;
		left &= ~bit;
		used += (size_t)snprintf(buf + used, len - used, "%s%s's",
					 used == 0 ? ""
					 : left	   ? ", "
						   : " and ",
					 program_name(order[i]));
	}
	return buf;
}
