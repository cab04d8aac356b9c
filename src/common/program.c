// SPDX-License-Identifier: MIT
/* The programs built from the manual's steps: names and magic numbers. */
#include <errno.h>

#include "common/program.h"

static const struct {
	const char *name;
	uint32_t magic;
} programs[PROGRAM_COUNT] = {
	[PROGRAM_RC_EXAMPLE] = {"rdma_rc_example", 0x52434558u}, /* "RCEX" */
	[PROGRAM_BENCH] = {"rdma_bench", 0x52434258u},		 /* "RCBX" */
	[PROGRAM_CHECK] = {"rdma_check", 0x52434358u},		 /* "RCCX" */
};

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

/* Each sentence whole, so that it can be found with grep. */
static const char *const mismatch[PROGRAM_COUNT][PROGRAM_COUNT] = {
	[PROGRAM_RC_EXAMPLE] =
		{
			[PROGRAM_BENCH] =
				"the peer runs rdma_bench, this side rdma_rc_example: run the same program on both sides",
			[PROGRAM_CHECK] =
				"the peer runs rdma_check, this side rdma_rc_example: run the same program on both sides",
		},
	[PROGRAM_BENCH] =
		{
			[PROGRAM_RC_EXAMPLE] =
				"the peer runs rdma_rc_example, this side rdma_bench: run the same program on both sides",
			[PROGRAM_CHECK] =
				"the peer runs rdma_check, this side rdma_bench: run the same program on both sides",
		},
	[PROGRAM_CHECK] =
		{
			[PROGRAM_RC_EXAMPLE] =
				"the peer runs rdma_rc_example, this side rdma_check: run the same program on both sides",
			[PROGRAM_BENCH] =
				"the peer runs rdma_bench, this side rdma_check: run the same program on both sides",
		},
};

const char *program_mismatch(uint8_t local, uint8_t remote)
{
	if (local >= PROGRAM_COUNT || remote >= PROGRAM_COUNT ||
	    !mismatch[local][remote])
		return "the peer runs another program";
	return mismatch[local][remote];
}
