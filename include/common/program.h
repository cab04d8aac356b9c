/* SPDX-License-Identifier: MIT */
#ifndef PROGRAM_H
#define PROGRAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The programs built from the manual's steps. Each sends its own magic
 * number in the QP-info message (and the -R private data), so that a peer
 * running another of them is refused in one line naming both.
 */
enum program_id {
	PROGRAM_RC_EXAMPLE = 0, /* the manual's example */
	PROGRAM_BENCH = 1,	/* the benchmark */
	PROGRAM_CHECK = 2,	/* the host and pair checks */
	PROGRAM_LESSONS = 3,	/* the rest of the manual's lessons */
	PROGRAM_COUNT,
};

/*
 * The exit status of every program: 0 when it did what was asked, 1 when
 * something failed at run time, 2 for a usage error (one line said which).
 */
#define EXIT_PASSED 0
#define EXIT_FAILED 1
#define EXIT_USAGE  2

/*
 * The end of a run, as the manual's program ends: a line naming the
 * signal that stopped it, if one did, then "test result is @ret"; the exit
 * status for @ret (0 or -errno).
 */
int program_result(int ret);

/* The program's name, as its messages start. */
const char *program_name(enum program_id program);

/* The magic number @program's QP-info message starts with. */
uint32_t program_magic(enum program_id program);

/* 0 and the program in *@program, or -EPROTO if @magic is none of ours. */
int program_of_magic(uint32_t magic, uint8_t *program);

/*
 * Why a peer running @remote is refused by @local, naming both ("the peer
 * runs X, this side Y: ..."); a static buffer, until the next call.
 */
const char *program_mismatch(uint8_t local, uint8_t remote);

/*
 * "rdma_lessons's, rdma_check's and rdma_bench's" for @owners (1u <<
 * enum program_id of each), into @buf: the example's lessons first, as a
 * learner looks for them there.
 */
const char *program_owners_text(unsigned int owners, char *buf, size_t len);

#endif
