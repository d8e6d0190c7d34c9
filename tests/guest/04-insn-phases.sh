#!/bin/sh
# Phase markers for the instruction-counting plugin (bench/icmark.c,
# guest/stat.sh phase_begin): harmless NOPs without the plugin, refused with
# a usage error when malformed, by the program and by its server. tests/insn.sh
# boots this script again with the plugin (ACOMP_INSN=1) and checks the
# counts of its phases on the host: insn-tmpfs (16 MiB written to tmpfs:
# mostly kernel, while another CPU reads /dev/zero, so that the phase ends
# with a busy CPU beside it), insn-user (a loop in user space: mostly not),
# insn-empty-exec (an empty phase marked by icmark processes) and insn-empty
# (one marked through the server of insn_serve).
. /acomp/tests/tap.sh

check "icmark begin and end run (NOPs without the plugin)" \
	sh -c 'icmark begin insn-selftest && icmark end insn-selftest'
check "icmark refuses a label with a space" \
	fails_with 'icmark: LABEL must be printable, without spaces' icmark begin "a b"
check "icmark refuses an empty label" fails_with 'icmark: LABEL must be 1 to 120 bytes' icmark begin ""
check "icmark refuses an overlong label" \
	fails_with 'icmark: LABEL must be 1 to 120 bytes' icmark begin "$(printf '%0121d' 0)"
check "icmark refuses an unknown command" fails_with 'icmark: the command is begin or end' icmark start x
check "icmark serve answers ok per marker, an error per malformed line, and goes on" \
	test "$(printf 'begin insn-srv\nend insn-srv\nbegin a b\nstart x\nbegin\nend insn-srv\n' |
		icmark serve | cut -d: -f1 | tr '\n' ' ')" = "ok ok error error error ok "

# The phases tests/insn.sh counts (markers only with ACOMP_INSN=1), and
# where the kernel text is, for the host to name functions.
insn_anchor
mkdir -p /tmp/insn
taskset 2 dd if=/dev/zero of=/dev/null bs=64k count=1000000 2>/dev/null &
busy=$!
phase_begin insn-tmpfs
taskset 1 dd if=/dev/zero of=/tmp/insn/f bs=64k count=256 2>/dev/null
phase_end insn-tmpfs
kill "$busy"
wait "$busy" 2>/dev/null
check "the counted tmpfs phase wrote 16 MiB" test "$(stat -c %s /tmp/insn/f)" = 16777216
rm -rf /tmp/insn
phase_begin insn-user
awk 'BEGIN { for (i = 0; i < 300000; i++) s += i * i; print s }' >/dev/null
phase_end insn-user
phase_begin insn-empty-exec
phase_end insn-empty-exec
insn_serve
check "insn_serve starts (with ACOMP_INSN=1; nothing without)" test $? = 0
if [ "${ACOMP_INSN:-0}" = 1 ]; then
	check "a phase marked through the server ends" eval 'phase_begin insn-srv2 && phase_end insn-srv2'
	check "the server refuses a malformed label, and says why" \
		eval '! phase_begin "a b" 2>/tmp/icm.err && grep -q "icmark: LABEL must be printable" /tmp/icm.err'
	check "the server still marks after a refusal" eval 'phase_begin insn-srv3 && phase_end insn-srv3'
else
	diag "the icmark server's checks need the plugin: tests/insn.sh's counted boot runs and counts them"
fi
tap_done
