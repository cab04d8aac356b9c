#!/usr/bin/env bash
# The Debian package as a user gets it: cpack -G DEB from this build tree,
# its control fields and files (the cluster check and its module among
# them), lintian's verdict on it (no error, no
# warning), then unpacked with dpkg -x into a scratch root inside the build
# tree (which the guests see at the same path): each installed program
# tells its version, and the installed rdma_rc_example runs the manual's
# flow between the two guests.
. "$(dirname "$0")/lib.sh"

: "${BUILD_DIR:?BUILD_DIR is not set}"
CPACK=${CPACK:-cpack}
work=$BUILD_DIR/package-test
rm -rf "$work"
mkdir -p "$work"

echo "=== $CPACK -G DEB -B $work ==="
status=0
(cd "$BUILD_DIR" && "$CPACK" -G DEB -B "$work") >"$RXE_OUT_DIR/cpack.log" 2>&1 ||
	status=$?
expect_status "$status" 0 "cpack -G DEB"
debs=("$work"/*.deb)
if [ "$status" -ne 0 ] || [ "${#debs[@]}" -ne 1 ] || [ ! -f "${debs[0]}" ]; then
	_rxe_failed "FAIL: expected one .deb in $work, found: ${debs[*]}" \
		"$RXE_OUT_DIR/cpack.log"
	sed 's/^/  | /' "$RXE_OUT_DIR/cpack.log"
	finish
fi
deb=${debs[0]}
echo "package: $deb"

# The dependencies are dpkg-shlibdeps' findings from the binaries, each
# with the lowest version that has the symbols they use.
control=$RXE_OUT_DIR/control
dpkg-deb -f "$deb" Package Version Architecture Depends >"$control"
cat "$control"
expect_line "$control" "Package: rdma-rc-example"
expect_regex "$control" '^Depends: (.*, )?libibverbs1 \(>= [^)]+\)'
expect_regex "$control" '^Depends: (.*, )?librdmacm1 \(>= [^)]+\)'
expect_regex "$control" '^Depends: (.*, )?libc6 \(>= [^)]+\)'
# The cluster check's, typed in CMakeLists.txt: it is a Python program
# on ClusterShell's library.
expect_regex "$control" '^Depends: (.*, )?python3-clustershell(,|$)'

# The six programs, their man pages compressed as Debian installs them,
# the cluster check's module, and the copyright file and changelog Debian
# policy asks of every package.
contents=$RXE_OUT_DIR/contents
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$contents"
doc=usr/share/doc/rdma-rc-example
programs="rdma_rc_example rdma_lessons rdma_mc_example rdma_check rdma_bench rdma_cluster_check"
expect_line "$contents" "./usr/share/rdma-rc-example/cluster_plan.py"
for program in $programs; do
	expect_line "$contents" "./usr/bin/$program"
	expect_line "$contents" "./usr/share/man/man1/$program.1.gz"
done
# Each program with a table of its own options completes in bash.
for program in rdma_rc_example rdma_lessons rdma_check rdma_bench rdma_cluster_check; do
	expect_line "$contents" "./usr/share/bash-completion/completions/$program"
done
expect_line "$contents" "./$doc/copyright"
expect_line "$contents" "./$doc/changelog.gz"

# lintian, Debian's own check of a package, finds nothing to warn about:
# --fail-on makes a warning fail its exit status as an error does, and no
# E: (error) or W: (warning) line is printed; I: lines are information.
# (On stderr it says that it runs as root.) scripts/test.sh installs it.
lintian_out=$RXE_OUT_DIR/lintian.out
status=0
if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error,warning "$deb" >"$lintian_out" \
		2>"$RXE_OUT_DIR/lintian.err" || status=$?
else
	echo "lintian: not found (Debian: lintian)" >"$lintian_out"
	status=127
fi
sed 's/^/  | /' "$lintian_out"
expect_status "$status" 0 "lintian --fail-on error,warning"
grep -E '^[EW]: ' "$lintian_out" >"$RXE_OUT_DIR/lintian.faults"
expect_empty "$RXE_OUT_DIR/lintian.faults"

root=$work/root
dpkg -x "$deb" "$root"
installed=$root/usr/bin/rdma_rc_example
version=$(dpkg-deb -f "$deb" Version)
for program in $programs; do
	"$root/usr/bin/$program" --version >"$RXE_OUT_DIR/$program.version" 2>&1
	expect_status "$?" 0 "$program --version"
	expect_line "$RXE_OUT_DIR/$program.version" "$program $version"
done

# The installed program, server on guest a and client on guest b.
# shellcheck disable=SC2034 # read by rc_common.sh
RDMA_RC_EXAMPLE=$installed
# shellcheck disable=SC2034 # read by rc_common.sh
RDMA_LESSONS=$root/usr/bin/rdma_lessons
. "$(dirname "$0")/rc_common.sh"
port=19995
rc_pair flow $port "--accept-timeout 60" "--connect-timeout 60" --on a b
rxe_go package 120
rc_expect_clean flow
rc_expect_flow "$RXE_RUNS/flow.server.out" "$RXE_RUNS/flow.client.out" "$port"
finish
