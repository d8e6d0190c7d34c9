#!/bin/sh
# In-guest test runner: runs /acomp/tests/NN-*.sh in order (or those named in
# ACOMP_TESTS, comma-separated), each under a timeout, and keeps its TAP output
# in OUT/tap/NAME.tap, its stderr in NAME.err and its exit status in NAME.rc.
# kmemleak scans around each fault script (7N-*) and after the last script,
# so that a leak is blamed on the scripts that ran since the scan before; their
# results are a TAP producer of their own, OUT/tap/kmemleak.{tap,rc}.
# busybox ash has pipefail.
# shellcheck disable=SC3040
set -o pipefail
out=${1:-/out}
mkdir -p "$out/tap" "$out/ktap"
# Scripts that capture KUnit output leave it in $ACOMP_OUT/ktap/SUITE.ktap.
export ACOMP_OUT="$out"
. /acomp/lib/fault.sh
cd /acomp/tests || exit 2

# leak_scan SINCE: one TAP result: kmemleak suspects nothing new since the
# previous scan, that is in SINCE (the scripts that ran since); then forget
# what it reported, so that the next scan blames only what runs after.
kl_n=0 kl_failed=0 since=
leak_scan() {
	kl_n=$((kl_n + 1))
	if [ ! -e "$FAULT_DBG/kmemleak" ]; then
		echo "not ok $kl_n - kmemleak: no $FAULT_DBG/kmemleak (not the debug kernel?)" >>"$out/tap/kmemleak.tap"
		kl_failed=1
		return
	fi
	echo "ACOMP: kmemleak: scanning after$1"
	if kmemleak_check >/tmp/kmemleak.out 2>&1; then
		echo "ok $kl_n - kmemleak: no new suspected leak after$1" >>"$out/tap/kmemleak.tap"
	else
		echo "not ok $kl_n - kmemleak: new suspected leaks after$1" >>"$out/tap/kmemleak.tap"
		sed 's/^/# /' /tmp/kmemleak.out >>"$out/tap/kmemleak.tap"
		kl_failed=1
	fi
	echo clear >"$FAULT_DBG/kmemleak"
}

rm -f "$out/tap/kmemleak.tap"
for t in [0-9][0-9]-*.sh; do
	name=${t%.sh}
	if [ -n "${ACOMP_TESTS:-}" ]; then
		case ",$ACOMP_TESTS," in *",$name,"*) ;; *) continue ;; esac
	fi
	case $name in 7[0-9]-*)
		[ -z "$since" ] || leak_scan "$since"
		since=
		;;
	esac
	echo "ACOMP: test $name: start (uptime $(cut -d' ' -f1 /proc/uptime))"
	timeout "${ACOMP_TEST_TIMEOUT:-900}" sh "./$t" 2>"$out/tap/$name.err" |
		tee "$out/tap/$name.tap"
	rc=$?
	echo "$rc" >"$out/tap/$name.rc"
	echo "ACOMP: test $name: exit $rc (uptime $(cut -d' ' -f1 /proc/uptime))"
	since="$since $name"
	case $name in 7[0-9]-*)
		leak_scan "$since"
		since=
		;;
	esac
done
[ -z "$since" ] || leak_scan "$since"
echo "1..$kl_n" >>"$out/tap/kmemleak.tap"
echo "$kl_failed" >"$out/tap/kmemleak.rc"
