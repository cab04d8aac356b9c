#!/usr/bin/env bash
# The transcripts of README.md and docs/*.md, from runs in the rig.
#
#   scripts/transcripts.sh --check  [--session DIR]
#   scripts/transcripts.sh --update [--session DIR]
#
# Runs every recipe of tests/rxe/transcripts.recipes on two soft-RoCE
# guests (with siw0 beside rxe0), as the ctest scenario `transcripts` does
# (tests/rxe/transcripts.sh).  --check compares each marked block of the
# pages with its fresh output, masked (scripts/transcripts.py says what is
# masked, and which kinds of block are marked and why), and names page,
# line and recipe of each block that differs; --update writes the fresh
# output, real values included, into the blocks instead.
# --session DIR: guests already started there (rxe-vm start --siw --guests
# 2 DIR, the ctest fixture's build/rxe-session); without it, two guests are
# booted for this run and stopped after it.  The programs come from
# $BUILD_DIR (default build).  Booting takes the rig's guests: take the
# shared lock as the tests do (flock /tmp/rxe.lock scripts/transcripts.sh).
# Exit status: 0 when every block matched (or was written), 1 otherwise,
# 2 for bad usage.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD_DIR=${BUILD_DIR:-build}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
RXE_VM=$ROOT/scripts/rxe-vm

usage() {
	sed -n '4,5p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
	exit 2
}

mode='' session=''
while [ $# -gt 0 ]; do
	case $1 in
	--check) mode=check; shift ;;
	--update) mode=update; shift ;;
	--session) session=${2:?--session needs a folder}; shift 2 ;;
	-h | --help) usage ;;
	*) echo "transcripts.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$mode" ] || usage

if [ -z "$session" ]; then
	session=$(mktemp -d "${TMPDIR:-/tmp}/transcripts.XXXXXX")
	trap '"$RXE_VM" stop "$session" >/dev/null 2>&1; rm -rf "$session"' EXIT
	echo "transcripts.sh: booting two guests in $session" >&2
	"$RXE_VM" start --siw --guests 2 "$session" || {
		echo "transcripts.sh: failed to start the guests in $session" >&2
		exit 1
	}
fi

update=''
[ "$mode" = update ] && update=1
RXE_VM=$RXE_VM RXE_SESSION=$session BUILD_DIR=$BUILD_DIR SOURCE_DIR=$ROOT \
	TRANSCRIPTS_UPDATE=$update bash "$ROOT/tests/rxe/transcripts.sh"
