#!/usr/bin/env bash
# Install every Debian package the host side of the project uses, in one go.
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/lib.sh"
STAGE=deps
mkdir -p "$BUILD"
need_pkgs linux-source-6.1 git xz-utils build-essential bc bison flex libelf-dev \
	libssl-dev cpio kmod gzip qemu-system-x86 busybox-static fio stress-ng \
	python3 python3-ply python3-git gnuplot-nox shellcheck
