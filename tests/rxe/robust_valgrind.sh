#!/usr/bin/env bash
# valgrind memcheck on the manual flow and three error paths: no memory
# error, nothing definitely or indirectly lost.  Only libibverbs' and its
# provider's own allocations may be suppressed (tests/valgrind/).  Slow
# under the guests' software CPU: one run per case, and the runs shared
# between the two guests (each has a CPU of its own on the host), the flow
# across the link.
. "$(dirname "$0")/lib.sh"
# valgrind cannot run an ASan build: in CI, take the plain one.
rxe_plain_programs
. "$(dirname "$0")/rc_common.sh"
# shellcheck disable=SC2034 # read by lib.sh
RXE_RUN_LIMIT=400
. "$(dirname "$0")/robust_lib.sh"

# Exit status 99 means valgrind found something; the program's own otherwise.
VG="valgrind -q --error-exitcode=99 --leak-check=full \
--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
--suppressions=$SOURCE_DIR/tests/valgrind/libibverbs.supp"
P="'$RDMA_RC_EXAMPLE'"
port=19951
# Guest a: the flow's server, then sigterm.  Guest b: the flow's client,
# then no_device and bad_magic (its server and the bad peer both on b).
rxe_pair flow --on a b --ready "waiting on port $port for TCP connection" \
	"$VG $P -p $port --accept-timeout 300 -t 120" \
	"$VG $P -p $port --connect-timeout 60 -t 120 \"\$RXE_PEER_ADDR\""
rxe_solo no_device --on b "$VG $P -d mlx5_9"
rb_server_vs_peer --on b bad_magic $((port + 1)) bad-magic "-t 60" "$VG"
rxe_solo sigterm --signal TERM "waiting on port $port for TCP connection" \
	"$VG $P -p $port --accept-timeout 300"
rxe_go valgrind 900
R=$RXE_RUNS

expect_rc "$R/flow.server.rc" 0
expect_rc "$R/flow.client.rc" 0
rc_expect_flow "$R/flow.server.out" "$R/flow.client.out" "$port"
expect_case no_device 1 "rdma_rc_example: failed to find RDMA device mlx5_9: No such device (devices found: rxe0 siw0)"
expect_case bad_magic.server 1 "rdma_rc_example: failed to accept the peer's QP info: wrong magic number (the peer runs none of this project's programs) (Protocol error)"
expect_case sigterm 1 "rdma_rc_example: stopped by SIGTERM, resources freed"
# -q: valgrind prints only what it found, each line starting with ==PID==.
for c in flow.server flow.client no_device bad_magic.server sigterm; do
	expect_no_text "$R/$c.err" "=="
done
finish
