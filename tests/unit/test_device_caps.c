// SPDX-License-Identifier: MIT
/*
 * What a device can do against what a run asks of it (device_caps.h): the
 * capabilities of a soft-RoCE device (rxe) and of a soft-iWARP one (siw),
 * as their drivers report them, against the options' needs, every
 * refusal word for word.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bench/bench.h"
#include "common/device_caps.h"
#include "extras/device_lessons.h"
#include "ops/ops.h"
#include "parse_args.h"
#include "resources.h"
#include "variants/srq.h"
#include "variants/uc_ud.h"

/* rdma_rxe: RoCE, an InfiniBand transport with every lesson's feature. */
static const struct device_caps rxe_like = {
	.name = "rxe0",
	.transport = IBV_TRANSPORT_IB,
	.atomic_cap = IBV_ATOMIC_HCA,
	.max_mw = 524287,
	.device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_MEM_WINDOW,
	.max_mcast_grp = 8192,
	.max_sge = 32,
	.max_qp_rd_atom = 128,
	.max_qp_init_rd_atom = 128,
	.max_srq = 917503,
	.max_srq_wr = 1048576,
};

/* siw: iWARP; atomic_cap 0, max_mw 0, no RNR NAK, no multicast. */
static const struct device_caps siw_like = {
	.name = "siw0",
	.transport = IBV_TRANSPORT_IWARP,
	.atomic_cap = IBV_ATOMIC_NONE,
	.max_mw = 0,
	.device_cap_flags = IBV_DEVICE_MEM_MGT_EXTENSIONS,
	.max_mcast_grp = 0,
	.max_sge = 6,
	.max_qp_rd_atom = 32,
	.max_qp_init_rd_atom = 32,
	.max_srq = 102400,
	.max_srq_wr = 327680,
};

/* The needs a command line gives, as main works them out. */
static struct device_needs needs_of(struct parse_result *r)
{
	struct resources_sizes sizes;

	assert_int_equal(r->ret, 0);
	resources_default_sizes(&sizes, &r->cfg);
	resources_set_transport(&sizes, r->lessons.transport);
	ops_device_needs(&r->lessons.ops, &sizes.needs);
	/* as serve_clients asks for --srq */
	if (r->lessons.use_srq)
		resources_share_receives(&sizes, "option --srq");
	bench_size_resources(&r->bench, &sizes);
	return sizes.needs;
}

/*
 * @caps against the command line (NULL-terminated) as @parse_fn reads it
 * (parse_lessons: rdma_lessons's; parse_bench: rdma_bench's, the measurement
 * first): @want (0 or -errno) and the line, "" when it fits.
 */
#define expect_refusal_of(parse_fn, caps, want, line, ...)                    \
	do {                                                                  \
		struct parse_result r_ = parse_fn(__VA_ARGS__, (char *)NULL); \
		struct device_needs n_ = needs_of(&r_);                       \
		char got_[DEVICE_REFUSAL_MAX];                                \
		int ret_ = device_refusal(caps, &n_, got_, sizeof(got_));     \
                                                                              \
		if (ret_ != (want) || strcmp(got_, line) != 0)                \
			fail_msg("expected %d and '%s', got %d and '%s'",     \
				 want, line, ret_, got_);                     \
		free_result(&r_);                                             \
	} while (0)
#define expect_refusal(...)	  expect_refusal_of(parse_lessons, __VA_ARGS__)
#define expect_bench_refusal(...) expect_refusal_of(parse_bench, __VA_ARGS__)

static void rxe_runs_every_lesson(void **state)
{
	(void)state;
	expect_refusal(
		&rxe_like, 0, "", "-o",
		"send,read,write,send_imm,write_imm,fetch_add,cmp_swap,mw");
	expect_refusal(&rxe_like, 0, "", "-R", "-o", "send_imm,rnr");
	expect_refusal(&rxe_like, 0, "", "-c", "uc");
	expect_refusal(&rxe_like, 0, "", "-c", "ud");
	expect_bench_refusal(&rxe_like, 0, "", "lat", "--op", "fetch_add");
}

static void siw_needs_rdma_cm(void **state)
{
	(void)state;
	expect_refusal(
		&siw_like, -EPROTONOSUPPORT,
		"failed to use device siw0 without -R: transport_type IBV_TRANSPORT_IWARP, and iWARP connects QPs only through RDMA_CM: add -R",
		"-d", "siw0");
	/* the benchmark as well */
	expect_bench_refusal(
		&siw_like, -EPROTONOSUPPORT,
		"failed to use device siw0 without -R: transport_type IBV_TRANSPORT_IWARP, and iWARP connects QPs only through RDMA_CM: add -R",
		"bw", "--op", "write");
	/* the manual's flow, SEND, READ and WRITE, with -R: it fits */
	expect_refusal(&siw_like, 0, "", "-R");
	expect_refusal(&siw_like, 0, "", "-R", "-e", "-o", "send,read,write");
	expect_bench_refusal(&siw_like, 0, "", "lat", "-R", "--op", "read");
}

static void siw_refuses_what_iwarp_lacks(void **state)
{
	(void)state;
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run operation send_imm on device siw0: transport_type IBV_TRANSPORT_IWARP, whose SEND and RDMA WRITE carry no immediate data (Operation not supported)",
		"-R", "-o", "send,send_imm");
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run operation write_imm on device siw0: transport_type IBV_TRANSPORT_IWARP, whose SEND and RDMA WRITE carry no immediate data (Operation not supported)",
		"-R", "-o", "write_imm");
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run operation fetch_add on device siw0: atomic_cap IBV_ATOMIC_NONE, no remote atomics (Operation not supported)",
		"-R", "-o", "fetch_add");
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run operation cmp_swap on device siw0: atomic_cap IBV_ATOMIC_NONE, no remote atomics (Operation not supported)",
		"-R", "-o", "send,cmp_swap");
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run operation mw on device siw0: max_mw 0, no memory windows (Operation not supported)",
		"-R", "-o", "mw");
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run operation rnr on device siw0: device_cap_flags without IBV_DEVICE_RC_RNR_NAK_GEN, no RNR NAK (Operation not supported)",
		"-R", "-o", "rnr");
	expect_bench_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run rdma_bench --op fetch_add on device siw0: atomic_cap IBV_ATOMIC_NONE, no remote atomics (Operation not supported)",
		"lat", "-R", "--op", "fetch_add");
	expect_bench_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run rdma_bench --op write_imm on device siw0: transport_type IBV_TRANSPORT_IWARP, whose SEND and RDMA WRITE carry no immediate data (Operation not supported)",
		"bw", "-R", "--op", "write_imm");
}

/* UC and UD first: adding -R would not help (-R is RC only). */
static void siw_has_rc_only(void **state)
{
	(void)state;
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to create a UC QP on device siw0: transport_type IBV_TRANSPORT_IWARP, which connects RC QPs only (Operation not supported)",
		"-c", "uc");
	/* siw: up to 6 SGEs; but its WRITEs are not acknowledged */
	expect_refusal(&siw_like, 0, "", "-R", "-o", "send,read,write,sge");
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to run operation two_mr on device siw0: transport_type IBV_TRANSPORT_IWARP, whose RDMA WRITE is never acknowledged: a refused one completes as sent (Operation not supported)",
		"-R", "-o", "sge,two_mr");
	expect_refusal(
		&siw_like, -EOPNOTSUPP,
		"failed to create a UD QP on device siw0: transport_type IBV_TRANSPORT_IWARP, which connects RC QPs only (Operation not supported)",
		"-c", "ud", "-o", "send");
}

/* Not iWARP only: any device without the capability, by its own field. */
static void any_device_by_its_capabilities(void **state)
{
	struct device_caps no_mw = rxe_like, no_flag = rxe_like;
	struct device_caps no_rnr = rxe_like, no_atomics = rxe_like;
	struct device_caps no_sges = rxe_like, no_reads = rxe_like;
	struct device_needs needs = {.qp_type = IBV_QPT_RC,
				     .refuse = device_lesson_refusal};
	char line[DEVICE_REFUSAL_MAX];

	(void)state;
	no_mw.max_mw = 0;
	expect_refusal(
		&no_mw, -EOPNOTSUPP,
		"failed to run operation mw on device rxe0: max_mw 0, no memory windows (Operation not supported)",
		"-o", "mw");
	no_flag.device_cap_flags &= ~(unsigned int)IBV_DEVICE_MEM_WINDOW;
	expect_refusal(
		&no_flag, -EOPNOTSUPP,
		"failed to run operation mw on device rxe0: device_cap_flags without IBV_DEVICE_MEM_WINDOW, no memory windows (Operation not supported)",
		"-o", "mw");
	no_rnr.device_cap_flags &= ~(unsigned int)IBV_DEVICE_RC_RNR_NAK_GEN;
	expect_refusal(
		&no_rnr, -EOPNOTSUPP,
		"failed to run operation rnr on device rxe0: device_cap_flags without IBV_DEVICE_RC_RNR_NAK_GEN, no RNR NAK (Operation not supported)",
		"-o", "rnr");
	/* --srq: a device with no SRQ, or one too small for its 16 */
	no_mw = rxe_like;
	no_mw.max_srq = 0;
	expect_refusal(
		&no_mw, -EOPNOTSUPP,
		"failed to run option --srq on device rxe0: max_srq 0, no shared receive queue (Operation not supported)",
		"--srq", "-o", "hello");
	no_mw.max_srq = 1;
	no_mw.max_srq_wr = 15;
	expect_refusal(
		&no_mw, -EOPNOTSUPP,
		"failed to run option --srq on device rxe0: max_srq_wr 15, fewer than the 16 receives of its queue (Operation not supported)",
		"--srq", "-o", "hello");
	no_mw.max_srq_wr = 16;
	expect_refusal(&no_mw, 0, "", "--srq", "-o", "hello");
	expect_refusal(&no_mw, 0, "", "--clients", "2", "-o", "hello");
	no_mw.max_srq = 0;
	expect_refusal(&no_mw, 0, "", "--clients", "8", "-o", "send,hello");
	no_sges.max_sge = 2;
	expect_refusal(
		&no_sges, -EOPNOTSUPP,
		"failed to run operation sge on device rxe0: max_sge 2, fewer than the 3 SGEs of its work requests (Operation not supported)",
		"-o", "send,sge");
	/* three are enough; and no other lesson asks for more than one */
	no_sges.max_sge = 3;
	expect_refusal(&no_sges, 0, "", "-o", "sge,two_mr");
	no_sges.max_sge = 1;
	expect_refusal(&no_sges, 0, "", "-o",
		       "send,read,write,write_imm,two_mr");
	/* a device that serves, or issues, no READ: refused by name, and
	 * SEND and WRITE still run on it */
	no_reads.max_qp_rd_atom = 0;
	expect_refusal(
		&no_reads, -EOPNOTSUPP,
		"failed to run operation read on device rxe0: max_qp_rd_atom 0, no RDMA READ or atomic in flight (Operation not supported)",
		"-o", "send,read,write");
	expect_refusal(&no_reads, 0, "", "-o", "send,write,write_imm");
	no_reads.max_qp_rd_atom = 1;
	no_reads.max_qp_init_rd_atom = 0;
	expect_refusal(
		&no_reads, -EOPNOTSUPP,
		"failed to run operation fetch_add on device rxe0: max_qp_init_rd_atom 0, no RDMA READ or atomic in flight (Operation not supported)",
		"-o", "send,fetch_add");
	no_atomics.atomic_cap = IBV_ATOMIC_NONE;
	expect_refusal(
		&no_atomics, -EOPNOTSUPP,
		"failed to run operation fetch_add on device rxe0: atomic_cap IBV_ATOMIC_NONE, no remote atomics (Operation not supported)",
		"-o", "send,fetch_add,cmp_swap");
	/* immediate data is refused on iWARP only: IB has it by definition */
	expect_refusal(&no_atomics, 0, "", "-o", "send_imm,write_imm");
	/* the multicast example's need */
	device_needs_add(needs.multicast, "multicast group 239.1.1.1");
	assert_int_equal(device_refusal(&rxe_like, &needs, line, sizeof(line)),
			 0);
	/* rdma_mc_example: RDMA_CM, a UD QP; the lesson is named first */
	needs.through_cm = true;
	needs.qp_type = IBV_QPT_UD;
	assert_int_equal(device_refusal(&siw_like, &needs, line, sizeof(line)),
			 -EOPNOTSUPP);
	assert_string_equal(
		line,
		"failed to run multicast group 239.1.1.1 on device siw0: max_mcast_grp 0, no multicast groups (Operation not supported)");
}

/* The first lesson that needs a capability names it. */
static void needs_name_the_first_lesson(void **state)
{
	struct parse_result r =
		parse_lessons("-o", "send,cmp_swap,fetch_add,mw", (char *)NULL);
	struct device_needs n = needs_of(&r);

	(void)state;
	assert_string_equal(n.atomics, "operation cmp_swap");
	assert_string_equal(n.mw, "operation mw");
	assert_string_equal(n.immediate, "");
	assert_string_equal(n.rnr_nak, "");
	assert_string_equal(n.sge_list, "");
	assert_int_equal(n.max_sge, 0);
	assert_string_equal(n.rd_atomic, "operation cmp_swap");
	assert_false(n.through_cm);
	assert_int_equal(n.qp_type, IBV_QPT_RC);
	free_result(&r);
}

static void names_of_values(void **state)
{
	(void)state;
	assert_string_equal(device_transport_str(IBV_TRANSPORT_IWARP),
			    "IBV_TRANSPORT_IWARP");
	assert_string_equal(device_transport_str(IBV_TRANSPORT_IB),
			    "IBV_TRANSPORT_IB");
	assert_string_equal(device_atomic_cap_str(IBV_ATOMIC_NONE),
			    "IBV_ATOMIC_NONE");
	assert_string_equal(device_atomic_cap_str(IBV_ATOMIC_GLOB),
			    "IBV_ATOMIC_GLOB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rxe_runs_every_lesson),
		cmocka_unit_test(siw_needs_rdma_cm),
		cmocka_unit_test(siw_refuses_what_iwarp_lacks),
		cmocka_unit_test(siw_has_rc_only),
		cmocka_unit_test(any_device_by_its_capabilities),
		cmocka_unit_test(needs_name_the_first_lesson),
		cmocka_unit_test(names_of_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
