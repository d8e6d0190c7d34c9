#!/usr/bin/env bash
# Configure and build one kernel variant out of tree.
# Usage: kernel.sh base|patched|debug
#   base     pristine Debian tree (build/linux-base), common + base fragments
#   patched  build/linux with the series, common + patched fragments
#   debug    build/linux with the series, common + patched + debug fragments
# Output: build/kernels/<variant>/arch/x86/boot/bzImage. Nothing is rebuilt when
# the source commit, its uncommitted changes and the fragments are unchanged.
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/lib.sh"
STAGE=kernel

variant=${1:-}
case "$variant" in
base) src=$BASE_TREE; frags=(common base) ;;
patched) src=$TREE; frags=(common patched) ;;
debug) src=$TREE; frags=(common patched debug) ;;
*) echo "usage: $0 base|patched|debug" >&2; exit 2 ;;
esac
STAGE="kernel:$variant"
out=$BUILD/kernels/$variant
fragfiles=()
for f in "${frags[@]}"; do fragfiles+=("$TOP/qemu-images/$f.config"); done

need_pkgs build-essential bc bison flex libelf-dev libssl-dev cpio kmod
if [ "$variant" = base ]; then
	"$TOP/qemu-images/tree.sh" base-worktree
fi
[ -d "$src/.git" ] || [ -f "$src/.git" ] || die "no kernel tree at $src: run 'make tree'"

key=$({
	git -C "$src" rev-parse HEAD
	git -C "$src" diff HEAD
	cat "${fragfiles[@]}" "$0"
} | sha256sum | cut -d' ' -f1)
if [ -f "$out/arch/x86/boot/bzImage" ] && [ "$(cat "$out/.acomp-key" 2>/dev/null)" = "$key" ]; then
	say "up to date ($(cat "$out/include/config/kernel.release"))"
	exit 0
fi

mkdir -p "$out"
rm -f "$out/.acomp-key"
kmake() {
	run make -s -C "$src" O="$out" ARCH=x86_64 "$@"
}

say "configuring: tinyconfig + ${frags[*]}"
kmake tinyconfig >"$out/config.log" 2>&1 || { cat "$out/config.log" >&2; die "tinyconfig failed"; }
run "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${fragfiles[@]}" \
	>>"$out/config.log" 2>&1 || { cat "$out/config.log" >&2; die "merge_config.sh failed"; }
kmake olddefconfig >>"$out/config.log" 2>&1 || { cat "$out/config.log" >&2; die "olddefconfig failed"; }

# Every requested option must have survived olddefconfig. A later fragment
# overrides an earlier one, as in merge_config.sh.
declare -A want=()
order=()
while IFS= read -r line; do
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] ||
		[[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		[ -n "${want[${BASH_REMATCH[1]}]+x}" ] || order+=("${BASH_REMATCH[1]}")
		want[${BASH_REMATCH[1]}]=$line
	fi
done < <(cat "${fragfiles[@]}")
dropped=()
for opt in "${order[@]}"; do
	line=${want[$opt]}
	if [[ $line == "# "* ]]; then
		! grep -qE "^$opt=" "$out/.config" || dropped+=("$opt (wanted unset)")
	else
		grep -qxF "$line" "$out/.config" ||
			dropped+=("$opt (wanted ${line#*=}, got $(grep -E "^(# )?${opt}[= ]" "$out/.config" || echo 'nothing'))")
	fi
done
if [ ${#dropped[@]} -gt 0 ]; then
	printf '  %s\n' "${dropped[@]}" >&2
	die "${#dropped[@]} requested option(s) did not end up in $out/.config (missing dependency?)"
fi

say "building (make -j$JOBS bzImage modules; log: $out/build.log)"
start=$(date +%s)
if ! kmake -j"$JOBS" bzImage modules >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -20 >&2 || tail -20 "$out/build.log" >&2
	die "kernel build failed, see $out/build.log"
fi
# In-tree modules (the options a fragment sets to m) go to the initramfs
# under /lib/modules, with modules.dep and modules.alias, so that the kernel's
# request_module() finds them (e.g. "crypto-acompd" when acompd is a module).
rm -rf "$out/modroot"
if ! kmake INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 modules_install >>"$out/build.log" 2>&1; then
	tail -20 "$out/build.log" >&2
	die "modules_install failed, see $out/build.log"
fi
echo "$key" >"$out/.acomp-key"
say "built $(cat "$out/include/config/kernel.release") in $(($(date +%s) - start)) s"
