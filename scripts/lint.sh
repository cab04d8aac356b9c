#!/usr/bin/env bash
# Static checks, all of which must be clean (CI runs this):
#   - clang-format --dry-run --Werror on every C file (the repo's .clang-format)
#   - cppcheck with the check groups below
#   - clang-tidy with the checks listed (and the reasons for those left out)
#     in .clang-tidy, on every C file of a clang build's compile database
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
LINT_DIR=${LINT_DIR:-$ROOT/build-lint}
# cppcheck groups: "warning" (likely bugs), "performance", "portability".
# Not "style": most of what it reports here is variableScope, asking for
# declarations in the innermost block, where the kernel style this code
# follows puts them at the top of the function.
CPPCHECK_ENABLE=warning,performance,portability

cd "$ROOT"
mapfile -t c_files < <(git ls-files '*.c' '*.h')
status=0

echo "lint.sh: clang-format on ${#c_files[@]} files"
clang-format --dry-run --Werror "${c_files[@]}" || status=1

echo "lint.sh: cppcheck --enable=$CPPCHECK_ENABLE"
cppcheck --quiet --std=c11 --library=posix --enable="$CPPCHECK_ENABLE" \
	--error-exitcode=1 -I include -I src/ops src tests/unit tests/fuzz ||
	status=1

echo "lint.sh: clang-tidy (checks in .clang-tidy)"
CC=clang cmake -S "$ROOT" -B "$LINT_DIR" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
	>/dev/null
mapfile -t tu < <(git ls-files '*.c' | grep -v '^tests/fuzz/')
printf '%s\n' "${tu[@]}" |
	xargs -P2 -n4 clang-tidy -p "$LINT_DIR" --quiet 2>/dev/null ||
	status=1

if [ "$status" -ne 0 ]; then
	echo "lint.sh: FAILED" >&2
else
	echo "lint.sh: clean"
fi
exit "$status"
