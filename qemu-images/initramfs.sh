#!/usr/bin/env bash
# Build the guest initramfs, deterministically (sorted entries, mtime 0,
# uid/gid 0). Usage: [KMODROOT=DIR] initramfs.sh OUT.cpio.gz [MODULE.ko ...]
# Contents: busybox-static, fio and stress-ng with their shared libraries,
# the static programs in build/guest-bin, the given modules (/acomp/modules),
# /init, the in-guest test scripts (/acomp/tests), the guest helpers
# (/acomp/lib) and the bench scripts (/acomp/bench): payload() below.
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/lib.sh"
STAGE=initramfs

# payload: the project's files the initramfs carries, as "SOURCE DEST-DIR"
# (SOURCE relative to the top of the tree); initramfs.sh --list prints the
# sources, which the Makefile's initramfs rule depends on.
payload() {
	(
		cd "$TOP"
		echo "qemu-images/init.sh /"
		for f in tests/runner.sh tests/tap.sh tests/soak-guest.sh tests/guest/*.sh tests/fio/*.fio; do
			[ -e "$f" ] && echo "$f acomp/tests"
		done
		for f in guest/*.sh; do echo "$f acomp/lib"; done
		for f in bench/guest.sh bench/fio/*.fio; do echo "$f acomp/bench"; done
		for f in bench/scenarios/*.sh; do echo "$f acomp/bench/scenarios"; done
	)
}
if [ "${1:-}" = --list ]; then
	payload | cut -d' ' -f1
	exit 0
fi

out=${1:?usage: initramfs.sh OUT.cpio.gz [MODULE.ko|DIR ...] | --list}
shift
need_pkgs busybox-static fio stress-ng cpio gzip bash e2fsprogs bc

root=$BUILD/initramfs.root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,out,acomp/bin,acomp/modules,acomp/tests,acomp/bench}

cp /bin/busybox "$root/bin/busybox"
for app in $(/bin/busybox --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done

# Dynamically linked tools and every library they load (ldd resolves the chain),
# as SOURCE:DEST. bash, mke2fs and bc serve the kernel's zram selftest
# (tools/testing/selftests/zram: bash scripts that make ext4 on zram).
for pair in /usr/bin/fio:/usr/bin/fio /usr/bin/stress-ng:/usr/bin/stress-ng \
	/usr/bin/bash:/bin/bash /usr/sbin/mke2fs:/sbin/mke2fs /usr/bin/bc:/usr/bin/bc; do
	exe=${pair%%:*}
	cp "$exe" "$root${pair#*:}"
	for lib in $(ldd "$exe" | awk '/=>/ {print $3} /^\t\/lib/ {print $1}'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
# The dynamic loader lives in /lib64 on x86_64.
[ -e "$root/lib64/ld-linux-x86-64.so.2" ] || cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
# On merged-/usr systems ldd reports /lib/x86_64-linux-gnu paths; make /usr/lib point there too.
ln -s ../lib "$root/usr/lib"
ln -s mke2fs "$root/sbin/mkfs.ext4"
[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"

if [ -d "$BUILD/guest-bin" ]; then
	cp "$BUILD"/guest-bin/* "$root/acomp/bin/" 2>/dev/null || true
fi
for m in "$@"; do
	if [ -d "$m" ]; then
		find "$m" -name '*.ko' -exec cp {} "$root/acomp/modules/" \;
	else
		cp "$m" "$root/acomp/modules/"
	fi
done
# The kernel's own modules (kernel.sh installs them), if KMODROOT names them.
if [ -n "${KMODROOT:-}" ] && [ -d "$KMODROOT/lib/modules" ]; then
	cp -a "$KMODROOT/lib/modules" "$root/lib/"
fi
ln -s ../bin/busybox "$root/sbin/modprobe"
# The kernel's own zram selftest, from the development tree.
if [ -d "$BUILD/linux/tools/testing/selftests/zram" ]; then
	mkdir -p "$root/acomp/selftests"
	cp -r "$BUILD/linux/tools/testing/selftests/zram" "$root/acomp/selftests/"
fi
[ -f "$BUILD/corpus.bin" ] && cp "$BUILD/corpus.bin" "$root/acomp/corpus.bin"

payload | while read -r src dest; do
	mkdir -p "$root/$dest"
	cp "$TOP/$src" "$root/$dest/"
done
mv "$root/init.sh" "$root/init"
chmod 755 "$root/init"

find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --reproducible -R 0:0 --quiet) | gzip -1 -n >"$out.tmp"
mv "$out.tmp" "$out"
say "wrote $out ($(du -h "$out" | cut -f1))"
