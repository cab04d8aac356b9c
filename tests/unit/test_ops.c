// SPDX-License-Identifier: MIT
/*
 * The operations table and the order rule: an operation that leaves the QP
 * in the error state (mw, rnr) must be the last one; and how --ops, -e and
 * --help present them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "ops/options.h"
#include "ops/ops.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_order_accepted(void **state)
{
	static const enum op_id manual[] = {OP_SEND, OP_READ, OP_WRITE};
	static const enum op_id mw_last[] = {OP_SEND_IMM, OP_FETCH_ADD, OP_MW};
	static const enum op_id rnr_last[] = {OP_WRITE_IMM, OP_RNR};
	static const enum op_id only_rnr[] = {OP_RNR};
	const struct op_desc *bad = NULL;

	(void)state;
	assert_int_equal(ops_check_order(manual, ARRAY_SIZE(manual), &bad), 0);
	assert_int_equal(ops_check_order(mw_last, ARRAY_SIZE(mw_last), &bad),
			 0);
	assert_int_equal(ops_check_order(rnr_last, ARRAY_SIZE(rnr_last), &bad),
			 0);
	assert_int_equal(ops_check_order(only_rnr, ARRAY_SIZE(only_rnr), &bad),
			 0);
	assert_null(bad);
}

static void test_order_refused(void **state)
{
	static const enum op_id mw_first[] = {OP_MW, OP_SEND};
	static const enum op_id both[] = {OP_SEND, OP_RNR, OP_MW};
	const struct op_desc *bad = NULL;

	(void)state;
	assert_int_equal(ops_check_order(mw_first, ARRAY_SIZE(mw_first), &bad),
			 -EINVAL);
	assert_non_null(bad);
	assert_string_equal(bad->name, "mw");
	bad = NULL;
	assert_int_equal(ops_check_order(both, ARRAY_SIZE(both), &bad),
			 -EINVAL);
	assert_non_null(bad);
	assert_string_equal(bad->name, "rnr");
}

/* Every row is complete, found by id and by name, and its flags agree. */
static void test_table(void **state)
{
	size_t count, i;
	const struct op_desc *ops = ops_table(&count);

	(void)state;
	assert_int_equal(count, OP_ID_LAST);
	for (i = 0; i < count; i++) {
		/* only hello's server half runs outside the table */
		assert_true((ops[i].server != NULL) !=
			    !!(ops[i].flags & OP_SERVED_TOGETHER));
		assert_non_null(ops[i].client);
		assert_non_null(ops[i].teaches);
		assert_ptr_equal(op_find(ops[i].id), &ops[i]);
		assert_ptr_equal(
			op_find_by_name(ops[i].name, strlen(ops[i].name)),
			&ops[i]);
	}
	assert_true(op_find(OP_FETCH_ADD)->flags & OP_NEEDS_ATOMICS);
	assert_true(op_find(OP_CMP_SWAP)->flags & OP_NEEDS_ATOMICS);
	assert_true(op_find(OP_MW)->flags & OP_NEEDS_MW);
	assert_true(op_find(OP_MW)->flags & OP_LEAVES_QP_IN_ERROR);
	assert_true(op_find(OP_RNR)->flags & OP_LEAVES_QP_IN_ERROR);
	assert_false(op_find(OP_SEND_IMM)->flags & OP_LEAVES_QP_IN_ERROR);
	/* The client receives send_imm's message: posted before RTR. */
	assert_true(op_find(OP_SEND_IMM)->flags & OP_RECV_BEFORE_RTR);
	/* write_imm's receive is the server's, posted in the operation. */
	assert_false(op_find(OP_WRITE_IMM)->flags & OP_RECV_BEFORE_RTR);
}

/* What config_parse printed and returned for one command line. */
struct parsed {
	int ret;
	struct config cfg;
	struct lessons lessons;
	char *out;
	char *err;
};

static struct parsed parse_lessons(int argc, char **argv)
{
	struct parsed p = {0};
	size_t out_len, err_len;
	FILE *out = open_memstream(&p.out, &out_len);
	FILE *err = open_memstream(&p.err, &err_len);

	p.ret = ops_parse_command_line(&p.cfg, &p.lessons, argc, argv, out,
				       err);
	fclose(out);
	fclose(err);
	return p;
}

static void free_parsed(struct parsed *p)
{
	free(p->out);
	free(p->err);
}

static void test_parse_refuses_error_op_not_last(void **state)
{
	char *argv[] = {(char *)"rdma_lessons", (char *)"-o",
			(char *)"send,mw,read", NULL};
	struct parsed p = parse_lessons(3, argv);

	(void)state;
	assert_int_equal(p.ret, -EINVAL);
	assert_string_equal(
		p.err,
		"rdma_lessons: invalid --ops value 'send,mw,read': mw leaves the QP in the error state, so it must be the last operation\n");
	free_parsed(&p);
}

static void test_parse_new_ops_and_events(void **state)
{
	char *argv[] = {(char *)"rdma_lessons", (char *)"-e", (char *)"--ops",
			(char *)"send_imm,write_imm,fetch_add,cmp_swap,rnr",
			NULL};
	struct parsed p = parse_lessons(4, argv);

	(void)state;
	assert_int_equal(p.ret, 0);
	assert_true(p.cfg.use_events);
	assert_int_equal(p.lessons.ops.count, 5);
	assert_int_equal(p.lessons.ops.ids[0], OP_SEND_IMM);
	assert_int_equal(p.lessons.ops.ids[1], OP_WRITE_IMM);
	assert_int_equal(p.lessons.ops.ids[2], OP_FETCH_ADD);
	assert_int_equal(p.lessons.ops.ids[3], OP_CMP_SWAP);
	assert_int_equal(p.lessons.ops.ids[4], OP_RNR);
	assert_string_equal(p.err, "");
	free_parsed(&p);
}

/* --help lists every operation with what it teaches. */
static void test_help_lists_ops(void **state)
{
	char *argv[] = {(char *)"rdma_lessons", (char *)"--help", NULL};
	struct parsed p = parse_lessons(2, argv);
	size_t count, i;
	const struct op_desc *ops = ops_table(&count);

	(void)state;
	assert_int_equal(p.ret, 1);
	assert_non_null(strstr(p.out, "-e, --events"));
	for (i = 0; i < count; i++) {
		char line[160];

		snprintf(line, sizeof(line), "  %-9s  %s", ops[i].name,
			 ops[i].teaches);
		if (!strstr(p.out, line))
			fail_msg("--help lacks the line '%s' in:\n%s", line,
				 p.out);
	}
	assert_non_null(strstr(
		p.out,
		"  mw         memory window: remote access granted, then revoked (access error)\n             must be last: leaves the QP in the error state\n"));
	free_parsed(&p);
}

/*
 * The message by which both sides agree on their lists: the count, the ids
 * in order, zeros after; a list the peer could not have sent is refused,
 * and the refusal names both lists as -o spells them.
 */
static void test_list_message(void **state)
{
	const struct ops_list manual = {
		.ids = {OP_SEND, OP_READ, OP_WRITE},
		.count = 3,
	};
	uint8_t wire[OPS_LIST_WIRE_SIZE];
	struct ops_list back;
	const char *why = NULL;
	char text[64];

	(void)state;
	assert_int_equal(OPS_LIST_WIRE_SIZE, 17);
	ops_list_encode(&manual, wire);
	assert_int_equal(wire[0], 3);
	assert_int_equal(wire[1], OP_SEND);
	assert_int_equal(wire[2], OP_READ);
	assert_int_equal(wire[3], OP_WRITE);
	assert_int_equal(wire[4], 0);
	assert_int_equal(ops_list_decode(wire, &back, &why), 0);
	assert_int_equal(back.count, 3);
	assert_memory_equal(back.ids, manual.ids, 3 * sizeof(back.ids[0]));
	ops_list_format(&back, text, sizeof(text));
	assert_string_equal(text, "send,read,write");
	/* A short buffer is cut, never overrun. */
	ops_list_format(&back, text, 7);
	assert_string_equal(text, "send,r");

	wire[0] = 0;
	assert_int_equal(ops_list_decode(wire, &back, &why), -EPROTO);
	assert_string_equal(why, "operation count out of range");
	wire[0] = OPS_MAX + 1;
	assert_int_equal(ops_list_decode(wire, &back, &why), -EPROTO);
	ops_list_encode(&manual, wire);
	wire[2] = OP_ID_LAST + 1;
	assert_int_equal(ops_list_decode(wire, &back, &why), -EPROTO);
	assert_string_equal(why, "unknown operation id");
	ops_list_encode(&manual, wire);
	wire[5] = OP_SEND;
	assert_int_equal(ops_list_decode(wire, &back, &why), -EPROTO);
	assert_string_equal(why, "operation id past the operation count");
}

/* The lessons' settings stay the example's: the default list and one client. */
static void test_lessons_defaults(void **state)
{
	char *argv[] = {(char *)"rdma_lessons", NULL};
	struct parsed p = parse_lessons(1, argv);

	(void)state;
	assert_int_equal(p.ret, 0);
	assert_int_equal(p.lessons.ops.count, 3);
	assert_int_equal(p.lessons.ops.ids[0], OP_SEND);
	assert_int_equal(p.lessons.ops.ids[1], OP_READ);
	assert_int_equal(p.lessons.ops.ids[2], OP_WRITE);
	assert_int_equal(p.lessons.clients, 1);
	assert_false(p.lessons.use_srq);
	assert_int_equal(p.lessons.transport, TRANSPORT_RC);
	free_parsed(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_accepted),
		cmocka_unit_test(test_order_refused),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_parse_refuses_error_op_not_last),
		cmocka_unit_test(test_parse_new_ops_and_events),
		cmocka_unit_test(test_help_lists_ops),
		cmocka_unit_test(test_list_message),
		cmocka_unit_test(test_lessons_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
