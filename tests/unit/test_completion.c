// SPDX-License-Identifier: MIT
/*
 * What a failure says: the line of a failed completion, named from the
 * work request the program posted, with the hint for its status; the hint
 * of a refused transition to RTR.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "completion.h"
#include "qp.h"

/* A failed completion as a device leaves it: the opcode is not to be read. */
static struct ibv_wc failed_wc(enum ibv_wc_status status, uint64_t wr_id)
{
	return (struct ibv_wc){
		.wr_id = wr_id,
		.status = status,
		.opcode = IBV_WC_SEND, /* undefined on error: garbage here */
		.vendor_err = 0x13,
		.qp_num = 0x11,
	};
}

static void assert_line(const struct ibv_wc *wc,
			const struct send_request *posted,
			enum ibv_wc_opcode expected, const char *want)
{
	char line[COMPLETION_LINE_MAX];

	completion_failure_line(line, sizeof(line), wc, posted, expected);
	assert_string_equal(line, want);
}

/* The READ the program posted, not the SEND the completion's opcode says. */
static void test_read_named_from_the_request(void **state)
{
	struct ibv_wc wc = failed_wc(IBV_WC_REM_ACCESS_ERR, 2);
	struct send_request req = {
		.opcode = IBV_WR_RDMA_READ,
		.wr_id = 2,
		.remote_addr = 0x55c5aa168040,
		.rkey = 0x253,
	};

	(void)state;
	assert_line(
		&wc, &req, IBV_WC_RDMA_READ,
		"failed completion of RDMA_READ (wr_id 2, remote address 0x55c5aa168040, rkey 0x253) on QP 0x000011: remote access error (vendor error 0x13); the rkey or address range the peer sent does not grant this access");
}

static void test_send_and_atomic(void **state)
{
	struct ibv_wc wc = failed_wc(IBV_WC_RETRY_EXC_ERR, 1);
	struct send_request send = {.opcode = IBV_WR_SEND, .wr_id = 1};
	struct send_request add = {
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.wr_id = 6,
		.remote_addr = 0x1000,
		.rkey = 0x1234,
	};

	(void)state;
	assert_line(
		&wc, &send, IBV_WC_SEND,
		"failed completion of SEND (wr_id 1) on QP 0x000011: transport retry counter exceeded (vendor error 0x13); no acknowledgement came back: no path to the peer's GID (check -g and the route; on RoCE, UDP port 4791 must be open), or the peer is gone");
	wc = failed_wc(IBV_WC_RNR_RETRY_EXC_ERR, 6);
	assert_line(
		&wc, &add, IBV_WC_FETCH_ADD,
		"failed completion of ATOMIC_FETCH_AND_ADD (wr_id 6, remote address 0x1000, rkey 0x1234) on QP 0x000011: RNR retry counter exceeded (vendor error 0x13); the peer had no receive posted for it");
}

/* Without a send request: the receive (or bind) the program waits for. */
static void test_receive_named_by_expected(void **state)
{
	struct ibv_wc wc = failed_wc(IBV_WC_WR_FLUSH_ERR, 0);

	(void)state;
	wc.opcode = IBV_WC_RDMA_READ;
	assert_line(
		&wc, NULL, IBV_WC_RECV,
		"failed completion of RECV (wr_id 0) on QP 0x000011: Work Request Flushed Error (vendor error 0x13); flushed: an earlier failure moved the QP to the error state");
	assert_line(
		&wc, NULL, IBV_WC_RECV_RDMA_WITH_IMM,
		"failed completion of RECV (wr_id 0) on QP 0x000011: Work Request Flushed Error (vendor error 0x13); flushed: an earlier failure moved the QP to the error state");
	wc = failed_wc(IBV_WC_MW_BIND_ERR, 8);
	assert_line(
		&wc, NULL, IBV_WC_BIND_MW,
		"failed completion of BIND_MW (wr_id 8) on QP 0x000011: memory management operation error (vendor error 0x13)");
}

/* A completion of another work request than the one just posted. */
static void test_other_wr_id(void **state)
{
	struct ibv_wc wc = failed_wc(IBV_WC_GENERAL_ERR, 7);
	struct send_request req = {.opcode = IBV_WR_RDMA_WRITE, .wr_id = 3};

	(void)state;
	assert_line(
		&wc, &req, IBV_WC_RDMA_WRITE,
		"failed completion of wr_id 7 (not the RDMA_WRITE wr_id 3 just posted; the opcode of a failed completion is undefined) on QP 0x000011: general error (vendor error 0x13)");
}

/*
 * Dispatch by wr_id: a wait for a send takes its own wr_id's completion,
 * never a receive's that happens to share the number; a wait for a
 * receive or a bind takes the first of its kind.
 */
static void test_wanted_by_wr_id(void **state)
{
	const struct send_request write = {.opcode = IBV_WR_RDMA_WRITE,
					   .wr_id = 3};
	struct ibv_wc wc = {.wr_id = 3, .opcode = IBV_WC_RDMA_WRITE};

	(void)state;
	assert_true(completion_is_wanted(&wc, &write, IBV_WC_RDMA_WRITE));
	wc.wr_id = 1; /* another send's */
	assert_false(completion_is_wanted(&wc, &write, IBV_WC_RDMA_WRITE));
	wc = (struct ibv_wc){.wr_id = 3, .opcode = IBV_WC_RECV};
	assert_false(completion_is_wanted(&wc, &write, IBV_WC_RDMA_WRITE));
	assert_true(completion_is_wanted(&wc, NULL, IBV_WC_RECV));
	/* a receive of immediate data is a receive: its opcode is judged
	 * after, against what was expected */
	wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	assert_true(completion_is_wanted(&wc, NULL, IBV_WC_RECV));
	assert_false(completion_is_wanted(&wc, NULL, IBV_WC_BIND_MW));
	wc.opcode = IBV_WC_BIND_MW;
	assert_true(completion_is_wanted(&wc, NULL, IBV_WC_BIND_MW));
}

/* The shelf keeps what came early, gives each to the wait for it, in
 * order, and refuses to overflow. */
static void test_shelf(void **state)
{
	const struct send_request send = {.opcode = IBV_WR_SEND, .wr_id = 1};
	struct completion_shelf shelf = {0};
	struct ibv_wc recv0 = {.wr_id = 0, .opcode = IBV_WC_RECV};
	struct ibv_wc recv1 = {.wr_id = 1, .opcode = IBV_WC_RECV};
	struct ibv_wc sent = {.wr_id = 1, .opcode = IBV_WC_SEND};
	struct ibv_wc got;
	size_t i;

	(void)state;
	assert_false(completion_take(&shelf, &send, IBV_WC_SEND, &got));
	assert_int_equal(completion_keep(&shelf, &recv0), 0);
	assert_int_equal(completion_keep(&shelf, &recv1), 0);
	assert_int_equal(completion_keep(&shelf, &sent), 0);
	assert_true(completion_take(&shelf, &send, IBV_WC_SEND, &got));
	assert_int_equal(got.opcode, IBV_WC_SEND);
	assert_int_equal(got.wr_id, 1);
	assert_true(completion_take(&shelf, NULL, IBV_WC_RECV, &got));
	assert_int_equal(got.wr_id, 0);
	assert_true(completion_take(&shelf, NULL, IBV_WC_RECV, &got));
	assert_int_equal(got.wr_id, 1);
	assert_false(completion_take(&shelf, NULL, IBV_WC_RECV, &got));
	assert_int_equal(shelf.count, 0);
	for (i = 0; i < COMPLETION_SHELF_MAX; i++)
		assert_int_equal(completion_keep(&shelf, &recv0), 0);
	assert_int_equal(completion_keep(&shelf, &recv0), -ENOSPC);
}

/* The CQ has room for a completion of every work request the QPs hold. */
static void test_cq_room(void **state)
{
	struct resources_sizes sizes = {
		.max_send_wr = 16,
		.max_recv_wr = 16,
		.qps = 1,
	};

	(void)state;
	assert_int_equal(resources_cq_entries(&sizes),
			 16 + 16 + RESOURCES_CQ_MARGIN);
	/* three clients' QPs, their receives from one shared queue */
	sizes.qps = 3;
	sizes.srq_wr = 64;
	assert_int_equal(resources_cq_entries(&sizes),
			 3 * 16 + 64 + RESOURCES_CQ_MARGIN);
}

static void test_status_hints(void **state)
{
	(void)state;
	assert_non_null(strstr(wc_status_hint(IBV_WC_REM_ACCESS_ERR),
			       "does not grant this access"));
	assert_non_null(strstr(wc_status_hint(IBV_WC_RETRY_EXC_ERR),
			       "no path to the peer's GID"));
	assert_non_null(strstr(wc_status_hint(IBV_WC_RETRY_EXC_ERR),
			       "the peer is gone"));
	assert_non_null(strstr(wc_status_hint(IBV_WC_RNR_RETRY_EXC_ERR),
			       "no receive posted"));
	assert_non_null(wc_status_hint(IBV_WC_LOC_LEN_ERR));
	assert_non_null(wc_status_hint(IBV_WC_REM_INV_REQ_ERR));
	assert_non_null(wc_status_hint(IBV_WC_LOC_PROT_ERR));
	assert_null(wc_status_hint(IBV_WC_SUCCESS));
	assert_null(wc_status_hint(IBV_WC_GENERAL_ERR));
}

static void test_rtr_hints(void **state)
{
	(void)state;
	assert_string_equal(
		qp_modify_hint(IBV_QPS_RTR, ETIMEDOUT),
		"on RoCE, the peer's GID address (Remote GID) did not answer ARP or neighbour discovery: check that it is the peer's address and that its link is up");
	assert_string_equal(
		qp_modify_hint(IBV_QPS_RTR, EINVAL),
		"check that both sides use GIDs of one type and IP version (-g), a path MTU both ports support, and the peer's QP number");
	assert_null(qp_modify_hint(IBV_QPS_INIT, EINVAL));
	assert_null(qp_modify_hint(IBV_QPS_RTS, ETIMEDOUT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_named_from_the_request),
		cmocka_unit_test(test_send_and_atomic),
		cmocka_unit_test(test_receive_named_by_expected),
		cmocka_unit_test(test_other_wr_id),
		cmocka_unit_test(test_wanted_by_wr_id),
		cmocka_unit_test(test_shelf),
		cmocka_unit_test(test_cq_room),
		cmocka_unit_test(test_status_hints),
		cmocka_unit_test(test_rtr_hints),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
