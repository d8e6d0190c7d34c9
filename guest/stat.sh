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
# spaces, at most 120 bytes; work it out before phase_begin (a command
# substitution forks, which the phase would count). phase_end also records
# the loaded modules' text symbols in /out/insn-modsyms, so that the host can
# name their functions. After insn_serve, the markers run in its server
# through builtins only; else an icmark process runs per marker.
phase_begin() {
	[ "${ACOMP_INSN:-0}" = 1 ] || return 0
	icmark_do begin "$1"
}

phase_end() {
	[ "${ACOMP_INSN:-0}" = 1 ] || return 0
	icmark_do end "$1" || return 1
	# No module loaded is no error (grep finds nothing; under pipefail).
	{ grep -E '^[0-9a-f]+ [tT] .*\[' /proc/kallsyms || true; } | sed "s|^|$1 |" >>/out/insn-modsyms
}

icmark_do() {
	if [ "${ICMARK_SERVED:-0}" = 1 ]; then
		# shellcheck disable=SC3045 # busybox ash's read has -t
		if kill -0 "$ICMARK_PID" 2>/dev/null && echo "$1 $2" >&8 &&
			read -t 30 -r _icm <&9; then
			case $_icm in
			ok) return 0 ;;
			error:*)
				echo "icmark: ${_icm#error: }" >&2
				return 2
				;;
			esac
		fi
		# A dead or silent server: stop it and mark by process from here
		# on, so that no late answer is taken for a later command's.
		echo "ACOMP: insn: the icmark server did not answer '$1 $2'; marking by process from here" >&2
		kill "$ICMARK_PID" 2>/dev/null
		exec 8>&- 9>&-
		ICMARK_SERVED=0
	fi
	icmark "$1" "$2"
}

# insn_serve: with ACOMP_INSN=1, start an icmark server (icmark serve) for
# this shell's phases, on FIFOs held open read-write on fds 8 and 9 (so
# that no open blocks; commands started with `on` do not inherit them), and
# mark an empty phase, insn-empty: what marking itself costs.
insn_serve() {
	[ "${ACOMP_INSN:-0}" = 1 ] || return 0
	rm -f /tmp/icmark.in /tmp/icmark.out
	mkfifo /tmp/icmark.in /tmp/icmark.out || return 1
	icmark serve <>/tmp/icmark.in 1<>/tmp/icmark.out &
	ICMARK_PID=$!
	exec 8<>/tmp/icmark.in 9<>/tmp/icmark.out
	ICMARK_SERVED=1
	phase_begin insn-empty && phase_end insn-empty
}

# insn_anchor: where the kernel's text was placed (KASLR), for the host.
insn_anchor() {
	[ "${ACOMP_INSN:-0}" = 1 ] || return 0
	grep -E ' [tT] (_stext|_etext)$' /proc/kallsyms >/out/insn-anchor
}
