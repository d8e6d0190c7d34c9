#!/usr/bin/env bash
# Configure and build one kernel variant out of tree.
# Usage: kernel.sh NAME   (a variant of qemu-images/variants: base, patched,
#   debug, or one of yours)
# Output: build/kernels/NAME/arch/x86/boot/bzImage. Nothing is rebuilt when
# the source commit, its uncommitted changes, the fragments and the build
# recipe (RECIPE below) are unchanged.
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/lib.sh"
STAGE=kernel
# Bump when a change to this script changes what it builds (it is part of
# the build key; comments and messages are not).
RECIPE=2

variant=${1:-}
[ -n "$variant" ] || { echo "usage: $0 NAME (a variant of qemu-images/variants)" >&2; exit 2; }
check_variants
variant "$variant" >/dev/null
read -r _ source _ <<<"$(variant "$variant")"
src=$(variant_tree "$variant")
mapfile -t fragfiles < <(variant_fragments "$variant")
STAGE="kernel:$variant"
out=$BUILD/kernels/$variant
for f in "${fragfiles[@]}"; do
	[ -f "$f" ] || die "fragment $f of variant $variant does not exist"
done

need_pkgs build-essential bc bison flex libelf-dev libssl-dev cpio kmod
case $source in
pristine) "$TOP/qemu-images/tree.sh" base-worktree ;;
ref:*)
	# A worktree of build/linux at the ref, moved to it on every build.
	ref=${source#ref:}
	commit=$(git -C "$TREE" rev-parse --verify -q "$ref^{commit}") ||
		die "ref '$ref' of variant $variant is not a commit of $TREE (git -C build/linux tag, branch)"
	if [ ! -e "$src/.git" ]; then
		rm -rf "$src"
		tree_git worktree prune
		mkdir -p "$(dirname "$src")"
		tree_git worktree add -q --detach "$src" "$commit" || die "git worktree add $src failed"
	fi
	tree_git -C "$src" checkout -q --detach "$commit" || die "cannot check out $ref in $src"
	;;
patches:*)
	# The series of a revision of this repository, applied onto the base in
	# a worktree; reapplied only when that revision's patches/ differ.
	rev=${source#patches:}
	ptree=$(git -C "$TOP" rev-parse --verify -q "$rev^{commit}:patches") ||
		die "revision '$rev' of variant $variant has no patches/ in this repository (git log -- patches/)"
	# What the worktree was made of: that series and the base it went onto.
	applied="$ptree $(tree_git rev-parse base)"
	if [ "$(cat "$src.applied" 2>/dev/null)" != "$applied" ] || [ ! -e "$src/.git" ]; then
		say "applying the series of $rev onto the base in $src"
		rm -f "$src.applied"
		[ ! -e "$src" ] || tree_git worktree remove --force "$src" || rm -rf "$src"
		tree_git worktree prune
		mkdir -p "$(dirname "$src")"
		tree_git worktree add -q --detach "$src" base || die "git worktree add $src failed"
		pdir=$(mktemp -d)
		trap 'rm -rf "$pdir"' EXIT
		git -C "$TOP" archive "$rev" patches | tar -x -C "$pdir"
		plist=()
		[ -f "$pdir/patches/series" ] &&
			mapfile -t plist < <(grep -v '^[[:space:]]*\(#\|$\)' "$pdir/patches/series")
		[ ${#plist[@]} -gt 0 ] || die "revision '$rev' of variant $variant has no patch in patches/series"
		# Committer dates from the patches: the same series gives the same
		# commits, so a re-made worktree does not force a rebuild.
		if ! tree_git -C "$src" am -q --committer-date-is-author-date \
			"${plist[@]/#/$pdir/patches/}" >"$src.am.log" 2>&1; then
			tree_git -C "$src" am --abort >/dev/null 2>&1 || true
			die "the series of $rev does not apply onto the base: $src.am.log"
		fi
		echo "$applied" >"$src.applied"
	fi
	;;
esac
[ -d "$src/.git" ] || [ -f "$src/.git" ] ||
	die "no kernel git tree at $src for variant $variant ($source; run 'make tree' for the base and the series)"

key=$({
	git -C "$src" rev-parse HEAD
	git -C "$src" diff HEAD
	cat "${fragfiles[@]}"
	echo "recipe $RECIPE"
} | sha256sum | cut -d' ' -f1)
if [ -f "$out/arch/x86/boot/bzImage" ] && [ "$(cat "$out/.acomp-key" 2>/dev/null)" = "$key" ]; then
	say "up to date ($(cat "$out/include/config/kernel.release"))"
	variant_identity "$variant" >"$out/.acomp-source"
	exit 0
fi

mkdir -p "$out"
rm -f "$out/.acomp-key"
kmake() {
	run make -s -C "$src" O="$out" ARCH=x86_64 "$@"
}

say "configuring: tinyconfig + $(for f in "${fragfiles[@]}"; do basename "$f" .config; done | paste -sd+)"
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
# What this build was made from, for the records of the boots that use it.
variant_identity "$variant" >"$out/.acomp-source"
say "built $(cat "$out/include/config/kernel.release") in $(($(date +%s) - start)) s"
