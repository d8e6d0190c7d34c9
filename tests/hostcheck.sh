#!/usr/bin/env bash
# Run one host-side check as a TAP producer of its own, as the guest's
# runner does for an in-guest script: its TAP in OUTDIR/host-NAME.tap, its
# stderr in host-NAME.err and its exit status in host-NAME.rc, so that
# tests/tapcount.py applies the same plan, numbering and exit-status checks
# to it. Prints the TAP as it goes; returns the check's exit status.
# Usage: tests/hostcheck.sh OUTDIR NAME CMD [ARGS...]
set -uo pipefail
out=${1:?usage: tests/hostcheck.sh OUTDIR NAME CMD [ARGS...]}
name=${2:?usage: tests/hostcheck.sh OUTDIR NAME CMD [ARGS...]}
shift 2
[ $# -gt 0 ] || { echo "usage: tests/hostcheck.sh OUTDIR NAME CMD [ARGS...]" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out/host-$name.tap" "$out/host-$name.rc" "$out/host-$name.err"
"$@" 2>"$out/host-$name.err" | tee "$out/host-$name.tap"
rc=${PIPESTATUS[0]}
echo "$rc" >"$out/host-$name.rc"
exit "$rc"
