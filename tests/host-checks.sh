#!/usr/bin/env bash
# The host-side checks that need no boot, run before make test builds or
# boots anything, so that a broken parser or fixture fails in seconds: the
# TAP parser against its fixtures, the host-check harness itself, the report
# against its fixtures, who signs the series, the kernel variants, the
# scenarios of the matrix, and the instruction-count parser. Each is a TAP
# producer of its own (tests/hostcheck.sh): OUTDIR/host-NAME.{tap,rc}, which
# tests/run.sh counts again with the guest's results.
# Prints the failed results (all of them: tests/run.sh prints them again with
# the guest's) and, last, "N passed, N failed"; exit 0 only when all passed.
# Usage: tests/host-checks.sh OUTDIR
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: tests/host-checks.sh OUTDIR}
rm -rf "$out"
mkdir -p "$out"

# NAME CMD...: the checks, in the order they run.
checks=(
	"parsers python3 $TOP/tests/tapcount.py fixtures $TOP/tests/fixtures"
	"harness $TOP/tests/harness.sh"
	"report python3 $TOP/bench/report.py selftest $TOP/tests/fixtures/bench"
	"identity $TOP/tests/identity.sh"
	"variants $TOP/tests/variants.sh"
	"scenarios $TOP/tests/scenarios.sh"
	"insn-parser python3 $TOP/bench/insn.py selftest $TOP/tests/fixtures/bench/insn"
)
names=()
for c in "${checks[@]}"; do
	read -r name cmd <<<"$c"
	names+=("host-$name")
	echo "[host-checks] $name: $cmd" >&2
	# shellcheck disable=SC2086 # the command line is split on purpose
	"$TOP/tests/hostcheck.sh" "$out" "$name" $cmd >/dev/null
done
echo "${names[*]}" >"$out/names"
python3 "$TOP/tests/tapcount.py" host "$out" "${names[@]}" >"$out/count"
rc=$?
grep -v '^  ok  ' "$out/count"
exit "$rc"
