# shellcheck shell=sh
# The kernel's fault injection (debug kernel: FAILSLAB, FAIL_PAGE_ALLOC,
# acompd's fail_request and delay_request), for the in-guest tests and the
# soak; installed as /acomp/lib/fault.sh. Every attribute is armed with
# task-filter on, so only tasks that set /proc/PID/make-it-fail (memstress
# -f, faultio) meet its failures, and a bounded number of times.

FAULT_DBG=/sys/kernel/debug

# fault_arm ATTR PERCENT TIMES [SLEEPING]: fail PERCENT% of the calls ATTR
# sees from tasks with make-it-fail, at most TIMES times, silently. ATTR is
# failslab, fail_page_alloc or acompd/fail_request (or delay_request).
# SLEEPING=1: also allocations that may sleep (ignore-gfp-wait off), and
# for pages every order and highmem-flagged ones (zsmalloc's).
fault_arm() {
	_d=$FAULT_DBG/$1
	[ -d "$_d" ] || { echo "no $_d: not a fault-injection kernel"; return 1; }
	echo 0 >"$_d/probability" &&
		echo 1 >"$_d/task-filter" &&
		echo 1 >"$_d/interval" &&
		echo 0 >"$_d/space" &&
		echo 0 >"$_d/verbose" &&
		echo "$3" >"$_d/times" || return 1
	if [ -e "$_d/ignore-gfp-wait" ]; then
		if [ "${4:-0}" = 1 ]; then
			echo N >"$_d/ignore-gfp-wait" || return 1
		else
			echo Y >"$_d/ignore-gfp-wait" || return 1
		fi
	fi
	if [ -e "$_d/min-order" ]; then
		echo 0 >"$_d/min-order" && echo N >"$_d/ignore-gfp-highmem" || return 1
	fi
	echo "$2" >"$_d/probability"
}

# fault_disarm ATTR...: no more failures from ATTR.
fault_disarm() {
	for _a in "$@"; do
		[ -d "$FAULT_DBG/$_a" ] && echo 0 >"$FAULT_DBG/$_a/probability"
	done
	return 0
}

# fault_left ATTR: how many failures ATTR may still inject (times).
fault_left() { cat "$FAULT_DBG/$1/times"; }

# kmemleak_mark: forget the leaks suspected so far (a later kmemleak_check
# reports only new ones).
kmemleak_mark() {
	echo scan >"$FAULT_DBG/kmemleak" && echo clear >"$FAULT_DBG/kmemleak"
}

# kmemleak_check: scan (twice: an object must stay unreferenced across
# scans, and be older than 5 s) and print what kmemleak reports; fails when
# it reports anything.
kmemleak_check() {
	sleep 6
	echo scan >"$FAULT_DBG/kmemleak" && echo scan >"$FAULT_DBG/kmemleak" || return 1
	_leaks=$(cat "$FAULT_DBG/kmemleak")
	[ -z "$_leaks" ] && return 0
	printf '%s\n' "$_leaks" | head -40
	return 1
}
