// SPDX-License-Identifier: MIT
/* The programs built from the manual's steps: names and magic numbers. */
#include <errno.h>
#include <string.h>

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

/* A set of programs, one bit each. */
#define EXAMPLE (1u << PROGRAM_RC_EXAMPLE)
#define BENCH	(1u << PROGRAM_BENCH)
#define CHECK	(1u << PROGRAM_CHECK)

/*
 * The options some programs have and others not, by long name and letter,
 * with the programs that have them: what another program says when given
 * one. @here is how the others spell the same setting, where they have it
 * (rdma_bench spells the GID index and -R as perftest does). The unit
 * tests hold this list to the programs' own tables.
 */
static const struct {
	const char *name;
	int letter;
	unsigned int owners;
	const char *here; /* the others' spelling of it, NULL: they lack it */
} own_options[] = {
	{"ops", 'o', EXAMPLE, NULL},
	{"connection", 'c', EXAMPLE | BENCH, NULL},
	{"clients", 0, EXAMPLE, NULL},
	{"srq", 0, EXAMPLE, NULL},
	{"new-api", 0, EXAMPLE | BENCH, NULL},
	{"manual-peer", 0, EXAMPLE, NULL},
	{"gid-idx", 0, EXAMPLE | CHECK, "-x, --gid-index"},
	{"rdma-cm", 0, EXAMPLE | CHECK, "-R, --rdma_cm"},
	{"pair", 0, CHECK, NULL},
	{"json", 0, CHECK, NULL},
	{"gid-index", 'x', BENCH, "-g, --gid-idx"},
	{"rdma_cm", 0, BENCH, "-R, --rdma-cm"},
	{"op", 0, BENCH, NULL},
	{"atomic_type", 'A', BENCH, NULL},
	{"size", 's', BENCH, NULL},
	{"all", 'a', BENCH, NULL},
	{"iters", 'n', BENCH, NULL},
	{"duration", 'D', BENCH, NULL},
	{"run_infinitely", 0, BENCH, NULL},
	{"bidirectional", 'b', BENCH, NULL},
	{"qp", 'q', BENCH, NULL},
	{"reversed", 0, BENCH, NULL},
	{"tx-depth", 0, BENCH, NULL},
	{"rx-depth", 'r', BENCH, NULL},
	{"cq-mod", 'Q', BENCH, NULL},
	{"post_list", 'l', BENCH, NULL},
	{"inline_size", 'I', BENCH, NULL},
	{"busy-poll", 0, BENCH, NULL},
	{"use_old_post_send", 0, BENCH, NULL},
	{"report-histogram", 'H', BENCH, NULL},
	{"report_gbits", 0, BENCH, NULL},
	{"cpu_util", 0, BENCH, NULL},
	{"report-counters", 0, BENCH, NULL},
	{"output", 0, BENCH, NULL},
	{"out_json", 0, BENCH, NULL},
	{"out_json_file", 0, BENCH, NULL},
	{"mtu", 'm', BENCH, NULL},
	{"sl", 'S', BENCH, "--sl"},
	{"tos", 'T', BENCH, NULL},
	{"qp-timeout", 'u', BENCH, NULL},
	{"source_ip", 0, BENCH, NULL},
};

/* "rdma_rc_example's and rdma_check's" for @owners, into @buf. */
static const char *owners_text(unsigned int owners, char *buf, size_t len)
{
	const char *sep = "";
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < PROGRAM_COUNT && used < len; i++) {
		if (!(owners & (1u << i)))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s's", sep,
					 program_name((enum program_id)i));
		sep = " and ";
	}
	return buf;
}

bool program_option_refused(enum program_id program, const char *name,
			    int letter, FILE *err)
{
	const char *self = program_name(program);
	char typed[64], owners[96];
	size_t i;

	for (i = 0; i < sizeof(own_options) / sizeof(own_options[0]); i++) {
		if (own_options[i].owners & (1u << program))
			continue;
		if (name[0] ? strcmp(name, own_options[i].name) != 0
			    : !letter || letter != own_options[i].letter)
			continue;
		if (name[0])
			snprintf(typed, sizeof(typed), "--%s", name);
		else
			snprintf(typed, sizeof(typed), "-%c (--%s)", letter,
				 own_options[i].name);
		if (own_options[i].here)
			fprintf(err, "%s: option %s is spelled %s here\n", self,
				typed, own_options[i].here);
		else
			fprintf(err, "%s: option %s is %s, not %s's\n", self,
				typed,
				owners_text(own_options[i].owners, owners,
					    sizeof(owners)),
				self);
		return true;
	}
	return false;
}
