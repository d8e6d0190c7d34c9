# shellcheck shell=bash
# TAP for host-side checks (tests/accel.sh, tests/identity.sh). Sourced, never
# run; the sourcing script sets TAP_PREFIX and ends with tap_plan.
tap_n=0

# result STATUS DESCRIPTION [DIAGNOSTIC]: STATUS 0 is a pass.
result() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $TAP_PREFIX: $2"
	else
		echo "not ok $tap_n - $TAP_PREFIX: $2"
		[ -n "${3:-}" ] && echo "# $3"
	fi
	return 0
}

tap_plan() {
	echo "1..$tap_n"
}
