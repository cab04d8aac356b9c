# shellcheck shell=bash
# Helpers shared by the rdma_mc_example scenarios (mc_*.sh), on top of
# lib.sh.  Receivers must have joined before the sender sends (a UD message
# that finds no receiver is lost), so every scenario starts its receivers in
# the background, waits (bounded) for their "joined group" line, and only
# then starts the sender.  The processes' outputs go into a folder under the
# session folder, which both guests and the host see read-write.

. "$(dirname "$0")/lib.sh"

MC_BIN=${RDMA_MC_EXAMPLE:-$BUILD_DIR/src/mc/rdma_mc_example}
# Seconds to wait for a receiver's "joined" line before giving up on it.
MC_JOIN_WAIT=30

if [ ! -x "$MC_BIN" ]; then
	echo "FAIL: rdma_mc_example is not built: no executable $MC_BIN"
	exit 1
fi

# A fresh folder for this test's outputs, visible in the guests.
MC_DIR=$RXE_SESSION/mc-out/$RXE_TEST_NAME
rm -rf "$MC_DIR"
mkdir -p "$MC_DIR"

# mc_receiver NAME ARGS...: guest shell text that starts a receiver in the
# background; its stdout, stderr and exit status land in $MC_DIR/NAME.*
mc_receiver() {
	local name=$1
	shift
	echo "( $MC_BIN $* >$MC_DIR/$name.out 2>$MC_DIR/$name.err; echo \$? >$MC_DIR/$name.rc ) &"
}

# mc_wait_joined NAME...: guest shell text that waits, at most MC_JOIN_WAIT
# seconds, until each named receiver printed its "joined group" line, and
# fails naming the first one that did not.
mc_wait_joined() {
	local name text=
	for name in "$@"; do
		text+="i=0; until grep -q '^==> joined group' $MC_DIR/$name.out 2>/dev/null; do
	i=\$((i + 1)); [ \$i -le $((MC_JOIN_WAIT * 10)) ] || { echo 'receiver $name did not join within $MC_JOIN_WAIT s' >&2; exit 1; }
	sleep 0.1
done
"
	done
	echo "$text"
}

# mc_run NAME ARGS...: guest shell text that runs rdma_mc_example in the
# foreground, outputs in $MC_DIR/NAME.*
mc_run() {
	local name=$1
	shift
	echo "$MC_BIN $* >$MC_DIR/$name.out 2>$MC_DIR/$name.err; echo \$? >$MC_DIR/$name.rc"
}

# mc_wait_rc NAME...: guest shell text that waits, bounded, for each named
# background process to write its exit status.
mc_wait_rc() {
	local name text=
	for name in "$@"; do
		text+="i=0; until [ -s $MC_DIR/$name.rc ]; do
	i=\$((i + 1)); [ \$i -le 600 ] || { echo '$name did not finish within 60 s' >&2; exit 1; }
	sleep 0.1
done
"
	done
	echo "$text"
}

# expect_received NAME COUNT FROM: the receiver NAME got exactly COUNT
# messages, numbered 1..COUNT, each from FROM, and exited 0.
expect_received() {
	local name=$1 count=$2 from=$3 seq
	expect_rc "$MC_DIR/$name.rc" 0
	expect_status "$(grep -c "^==> received 'message " "$MC_DIR/$name.out")" \
		"$count" "number of messages $name received"
	for ((seq = 1; seq <= count; seq++)); do
		expect_regex "$MC_DIR/$name.out" \
			"^==> received 'message $seq of $count from $from' \\([0-9]+ bytes from $from, QPN 0x[0-9a-f]+\\)\$"
	done
	expect_line "$MC_DIR/$name.out" \
		"==> received all $count messages on group 239.1.1.1"
}

# expect_sent NAME COUNT: the sender NAME sent COUNT messages, exited 0.
expect_sent() {
	local name=$1 count=$2
	expect_rc "$MC_DIR/$name.rc" 0
	expect_line "$MC_DIR/$name.out" \
		"==> sent all $count messages to group 239.1.1.1"
	expect_status "$(grep -c "^==> sent 'message " "$MC_DIR/$name.out")" \
		"$count" "number of messages $name sent"
}

# mc_show NAME...: print each process's outputs, for the log of a failure.
mc_show() {
	local name
	for name in "$@"; do
		echo "--- $name: stdout ---"
		cat "$MC_DIR/$name.out" 2>/dev/null
		echo "--- $name: stderr ---"
		cat "$MC_DIR/$name.err" 2>/dev/null
	done
}
