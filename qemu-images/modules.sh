#!/usr/bin/env bash
# Build the out-of-tree modules in consumer/*/ against one kernel variant.
# Usage: modules.sh NAME [W=1]   (a variant of qemu-images/variants)
# The sources are copied to build/consumer/<variant>/<module>/ so that no
# object lands in the repository; the .ko files end up there.
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/lib.sh"
variant=${1:?usage: modules.sh NAME [W=1] (a variant of qemu-images/variants)}
shift
STAGE="modules:$variant"
kout=$BUILD/kernels/$variant
src=$(variant_tree "$variant")
[ -f "$kout/Module.symvers" ] || die "kernel $variant is not built"
for d in "$TOP"/consumer/*/; do
	[ -f "$d/Kbuild" ] || continue
	name=$(basename "$d")
	dst=$BUILD/consumer/$variant/$name
	mkdir -p "$dst"
	rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '*.mod*' \
		--exclude '.*.cmd' --exclude 'modules.order' --exclude 'Module.symvers' "$d" "$dst/" 2>/dev/null ||
		cp -a "$d"/. "$dst/"
	if ! make -s -C "$src" O="$kout" ARCH=x86_64 M="$dst" "$@" modules >"$dst/build.log" 2>&1 ||
		grep -q 'warning:' "$dst/build.log"; then
		cat "$dst/build.log" >&2
		die "module $name does not build cleanly against $variant"
	fi
	say "built $(cd "$dst" && ls ./*.ko | sed 's|^\./||' | tr '\n' ' ')"
done
