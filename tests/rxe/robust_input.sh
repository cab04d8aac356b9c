#!/usr/bin/env bash
# Bad input and an unfriendly environment, one guest: every case must end
# with one clear line on stderr and the right exit status (2 usage, 1 runtime).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/robust_lib.sh"

P="'$RDMA_RC_EXAMPLE'"
L="'$RDMA_LESSONS'"
port=19901
busy_port=19902
held_port=19903
no_caps="setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock"
rxe_solo unknown_long "$P --bogus"
rxe_solo missing_long "$P --port"
rxe_solo not_a_number "$P --timeout 5s"
rxe_solo out_of_range "$P -p 70000"
rxe_solo extra_arg "$P host1 host2"
rxe_solo bad_op "$L -o send,fly"
rxe_solo no_device "$P -d mlx5_9"
rxe_solo no_port "$P -i 2"
rxe_solo empty_gid "$P -g 7"
rxe_solo unresolvable "$P -p $port no-such-host.invalid"
rxe_solo not_listening "$P -p $port --connect-timeout 2 \"\$RXE_ADDR\""
# The port is taken by another server of ours, waiting for its client.
rxe_start first "$P -p $busy_port --accept-timeout 30"
rxe_wait_text first "waiting on port $busy_port for TCP connection"
rxe_solo port_in_use "$P -p $busy_port --accept-timeout 2"
rxe_signal first TERM
rxe_end first
# Another program's listener on [::], dual stack and SO_REUSEADDR, that
# never accepts: the server must not fall back to IPv4 and wait there.
rxe_start holder "python3 -c \"import socket, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(('::', $held_port)); s.listen(1); print('holding', flush=True); time.sleep(60)\""
rxe_wait_text holder "holding"
rxe_solo port_held "$P -p $held_port --accept-timeout 5"
rxe_signal holder TERM
rxe_end holder
rxe_solo memlock_zero "sh -c \"ulimit -l 0 && exec $no_caps $P -p $port --accept-timeout 1\""
rxe_solo memlock_small "sh -c \"ulimit -l 1 && exec $no_caps $P -p $port --accept-timeout 1\""
rxe_go input 200

expect_case unknown_long 2 "rdma_rc_example: unknown option '--bogus'"
expect_case missing_long 2 "rdma_rc_example: option '--port' needs a value"
expect_case not_a_number 2 "rdma_rc_example: invalid --timeout value '5s' (expected a number from 1 to 86400)"
expect_case out_of_range 2 "rdma_rc_example: invalid --port value '70000' (expected a number from 1 to 65535)"
expect_case extra_arg 2 "rdma_rc_example: unexpected argument 'host2'"
expect_rc "$RXE_RUNS/bad_op.rc" 2
expect_regex "$RXE_RUNS/bad_op.err" "^rdma_lessons: invalid --ops value 'send,fly': unknown operation 'fly' \(known: send, read, write(, [a-z_]+)*\)$"
expect_case no_device 1 "rdma_rc_example: failed to find RDMA device mlx5_9: No such device (devices found: rxe0 siw0)"
expect_case no_port 1 "rdma_rc_example: failed to query port 2 of rxe0: Invalid argument (rxe0 has ports 1 to 1)"
expect_case empty_gid 1 "rdma_rc_example: failed to use GID index 7 of rxe0 port 1: the entry is empty (valid GID indexes: 0 1)"
# The guests have no resolver: getaddrinfo's own text, whichever it is.
expect_rc "$RXE_RUNS/unresolvable.rc" 1
expect_regex "$RXE_RUNS/unresolvable.err" "^rdma_rc_example: failed to resolve server no-such-host\.invalid: (Name or service not known|Temporary failure in name resolution)$"
expect_case not_listening 1 "rdma_rc_example: failed to connect to 192.0.2.1 port $port within 2 s: Connection refused"
expect_at_least_ms not_listening 2000
expect_case port_in_use 1 "rdma_rc_example: failed to listen on TCP port $busy_port: Address already in use: another program holds it (ss -ltnp 'sport = :$busy_port' names it)"
expect_case port_held 1 "rdma_rc_example: failed to listen on TCP port $held_port: Address already in use: another program holds it (ss -ltnp 'sport = :$held_port' names it)"
expect_no_text "$RXE_RUNS/port_held.out" "waiting on port"
expect_case memlock_zero 1 "rdma_rc_example: failed to register MR of 4096 bytes: Operation not permitted (locked-memory limit is 0 bytes: raise it with ulimit -l)"
expect_case memlock_small 1 "rdma_rc_example: failed to register MR of 4096 bytes: Cannot allocate memory (locked-memory limit is 1024 bytes: raise it with ulimit -l)"
# A usage error must not even open the device; a runtime one says its result.
expect_no_text "$RXE_RUNS/bad_op.out" "test result"
expect_line "$RXE_RUNS/no_device.out" "test result is -19"
# -o is rdma_lessons's: rdma_rc_example refuses it in one line naming the
# program that has it, before any device (on the host: no guest needed).
"$RDMA_RC_EXAMPLE" -o send,fly >"$RXE_OUT_DIR/rc-ops.out" 2>"$RXE_OUT_DIR/rc-ops.err"
expect_status $? 2 "rdma_rc_example -o send,fly"
expect_line "$RXE_OUT_DIR/rc-ops.err" "rdma_rc_example: option -o (--ops) is rdma_lessons's, not rdma_rc_example's"
expect_status "$(wc -l <"$RXE_OUT_DIR/rc-ops.err")" 1 "rdma_rc_example -o send,fly: stderr lines"
expect_empty "$RXE_OUT_DIR/rc-ops.out"
finish
