# rdma_rc_example and rdma_lessons scenarios on the shared pair of
# soft-RoCE guests.
rxe_add_test(rc_one_guest rc_one_guest.sh TIMEOUT 200)
rxe_add_test(rc_two_guests rc_two_guests.sh TIMEOUT 240)
# Ports of different MTUs: both QPs take the smaller.
rxe_add_test(rc_mtu rc_mtu.sh TIMEOUT 240)
# rdma_lessons -c uc / -c ud (and, with -R, RDMA_CM) on one guest and on two.
rxe_add_test(transport_one_guest transport_one_guest.sh TIMEOUT 200)
rxe_add_test(transport_two_guests transport_two_guests.sh TIMEOUT 240)
# Three guest commands of at most 150 s each (plus the rig's 10 s slack).
rxe_add_test(transport_rdma_cm transport_rdma_cm.sh TIMEOUT 540)
# rdma_bench on one guest: figures, JSON, the ways to wait, a refused mismatch.
rxe_add_test(bench_one_guest bench_one_guest.sh TIMEOUT 240)
# rdma_bench between two guests: how latency and bandwidth runs wait.
rxe_add_test(bench_two_guests bench_two_guests.sh TIMEOUT 240)
# rdma_bench -H, --cpu_util, --report-counters, a lossy path, -D, -b, -q
# and --run_infinitely: one plan of at most 420 s (plus the rig's slack).
rxe_add_test(bench_report bench_report.sh TIMEOUT 480)
# rdma_bench with perftest's options, each one's effect on the wire (the
# MTU, the DS field) or in the -v trace: one plan of at most 150 s.
rxe_add_test(bench_perftest bench_perftest.sh TIMEOUT 220)
# rdma_lessons's other operations: immediates, atomics, memory
# windows, RNR, completion events, on one guest and between two.
rxe_add_test(ops_one_guest ops_one_guest.sh TIMEOUT 480)
# Two guest commands of at most 120 s each (plus the rig's 10 s slack).
rxe_add_test(ops_two_guests ops_two_guests.sh TIMEOUT 300)
# rdma_lessons's server for several clients: an SRQ and its limit
# event, a receive queue each, a client refused, one killed, and the
# receives' cost for 1 to 8 clients. One plan of at most 420 s.
rxe_add_test(serve serve.sh TIMEOUT 460)
# Bad input, peer faults and signals: clear errors, no leak, no hang.
rxe_add_test(robust_input robust_input.sh TIMEOUT 240)
rxe_add_test(robust_peer robust_peer.sh TIMEOUT 300)
# valgrind memcheck: the manual flow and three error paths.
# One batch of at most 900 s (plus the rig's 10 s slack).
rxe_add_test(robust_valgrind robust_valgrind.sh TIMEOUT 960)
rxe_add_test(robust_signals robust_signals.sh TIMEOUT 300)
# A peer killed, stopped or cut off in the middle of rdma_bench: two
# plans of at most 300 and 120 s (plus the rig's slack).
rxe_add_test(robust_vanish robust_vanish.sh TIMEOUT 480)
if(RDMA_PLAIN_BUILD)
	rxe_add_test(rc_plain_build rc_plain_build.sh TIMEOUT 200)
endif()
# rdma_check: a healthy pair, then each fault made for real and undone.
rxe_add_test(check check.sh TIMEOUT 300)
# Every lesson's packets on the link, decoded by tshark (scripts/wire.py),
# against what the programs printed: one plan of at most 150 s (plus the
# rig's 10 s slack).
rxe_add_test(wire_two_guests wire_two_guests.sh TIMEOUT 200)
# The Debian package (cpack -G DEB), unpacked into a scratch root, its
# installed program through the manual's flow across the two guests: one
# pair of at most 120 s (plus the rig's 10 s slack) after cpack. CPack finds
# the package's dependencies with dpkg-shlibdeps (dpkg-dev) and file.
find_program(RDMA_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(RDMA_FILE_COMMAND file)
if(NOT RDMA_DPKG_SHLIBDEPS OR NOT RDMA_FILE_COMMAND)
	message(STATUS "dpkg-shlibdeps or file not found (Debian: dpkg-dev, file): the package test is not registered")
else()
	rxe_add_test(package package.sh TIMEOUT 200)
endif()
# The hints on the error lines, each fault made for real and undone: an
# rkey that grants nothing, a peer GID nobody holds, -d with -R, rdma_ucm
# unloaded, GIDs of two IP versions, UDP 4791 dropped, a netdev MTU too
# small. One plan of at most 200 s (plus the rig's slack).
rxe_add_test(hints hints.sh TIMEOUT 240)
# The rig's siw0 on both guests (iWARP, port active) and rping between
# them over it, its packets on the siw link only: one plan of at most 60 s.
rxe_add_test(siw_rig siw_rig.sh TIMEOUT 90)
# The READ lesson (rdma_lessons -R -o read) over iWARP on the siw link,
# decoded by tshark (scripts/wire.py): the connection's opening, the
# request naming what the client printed, the response at its sink; one
# plan of at most 90 s.
rxe_add_test(wire_siw wire_siw.sh TIMEOUT 120)

# rdma_lessons -R on siw0: the flow, ops, -e, rdma_bench lat and bw, each
# lesson iWARP lacks refused on both sides, -d siw0 without -R. One plan of
# at most 240 s (plus the rig's slack).
rxe_add_test(siw_rc siw_rc.sh TIMEOUT 280)

# The transcripts of README.md and docs/*.md, each against a fresh run of
# its recipe (tests/rxe/transcripts.recipes, scripts/transcripts.py): one
# plan of at most 110 s (plus the rig's slack).
rxe_add_test(transcripts transcripts.sh TIMEOUT 150)

# Peers that run different programs (rdma_rc_example, rdma_lessons,
# rdma_bench, rdma_check), over the TCP exchange and -R: both sides refuse
# in one line naming both programs. One plan of at most 150 s.
rxe_add_test(peer_program peer_program.sh TIMEOUT 180)
# The GID without -g on ports of two subnets (one dropped) and IPv6 only.
rxe_add_test(fabric_gid fabric_gid.sh TIMEOUT 360)
