#!/usr/bin/env bash
# Static checks, all of which must be clean (CI runs this):
#   - clang-format --dry-run --Werror on every C file (the repo's .clang-format)
#   - cppcheck with the check groups below
#   - clang-tidy with the checks listed (and the reasons for those left out)
#     in .clang-tidy, on every C file of a clang build's compile database
#   - the manual's steps name no mode of their own: no "bench" in them, and
#     none of the check mode's names (--check, check.h, check_*, CHECK_*)
#   - no file of a program reaches itself through calls, and no library
#     calls one above it (scripts/call_cycles.py, from nm of that build)
#   - every verb of the manual's flow at most 3 calls below rdma_rc_example's
#     main and rdma_lessons's, on named calls (GNU cflow's tree,
#     scripts/verb_depth.py)
#   - every path of the tree and every function of ours that README.md,
#     docs/*.md, the man pages and the code's comments name exists
#     (scripts/check_docs.py)
#   - shellcheck on every shell script: *.sh, and every file whose first
#     line runs a shell (rxe-vm, rxe-vm.d/agent and init, .ci/run)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
LINT_DIR=${LINT_DIR:-$ROOT/build-lint}
# cppcheck groups: "warning" (likely bugs), "performance", "portability".
# Not "style": most of what it reports here is variableScope, asking for
# declarations in the innermost block, where the kernel style this code
# follows puts them at the top of the function.
CPPCHECK_ENABLE=warning,performance,portability

die() {
	echo "lint.sh: $*" >&2
	exit 1
}
note() {
	echo "lint.sh: $*" >&2
}
# shellcheck source=scripts/packages.sh
. "$ROOT/scripts/packages.sh"
# The checkers, and clang and nm for the build that call_cycles.py reads.
install_missing_packages clang clang-format clang-tidy cppcheck binutils \
	cmake make pkg-config libibverbs-dev librdmacm-dev python3 shellcheck \
	cflow

cd "$ROOT"
mapfile -t c_files < <(git ls-files '*.c' '*.h')
status=0

echo "lint.sh: clang-format on ${#c_files[@]} files"
clang-format --dry-run --Werror "${c_files[@]}" || status=1

echo "lint.sh: cppcheck --enable=$CPPCHECK_ENABLE"
cppcheck --quiet --std=c11 --library=posix --enable="$CPPCHECK_ENABLE" \
	--error-exitcode=1 -I include -I src \
	src tests/unit tests/fuzz ||
	status=1

echo "lint.sh: clang-tidy (checks in .clang-tidy)"
CC=clang cmake -S "$ROOT" -B "$LINT_DIR" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
	>/dev/null
mapfile -t tu < <(git ls-files '*.c' | grep -v '^tests/fuzz/')
printf '%s\n' "${tu[@]}" |
	xargs -P2 -n4 clang-tidy -p "$LINT_DIR" --quiet 2>/dev/null ||
	status=1

# The steps of the manual's flow, and the operations: the benchmark and
# the check are modes beside them, which only main.c names.
STEP_FILES=(src/config.c src/device.c src/resources.c src/sock.c
	src/exchange.c src/qp.c src/post.c src/completion.c src/operations.c
	src/ops include/config.h include/device.h include/resources.h
	include/sock.h include/exchange.h include/qp.h include/post.h
	include/completion.h include/operations.h include/ops)
echo "lint.sh: no mention of the benchmark in the manual's steps"
if grep -rin bench "${STEP_FILES[@]}"; then
	echo "lint.sh: the lines above name the benchmark inside the manual's steps" >&2
	status=1
fi
echo "lint.sh: no mention of the check mode in the manual's steps"
CHECK_NAMES='--check|check\.h|check_(config|run|is_on|report|local|pair|host)|rdma_check|CHECK_'
if grep -rnE -- "$CHECK_NAMES" "${STEP_FILES[@]}"; then
	echo "lint.sh: the lines above name the check mode inside the manual's steps" >&2
	status=1
fi

echo "lint.sh: no ring of calls between files or libraries"
cmake --build "$LINT_DIR" -j2 --target rdma_rc_example rdma_lessons \
	rdma_mc_example rdma_bench rdma_check >/dev/null || status=1
python3 "$ROOT/scripts/call_cycles.py" "$LINT_DIR" rdma_rc_example \
	rdma_lessons rdma_mc_example rdma_bench rdma_check || status=1

# A learner follows named calls from main down to the verbs, as in the
# manual, whose example has each within 3 calls. cflow reads the sources
# of one program at a time (not the check's, the benchmark's or
# rdma_mc_example's; config.c calls no verb) and cannot follow a function
# pointer: a verb reached only through one is not found. Both programs are
# held to the manual's verbs: rdma_rc_example (src/main.c, on the steps:
# src/*.c and src/common/) and rdma_lessons (src/lessons/main.c, on those
# and src/ops/, src/cm/, src/variants/, src/extras/). --new-api's verbs are
# the steps' hook (resources_sizes.extended): one file,
# src/variants/new_api.c, each verb in the step that replaces the manual's
# call, which cflow cannot follow from main.
echo "lint.sh: the manual's verbs within 3 calls of rdma_rc_example's main (cflow)"
mapfile -t steps_sources < <(git ls-files 'src/*.c' | grep -E \
	'^src/([^/]+|common/[^/]+)\.c$' |
	grep -v -e '^src/config\.c$' -e '^src/main\.c$')
cflow --cpp -i _ --main main -I include -I src src/main.c \
	"${steps_sources[@]}" 2>/dev/null >"$LINT_DIR/cflow.txt" || status=1
python3 "$ROOT/scripts/verb_depth.py" --verbs manual "$LINT_DIR/cflow.txt" ||
	status=1
echo "lint.sh: the manual's verbs within 3 calls of rdma_lessons's main (cflow)"
mapfile -t lessons_sources < <(git ls-files 'src/*.c' | grep -E \
	'^src/([^/]+|ops/[^/]+|cm/[^/]+|variants/[^/]+|extras/[^/]+|common/[^/]+)\.c$' |
	grep -v -e '^src/config\.c$' -e '^src/main\.c$')
cflow --cpp -i _ --main main -I include -I src src/lessons/main.c \
	"${lessons_sources[@]}" 2>/dev/null >"$LINT_DIR/cflow-lessons.txt" ||
	status=1
python3 "$ROOT/scripts/verb_depth.py" --verbs manual \
	"$LINT_DIR/cflow-lessons.txt" || status=1

# Docs that cannot drift: a path or a function a page or a comment names
# and the tree lacks is one line, FILE:LINE and what is missing.
echo "lint.sh: the paths and functions the docs and comments name exist"
python3 "$ROOT/scripts/check_docs.py" "$ROOT" || status=1

# The files git tracks that are shell: by name, or by their #! line.
shell_scripts() {
	local f
	git ls-files | while IFS= read -r f; do
		[ -f "$f" ] || continue
		case "$f" in
		*.sh) echo "$f" ;;
		*) head -n 1 -- "$f" | grep -qE '^#!.*[/ ](ba|da|k)?sh( |$)' &&
			echo "$f" ;;
		esac
	done
}
mapfile -t sh_files < <(shell_scripts)
echo "lint.sh: shellcheck on ${#sh_files[@]} shell scripts"
# -x: follow what a script sources, where its directives or a
# .shellcheckrc say the file is, and check the two together.
shellcheck -x "${sh_files[@]}" || status=1

if [ "$status" -ne 0 ]; then
	echo "lint.sh: FAILED" >&2
else
	echo "lint.sh: clean"
fi
exit "$status"
