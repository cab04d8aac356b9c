/* SPDX-License-Identifier: MIT */
#ifndef OP_ID_H
#define OP_ID_H

#include "operations.h"

/*
 * The operations a run of rdma_lessons can perform (-o). These numbers travel
 * in the message by which both sides agree on their lists (ops_agree), so a
 * new operation takes the next free number and old numbers never change; 0
 * is never an operation, so unused wire slots stay zero.
 */
enum op_id {
	/* the manual's three, whose numbers are their wr_ids too */
	OP_SEND = WR_ID_SEND,
	OP_READ = WR_ID_READ,
	OP_WRITE = WR_ID_WRITE,
	OP_SEND_IMM = 4,
	OP_WRITE_IMM = 5,
	OP_FETCH_ADD = 6,
	OP_CMP_SWAP = 7,
	OP_MW = 8,
	OP_RNR = 9,
	OP_SGE = 10,
	OP_TWO_MR = 11,
	OP_HELLO = 12,
	OP_ID_LAST = OP_HELLO,
};

/* Most operations one run can list (also the slots of that message). */
#define OPS_MAX 16

#endif
