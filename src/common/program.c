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

/* A set of programs, one bit each. */
#define EXAMPLE (1u << PROGRAM_RC_EXAMPLE)
#define BENCH	(1u << PROGRAM_BENCH)
#define CHECK	(1u << PROGRAM_CHECK)
#define LESSONS (1u << PROGRAM_LESSONS)

/*
 * The options some programs have and others not, by long name and letter,
 * with the programs that have them: what another program says when given
 * one. @here is how the programs in @here_in spell the same setting
 * (rdma_bench spells the GID index and -R as perftest does). The unit
 * tests hold this list to the programs' own tables.
 */
static const struct {
	const char *name;
	int letter;
	unsigned int owners;
	const char *here;     /* the others' spelling of it */
	unsigned int here_in; /* the programs that spell it so */
} own_options[] = {
	{"ops", 'o', LESSONS, NULL, 0},
	{"connection", 'c', LESSONS | BENCH, NULL, 0},
	{"clients", 0, LESSONS, NULL, 0},
	{"srq", 0, LESSONS, NULL, 0},
	{"new-api", 0, LESSONS | BENCH, NULL, 0},
	{"manual-peer", 0, LESSONS, NULL, 0},
	{"events", 'e', LESSONS | CHECK | BENCH, NULL, 0},
	{"gid-idx", 0, EXAMPLE | LESSONS | CHECK, "-x, --gid-index", BENCH},
	{"rdma-cm", 'R', LESSONS | CHECK, "-R, --rdma_cm", BENCH},
	{"pair", 0, CHECK, NULL, 0},
	{"json", 0, CHECK, NULL, 0},
	{"gid-index", 'x', BENCH, "-g, --gid-idx", EXAMPLE | LESSONS | CHECK},
	{"rdma_cm", 0, BENCH, "-R, --rdma-cm", LESSONS | CHECK},
	{"op", 0, BENCH, NULL, 0},
	{"atomic_type", 'A', BENCH, NULL, 0},
	{"size", 's', BENCH, NULL, 0},
	{"all", 'a', BENCH, NULL, 0},
	{"iters", 'n', BENCH, NULL, 0},
	{"duration", 'D', BENCH, NULL, 0},
	{"run_infinitely", 0, BENCH, NULL, 0},
	{"bidirectional", 'b', BENCH, NULL, 0},
	{"qp", 'q', BENCH, NULL, 0},
	{"reversed", 0, BENCH, NULL, 0},
	{"tx-depth", 0, BENCH, NULL, 0},
	{"rx-depth", 'r', BENCH, NULL, 0},
	{"cq-mod", 'Q', BENCH, NULL, 0},
	{"post_list", 'l', BENCH, NULL, 0},
	{"inline_size", 'I', BENCH, NULL, 0},
	{"busy-poll", 0, BENCH, NULL, 0},
	{"use_old_post_send", 0, BENCH, NULL, 0},
	{"report-histogram", 'H', BENCH, NULL, 0},
	{"report_gbits", 0, BENCH, NULL, 0},
	{"cpu_util", 0, BENCH, NULL, 0},
	{"report-counters", 0, BENCH, NULL, 0},
	{"output", 0, BENCH, NULL, 0},
	{"out_json", 0, BENCH, NULL, 0},
	{"out_json_file", 0, BENCH, NULL, 0},
	{"mtu", 'm', BENCH, NULL, 0},
	{"sl", 'S', BENCH, "--sl", EXAMPLE | LESSONS | CHECK},
	{"tos", 'T', BENCH, NULL, 0},
	{"qp-timeout", 'u', BENCH, NULL, 0},
	{"source_ip", 0, BENCH, NULL, 0},
};

/*
 * "rdma_lessons's, rdma_check's and rdma_bench's" for @owners, into @buf:
 * the example's lessons first, as a learner looks for them there.
 */
static const char *owners_text(unsigned int owners, char *buf, size_t len)
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
		if (own_options[i].here_in & (1u << program))
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
