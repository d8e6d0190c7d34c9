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

# acompd_delta CMD...: CMD succeeds, and d_ran, d_inline, d_joined and
# d_queued are how much acompd's caller_ran, inline_busy, joined and queued
# moved meanwhile (printed, with woken).
acompd_delta() {
	_a=$(for n in caller_ran inline_busy joined queued woken; do acompd_stat $n; done | tr '\n' ' ')
	"$@" || return 1
	_b=$(for n in caller_ran inline_busy joined queued woken; do acompd_stat $n; done | tr '\n' ' ')
	echo "acompd caller_ran inline_busy joined queued woken: $_a-> $_b"
	case "$_a$_b" in *[!0-9\ ]*) echo "acompd's counters unreadable"; return 1 ;; esac
	# shellcheck disable=SC2086 # the counters, split into the parameters
	set -- $_a $_b
	d_ran=$(($6 - $1)) d_inline=$(($7 - $2)) d_joined=$(($8 - $3))
	d_queued=$(($9 - $4))
}

# acompd_none_in_caller CMD...: CMD succeeds, acompd queued requests to its
# workers meanwhile and ran none in their caller (queued moved; caller_ran,
# inline_busy and joined did not): with caller_runs=N, that the run was
# fully asynchronous.
acompd_none_in_caller() {
	acompd_delta "$@" && [ "$d_ran" = 0 ] && [ "$d_inline" = 0 ] &&
		[ "$d_joined" = 0 ] && [ "$d_queued" -gt 0 ]
}

# acompd_writer_shares CMD...: CMD succeeds, and the submitters of batches
# compressed some of their own requests (inline_busy or joined moved: the
# work-sharing join), with caller_runs=Y.
acompd_writer_shares() {
	acompd_delta "$@" && [ $((d_inline + d_joined)) -gt 0 ]
}
