# CI runs the scenarios with the sanitized build (RDMA_SANITIZE); this runs
# the plain build's binary (RDMA_PLAIN_PROGRAM, set by scripts/test.sh)
# through the manual's flow in one guest, so the binary users build is
# exercised on soft-RoCE too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"

: "${RDMA_PLAIN_PROGRAM:?RDMA_PLAIN_PROGRAM is not set}"
port=19961
rxe_exec rc_plain_build --timeout 150 -a "
'$RDMA_PLAIN_PROGRAM' -p $port --accept-timeout 60 >/tmp/server.out 2>/tmp/server.err &
'$RDMA_PLAIN_PROGRAM' -p $port --connect-timeout 60 \"\$RXE_ADDR\" >/tmp/client.out 2>/tmp/client.err
client=\$?
wait \$!
server=\$?
echo \"client status \$client, server status \$server\"
sed 's/^/server: /' /tmp/server.out /tmp/server.err
sed 's/^/client: /' /tmp/client.out /tmp/client.err"
out=$RXE_OUT.a.out
expect_line "$out" "client status 0, server status 0"
sed -n 's/^server: //p' "$out" >"$RXE_OUT.server"
sed -n 's/^client: //p' "$out" >"$RXE_OUT.client"
rc_expect_flow "$RXE_OUT.server" "$RXE_OUT.client" "$port"
finish
