#!/bin/sh
# The acompd KUnit suite (crypto/acompd_kunit.c), built as a module in the
# debug kernel: loading it runs the suite. Its KTAP output is taken from the
# kernel log and left in $ACOMP_OUT/ktap/acompd.ktap, where the host counts
# one result per test case (tests/tapcount.py); this script checks that the
# suite ran to its end and that the module unloads.
. /acomp/tests/tap.sh

ktap=${ACOMP_OUT:-/out}/ktap/acompd.ktap

# The suite's lines from the kernel log, timestamps removed, under a KTAP
# header (a module's suite is printed without the top-level one).
capture() {
	{
		echo "KTAP version 1"
		echo "1..1"
		dmesg | sed 's/^\[[^]]*\] \{0,1\}//' | sed -n '/^    # Subtest: acompd$/,/^\(not \)\{0,1\}ok [0-9]* \(- \)\{0,1\}acompd$/p'
	} >"$ktap"
	tail -n 3 "$ktap"
	grep -Eq '^(not )?ok [0-9]+ (- )?acompd$' "$ktap"
}

dmesg -c >/dev/null
check "modprobe acompd_kunit loads the suite's module" modprobe acompd_kunit
check "the acompd suite ran to its end (cases are counted from its KTAP)" capture
check "acompd_kunit unloads" rmmod acompd_kunit
tap_done
