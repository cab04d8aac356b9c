# shellcheck shell=bash
# Installing the Debian packages a script needs, once, as root or through
# sudo.  Sourced by test.sh, lint.sh, fuzz.sh, demo.sh, wire.sh, bench.sh
# and rxe-vm, each of which defines die MESSAGE (print, exit 1) and note
# MESSAGE (print) first.  Each installs what it uses itself and no more;
# the two lists here are those several of them share.

# What building the two programs takes: a compiler, CMake, pkg-config and
# rdma-core's headers (the tests' own needs are test.sh's).
# shellcheck disable=SC2034 # for the scripts that source this file
BUILD_PACKAGES=(gcc make cmake pkg-config libibverbs-dev librdmacm-dev)

# What the soft-RoCE rig (rxe-vm) uses on the host and, through the shared
# root, inside the guests: QEMU, the initramfs's busybox, kmod's depmod
# and cpio to build it, the rxe provider of libibverbs, ibv_devinfo (the
# agent waits for PORT_ACTIVE with it), iproute2's rdma and ss,
# util-linux's flock and setsid, and rdmacm-utils' rping (the rig's check
# that siw0 works, in docs/soft-roce-rig.md and the siw_rig test).
# shellcheck disable=SC2034 # for the scripts that source this file
RIG_PACKAGES=(qemu-system-x86 busybox-static rdma-core ibverbs-providers
	ibverbs-utils iproute2 kmod cpio util-linux rdmacm-utils)

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

# missing_packages PACKAGE...: print those not installed, on one line.
missing_packages() {
	local missing=() p
	for p in "$@"; do
		is_installed "$p" || missing+=("$p")
	done
	echo "${missing[*]}"
}

# install_missing_packages PACKAGE...: apt-get install those not installed.
install_missing_packages() {
	local missing=()
	command -v dpkg-query >/dev/null 2>&1 ||
		die "this script needs a Debian-like system (dpkg-query not found): install $* by hand"
	read -ra missing <<<"$(missing_packages "$@")"
	[ "${#missing[@]}" -eq 0 ] && return 0
	note "installing missing packages: ${missing[*]}"
	apt_update_once
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# installed_version PACKAGE: its installed version, or nothing.
installed_version() {
	is_installed "$1" && dpkg-query -W -f='${Version}' "$1"
}

# install_package_version PACKAGE VERSION: have PACKAGE installed at exactly
# VERSION (apt-get install PACKAGE=VERSION unless it already is), or die.
install_package_version() {
	local pkg=$1 version=$2
	[ "$(installed_version "$pkg")" = "$version" ] && return 0
	note "installing $pkg=$version"
	apt_update_once
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "$pkg=$version" >&2 ||
		die "apt-get install $pkg=$version failed (is that version in apt's sources?)"
	[ "$(installed_version "$pkg")" = "$version" ] ||
		die "$pkg is at version '$(installed_version "$pkg")' after apt-get install $pkg=$version"
}
