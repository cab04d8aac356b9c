#!/usr/bin/env bash
# The packets on the link between the two guests, decoded by tshark
# through scripts/wire.py, against what the programs printed: every lesson
# of operations.md and transports.md in one capture.  The runs go at the
# same time (one plan, one exec); each run's packets are told apart by the
# QP numbers its two sides printed.  Guest a (192.0.2.1) runs the servers
# and the multicast sender, guest b (192.0.2.2) the clients and the
# multicast receiver.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/wire_lib.sh"

MC_BIN=${RDMA_MC_EXAMPLE:-$BUILD_DIR/rdma_mc_example}
# Every run but the benchmark's has a lesson's option: rdma_lessons.
P="'$RDMA_LESSONS'"
OPS=send,read,write,send_imm,write_imm,fetch_add,cmp_swap,mw
MC_COUNT=3
MSG_SIZE=3000

# pair NAME PORT ARGS...: a server on guest a and its client on guest b,
# both rdma_lessons with ARGS and -v, started in the background;
# PROG=WORDS pair ...: both WORDS (guest shell) instead of rdma_lessons.
pair() {
	local name=$1 port=$2 prog=${PROG:-$P}
	shift 2
	rxe_start "$name.server" --on a "$prog -v $* -p $port --accept-timeout 60"
	rxe_start "$name.client" --on b "$prog -v $* -p $port --connect-timeout 60 \"\$RXE_PEER_ADDR\""
}

pair rc 19970 -o "$OPS"
# -R: RDMA_CM on 19975, the syncs' TCP on 19976, apart from the others.
pair cm 19975 -R -o rnr
pair sge 19977 -o sge,two_mr
# hello on the SRQ: the server's receives come from a shared queue, which
# the client cannot see and the wire does not show.
rxe_start srq.server --on a "$P -v --srq -o hello -p 19971 --accept-timeout 60"
rxe_start srq.client --on b "$P -v -o hello -p 19971 --connect-timeout 60 \"\$RXE_PEER_ADDR\""
pair uc 19972 -c uc
pair ud 19973 -c ud
# UD over RDMA_CM: the SIDR MADs on 19978, the syncs' TCP on 19979.
pair ud_cm 19978 -c ud -R
PROG="'$RDMA_BENCH' lat" pair mtu 19974 --op write -s "$MSG_SIZE" -n 5
rxe_start mcr --on b "'$MC_BIN' -v -b 192.0.2.2 -C $MC_COUNT -t 30"
rxe_wait_text mcr "==> joined group" --on a
rxe_start mcs --on a "'$MC_BIN' -v -s -b 192.0.2.1 -C $MC_COUNT -t 30"
for name in rc cm sge srq uc ud ud_cm mtu; do
	rxe_end "$name.client" --on b
	rxe_end "$name.server" --on a
done
rxe_end mcs --on a
rxe_end mcr --on b
rxe_go wire_two_guests 150 --capture "$RXE_RUNS/wire.pcap"

for name in rc cm sge srq uc ud ud_cm mtu; do
	expect_rc "$RXE_RUNS/$name.server.rc" 0
	expect_rc "$RXE_RUNS/$name.client.rc" 0
done
expect_rc "$RXE_RUNS/mcs.rc" 0
expect_rc "$RXE_RUNS/mcr.rc" 0

ROWS=$RXE_RUNS/wire.rows
python3 "$SOURCE_DIR/scripts/wire.py" "$RXE_RUNS/wire.pcap" \
	--peer b=192.0.2.2 --peer a=192.0.2.1 --rows "$ROWS" \
	>"$RXE_RUNS/wire.table" 2>&1
expect_status "$?" 0 "wire.py on the capture (it fails on one with no RoCE packet)"

# --- the manual's flow, the immediates, the atomics, the window ---
s=$RXE_RUNS/rc.server.out c=$RXE_RUNS/rc.client.out
CQ=$(qpn "$s") SQ=$(qpn "$c")
echo "--- rc: server QP $SQ, client QP $CQ"
expect_packets "rc: the lesson's packets" 1 '' to=b destqp="$CQ"
send=$(rows from=a to=b "name=RC Send Only" destqp="$CQ" "payload=SEND operation")
expect_packets "SEND Only to the client's QP" 1 '' from=a to=b "name=RC Send Only" destqp="$CQ" "payload=SEND operation"
expect_packets "the client's ACK of the SEND" 1 '' from=b to=a "name=RC Acknowledge" destqp="$SQ" aeth=ACK "psn=$(psn "$send")"
read -r len va rkey < <(sed -n 's/^\[verbs\] posted RDMA_READ: .* len \([0-9]*\) lkey .*, remote \(0x[0-9a-f]*\) rkey \(0x[0-9a-f]*\)$/\1 \2 \3/p' "$c")
expect_line "$c" "Remote rkey = $rkey"
expect_packets "READ Request with the client's RETH" 1 '' from=b to=a "name=RC RDMA Read Request" destqp="$SQ" va="$va" rkey="$rkey" len="$len"
rd=$(rows from=b "name=RC RDMA Read Request" destqp="$SQ")
expect_packets "READ Response carrying the server's bytes" 1 '' from=a to=b "name=RC RDMA Read Response Only" destqp="$CQ" "psn=$(psn "$rd")" "payload=RDMA read operation"
wr=$(rows from=b "name=RC RDMA Write Only" destqp="$SQ" rkey="$rkey" "payload=RDMA write operation")
expect_packets "WRITE Only with the server's rkey" 1 '' from=b "name=RC RDMA Write Only" destqp="$SQ" rkey="$rkey" "payload=RDMA write operation"
expect_packets "the server's ACK of the WRITE" 1 '' from=a "name=RC Acknowledge" destqp="$CQ" aeth=ACK "psn=$(psn "$wr")"

imm=$(sed -n "s/^going to send the message: 'SEND with immediate' with immediate data \(0x[0-9a-f]*\)$/\1/p" "$s")
expect_packets "SEND with Immediate, ImmDt as printed" 1 '' from=a "name=RC Send Only with Immediate" destqp="$CQ" imm="$imm"
imm=$(sed -n "s/^Now writing: .* with immediate data \(0x[0-9a-f]*\)$/\1/p" "$c")
expect_packets "WRITE with Immediate, ImmDt as printed" 1 '' from=b "name=RC RDMA Write Only with Immediate" destqp="$SQ" imm="$imm"

# answer OPERATION ARGS... ORIGINAL: the atomic request with ARGS got an
# Atomic Acknowledge of its PSN carrying ORIGINAL.
answer() {
	local name=$1 original=${*: -1} req
	req=$(rows from=b "name=RC $name" destqp="$SQ" "${@:2:$#-2}")
	expect_packets "$name ${*:2:$#-2}" 1 '' from=b "name=RC $name" destqp="$SQ" "${@:2:$#-2}"
	expect_packets "$name: the original value the client printed" 1 '' from=a \
		"name=RC Atomic Acknowledge" destqp="$CQ" "psn=$(psn "$req")" original="$original"
}
expect_regex "$c" '^fetch_add [0-9]+: old value [0-9]+$'
while read -r add old; do
	answer "Fetch Add" add="$add" "$old"
done < <(sed -n 's/^fetch_add \([0-9]*\): old value \([0-9]*\)$/\1 \2/p' "$c")
expect_regex "$c" '^cmp_swap expecting [0-9]+, new [0-9]+: old value [0-9]+'
while read -r cmp new old; do
	answer "Compare Swap" compare="$cmp" swap="$new" "$old"
done < <(sed -n 's/^cmp_swap expecting \([0-9]*\), new \([0-9]*\): old value \([0-9]*\),.*$/\1 \2 \3/p' "$c")

mw=$(sed -n "s/^Server's memory window: .*, rkey \(0x[0-9a-f]*\)$/\1/p" "$c")
w1=$(rows from=b "name=RC RDMA Write Only" destqp="$SQ" rkey="$mw" "payload=written through the window")
w2=$(rows from=b "name=RC RDMA Write Only" destqp="$SQ" rkey="$mw" "payload=written after the window was invalidated")
expect_packets "mw: WRITE through the window" 1 '' from=b destqp="$SQ" rkey="$mw" "payload=written through the window"
expect_packets "mw: that WRITE ACKed" 1 '' from=a "name=RC Acknowledge" destqp="$CQ" aeth=ACK "psn=$(psn "$w1")"
expect_packets "mw: WRITE after the invalidation" 1 '' from=b destqp="$SQ" rkey="$mw" "payload=written after the window was invalidated"
expect_packets "mw: that WRITE NAKed, remote access error" 1 '' from=a "name=RC NAK" destqp="$CQ" aeth=NAK "error=remote access error" "psn=$(psn "$w2")"

# mads_before FIRST RUN "GUEST NAME"...: each CM MAD NAME, from GUEST,
# came before frame FIRST, the first packet of RUN's lesson.
mads_before() {
	local first=$1 run=$2 mad frame
	shift 2
	for mad in "$@"; do
		frame=$(rows from="${mad%% *}" "name=${mad#* }" | head -n 1 | field frame)
		if [ -n "$frame" ] && [ -n "$first" ] && [ "$frame" -lt "$first" ]; then
			_rxe_pass "$run: ${mad#* } (frame $frame) before the first lesson packet (frame $first)"
		else
			_rxe_fail "$(_rxe_where)" "$run: expected ${mad#* } from ${mad%% *} before the first lesson packet (frame ${first:-none}), found ${frame:-none}" "$ROWS"
		fi
	done
}

# --- -R and rnr ---
s=$RXE_RUNS/cm.server.out c=$RXE_RUNS/cm.client.out
CQ=$(qpn "$s") SQ=$(qpn "$c")
echo "--- cm: server QP $SQ, client QP $CQ"
first=$(rows from=b destqp="$SQ" | head -n 1 | field frame)
mads_before "$first" -R "b CM ConnectRequest" "a CM ConnectReply" "b CM ReadyToUse"
retry=$(sed -n 's/^\[verbs\] QP .* RTR -> RTS.*, RNR retry \([0-9]*\),.*$/\1/p' "$c")
timer=$(sed -n 's/^\[verbs\] QP .* INIT -> RTR.*, min RNR timer \([0-9]*\)$/\1/p' "$s")
tries=$(rows from=b "name=RC Send Only" destqp="$SQ" "payload=SEND that finds no receive")
expect_packets "rnr: the SEND" 1 '' from=b "name=RC Send Only" destqp="$SQ" "payload=SEND that finds no receive"
expect_status "$(cut -f5 <<<"$tries" | sort -u | wc -l)" 1 "rnr: number of PSNs the SEND's attempts carry"
expect_packets "rnr: at most rnr_retry ($retry) + 1 attempts" 1 $((retry + 1)) from=b destqp="$SQ" "payload=SEND that finds no receive" "psn=$(psn "$tries")"
expect_packets "rnr: RNR NAKs with the server's timer ($timer)" 1 $((retry + 1)) from=a "name=RC RNR NAK" destqp="$CQ" "aeth=RNR NAK" "timer=$timer" "psn=$(psn "$tries")"
last_nak=$(rows from=a "name=RC RNR NAK" destqp="$CQ" | tail -n 1 | field frame)
after=$(rows from=b destqp="$SQ" | awk -F'\t' -v last="${last_nak:-0}" '
	{ split($1, f, "="); if (f[2] + 0 > last + 0) n++ } END { print n + 0 }')
expect_status "$after" 0 "rnr: packets from the client after the last RNR NAK"

# --- hello on the SRQ ---
s=$RXE_RUNS/srq.server.out c=$RXE_RUNS/srq.client.out
CQ=$(qpn "$s") SQ=$(qpn "$c")
echo "--- hello: server QP $SQ (on the SRQ), client QP $CQ"
# Each message one Send Only to the server's QP, in order, each acked:
# nothing says that the receive it took was a shared queue's.
sends=$(rows from=b destqp="$SQ" "name=RC Send Only")
expect_status "$(sed -n 's/.*\tpayload=//p' <<<"$sends")" \
	"$(sed -n "s/^sending: '\(.*\)'$/\1/p" "$c")" "hello: the 8 Send Only payloads, in the client's order"
expect_status "$(cut -f5 <<<"$sends" | sort -u | wc -l)" 8 "hello: PSNs of the 8 SENDs"
expect_packets "hello: an ACK for each" 8 "" from=a destqp="$CQ" "name=RC Acknowledge"

# --- sge and two_mr ---
s=$RXE_RUNS/sge.server.out c=$RXE_RUNS/sge.client.out
CQ=$(qpn "$s") SQ=$(qpn "$c")
echo "--- sge: server QP $SQ, client QP $CQ"
# The lists leave no trace: the SEND of 3 SGEs is one Send Only with the
# 39 bytes in order, the WRITE of 2 one Write Only of 13 + 9 bytes.
sends=$(rows from=b destqp="$SQ" "name=RC Send Only" "payload=gathered from three SGEs in two regions")
expect_packets "sge: the SEND of 3 SGEs, one Send Only" 1 '' from=b destqp="$SQ" "name=RC Send Only" "payload=gathered from three SGEs in two regions"
expect_status "$(cut -f5 <<<"$sends" | sort -u | wc -l)" 1 "sge: PSNs the SEND of 3 SGEs took"
expect_packets "sge: no SEND in several packets" 0 0 from=b destqp="$SQ" "name=RC Send First"
expect_packets "sge: the WRITE of 2 SGEs, one Write Only of 22 bytes" 1 '' from=b destqp="$SQ" "name=RC RDMA Write Only" len=22 "payload=written from two SGEs"
expect_packets "sge: no WRITE in several packets" 0 0 from=b destqp="$SQ" "name=RC RDMA Write First"
ro=$(sed -n "s/^Server's area at 0x[0-9a-f]*, registered twice: rkey \(0x[0-9a-f]*\) (remote read only), .*$/\1/p" "$c")
rw=$(sed -n "s/^Server's area at 0x[0-9a-f]*, registered twice: .*, rkey \(0x[0-9a-f]*\) (remote read and write)$/\1/p" "$c")
for key in "$ro" "$rw"; do
	req=$(rows from=b "name=RC RDMA Read Request" destqp="$SQ" rkey="$key")
	expect_packets "two_mr: READ Request with rkey $key" 1 '' from=b "name=RC RDMA Read Request" destqp="$SQ" rkey="$key"
	expect_packets "two_mr: its Read Response with the server's bytes" 1 '' from=a "name=RC RDMA Read Response Only" destqp="$CQ" "psn=$(psn "$req")" "payload=one buffer, two registrations"
done
w1=$(rows from=b "name=RC RDMA Write Only" destqp="$SQ" rkey="$rw" "payload=written through the read-write key")
w2=$(rows from=b "name=RC RDMA Write Only" destqp="$SQ" rkey="$ro" "payload=written through the read-only key")
expect_packets "two_mr: WRITE with the read-write rkey" 1 '' from=b destqp="$SQ" rkey="$rw" "payload=written through the read-write key"
expect_packets "two_mr: that WRITE ACKed" 1 '' from=a "name=RC Acknowledge" destqp="$CQ" aeth=ACK "psn=$(psn "$w1")"
expect_packets "two_mr: WRITE with the read-only rkey" 1 '' from=b destqp="$SQ" rkey="$ro" "payload=written through the read-only key"
expect_packets "two_mr: that WRITE NAKed, remote access error" 1 '' from=a "name=RC NAK" destqp="$CQ" aeth=NAK "error=remote access error" "psn=$(psn "$w2")"

# --- UC ---
s=$RXE_RUNS/uc.server.out c=$RXE_RUNS/uc.client.out
CQ=$(qpn "$s") SQ=$(qpn "$c")
echo "--- uc: server QP $SQ, client QP $CQ"
expect_packets "UC SEND Only" 1 '' from=a "name=UC Send Only" destqp="$CQ" "payload=SEND operation"
expect_packets "UC RDMA Write Only" 1 '' from=b "name=UC RDMA Write Only" destqp="$SQ" "payload=RDMA write operation"
expect_packets "UC: packets to the client's QP" 1 1 from=a destqp="$CQ"
expect_packets "UC: packets to the server's QP" 1 1 from=b destqp="$SQ"

# --- UD ---
s=$RXE_RUNS/ud.server.out c=$RXE_RUNS/ud.client.out
CQ=$(qpn "$s") SQ=$(qpn "$c")
echo "--- ud: server QP $SQ, client QP $CQ"
qkey=$(sed -n 's/^\[verbs\] UD destination: QPN .*, Q_Key \(0x[0-9a-f]*\)$/\1/p' "$s")
expect_packets "UD SEND Only with the Q_Key the server used, from its QP" 1 '' from=a "name=UD Send Only" destqp="$CQ" qkey="$qkey" srcqp="$SQ" "payload=SEND operation"

# --- UD over RDMA_CM: SIDR, then the datagram with the CM's Q_Key ---
s=$RXE_RUNS/ud_cm.server.out c=$RXE_RUNS/ud_cm.client.out
CQ=$(qpn "$s") SQ=$(qpn "$c")
echo "--- ud_cm: server QP $SQ, client QP $CQ"
first=$(rows from=a destqp="$CQ" | head -n 1 | field frame)
mads_before "$first" "-c ud -R" "b CM SIDRRequest" "a CM SIDRReply"
expect_packets "-c ud -R: UD SEND Only with RDMA_PS_UDP's Q_Key, from the server's QP" 1 '' from=a "name=UD Send Only" destqp="$CQ" qkey=0x1234567 srcqp="$SQ" "payload=SEND operation"

# --- a WRITE of several MTUs ---
s=$RXE_RUNS/mtu.server.out c=$RXE_RUNS/mtu.client.out
SQ=$(qpn "$c")
mtu=$(sed -n 's/^\[verbs\] QP .* INIT -> RTR: .*, MTU \([0-9]*\),.*$/\1/p' "$c")
want=$(((MSG_SIZE + mtu - 1) / mtu))
echo "--- mtu: server QP $SQ, path MTU $mtu: $want packets a message"
expect_packets "RDMA Write First of $MSG_SIZE bytes" 1 '' from=b "name=RC RDMA Write First" destqp="$SQ" len="$MSG_SIZE"
# Each message, First to Last: consecutive PSNs, as many as MTUs. A packet
# that wire.py marks again=yes (a PSN already on the wire: rxe goes back N
# when its ACK timer fires on a loaded host) is no new packet of the
# message, so it is counted apart.
again=$(rows from=b destqp="$SQ" again=yes | grep -c 'name=RC RDMA Write')
echo "mtu: $again WRITE packet(s) sent again with a PSN already on the wire"
bad=$(rows from=b destqp="$SQ" | awk -F'\t' -v want="$want" '
	$4 !~ /RDMA Write/ || /(^|\t)again=yes(\t|$)/ { next }
	{ split($5, p, "="); psn = p[2] + 0 }
	$4 == "name=RC RDMA Write First" { if (n) bad++; n = 1; prev = psn; next }
	{ if (!n || psn != (prev + 1) % 16777216) bad++; n++; prev = psn }
	$4 == "name=RC RDMA Write Last" { if (n != want) bad++; n = 0 }
	END { print bad + 0 }')
expect_status "$bad" 0 "messages that are not First, Middle..., Last with consecutive PSNs, $want packets"

# --- multicast ---
sqp=$(printf '0x%06x' "$(sed -n 's/^==> resources created: .*, UD QP \(0x[0-9a-f]*\),.*$/\1/p' "$RXE_RUNS/mcs.out")")
qkey=$(sed -n 's/^==> joined group .* Q_Key \(0x[0-9a-f]*\))$/\1/p' "$RXE_RUNS/mcs.out")
expect_packets "multicast: one UD SEND to the group per message (-C $MC_COUNT)" "$MC_COUNT" "$MC_COUNT" from=a "to=group 239.1.1.1" "name=UD Send Only" destqp=0xffffff qkey="$qkey" srcqp="$sqp"
for ((i = 1; i <= MC_COUNT; i++)); do
	expect_packets "multicast: message $i" 1 1 "to=group 239.1.1.1" "payload=message $i of $MC_COUNT from 192.0.2.1"
done
finish
