#!/usr/bin/env bash
# The instruction-counting plugin (bench/plugin/insncount.c), as TAP: it
# builds (make's prerequisite), loads into QEMU, and counts a short boot of
# tests/guest/04-insn-phases.sh: both marker phases present, their counts
# non-zero with kernel < total, the tmpfs phase mostly kernel and the user
# loop mostly not, the kernel's functions named through System.map
# (bench/insn.py) and grouped by the objects linked into vmlinux, a phase's
# sites agreeing with its totals, and an empty phase marked through the
# icmark server far cheaper than one marked by processes. Under KVM no
# plugin runs: the checks say so and fail, since make test's machines run
# TCG.
# Usage: tests/insn.sh KERNEL INITRD PLUGIN.so
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=tests/host-tap.sh
. "$TOP/tests/host-tap.sh"
TAP_PREFIX=insn
kernel=${1:?usage: tests/insn.sh KERNEL INITRD PLUGIN.so}
initrd=${2:?usage: tests/insn.sh KERNEL INITRD PLUGIN.so}
plugin=${3:?usage: tests/insn.sh KERNEL INITRD PLUGIN.so}
kdir=$(cd "$(dirname "$kernel")/../../.." && pwd)
BUILD=${BUILD:-$TOP/build}
out=$BUILD/test-runs/insn
rm -rf "$out"
mkdir -p "$(dirname "$out")"

result "$([ -f "$plugin" ]; echo $?)" "the plugin is built ($plugin)"
"$TOP/qemu-images/run.sh" -q -k "$kernel" -i "$initrd" -o "$out" -t 600 -m 512 -c 2 -P "$plugin" \
	-a "ACOMP_JOB=test ACOMP_TESTS=04-insn-phases ACOMP_TEST_TIMEOUT=300" >"$out.log" 2>&1
rc=$?
result "$rc" "a counted boot ran clean" "$(cat "$out/status" 2>/dev/null)"
result "$(grep -q '^on ' "$out/insn" 2>/dev/null; echo $?)" "run.sh loaded the plugin under TCG" \
	"insn: $(cat "$out/insn" 2>/dev/null)"
result "$(grep -q '^exit [1-9][0-9]* [1-9][0-9]* [1-9]' "$out/insn-sites.txt" 2>/dev/null; echo $?)" \
	"the plugin wrote its run totals at exit" "$(tail -1 "$out/insn-sites.txt" 2>/dev/null)"
# The counted boot's own TAP (04-insn-phases with ACOMP_INSN=1, the icmark
# server's checks included): every result of it counts here.
tapres=$(python3 "$TOP/tests/tapcount.py" results 04-insn-phases \
	"$out/outbox/tap/04-insn-phases.tap" "$out/outbox/tap/04-insn-phases.rc")
while read -r st desc; do
	result "$([ "$st" = ok ]; echo $?)" "counted boot: $desc"
done <<<"$tapres"
result "$(grep -q 'a phase marked through the server ends' <<<"$tapres" &&
	grep -q 'the server still marks after a refusal' <<<"$tapres"; echo $?)" \
	"the counted boot ran the icmark server's checks"
python3 "$TOP/bench/insn.py" resolve "$kdir" "$out"
result "$([ -f "$out/outbox/insn.txt" ] && [ -f "$out/insn-sites.txt.gz" ]; echo $?)" \
	"bench/insn.py resolved the sites into insn.txt (and kept them compressed)"

# phase LABEL TOTAL KERNEL; group LABEL GROUP N; func LABEL NAME N
p() { awk -v l="$1" '$1 == "phase" && $2 == l { print $3, $4 }' "$out/outbox/insn.txt" 2>/dev/null; }
read -r tt tk <<<"$(p insn-tmpfs)"
read -r ut uk <<<"$(p insn-user)"
result "$([ -n "${tt:-}" ] && [ -n "${ut:-}" ]; echo $?)" "both marker phases are present" \
	"insn-tmpfs: ${tt:-missing} ${tk:-}; insn-user: ${ut:-missing} ${uk:-}"
result "$([ "${tk:-0}" -gt 0 ] && [ "${tk:-0}" -lt "${tt:-0}" ] && [ "${uk:-0}" -gt 0 ] && [ "${uk:-0}" -lt "${ut:-0}" ]; echo $?)" \
	"counts are non-zero and kernel < total in both" "tmpfs $tk/$tt, user $uk/$ut"
result "$([ $((${tk:-0} * 2)) -gt "${tt:-0}" ] && [ $((${uk:-0} * 2)) -lt "${ut:-0}" ]; echo $?)" \
	"16 MiB to tmpfs is mostly kernel, a user loop mostly not" "tmpfs $tk/$tt, user $uk/$ut"
named=$(awk '$1 == "func" && $2 == "insn-tmpfs" && $3 !~ /^\(/ { n += $4 } END { print n + 0 }' "$out/outbox/insn.txt" 2>/dev/null)
result "$([ "${named:-0}" -gt $((${tk:-0} / 2)) ]; echo $?)" \
	"most of the tmpfs phase's kernel instructions fall in named functions" "$named of $tk"
result "$(awk '$1 == "group" && $2 == "insn-tmpfs" && ($3 == "mm" || $3 == "fs" || $3 == "entry+lib") { f = 1 } END { exit !f }' "$out/outbox/insn.txt" 2>/dev/null; echo $?)" \
	"the tmpfs phase's kernel time is attributed to mm, fs or copy groups"
# A phase's functions sum to its kernel count, though another CPU was busy
# in the kernel when the tmpfs phase began and ended; what that CPU ran
# while the plugin read the counters (the skew) stays a boundary effect.
sums=$(awk '$1 == "phase" { k[$2] = $4 } $1 == "func" { f[$2] += $4 }
	END { for (p in k) if (k[p] != f[p]) printf "%s: kernel %d, functions %d; ", p, k[p], f[p]; }' \
	"$out/outbox/insn.txt" 2>/dev/null)
result "$([ -n "${tk:-}" ] && [ -z "$sums" ]; echo $?)" "every phase's functions sum to its kernel count" "$sums"
skew=$(awk '$1 == "skew" && $2 == "insn-tmpfs" { print ($3 < 0 ? -$3 : $3) }' "$out/outbox/insn.txt" 2>/dev/null)
result "$([ -n "${skew:-}" ] && [ $((${skew:-0} * 20)) -lt "${tk:-0}" ]; echo $?)" \
	"the tmpfs phase's skew (the busy CPU's counters read against its sites) is under 5% of it" \
	"skew ${skew:-missing} of ${tk:-0}"
read -r et _ <<<"$(p insn-empty-exec)"
read -r st _ <<<"$(p insn-empty)"
result "$([ -n "${et:-}" ] && [ -n "${st:-}" ] && [ $((${st:-0} * 5)) -lt "${et:-0}" ]; echo $?)" \
	"an empty phase marked through the server costs under a fifth of one marked by icmark processes" \
	"server ${st:-missing}, processes ${et:-missing}"
# Groups from the objects linked into vmlinux: the kernel's __memcpy is
# arch/x86/lib's, and memcpy is no one's but the strong definition's
# (arch/x86/lib's, or KASAN's in mm/kasan over that weak alias), never
# arch/x86/boot's; a static name of two subsystems is ambiguous.
python3 "$TOP/bench/insn.py" groups "$kdir" >"$out/groups.txt"
g() { awk -v s="$1" '$1 == s { print $2 }' "$out/groups.txt"; }
result "$([ "$(g __memcpy)" = entry+lib ] && [ "$(g __memset)" = entry+lib ] &&
	case $(g memcpy) in entry+lib | mm) true ;; *) false ;; esac &&
	[ "$(g __do_softirq)" = irq+timer ] && [ "$(g reset_store)" = ambiguous ]; echo $?)" \
	"functions are grouped by the objects linked into vmlinux" \
	"__memcpy $(g __memcpy), __memset $(g __memset), memcpy $(g memcpy), __do_softirq $(g __do_softirq), reset_store $(g reset_store)"
tap_plan
