#!/usr/bin/env bash
# Who signs the series (series_identity and sign_series in qemu-images/lib.sh),
# as TAP, on a throwaway repository shaped like build/linux: a root commit,
# one commit by the placeholder with its sign-off, and one by someone else
# that the placeholder also signed off.
# Usage: tests/identity.sh
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/host-tap.sh
. "$TOP/tests/host-tap.sh"
TAP_PREFIX=identity

# lib.sh's functions against $tmp/linux, with no global or system git
# configuration, so that only what a case sets is configured.
lib() {
	(
		export BUILD=$tmp HOME=$tmp GIT_CONFIG_NOSYSTEM=1
		# shellcheck source=qemu-images/lib.sh
		. "$TOP/qemu-images/lib.sh"
		STAGE=identity
		"$@"
	) 2>&1
}
g() { git -C "$tmp/linux" "$@"; }

ph='acomp-swap developers <acomp-swap@localhost>'
git init -q -b series "$tmp/linux"
echo base >"$tmp/linux/f"
g add f
g -c user.name=base -c user.email=base@localhost commit -q -m base
echo one >>"$tmp/linux/f"
g -c user.name="acomp-swap developers" -c user.email=acomp-swap@localhost commit -q -a \
	-m "sub: one" -m "Why." -m "Signed-off-by: $ph"
echo two >>"$tmp/linux/f"
g -c user.name=Other -c user.email=other@localhost commit -q -a \
	-m "sub: two" -m "Why two." -m "Signed-off-by: Other <other@localhost>
Signed-off-by: $ph"
tree_before=$(g rev-parse 'HEAD^{tree}')

out=$(lib series_identity)
[ "$out" = "$ph" ]
result $? "no identity configured: the placeholder" "got: $out"

out=$(ACOMP_SIGNOFF='Ada <ada@example.org>' lib series_identity)
[ "$out" = "Ada <ada@example.org>" ]
result $? "ACOMP_SIGNOFF names who signs" "got: $out"

out=$(ACOMP_SIGNOFF='ada@example.org' lib series_identity)
rc=$?
[ $rc != 0 ] && [[ $out == *"expected 'Name <email>'"* ]]
result $? "a malformed ACOMP_SIGNOFF is refused" "status $rc: $out"

g config user.name "Grace Hopper"
g config user.email grace@example.org
out=$(lib series_identity)
[ "$out" = "Grace Hopper <grace@example.org>" ]
result $? "the tree's git identity signs when ACOMP_SIGNOFF is unset" "got: $out"

out=$(lib sign_series "Grace Hopper <grace@example.org>")
[ "$out" = 2 ]
result $? "both commits that carried the placeholder are rewritten" "got: $out"

[ "$(g log -1 --format='%an <%ae>' HEAD~1)" = "Grace Hopper <grace@example.org>" ] &&
	[ "$(g log -1 --format='%an <%ae>' HEAD)" = "Other <other@localhost>" ]
result $? "the placeholder's commit gets the new author, the other keeps its own" \
	"authors: $(g log -2 --format='%an' | paste -sd,)"

msgs=$(g log -2 --format=%B)
! grep -qF "$ph" <<<"$msgs" &&
	[ "$(grep -cxF 'Signed-off-by: Grace Hopper <grace@example.org>' <<<"$msgs")" = 2 ] &&
	grep -qxF 'Signed-off-by: Other <other@localhost>' <<<"$msgs" &&
	grep -qxF 'Why two.' <<<"$msgs"
result $? "sign-offs: the placeholder's replaced, the others and the text kept" "$(tr '\n' '|' <<<"$msgs")"

[ "$(g rev-parse 'HEAD^{tree}')" = "$tree_before" ] && [ -z "$(g status --porcelain)" ]
result $? "the same tree, and a clean working tree" "$(g status --porcelain | head -3)"

out=$(lib sign_series "Grace Hopper <grace@example.org>")
[ "$out" = 0 ]
result $? "signing again changes nothing" "got: $out"
tap_plan
