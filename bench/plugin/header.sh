#!/usr/bin/env bash
# Fetch qemu-plugin.h for the installed QEMU. No binary Debian package ships
# it; the source package of the installed qemu-system-x86 does. apt fetches
# that source with a private sources list and state directory (deb-src
# entries for the machine's own suites), so the machine's apt configuration
# is not touched, and only the one header is kept.
# Usage: header.sh OUTDIR   (writes OUTDIR/qemu-plugin.h and OUTDIR/version)
set -euo pipefail
# shellcheck source=qemu-images/lib.sh
. "$(dirname "$0")/../../qemu-images/lib.sh"
# shellcheck disable=SC2034 # read by lib.sh
STAGE=plugin
out=${1:?usage: header.sh OUTDIR}
need_pkgs qemu-system-x86 xz-utils

ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
if [ -f "$out/version" ] && [ "$(cat "$out/version")" = "$ver" ] &&
	[ -f "$out/qemu-plugin.h" ]; then
	exit 0
fi
apt=$BUILD/apt-src
rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/src"
# deb-src lines for the suites the machine installs from: the URIs and
# suites of its deb entries (one-line and deb822 formats).
{
	{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
		awk '$1 == "deb" { $1 = "deb-src"; print }'
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v RS= '/(^|\n)Types:[^\n]*deb([ \n]|$)/ {
			uris = ""; suites = ""; comps = ""; key = ""
			n = split($0, l, "\n")
			for (i = 1; i <= n; i++) {
				if (l[i] ~ /^URIs:/) { uris = l[i]; sub(/^URIs:[ \t]*/, "", uris) }
				if (l[i] ~ /^Suites:/) { suites = l[i]; sub(/^Suites:[ \t]*/, "", suites) }
				if (l[i] ~ /^Components:/) { comps = l[i]; sub(/^Components:[ \t]*/, "", comps) }
				if (l[i] ~ /^Signed-By:/) { key = l[i]; sub(/^Signed-By:[ \t]*/, "", key) }
			}
			opt = key == "" ? "" : "[signed-by=" key "] "
			nu = split(uris, u, " "); ns = split(suites, s, " ")
			for (a = 1; a <= nu; a++)
				for (b = 1; b <= ns; b++)
					print "deb-src " opt u[a] " " s[b] " " comps
		}' "$f"
	done
} >"$apt/sources.list"
[ -s "$apt/sources.list" ] || die "no deb entries in /etc/apt to derive deb-src entries from"
opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1
	-o APT::Sandbox::User=root)
say "fetching the source of qemu $ver for qemu-plugin.h (private apt lists in $apt)"
apt-get "${opts[@]}" -qq update >"$apt/update.log" 2>&1 ||
	die "apt-get update of the deb-src lists failed: $(tail -1 "$apt/update.log")"
(cd "$apt/src" && apt-get "${opts[@]}" -qq source --download-only "qemu=$ver") >"$apt/source.log" 2>&1 ||
	die "apt-get source qemu=$ver failed: $(tail -1 "$apt/source.log")"
orig=$(find "$apt/src" -name 'qemu_*.orig.tar.*' | head -1)
deb=$(find "$apt/src" -name 'qemu_*.debian.tar.*' | head -1)
if [ -z "$orig" ] || [ -z "$deb" ]; then
	die "apt-get source qemu=$ver fetched no tarballs (see $apt/source.log)"
fi

# Debian's patches must leave the header as upstream ships it.
if tar -xOf "$deb" --wildcards 'debian/patches/*' 2>/dev/null | grep -q '^+++ .*include/qemu/qemu-plugin.h'; then
	die "a Debian patch of qemu $ver changes qemu-plugin.h; apply it here"
fi
mkdir -p "$out"
tar -xOf "$orig" --wildcards '*/include/qemu/qemu-plugin.h' >"$out/qemu-plugin.h.tmp"
grep -q 'QEMU_PLUGIN_VERSION' "$out/qemu-plugin.h.tmp" || die "no qemu-plugin.h in $orig"
mv "$out/qemu-plugin.h.tmp" "$out/qemu-plugin.h"
echo "$ver" >"$out/version"
rm -rf "$apt"
say "qemu-plugin.h of qemu $ver in $out"
