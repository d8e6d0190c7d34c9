#!/bin/sh
# Phase markers for the instruction-counting plugin (bench/icmark.c,
# guest/stat.sh phase_begin): harmless NOPs without the plugin, refused with
# a usage error when malformed. tests/insn.sh boots this script again with
# the plugin (ACOMP_INSN=1) and checks the counts of its two phases on the
# host: insn-tmpfs (16 MiB written to tmpfs: mostly kernel) and insn-user (a
# loop in user space: mostly not).
. /acomp/tests/tap.sh

check "icmark begin and end run (NOPs without the plugin)" \
	sh -c 'icmark begin insn-selftest && icmark end insn-selftest'
check "icmark refuses a label with a space" sh -c '! icmark begin "a b" 2>/dev/null'
check "icmark refuses an empty label" sh -c '! icmark begin "" 2>/dev/null'
check "icmark refuses an overlong label" \
	sh -c "! icmark begin $(printf '%0121d' 0) 2>/dev/null"
check "icmark refuses an unknown command" sh -c '! icmark start x 2>/dev/null'

# The phases tests/insn.sh counts (markers only with ACOMP_INSN=1), and
# where the kernel text is, for the host to name functions.
insn_anchor
mkdir -p /tmp/insn
phase_begin insn-tmpfs
dd if=/dev/zero of=/tmp/insn/f bs=64k count=256 2>/dev/null
phase_end insn-tmpfs
check "the counted tmpfs phase wrote 16 MiB" test "$(stat -c %s /tmp/insn/f)" = 16777216
rm -rf /tmp/insn
phase_begin insn-user
awk 'BEGIN { for (i = 0; i < 300000; i++) s += i * i; print s }' >/dev/null
phase_end insn-user
tap_done
