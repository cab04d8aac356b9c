#!/usr/bin/env bash
# A command that hangs must be killed at --timeout and reported, while the
# other guest's command still returns its output.  This is also the suite's
# one-shot boot of two guests (rxe-vm run --guests 2).
. "$(dirname "$0")/lib.sh"

timeout=5
start=$(date +%s)
rc=0
# shellcheck disable=SC2016 # the -b command expands in guest b
rxe_run hang --guests 2 --timeout "$timeout" \
	-a 'echo started; sleep 1000' \
	-b 'echo "b is $RXE_GUEST at $RXE_ADDR, peer $RXE_PEER_ADDR"' || rc=$?
expect_nonzero "$rc" "rxe-vm run with a command that hangs"
expect_text "$RXE_OUT.log" "rxe-vm: guest a: command timed out after $timeout s"
expect_line "$RXE_OUT.a.out" "started"
expect_rc "$RXE_OUT.a.rc" 124
expect_rc "$RXE_OUT.b.rc" 0
expect_line "$RXE_OUT.b.out" "b is b at 192.0.2.2, peer 192.0.2.1"
# The bound is on the exec, not the boot: from "guests up" (rxe-vm prints
# the seconds it took) to the moment exec wrote the .rc files.
boot=$(sed -n 's/.*guests up in .* (\([0-9]*\) s)$/\1/p' "$RXE_OUT.log")
done_at=$(stat -c %Y "$RXE_OUT.a.rc" 2>/dev/null)
spent=$((${done_at:-0} - start - ${boot:-0}))
if [ -n "$boot" ] && [ -n "$done_at" ] && ((spent <= timeout + 15)); then
	_rxe_pass "exec gave up $spent s after the guests were up (bound: $((timeout + 15)) s)"
else
	_rxe_failed "FAIL: exec took $spent s after a boot of '${boot:-?}' s; expected at most $((timeout + 15)) s"
fi
finish
