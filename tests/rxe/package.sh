#!/usr/bin/env bash
# The Debian package as a user gets it: cpack -G DEB from this build tree,
# its control fields and files, then unpacked with dpkg -x into a scratch
# root inside the build tree (which the guests see at the same path) and
# the installed rdma_rc_example run through the manual's flow between the
# two guests.
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
	echo "FAIL: expected one .deb in $work, found: ${debs[*]}"
	sed 's/^/  | /' "$RXE_OUT_DIR/cpack.log"
	RXE_FAILED=$((RXE_FAILED + 1))
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

contents=$RXE_OUT_DIR/contents
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$contents"
for file in usr/bin/rdma_rc_example usr/bin/rdma_mc_example \
	usr/share/man/man1/rdma_rc_example.1 usr/share/man/man1/rdma_mc_example.1; do
	expect_line "$contents" "./$file"
done

root=$work/root
dpkg -x "$deb" "$root"
installed=$root/usr/bin/rdma_rc_example
version=$(dpkg-deb -f "$deb" Version)
"$installed" --version >"$RXE_OUT_DIR/version.out" 2>&1
expect_status "$?" 0 "$installed --version"
expect_line "$RXE_OUT_DIR/version.out" "rdma_rc_example $version"

# The installed program, server on guest a and client on guest b.
# shellcheck disable=SC2034 # read by rc_common.sh
RDMA_RC_EXAMPLE=$installed
. "$(dirname "$0")/rc_common.sh"
port=19995
rc_pair flow $port "--accept-timeout 60" "--connect-timeout 60" --on a b
rxe_go package 120
rc_expect_clean flow
rc_expect_flow "$RXE_RUNS/flow.server.out" "$RXE_RUNS/flow.client.out" "$port"
finish
