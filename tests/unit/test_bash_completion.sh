#!/usr/bin/env bash
# The bash completion of the five programs, as bash-completion runs it:
#
#   test_bash_completion.sh BUILD_DIR COMPLETION_FILE BASH_COMPLETION
#
# Each program's "--" completes to exactly the long options its --help
# lists (--help is printed from the program's option table, which
# test_options holds to the table), and the values complete as the
# programs take them.
set -u
build=$1 file=$2 framework=$3
# shellcheck source=/dev/null
. "$framework"
# shellcheck source=packaging/bash-completion/rdma_rc_example
. "$file"
PATH=$build:$PATH
passed=0 failed=0

# complete WORDS...: what completing the last word of that line offers, one
# a line, sorted.
complete() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	# compopt speaks only inside a real completion: its complaint is noise
	_rdma_programs "$1" "${COMP_WORDS[COMP_CWORD]}" \
		"${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

# expect WHAT WANT GOT: WANT and GOT (lines) are the same.
expect() {
	if [ "$2" = "$3" ]; then
		echo "ok: $1"
		passed=$((passed + 1))
	else
		echo "FAIL: $1"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/  | /'
		failed=$((failed + 1))
	fi
}

for program in rdma_rc_example rdma_lessons rdma_check rdma_bench rdma_cluster_check; do
	want=$("$program" --help | sed -nE 's/^ +(-[A-Za-z0-9], )?(--[A-Za-z0-9_-]+).*/\2/p' | sort -u)
	[ "$(wc -l <<<"$want")" -gt 10 ] || { echo "FAIL: $program --help lists no options"; exit 1; }
	expect "$program --: every long option of --help, and no other" \
		"$want" "$(complete "$program" --)"
done
expect "rdma_bench --g: perftest's GID option, not the example's" \
	"--gid-index" "$(complete rdma_bench --g)"
expect "rdma_check --o: no lesson list (the check runs its own)" \
	"" "$(complete rdma_check --o)"
expect "rdma_bench, the first word: the measurement" \
	"$(printf '%s\n' bw lat)" "$(complete rdma_bench '')"
expect "rdma_bench -d x, then a word: still the measurement" \
	"$(printf '%s\n' bw lat)" "$(complete rdma_bench -d x '')"
got=$(complete rdma_bench lat '')
if grep -qx -e lat -e bw <<<"$got"; then
	expect "rdma_bench lat, then a word: a host, no second measurement" "no lat or bw" "$got"
else
	expect "rdma_bench lat, then a word: a host, no second measurement" "" ""
fi
expect "rdma_bench --op: its operations" \
	"$(printf '%s\n' cmp_swap fetch_add read send write write_imm)" \
	"$(complete rdma_bench lat --op '')"
expect "rdma_bench -A: perftest's names of the atomics" \
	"$(printf '%s\n' CMP_AND_SWAP FETCH_AND_ADD)" "$(complete rdma_bench -A '')"
expect "rdma_bench --output: what it prints alone" \
	"$(printf '%s\n' bandwidth latency message_rate)" \
	"$(complete rdma_bench --output '')"
expect "rdma_bench -c: RC only" "RC" "$(complete rdma_bench -c '')"
expect "rdma_lessons -c: the three transports" \
	"$(printf '%s\n' rc uc ud)" "$(complete rdma_lessons -c '')"
expect "rdma_lessons -o send,re: the next lesson of the list" \
	"send,read" "$(complete rdma_lessons -o send,re)"
ops=$(rdma_lessons --help | awk '/^operations:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z_]+  / { print $1 }' | sort)
expect "rdma_lessons -o: every lesson --help lists" "$ops" \
	"$(complete rdma_lessons -o '')"
expect "rdma_rc_example --o: no lesson list (the manual's flow only)" \
	"" "$(complete rdma_rc_example --o)"
expect "rdma_rc_example -c: nothing (a transport is rdma_lessons's)" \
	"" "$(complete rdma_rc_example -c '')"
expect "rdma_bench -t: a number, nothing offered" "" "$(complete rdma_bench -t '')"
expect "rdma_cluster_check --pattern: its patterns" \
	"$(printf '%s\n' all ring sweep)" "$(complete rdma_cluster_check --pattern '')"
expect "rdma_cluster_check --wait: a number, nothing offered" "" \
	"$(complete rdma_cluster_check --wait '')"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
