# shellcheck shell=bash
# Common helpers for the host-side scripts. Sourced, never run.

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux
# shellcheck disable=SC2034 # used by the scripts that source this file
BASE_TREE=$BUILD/linux-base
SRC_TARBALL=${SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${JOBS:-$(($(nproc) + 1))}

# Pinned build identity so that kernels are reproducible.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=acomp-swap
export KBUILD_BUILD_HOST=acomp-swap
export KBUILD_BUILD_VERSION=1
# No "+" suffix from setlocalversion: the release names the variant instead.
export LOCALVERSION=

STAGE=${STAGE:-?}

die() {
	echo "error [$STAGE]: $*" >&2
	exit 1
}

say() {
	echo "[$STAGE] $*" >&2
}

# Echo an external command, then run it.
run() {
	echo "+ $*" >&2
	"$@"
}

# Install the Debian packages named on the command line that are missing.
# Runs apt-get update first only when a package cannot be found.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing missing packages: ${missing[*]}"
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >"$BUILD/apt.log" 2>&1; then
		$sudo apt-get update -q >>"$BUILD/apt.log" 2>&1 || true
		$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$BUILD/apt.log" 2>&1 ||
			die "apt-get install ${missing[*]} failed, see $BUILD/apt.log"
	fi
}

# The Debian version of the kernel source package, e.g. 6.1.192-3.
debian_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1
}

# The pristine base commit of the development tree.
base_commit() {
	git -C "$TREE" rev-list --max-parents=0 HEAD | tail -n 1
}

tree_git() {
	git -C "$TREE" -c user.name=acomp-swap -c user.email=acomp-swap@localhost \
		-c core.abbrev=12 -c advice.detachedHead=false "$@"
}

# Patches listed in patches/series, in order.
series_patches() {
	[ -f "$TOP/patches/series" ] || return 0
	grep -v '^[[:space:]]*\(#\|$\)' "$TOP/patches/series" || true
}
