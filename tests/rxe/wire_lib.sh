# shellcheck shell=bash
# The packets of a capture as scripts/wire.py --rows writes them (ROWS: the
# rows file), for the scenarios that check the wire: wire_two_guests and
# hints (its dead path).  Sourced after lib.sh.

# rows KEY=VALUE...: the packets (rows of wire.py --rows) that have every
# field given, in the order they were captured.
rows() {
	awk -F'\t' -v want="$(printf '%s\t' "$@")" '
		BEGIN { n = split(want, w, "\t") - 1 }
		{
			for (i = 1; i <= n; i++) {
				hit = 0
				for (j = 1; j <= NF; j++)
					if ($j == w[i]) { hit = 1; break }
				if (!hit) next
			}
			print
		}' "$ROWS"
}

# field KEY: the value of KEY in the first row on stdin.
field() {
	head -n 1 | tr '\t' '\n' | sed -n "s/^$1=//p"
}

# expect_packets WHAT MIN MAX KEY=VALUE...: between MIN and MAX packets
# (MAX may be '') have every field given.
expect_packets() {
	local what=$1 min=$2 max=$3 n
	shift 3
	n=$(rows "$@" | wc -l)
	if [ "$n" -ge "$min" ] && { [ -z "$max" ] || [ "$n" -le "$max" ]; }; then
		_rxe_pass "$what: $n packet(s) with $*"
	else
		_rxe_fail "$(_rxe_where)" "$what: expected ${min}..${max:-} packets with $*, found $n" "$ROWS"
	fi
}

# qpn FILE: the peer's QP number that FILE's program printed, as wire.py
# writes it (0x%06x).
qpn() {
	printf '0x%06x' "$(sed -n 's/^Remote QP number = //p' "$1")"
}

# psn ROW: the PSN of a row.
psn() {
	field psn <<<"$1"
}
