# shellcheck shell=bash
# Installing the Debian packages a script needs, once, as root or through
# sudo.  Sourced by test.sh, lint.sh, fuzz.sh and rxe-vm, each of which
# defines die MESSAGE (print, exit 1) and note MESSAGE (print) first.

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root to run '$*' and sudo is not installed"
	fi
}

APT_UPDATED=0
apt_update_once() {
	[ "$APT_UPDATED" -eq 1 ] && return 0
	note "running apt-get update"
	as_root apt-get update -q >&2 || die "apt-get update failed"
	APT_UPDATED=1
}

is_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# install_missing_packages PACKAGE...: apt-get install those not installed.
install_missing_packages() {
	local missing=() p
	command -v dpkg-query >/dev/null 2>&1 ||
		die "this script needs a Debian-like system (dpkg-query not found): install $* by hand"
	for p in "$@"; do
		is_installed "$p" || missing+=("$p")
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	note "installing missing packages: ${missing[*]}"
	apt_update_once
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}
