#!/usr/bin/env bash
# The accelerator choice (pick_accel in qemu-images/lib.sh), as TAP: ACCEL=tcg
# forces TCG, other values are refused, ACCEL=kvm fails with the reason where
# KVM cannot work, the automatic choice falls back to TCG with a reason, and
# the boot of this test run recorded the accelerator its QEMU command used.
# Usage: tests/accel.sh KERNEL RUNDIR   (RUNDIR: a run.sh output directory)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
kernel=${1:?usage: tests/accel.sh KERNEL RUNDIR}
rundir=${2:?usage: tests/accel.sh KERNEL RUNDIR}

# shellcheck source=tests/host-tap.sh
. "$TOP/tests/host-tap.sh"
TAP_PREFIX=accel

# pick_accel in a subshell, with ACCEL as given ($1); prints its output
# (stderr included) and returns its status.
pick() {
	(
		# shellcheck source=qemu-images/lib.sh
		. "$TOP/qemu-images/lib.sh"
		STAGE=accel
		ACCEL=$1 pick_accel "$kernel"
	) 2>&1
}

out=$(pick tcg)
[ "$out" = "tcg forced by ACCEL=tcg" ]
result $? "ACCEL=tcg forces TCG" "got: $out"

out=$(pick hvf)
rc=$?
[ $rc != 0 ] && [[ $out == *"expected tcg or kvm"* ]]
result $? "ACCEL=hvf is refused with the values it takes" "status $rc: $out"

if [ -c /dev/kvm ] && { exec 9<>/dev/kvm; } 2>/dev/null; then
	exec 9>&-
	# KVM may work here: either answer is right, with its reason.
	out=$(pick kvm)
	rc=$?
	{ [ $rc = 0 ] && [ "$out" = "kvm forced by ACCEL=kvm" ]; } ||
		{ [ $rc != 0 ] && [[ $out == *"KVM guest did not boot"* ]]; }
	result $? "ACCEL=kvm boots a KVM guest or says why not" "status $rc: $out"
	out=$(pick '')
	[[ $out == "kvm (a KVM guest booted)" || $out == "tcg (a KVM guest did not boot"* ]]
	result $? "unset ACCEL: KVM when a KVM guest boots, else TCG with the reason" "got: $out"
else
	out=$(pick kvm)
	rc=$?
	[ $rc != 0 ] && [[ $out == *"KVM cannot be used"*"/dev/kvm"* ]]
	result $? "ACCEL=kvm without a usable /dev/kvm fails and names it" "status $rc: $out"
	out=$(pick '')
	[ "$out" = "tcg (/dev/kvm does not open read-write)" ]
	result $? "unset ACCEL without a usable /dev/kvm: TCG, with the reason" "got: $out"
fi

# What this run's boot used: recorded, and the same as its QEMU command line.
want=$(pick "${ACCEL:-}")
rec=$(cat "$rundir/accel" 2>/dev/null)
used=$(grep -o -- '-accel [a-z]*' "$rundir/qemu-cmdline" 2>/dev/null | cut -d' ' -f2)
[ -n "$rec" ] && [ "$rec" = "$want" ] && [ "${rec%% *}" = "$used" ]
result $? "the test boot recorded its accelerator ($rec), as its QEMU command used it" \
	"recorded '$rec', expected '$want', -accel '$used'"
tap_plan
