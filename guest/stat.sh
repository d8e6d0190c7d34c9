# shellcheck shell=sh
# System counters in the guest; installed as /acomp/lib/stat.sh.

# vmstat NAME: one counter of /proc/vmstat ("missing" without it).
vmstat() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "missing" }' /proc/vmstat
}

# cpustat: CPU time (the "cpu" line) and context switches ("ctxt") of
# /proc/stat.
cpustat() {
	grep -E '^(cpu|ctxt) ' /proc/stat
}

# uptime_cs: the time since boot in hundredths of a second (busybox's date
# has no sub-second field).
uptime_cs() {
	awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime
}

# phase_begin LABEL / phase_end LABEL: mark a counted phase for the
# instruction-counting plugin (bench/plugin/insncount.c) when the boot has it
# (ACOMP_INSN=1 on the command line); nothing otherwise. LABEL: printable, no
# spaces, at most 120 bytes. phase_end also records the loaded modules' text
# symbols in /out/insn-modsyms, so that the host can name their functions.
phase_begin() {
	[ "${ACOMP_INSN:-0}" = 1 ] || return 0
	icmark begin "$1"
}

phase_end() {
	[ "${ACOMP_INSN:-0}" = 1 ] || return 0
	icmark end "$1"
	grep -E '^[0-9a-f]+ [tT] .*\[' /proc/kallsyms | sed "s|^|$1 |" >>/out/insn-modsyms
}

# insn_anchor: where the kernel's text was placed (KASLR), for the host.
insn_anchor() {
	[ "${ACOMP_INSN:-0}" = 1 ] || return 0
	grep -E ' [tT] (_stext|_etext)$' /proc/kallsyms >/out/insn-anchor
}
