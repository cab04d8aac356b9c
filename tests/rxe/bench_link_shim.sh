#!/usr/bin/env bash
# Both guests' rdma_bench in bench_link_restart.sh's first part: runs
# the real program ($REAL_PROGRAM), except for two measurements.
# - Measurement 0 (port 20000): the server hangs until its bound, as
#   perftest's can on siw, while the client fails at once, so that the
#   client would run the next measurements alone if the two guests did
#   not meet before each one.
# - Measurement 3 (port 20003), guest b: reports a stopped link the way
#   the guest's kernel does (the watchdog line on the console) and then
#   hangs, as a measurement on a stopped link does.
case " $* " in
*" -p 20000 "*)
	if [ "$ROLE" = server ]; then
		exec sleep 300
	fi
	echo "bench_link_shim.sh: the client of measurement 0 fails at once" >&2
	exit 1
	;;
*" -p 20003 "*)
	[ "$ROLE" = client ] || exec "$REAL_PROGRAM" "$@"
	echo "<3>virtio_net virtio2 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5312 ms (written by bench_link_shim.sh)" >/dev/kmsg
	exec sleep 300
	;;
esac
exec "$REAL_PROGRAM" "$@"
