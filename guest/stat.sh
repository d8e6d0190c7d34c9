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
