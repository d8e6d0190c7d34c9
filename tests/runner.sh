#!/bin/sh
# In-guest test runner: runs /acomp/tests/NN-*.sh in order (or those named in
# ACOMP_TESTS, comma-separated), each under a timeout, and keeps its TAP output
# in OUT/tap/NAME.tap, its stderr in NAME.err and its exit status in NAME.rc.
# busybox ash has pipefail.
# shellcheck disable=SC3040
set -o pipefail
out=${1:-/out}
mkdir -p "$out/tap" "$out/ktap"
# Scripts that capture KUnit output leave it in $ACOMP_OUT/ktap/SUITE.ktap.
export ACOMP_OUT="$out"
cd /acomp/tests || exit 2
for t in [0-9][0-9]-*.sh; do
	name=${t%.sh}
	if [ -n "${ACOMP_TESTS:-}" ]; then
		case ",$ACOMP_TESTS," in *",$name,"*) ;; *) continue ;; esac
	fi
	echo "ACOMP: test $name: start (uptime $(cut -d' ' -f1 /proc/uptime))"
	timeout "${ACOMP_TEST_TIMEOUT:-900}" sh "./$t" 2>"$out/tap/$name.err" |
		tee "$out/tap/$name.tap"
	rc=$?
	echo "$rc" >"$out/tap/$name.rc"
	echo "ACOMP: test $name: exit $rc (uptime $(cut -d' ' -f1 /proc/uptime))"
done
