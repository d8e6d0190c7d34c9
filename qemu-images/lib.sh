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

# The author and sign-off of the series until someone who can sign it is
# configured (series_identity).
# shellcheck disable=SC2034 # used by tree.sh and check.sh
SERIES_PLACEHOLDER='acomp-swap developers <acomp-swap@localhost>'

# Who signs the series, as "Name <email>": ACOMP_SIGNOFF when set, else the
# git identity configured for build/linux (git config user.name and
# user.email, global or the tree's own), else the placeholder.
series_identity() {
	local name email
	if [ -n "${ACOMP_SIGNOFF:-}" ]; then
		[[ $ACOMP_SIGNOFF =~ ^[^\<\>]+\ \<[^\<\>[:space:]]+@[^\<\>[:space:]]+\>$ ]] ||
			die "ACOMP_SIGNOFF='$ACOMP_SIGNOFF': expected 'Name <email>'"
		echo "$ACOMP_SIGNOFF"
		return 0
	fi
	name=$(git -C "$TREE" config user.name 2>/dev/null || true)
	email=$(git -C "$TREE" config user.email 2>/dev/null || true)
	if [ -n "$name" ] && [ -n "$email" ]; then
		echo "$name <$email>"
	else
		echo "$SERIES_PLACEHOLDER"
	fi
}

# Give the commits above the base that carry the placeholder as author or
# sign-off the identity $1 instead: the same trees, dates and committers,
# so the working tree and the index stay as they are. Prints the number of
# commits rewritten.
sign_series() {
	local id=$1 parent c n=0 an body msg line
	parent=$(base_commit)
	for c in $(git -C "$TREE" rev-list --reverse "$parent..HEAD"); do
		an=$(git -C "$TREE" log -1 --format='%an <%ae>' "$c")
		body=$(git -C "$TREE" log -1 --format=%B "$c")
		if [ "$an" != "$SERIES_PLACEHOLDER" ] &&
			! grep -qxF "Signed-off-by: $SERIES_PLACEHOLDER" <<<"$body"; then
			# Nothing to change; still re-parented if an earlier one was.
			msg=$body
		else
			[ "$an" = "$SERIES_PLACEHOLDER" ] && an=$id
			msg=$(while IFS= read -r line; do
				if [ "$line" = "Signed-off-by: $SERIES_PLACEHOLDER" ]; then
					grep -qxF "Signed-off-by: $id" <<<"$body" && continue
					line="Signed-off-by: $id"
				fi
				printf '%s\n' "$line"
			done <<<"$body")
			n=$((n + 1))
		fi
		local aname=${an% <*} aemail=${an##*<}
		parent=$(GIT_AUTHOR_NAME=$aname GIT_AUTHOR_EMAIL=${aemail%>} \
			GIT_AUTHOR_DATE=$(git -C "$TREE" log -1 --format=%aI "$c") \
			GIT_COMMITTER_NAME=$(git -C "$TREE" log -1 --format=%cn "$c") \
			GIT_COMMITTER_EMAIL=$(git -C "$TREE" log -1 --format=%ce "$c") \
			GIT_COMMITTER_DATE=$(git -C "$TREE" log -1 --format=%cI "$c") \
			git -C "$TREE" commit-tree "$c^{tree}" -p "$parent" <<<"$msg")
	done
	[ "$n" = 0 ] || git -C "$TREE" update-ref -m "make patches: signed by $id" HEAD "$parent"
	echo "$n"
}

# Patches listed in patches/series, in order.
series_patches() {
	[ -f "$TOP/patches/series" ] || return 0
	grep -v '^[[:space:]]*\(#\|$\)' "$TOP/patches/series" || true
}

# The QEMU accelerator for a boot of kernel $1, as "ACCEL REASON": ACCEL=tcg
# or ACCEL=kvm forces one (kvm dies with the reason when it cannot work);
# otherwise KVM when /dev/kvm opens read-write and a KVM guest of that kernel
# boots, else TCG. The probe's answer is kept in $BUILD/accel-probe for the
# same kernel file, QEMU and /dev/kvm.
pick_accel() {
	local kernel=$1 why
	case ${ACCEL:-} in
	tcg)
		echo "tcg forced by ACCEL=tcg"
		return 0
		;;
	kvm)
		why=$(kvm_probe "$kernel") || die "ACCEL=kvm, but KVM cannot be used: $why"
		echo "kvm forced by ACCEL=kvm"
		return 0
		;;
	'') ;;
	*) die "ACCEL='$ACCEL': expected tcg or kvm (or unset: KVM when it works, else TCG)" ;;
	esac
	if why=$(kvm_probe "$kernel"); then
		echo "kvm $why"
	else
		echo "tcg $why"
	fi
}

# Succeeds when a KVM guest of kernel $1 boots; prints why (or why not).
kvm_probe() {
	local kernel=$1 key log
	# -c first: <> would create a missing /dev/kvm as a file.
	if ! [ -c /dev/kvm ] || ! { exec 9<>/dev/kvm; } 2>/dev/null; then
		echo "(/dev/kvm does not open read-write)"
		return 1
	fi
	exec 9>&-
	local rc why seen=''
	key="$(stat -c '%n %s %Y' "$kernel" 2>/dev/null) $(qemu-system-x86_64 --version | head -1)"
	[ -f "$BUILD/accel-probe" ] && { read -r seen; read -r rc why; } <"$BUILD/accel-probe"
	if [ "$seen" = "$key" ]; then
		echo "$why"
		return "$rc"
	fi
	log=$(mktemp)
	# No initramfs: the kernel boots until it cannot mount a root, panics,
	# and QEMU exits (-no-reboot); seconds under KVM.
	timeout 120 qemu-system-x86_64 -accel kvm -cpu host -smp 1 -m 256 \
		-display none -monitor none -serial stdio -no-reboot \
		-kernel "$kernel" -append "console=ttyS0 panic=-1" </dev/null >"$log" 2>&1
	rc=1
	if grep -q 'Linux version' "$log"; then
		rc=0 why="(a KVM guest booted)"
	else
		why="(a KVM guest did not boot: $(grep -v '^\s*$' "$log" | tail -1 | tr -d '\r' | cut -c1-120))"
	fi
	rm -f "$log"
	printf '%s\n%s %s\n' "$key" "$rc" "$why" >"$BUILD/accel-probe"
	echo "$why"
	return "$rc"
}

# The kernel variants (qemu-images/variants, or $VARIANTS), without comments:
# "NAME ROLE SOURCE FRAGMENTS" lines.
VARIANTS=${VARIANTS:-$TOP/qemu-images/variants}
variants() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$VARIANTS"
}

# variant NAME: its "ROLE SOURCE FRAGMENTS", or die naming the known ones.
variant() {
	local line
	line=$(variants | awk -v n="$1" '$1 == n { $1 = ""; sub(/^ /, ""); print; exit }')
	[ -n "$line" ] ||
		die "unknown kernel variant '$1'; $(basename "$VARIANTS") has: $(variants | awk '{ print $1 }' | tr '\n' ' ')"
	echo "$line"
}

# variants_with ROLE: the names of the variants with that role, in order.
variants_with() {
	variants | awk -v r="$1" '$2 == r { print $1 }'
}

# Check the variants file: well-formed lines, unique names, exactly one
# control and one test variant. Dies with the first problem.
check_variants() {
	[ -f "$VARIANTS" ] || die "no kernel variants file $VARIANTS"
	local name role source frags extra seen=' ' n
	while read -r name role source frags extra; do
		if [ -n "$extra" ] || [ -z "$frags" ]; then
			die "$(basename "$VARIANTS"): '$name $role $source $frags $extra': want NAME ROLE SOURCE FRAGMENTS"
		fi
		[[ $name =~ ^[A-Za-z0-9_.]+$ ]] ||
			die "$(basename "$VARIANTS"): variant name '$name': letters, digits, '_' and '.' only"
		case $seen in *" $name "*) die "$(basename "$VARIANTS"): variant '$name' listed twice" ;; esac
		seen+="$name "
		case $role in control | candidate | test | variant) ;;
		*) die "$(basename "$VARIANTS"): variant '$name': role '$role' (control, candidate, test, variant)" ;;
		esac
		case $source in pristine | series | ref:?* | patches:?* | path:?*) ;;
		*) die "$(basename "$VARIANTS"): variant '$name': source '$source' (pristine, series, ref:REF, patches:REV, path:DIR)" ;;
		esac
	done < <(variants)
	for role in control test; do
		n=$(variants_with "$role" | wc -l)
		[ "$n" = 1 ] || die "$(basename "$VARIANTS"): $n variants with role $role, want exactly one"
	done
}

# variant_fragments NAME: the paths of its Kconfig fragments, one per line.
variant_fragments() {
	local role source frags f
	read -r role source frags <<<"$(variant "$1")"
	for f in ${frags//,/ }; do
		case $f in
		/*) echo "$f" ;;
		*/*) echo "$TOP/$f" ;;
		*) echo "$TOP/qemu-images/$f.config" ;;
		esac
	done
}

# splat_patterns: the kernel splats of qemu-images/splats, one extended
# regular expression a line (the only reader of that file); splat_pattern:
# all of them as one (grep -E).
splat_patterns() {
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$TOP/qemu-images/splats"
}

splat_pattern() {
	splat_patterns | paste -sd'|'
}

# variant_tree NAME: the kernel tree a variant builds from (it may not
# exist yet: kernel.sh prepares it).
variant_tree() {
	local role source frags
	read -r role source frags <<<"$(variant "$1")"
	case $source in
	pristine) echo "$BASE_TREE" ;;
	series) echo "$TREE" ;;
	ref:* | patches:*) echo "$BUILD/trees/$1" ;;
	path:/*) echo "${source#path:}" ;;
	path:*) echo "$TOP/${source#path:}" ;;
	esac
}

# variant_identity NAME: its source's identity, one line: the source, the
# commit and whether the tree has uncommitted changes.
variant_identity() {
	local role source frags src commit dirty=clean
	read -r role source frags <<<"$(variant "$1")"
	src=$(variant_tree "$1")
	commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
	[ -z "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" ] || dirty=dirty
	echo "$source $commit $dirty"
}
