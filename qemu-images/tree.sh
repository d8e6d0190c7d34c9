#!/usr/bin/env bash
# Kernel development tree: `tree` extracts the Debian source into build/linux,
# commits it pristine and applies patches/series; `patches` exports the commits
# above the base back into patches/. Usage: tree.sh tree|patches|base-worktree
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/lib.sh"

STATE=$BUILD/linux.series	# hash of the series the tree was last synced with

# Export base..HEAD of the tree as patches into directory $1.
export_series() {
	local out=$1
	mkdir -p "$out"
	tree_git -c diff.renames=true -c diff.noprefix=false -c format.signoff=false \
		format-patch -q --no-signature --zero-commit --numbered \
		--start-number 1 -o "$out" "$(base_commit)..HEAD" >/dev/null
}

# Hash of a directory's NNNN-*.patch files (not the cover letter).
series_hash() {
	local dir=$1
	(cd "$dir" && find . -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' | LC_ALL=C sort | xargs -r cat) | sha256sum | cut -d' ' -f1
}

extract() {
	need_pkgs linux-source-6.1 git xz-utils
	[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL missing even though linux-source-6.1 is installed"
	local ver tmp
	ver=$(debian_version)
	tmp=$BUILD/linux.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	say "extracting $SRC_TARBALL (Debian linux-source-6.1 $ver)"
	run tar -xJf "$SRC_TARBALL" -C "$tmp" --strip-components=1
	git -C "$tmp" init -q -b series
	tree_git_tmp() { git -C "$tmp" -c user.name=acomp-swap -c user.email=acomp-swap@localhost "$@"; }
	tree_git_tmp add -A -f .
	GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
		tree_git_tmp commit -q -m "Debian linux-source-6.1 $ver (pristine base)" \
		-m "Extracted unmodified from $SRC_TARBALL of the Debian package linux-source-6.1 version $ver."
	tree_git_tmp tag base
	# Kbuild output goes to O= directories; keep the source tree clean.
	mv "$tmp" "$TREE"
}

apply_series() {
	local p n=0
	say "resetting the tree to its base and applying patches/series"
	tree_git checkout -q -f -B series base
	tree_git clean -q -fdx
	while read -r p; do
		[ -f "$TOP/patches/$p" ] || die "patches/series names $p, which is not in patches/"
		if ! tree_git am -q --keep-cr "$TOP/patches/$p" >"$BUILD/git-am.log" 2>&1; then
			tree_git am --abort >/dev/null 2>&1 || true
			cat "$BUILD/git-am.log" >&2
			die "patch $p does not apply (git am said the above); the tree is left at the patch before it"
		fi
		n=$((n + 1))
	done < <(series_patches)
	say "applied $n patch(es)"
}

cmd_tree() {
	mkdir -p "$BUILD"
	[ -d "$TREE/.git" ] || extract
	local want have tmp
	want=$(series_hash "$TOP/patches")
	tmp=$(mktemp -d)
	export_series "$tmp"
	have=$(series_hash "$tmp")
	rm -rf "$tmp"
	if [ "$want" = "$have" ]; then
		echo "$want" >"$STATE"
		say "tree is up to date with patches/ ($(series_patches | wc -l) patch(es))"
		return 0
	fi
	if [ -n "$(tree_git status --porcelain --untracked-files=no)" ]; then
		die "build/linux has uncommitted changes and differs from patches/: commit them and run 'make patches', or discard them"
	fi
	if [ "${FORCE:-0}" != 1 ] && [ -f "$STATE" ] && [ "$(cat "$STATE")" != "$have" ]; then
		die "build/linux has commits that are not in patches/: run 'make patches' to keep them, or 'make tree FORCE=1' to drop them"
	fi
	apply_series
	echo "$want" >"$STATE"
}

cmd_patches() {
	[ -d "$TREE/.git" ] || die "no tree: run 'make tree' first"
	if [ -n "$(tree_git status --porcelain --untracked-files=no)" ]; then
		say "warning: build/linux has uncommitted changes; they are not exported"
	fi
	# Debian's top-level .gitignore ignores everything: new files need git add -f.
	local ignored
	ignored=$(tree_git ls-files --others --ignored --exclude-standard | head -n 10)
	if [ -n "$ignored" ]; then
		say "warning: files in build/linux that git ignores (Debian's .gitignore has '/*'; add new files with 'git add -f'):"
		echo "$ignored" | sed 's/^/  /' >&2
	fi
	# Whoever exports the series signs it (series_identity in lib.sh).
	local tmp f id n cover=$TOP/patches/0000-cover-letter.patch line
	id=$(series_identity)
	if [ "$id" = "$SERIES_PLACEHOLDER" ]; then
		say "note: no git identity is configured for build/linux (git config user.name and user.email) and ACOMP_SIGNOFF is unset: the series keeps the placeholder author and sign-off '$SERIES_PLACEHOLDER', which no one can sign for"
	else
		n=$(sign_series "$id")
		[ "$n" = 0 ] || say "$n commit(s) now authored and signed off by $id instead of the placeholder"
		if [ -f "$cover" ] && grep -qxF "From: $SERIES_PLACEHOLDER" "$cover"; then
			while IFS= read -r line; do
				[ "$line" = "From: $SERIES_PLACEHOLDER" ] && line="From: $id"
				printf '%s\n' "$line"
			done <"$cover" >"$cover.new"
			mv "$cover.new" "$cover"
		fi
	fi
	tmp=$(mktemp -d)
	export_series "$tmp"
	find "$TOP/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	: >"$TOP/patches/series.new"
	for f in $(cd "$tmp" && ls | LC_ALL=C sort); do
		mv "$tmp/$f" "$TOP/patches/$f"
		echo "$f" >>"$TOP/patches/series.new"
	done
	rm -rf "$tmp"
	mv "$TOP/patches/series.new" "$TOP/patches/series"
	series_hash "$TOP/patches" >"$STATE"
	say "exported $(series_patches | wc -l) patch(es) to patches/"
}

# A checkout of the pristine base for the unpatched kernel.
cmd_base_worktree() {
	[ -d "$TREE/.git" ] || cmd_tree
	if [ ! -e "$BASE_TREE/.git" ]; then
		tree_git worktree prune
		run tree_git worktree add -q --detach "$BASE_TREE" base
	fi
	[ "$(git -C "$BASE_TREE" rev-parse HEAD)" = "$(tree_git rev-parse base)" ] ||
		die "$BASE_TREE is not at the base commit"
}

case "${1:-}" in
tree) STAGE=tree cmd_tree ;;
patches) STAGE=patches cmd_patches ;;
base-worktree) STAGE=tree cmd_base_worktree ;;
*) echo "usage: $0 tree|patches|base-worktree" >&2; exit 2 ;;
esac
