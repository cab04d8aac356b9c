#!/usr/bin/env bash
# The rig must fail at once, naming the file, when the kernel is missing,
# rather than wait for a boot that cannot happen.
. "$(dirname "$0")/lib.sh"

start=$SECONDS
rc=0
RXE_VM_KERNEL=/nonexistent/vmlinuz rxe_run missing_kernel -a true || rc=$?
expect_nonzero "$rc" "rxe-vm run with RXE_VM_KERNEL=/nonexistent/vmlinuz"
expect_text "$RXE_OUT.log" "kernel not found: /nonexistent/vmlinuz"
if ((SECONDS - start <= 10)); then
	_rxe_pass "failed within 10 s ($((SECONDS - start)) s)"
else
	_rxe_failed "FAIL: took $((SECONDS - start)) s to fail, expected at most 10 s"
fi
finish
