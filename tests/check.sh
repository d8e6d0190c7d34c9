#!/usr/bin/env bash
# make check: static checks of the series and of the harness.
#   - every patch in patches/series passes checkpatch.pl --strict
#   - the series applies with git am onto the pristine base
#   - headers the series touches get no kernel-doc warning the base lacks
#   - out-of-tree modules in consumer/ build with W=1 against the patched tree
#   - shell scripts pass shellcheck; C workloads build with -Wall -Wextra -Werror
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=qemu-images/lib.sh
. "$TOP/qemu-images/lib.sh"
STAGE=check
# checkpatch runs scripts/spdxcheck.py, which needs Debian's python3 with ply and git.
export PATH=/usr/bin:/bin:$PATH

failed=()
step() { echo "== $*"; }
bad() { echo "FAIL: $*"; failed+=("$1"); }

"$TOP/qemu-images/tree.sh" tree >/dev/null

step "checkpatch --strict"
mapfile -t series < <(series_patches)
cover=()
[ -f "$TOP/patches/0000-cover-letter.patch" ] && cover=(0000-cover-letter.patch)
for p in "${series[@]}"; do
	# A warning the commit message defends ("checkpatch's TYPE warning ...
	# is expected: why") is not a failure; any other is.
	ignore=$(sed -n "/^---$/q; s/.*checkpatch's \([A-Z_]*\) warning.*/\1/p" "$TOP/patches/$p" | paste -sd, -)
	if ! (cd "$TREE" && scripts/checkpatch.pl --strict --quiet ${ignore:+--ignore "$ignore"} \
		"$TOP/patches/$p") >"$BUILD/checkpatch.out" 2>&1; then
		sed 's/^/  /' "$BUILD/checkpatch.out"
		bad "checkpatch: $p"
	fi
	grep -q '^Signed-off-by: ' "$TOP/patches/$p" || bad "no Signed-off-by: $p"
done
echo "  ${#series[@]} patch(es)${cover:+ and a cover letter}"
# grep finds nothing in a signed series: not a failure.
placeholder=$(cd "$TOP/patches" && { grep -lxF "From: $SERIES_PLACEHOLDER" "${series[@]}" || true; } | wc -l)
[ "$placeholder" = 0 ] ||
	echo "  note: $placeholder patch(es) carry the placeholder author and sign-off '$SERIES_PLACEHOLDER': configure git user.name and user.email (or ACOMP_SIGNOFF='Name <email>') and run make patches to sign the series"

step "series applies onto the pristine base"
scratch=$BUILD/check-tree
tree_git worktree remove --force "$scratch" >/dev/null 2>&1 || rm -rf "$scratch"
tree_git worktree prune
tree_git worktree add -q --detach "$scratch" base
for p in "${series[@]}"; do
	if ! git -C "$scratch" -c user.name=check -c user.email=check@localhost am -q "$TOP/patches/$p" >/dev/null 2>&1; then
		bad "does not apply: $p"
		break
	fi
done
tree_git worktree remove --force "$scratch"

step "kernel-doc on headers the series touches (no new warning)"
# kernel_doc_msgs FILE: its kernel-doc warnings without the "file:line: " prefix.
kernel_doc_msgs() {
	(cd "$TREE" && scripts/kernel-doc -none "$1" 2>&1) | sed -E 's/^[^:]*:[0-9]+: //' | sort
}
for h in $(cd "$TREE" && git diff --name-only base HEAD -- 'include/*.h' '*.h'); do
	[ -f "$TREE/$h" ] || continue
	kernel_doc_msgs "$h" >"$BUILD/kdoc.new"
	: >"$BUILD/kdoc.base"
	if git -C "$TREE" cat-file -e "base:$h" 2>/dev/null; then
		git -C "$TREE" show "base:$h" >"$TREE/.kdoc-base.h"
		kernel_doc_msgs .kdoc-base.h >"$BUILD/kdoc.base"
		rm -f "$TREE/.kdoc-base.h"
	fi
	new=$(comm -13 "$BUILD/kdoc.base" "$BUILD/kdoc.new")
	if [ -n "$new" ]; then
		echo "$new" | sed 's/^/  /'
		bad "kernel-doc: $h"
	elif [ -s "$BUILD/kdoc.base" ]; then
		echo "  $h: $(wc -l <"$BUILD/kdoc.base") warning(s) already in the base, none added"
	fi
done

step "consumer modules with W=1"
if compgen -G "$TOP/consumer/*/Kbuild" >/dev/null; then
	cand=$(variants_with candidate | head -1)
	"$TOP/qemu-images/kernel.sh" "$cand" >/dev/null
	"$TOP/qemu-images/modules.sh" "$cand" W=1 || bad "consumer modules W=1"
else
	echo "  no modules in consumer/ yet"
fi

step "shellcheck"
mapfile -t scripts < <(cd "$TOP" && git ls-files '*.sh' .ci/run 2>/dev/null; cd "$TOP" && ls tests/guest/*.sh qemu-images/*.sh bench/*.sh 2>/dev/null)
mapfile -t scripts < <(printf '%s\n' "${scripts[@]}" | sort -u)
(cd "$TOP" && shellcheck -x -S warning "${scripts[@]}") || bad "shellcheck"

step "C workloads: -Wall -Wextra -Werror"
for c in "$TOP"/bench/*.c "$TOP"/tests/*.c; do
	[ -f "$c" ] || continue
	gcc -static -O2 -Wall -Wextra -Werror -o /dev/null "$c" || bad "cc: $c"
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "make check: ${#failed[@]} failure(s): ${failed[*]}"
	exit 1
fi
echo "make check: clean"
