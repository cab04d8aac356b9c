#!/usr/bin/env bash
# Guest b's rdma_rc_example in bench_link_restart.sh's first part: runs the
# real program ($REAL_PROGRAM), except at its second measurement, where it
# reports a stopped link the way the guest's kernel does (the watchdog line
# on the console) and then hangs, as a measurement on a stopped link does.
# Its count is kept in bench-guest.sh's folder, the current one.
n=$(cat bench_link_shim.count 2>/dev/null || echo 0)
echo $((n + 1)) >bench_link_shim.count
if [ "$n" -eq 1 ]; then
	echo "<3>virtio_net virtio2 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5312 ms (written by bench_link_shim.sh)" >/dev/kmsg
	exec sleep 300
fi
exec "$REAL_PROGRAM" "$@"
