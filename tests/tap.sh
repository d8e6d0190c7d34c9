# shellcheck shell=sh
# TAP helpers for the in-guest tests (busybox sh). A test script prints one
# "ok N - what" or "not ok N - what" per check, diagnostics as "# ...", and its
# plan last ("1..N"): a script that dies early has no plan, and the host driver
# counts that as a failure.

# A pipeline fails when any of its commands does (busybox ash has pipefail),
# so that "producer | tee FILE" cannot hide the producer's failure; a
# consumer that stops reading early (grep -q, head) may then fail its
# producer with SIGPIPE: read the whole input instead (grep >/dev/null).
# shellcheck disable=SC3040
set -o pipefail

# The guest helpers every test may use (guest/: counters, cgroup pressure,
# acompd's knobs); zram and zswap ones are sourced by the tests that need them
# (/acomp/lib/zram.sh, /acomp/lib/zswap.sh).
. /acomp/lib/stat.sh
. /acomp/lib/cgroup.sh
. /acomp/lib/acompd.sh

TAP_N=0
TAP_FAILED=0

ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $*"
}

not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $*"
}

# diag TEXT: TEXT as diagnostics, every line of it prefixed with "# ".
diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# check DESCRIPTION COMMAND...: one test, passing when COMMAND succeeds. On
# failure the last lines of its output become diagnostics.
check() {
	_desc=$1
	shift
	if "$@" >/tmp/tap-check.out 2>&1; then
		ok "$_desc"
	else
		not_ok "$_desc (exit $?)"
		tail -n 15 /tmp/tap-check.out | sed 's/^/#   /'
	fi
}

# is_num V...: every V is a non-negative integer (a counter that was read,
# not "missing" or empty).
is_num() {
	for _v in "$@"; do
		case $_v in '' | *[!0-9]*) echo "not a number: '$_v'"; return 1 ;; esac
	done
}

# fails_with ERRORS CMD...: CMD fails and its output names one of ERRORS (an
# extended regular expression: an errno's text, a program's message), so
# that it failed for the reason expected, not for a missing file, program
# or module.
fails_with() {
	_fw_errs=$1
	shift
	if "$@" >/tmp/fails.out 2>&1; then
		echo "accepted: $*"
		return 1
	fi
	cat /tmp/fails.out
	grep -qE -- "$_fw_errs" /tmp/fails.out || { echo "failed for another reason than '$_fw_errs'"; return 1; }
}

# write_refused FILE VALUE ERRORS: FILE exists and the write of VALUE to it
# is refused by the write itself with one of ERRORS (errno texts, an
# extended regular expression: 'Invalid argument|Numerical result out of
# range'), not because FILE cannot be opened.
write_refused() {
	[ -e "$1" ] || { echo "no $1"; return 1; }
	fails_with "write error: ($3)" sh -c 'echo "$2" >"$1"' sh "$1" "$2"
}

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# cpu1_cycling CMD...: run CMD in the background while CPU 1 is taken offline
# and back in a loop until CMD ends. Succeeds when CMD did, CPU 1 went offline
# at least once and is online again; prints the number of cycles.
cpu1_cycling() {
	_cpu1=/sys/devices/system/cpu/cpu1/online
	rm -f /tmp/cycling.rc
	(
		_rc=0
		"$@" || _rc=1
		echo "$_rc" >/tmp/cycling.rc.new && mv /tmp/cycling.rc.new /tmp/cycling.rc
	) &
	_n=0
	while [ ! -e /tmp/cycling.rc ]; do
		echo 0 >"$_cpu1" && echo 1 >"$_cpu1" || { wait; return 1; }
		_n=$((_n + 1))
	done
	wait
	echo "cpu1 offline/online cycles: $_n; exit: $(cat /tmp/cycling.rc)"
	[ "$_n" -gt 0 ] && [ "$(cat /tmp/cycling.rc)" = 0 ] && [ "$(cat "$_cpu1")" = 1 ]
}
