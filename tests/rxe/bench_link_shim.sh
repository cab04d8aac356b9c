#!/usr/bin/env bash
# Guest b's rdma_rc_example in bench_link_restart.sh's first part: runs the
# real program ($REAL_PROGRAM), except for the plan's measurement 3 (port
# 20003), where it reports a stopped link the way the guest's kernel does
# (the watchdog line on the console) and then hangs, as a measurement on a
# stopped link does.
case " $* " in
*" -p 20003 "*)
	echo "<3>virtio_net virtio2 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5312 ms (written by bench_link_shim.sh)" >/dev/kmsg
	exec sleep 300
	;;
esac
exec "$REAL_PROGRAM" "$@"
