# The operations of issue 4 between the two guests ("two hosts"): the
# atomics and the memory window, then immediates and RNR (busy polling:
# ops_one_guest runs rnr with -e).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/ops_common.sh"

# run NAME PORT ARGS...: server on guest a, client on guest b.
run() {
	local name=$1 port=$2 side
	shift 2
	rxe_exec "$name" --timeout 120 \
		-a "'$RDMA_RC_EXAMPLE' $* -p $port --accept-timeout 60" \
		-b "'$RDMA_RC_EXAMPLE' $* -p $port --connect-timeout 60 \"\$RXE_PEER_ADDR\""
	# The names ops_common.sh's checks expect.
	for side in out err rc; do
		cp "$RXE_OUT.a.$side" "$RXE_OUT.server.$side"
		cp "$RXE_OUT.b.$side" "$RXE_OUT.client.$side"
	done
}

echo "--- fetch_add, cmp_swap and mw across the link"
run ops_two_atomics_mw 19910 -o fetch_add,cmp_swap,mw
ops_expect_clean "$RXE_OUT"
ops_expect_fetch_add "$RXE_OUT"
ops_expect_cmp_swap "$RXE_OUT"
ops_expect_mw "$RXE_OUT"

echo "--- send_imm, write_imm and rnr across the link"
run ops_two_imm_rnr 19911 -o send_imm,write_imm,rnr
ops_expect_clean "$RXE_OUT"
ops_expect_imm "$RXE_OUT"
ops_expect_rnr "$RXE_OUT"
finish
