#!/usr/bin/env bash
# rdma_lessons's other operations between the two guests ("two hosts"):
# the atomics and the memory window, then immediates and RNR (busy polling:
# ops_one_guest runs rnr with -e), then SGE lists and a buffer registered
# twice.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/ops_common.sh"

# run NAME PORT ARGS...: server on guest a, client on guest b, both
# rdma_lessons with ARGS.
run() {
	lessons_pair "$1" "$2" "${*:3} --accept-timeout 60" "${*:3} --connect-timeout 60" --on a b
	rxe_go "$1" 120
}

echo "--- fetch_add, cmp_swap and mw across the link"
run ops_two_atomics_mw 19910 -o fetch_add,cmp_swap,mw
rc_expect_clean ops_two_atomics_mw
ops_expect_fetch_add "$RXE_RUNS/ops_two_atomics_mw"
ops_expect_cmp_swap "$RXE_RUNS/ops_two_atomics_mw"
ops_expect_mw "$RXE_RUNS/ops_two_atomics_mw"

echo "--- send_imm, write_imm and rnr across the link"
run ops_two_imm_rnr 19911 -o send_imm,write_imm,rnr
rc_expect_clean ops_two_imm_rnr
ops_expect_imm "$RXE_RUNS/ops_two_imm_rnr"
ops_expect_rnr "$RXE_RUNS/ops_two_imm_rnr"

echo "--- sge and two_mr across the link"
run ops_two_sge_mr 19912 -o sge,two_mr
rc_expect_clean ops_two_sge_mr
ops_expect_sge "$RXE_RUNS/ops_two_sge_mr"
ops_expect_two_mr "$RXE_RUNS/ops_two_sge_mr"
finish
