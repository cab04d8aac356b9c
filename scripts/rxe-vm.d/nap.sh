# shellcheck shell=bash
# Sourced by rxe-vm (the host command) and by its guest agent.
#
# Sleeping without a process: open_nap makes a FIFO nobody writes to and
# keeps it open (its name is removed at once); `nap S` is then `read -t S`
# on it.  The loops that wait on the guests pause often, and a `sleep`
# process per pause costs the CPUs that run the guests.
open_nap() {
	mkfifo "$1" || return 1
	exec {NAP_FD}<>"$1"
	rm -f "$1"
}

nap() {
	read -r -t "$1" -u "$NAP_FD" _ || true
}
