# shellcheck shell=bash
# The server for several clients (rdma_lessons --clients), for the
# scenarios that run it: serve.sh on soft-RoCE, siw_rc.sh on soft-iWARP.
# Source it after lib.sh; P is the program (guest shell words: rdma_lessons).

# serve NAME PORT COUNT 'SERVER ARGS' 'CLIENT ARGS' [ADDR]: a server on
# guest a and COUNT clients on guest b (NAME.c1 ...), all started at once,
# reaching it at ADDR (guest shell text; default guest a's rxe0 address).
# SERVE_ON=a serve ...: the clients on guest a too.
serve() {
	local name=$1 port=$2 count=$3 on=${SERVE_ON:-b} i
	# shellcheck disable=SC2016 # expanded in the clients' guest
	local addr=${6:-'"$RXE_PEER_ADDR"'}
	# shellcheck disable=SC2016
	[ "$on" = a ] && addr=${6:-'"$RXE_ADDR"'}
	rxe_start "$name.server" --on a "$P $4 -p $port"
	for ((i = 1; i <= count; i++)); do
		rxe_start "$name.c$i" --on "$on" \
			"$P $5 -p $port --connect-timeout 40 $addr"
	done
	for ((i = 1; i <= count; i++)); do
		rxe_end "$name.c$i" --on "$on"
	done
	rxe_end "$name.server" --on a
}

# expect_same WHAT WANT GOT: two texts the script captured are the same.
expect_same() {
	if [ "$2" = "$3" ]; then
		_rxe_pass "$1"
	else
		RXE_FAILED=$((RXE_FAILED + 1))
		printf 'FAIL: %s: %s: expected\n%s\ngot\n%s\n' "$(_rxe_where)" "$1" "$2" "$3"
	fi
}

# serve_expect_hellos NAME COUNT: each client's 8 messages arrived at the server,
# in order, on the QP the client was told is its peer (the exchange's
# "Remote QP number"), under the number the server gave that QP's client.
serve_expect_hellos() {
	local name=$1 count=$2 i k qp sent
	for ((i = 1; i <= count; i++)); do
		sent=$(sed -n "s/^sending: //p" "$RXE_RUNS/$name.c$i.out")
		expect_same "$name: client $i sent 8 messages" 8 "$(grep -c . <<<"$sent")"
		qp=$(printf '0x%06x' "$(sed -n 's/^Remote QP number = //p' "$RXE_RUNS/$name.c$i.out")")
		k=$(sed -n "s/^client \([0-9]*\) of $count: our QP $qp, .*/\1/p" "$RXE_RUNS/$name.server.out")
		expect_same "$name: the server got client $i's messages on QP $qp, its client ${k:-?}" \
			"$sent" "$(sed -n "s/^client ${k:-0} (QP $qp): //p" "$RXE_RUNS/$name.server.out")"
	done
}

