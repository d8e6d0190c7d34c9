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

# acompd_none_in_caller CMD...: CMD succeeds and acompd ran none of the
# requests meanwhile in their caller (caller_ran, read before and after,
# did not move): with caller_runs=N, that the run was fully asynchronous.
acompd_none_in_caller() {
	_cr0=$(acompd_stat caller_ran)
	"$@" || return 1
	_cr1=$(acompd_stat caller_ran)
	echo "acompd caller_ran $_cr0 -> $_cr1"
	case $_cr0$_cr1 in '' | *[!0-9]*) echo "caller_ran unreadable"; return 1 ;; esac
	[ "$_cr1" = "$_cr0" ]
}
