# shellcheck shell=bash
# Shared by the rdma_mc_example scenarios (mc_*.sh), on top of lib.sh.
# Receivers must have joined before the sender sends (a UD message that
# finds no receiver is lost), so every scenario starts its receivers in the
# background (rxe_start), waits (bounded) for their "joined group" line
# (rxe_wait_text NAME "$MC_JOINED"), and only then runs the sender.

. "$(dirname "$0")/lib.sh"

MC_BIN=${RDMA_MC_EXAMPLE:-$BUILD_DIR/rdma_mc_example}

if [ ! -x "$MC_BIN" ]; then
	echo "FAIL: rdma_mc_example is not built: no executable $MC_BIN"
	exit 1
fi

# The program, as guest shell text for rxe_start and rxe_solo, and what a
# receiver prints once it has joined (the sender may send then).
# shellcheck disable=SC2034 # both are for the scenarios that source this
MC="'$MC_BIN'" MC_JOINED="==> joined group"

# expect_received NAME COUNT FROM: the receiver NAME got exactly COUNT
# messages, numbered 1..COUNT, each from FROM, and exited 0.
expect_received() {
	local name=$1 count=$2 from=$3 seq
	expect_rc "$RXE_RUNS/$name.rc" 0
	expect_status "$(grep -c "^==> received 'message " "$RXE_RUNS/$name.out")" \
		"$count" "number of messages $name received"
	for ((seq = 1; seq <= count; seq++)); do
		expect_regex "$RXE_RUNS/$name.out" \
			"^==> received 'message $seq of $count from $from' \\([0-9]+ bytes from $from, QPN 0x[0-9a-f]+\\)\$"
	done
	expect_line "$RXE_RUNS/$name.out" \
		"==> received all $count messages on group 239.1.1.1"
}

# expect_sent NAME COUNT: the sender NAME sent COUNT messages, exited 0.
expect_sent() {
	local name=$1 count=$2
	expect_rc "$RXE_RUNS/$name.rc" 0
	expect_line "$RXE_RUNS/$name.out" \
		"==> sent all $count messages to group 239.1.1.1"
	expect_status "$(grep -c "^==> sent 'message " "$RXE_RUNS/$name.out")" \
		"$count" "number of messages $name sent"
}
