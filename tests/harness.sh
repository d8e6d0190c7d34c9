#!/usr/bin/env bash
# The host-check harness (tests/hostcheck.sh, counted by tests/tapcount.py
# host), as TAP: a check that plans 3 results, prints 1 and exits 1 counts
# as failed, for its short plan and its exit status; a clean check counts
# as passed; a check that prints no plan, or whose exit status is lost,
# counts as failed. The splat patterns (qemu-images/splats): every line of
# tests/fixtures/splats/splats.console is a splat, every pattern finds one
# of them, and no line of a clean make test console (clean.console) is.
# Usage: tests/harness.sh
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/host-tap.sh
. "$TOP/tests/host-tap.sh"
TAP_PREFIX=harness

# counted NAME SCRIPT: run SCRIPT (bash) as host check NAME, then count it;
# the count's output in $tmp/NAME.count, its status returned.
counted() {
	"$TOP/tests/hostcheck.sh" "$tmp" "$1" bash -c "$2" >/dev/null 2>&1
	python3 "$TOP/tests/tapcount.py" host "$tmp" "host-$1" >"$tmp/$1.count"
}

counted short 'echo "1..3"; echo "ok 1 - the one result printed"; exit 1'
rc=$?
result "$([ "$rc" = 1 ] && grep -q 'FAIL host-short: planned 3 results, printed 1' "$tmp/short.count" &&
	tail -1 "$tmp/short.count" | grep -qx '1 passed, 1 failed'; echo $?)" \
	"a check that plans 3, prints 1 and exits 1 counts as failed" "$(cat "$tmp/short.count")"
[ "$(cat "$tmp/host-short.rc")" = 1 ]
result $? "its exit status is kept in host-NAME.rc" "rc: $(cat "$tmp/host-short.rc" 2>/dev/null)"

counted exit 'echo "ok 1 - passes"; echo "1..1"; exit 3'
rc=$?
result "$([ "$rc" = 1 ] && grep -q 'FAIL host-exit: exited with status 3 without a failing result' "$tmp/exit.count"; echo $?)" \
	"a check whose results all pass but which exits 3 counts as failed" "$(cat "$tmp/exit.count")"

counted clean 'echo "ok 1 - one"; echo "ok 2 - two"; echo "1..2"'
rc=$?
result "$([ "$rc" = 0 ] && tail -1 "$tmp/clean.count" | grep -qx '2 passed, 0 failed'; echo $?)" \
	"a clean check counts as passed" "$(cat "$tmp/clean.count")"

counted noplan 'echo "ok 1 - one"'
rc=$?
result "$([ "$rc" = 1 ] && grep -q 'FAIL host-noplan: no TAP plan' "$tmp/noplan.count"; echo $?)" \
	"a check that prints no plan counts as failed" "$(cat "$tmp/noplan.count")"

rm -f "$tmp/host-clean.rc"
python3 "$TOP/tests/tapcount.py" host "$tmp" host-clean >"$tmp/lost.count"
rc=$?
result "$([ "$rc" = 1 ] && grep -q 'FAIL host-clean: no exit status recorded' "$tmp/lost.count"; echo $?)" \
	"a check whose exit status is missing counts as failed" "$(cat "$tmp/lost.count")"

python3 "$TOP/tests/tapcount.py" host "$tmp" host-never >"$tmp/never.count"
rc=$?
result "$([ "$rc" = 1 ] && grep -q 'FAIL host-never: no results' "$tmp/never.count"; echo $?)" \
	"a check that left no TAP counts as failed" "$(cat "$tmp/never.count")"

# shellcheck source=qemu-images/lib.sh
splats() { (. "$TOP/qemu-images/lib.sh" && "$@"); }
splat=$(splats splat_pattern)
fx=$TOP/tests/fixtures/splats
missed=$(grep -vE "$splat" "$fx/splats.console")
result "$([ -n "$splat" ] && [ -z "$missed" ]; echo $?)" \
	"every line of fixtures/splats/splats.console is a splat" "missed: $missed"
unused=
while read -r pat; do
	grep -qE -- "$pat" "$fx/splats.console" || unused+=" '$pat'"
done < <(splats splat_patterns)
result "$([ -z "$unused" ]; echo $?)" "every splat pattern finds its line in the fixture" "unmatched:$unused"
false_hits=$(grep -E "$splat" "$fx/clean.console")
result "$([ -z "$false_hits" ]; echo $?)" "no line of a clean make test console is a splat" "$false_hits"
tap_plan
