# shellcheck shell=sh
# acompd's knobs and counters in the guest; installed as /acomp/lib/acompd.sh.

# acompd_caller_runs Y|N: acompd's caller-runs policy (N: every request to a
# worker, the fully asynchronous behaviour); loads acompd if it is a module.
acompd_caller_runs() {
	modprobe acompd 2>/dev/null
	echo "$1" >/sys/module/acompd/parameters/caller_runs &&
		[ "$(cat /sys/module/acompd/parameters/caller_runs)" = "$1" ]
}

# acompd_stat NAME: one of acompd's debugfs counters.
acompd_stat() { cat "/sys/kernel/debug/acompd/$1" 2>/dev/null || echo missing; }

# acompd_none_in_caller CMD...: CMD succeeds, acompd queued requests to its
# workers meanwhile and ran none in their caller (queued moved, caller_ran
# did not): with caller_runs=N, that the run was fully asynchronous.
acompd_none_in_caller() {
	_cr0=$(acompd_stat caller_ran) _q0=$(acompd_stat queued)
	"$@" || return 1
	_cr1=$(acompd_stat caller_ran) _q1=$(acompd_stat queued)
	echo "acompd caller_ran $_cr0 -> $_cr1, queued $_q0 -> $_q1"
	case $_cr0$_cr1$_q0$_q1 in '' | *[!0-9]*) echo "acompd's counters unreadable"; return 1 ;; esac
	[ "$_cr1" = "$_cr0" ] && [ "$_q1" -gt "$_q0" ]
}
