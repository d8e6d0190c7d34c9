#!/usr/bin/env bash
# make soak: boot the debug kernel and run tests/soak-guest.sh for DURATION
# (seconds, or with a suffix s, m, h): mixed zram swap, zswap and direct zram
# writes, random fault injection, every page verified. Writes the report to
# results/<date>-soak-<DURATION>[-LABEL]/ (soak.txt: a line per round and
# the total; report.txt: the total, the splats and the command) and prints
# the total. Exit 0 only when no page was lost, no round failed, kmemleak
# found nothing and the console has no splat.
# Usage: tests/soak.sh KERNEL INITRD   (DURATION, SEED, LABEL from the environment)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=qemu-images/lib.sh
. "$TOP/qemu-images/lib.sh"
STAGE="soak"

kernel=${1:?usage: tests/soak.sh KERNEL INITRD}
initrd=${2:?usage: tests/soak.sh KERNEL INITRD}
dur=${DURATION:-10m}
case $dur in
*h) secs=$((${dur%h} * 3600)) ;;
*m) secs=$((${dur%m} * 60)) ;;
*s) secs=${dur%s} ;;
*) secs=$dur ;;
esac
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || die "DURATION=$dur: seconds, or a number with s, m or h"
seed=${SEED:-$(date +%s)}
[[ $seed =~ ^[0-9]+$ ]] || die "SEED=$seed: a number"

res="$TOP/results/$(date -u +%Y-%m-%d)-soak-$dur${LABEL:+-$LABEL}"
rundir=$BUILD/soak-runs/$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$rundir" "$res"
say "soak of ${secs}s, seed $seed, on $(basename "$(dirname "$(dirname "$(dirname "$(dirname "$kernel")")")")"); logs in $rundir, report in $res"
rm -f "$rundir/swap.img"
truncate -s 512M "$rundir/swap.img"
rc=0
# A round takes at most a few minutes: it may start just before the end.
"$TOP/qemu-images/run.sh" -q -k "$kernel" -i "$initrd" -o "$rundir" -t $((secs + 1200)) -m 1024 -c 2 \
	-d "$rundir/swap.img" \
	-a "ACOMP_JOB=soak ACOMP_SOAK_SECONDS=$secs ACOMP_SOAK_SEED=$seed" || rc=$?
rm -f "$rundir/swap.img"

splat=$(splat_pattern)
splats=$(grep -cE "$splat" "$rundir/console.log" || true)
cp "$rundir/outbox/soak.txt" "$res/soak.txt" 2>/dev/null || echo "no soak.txt: the guest wrote no results" >"$res/soak.txt"
total=$(grep '^soak: total' "$res/soak.txt" || echo "soak: total missing (the guest did not finish)")
{
	echo "$total splats=$splats run=$(cat "$rundir/status" 2>/dev/null || echo missing) guest_status=$(cat "$rundir/outbox/job-status" 2>/dev/null || echo missing)"
	echo "kernel: $(grep -m1 'Linux version' "$rundir/console.log" | sed 's/^\[ *[0-9.]*\] //' | cut -c1-100)"
	echo "command: make soak DURATION=$dur SEED=$seed${LABEL:+ LABEL=$LABEL} (repository $(git -C "$TOP" rev-parse --short HEAD)$(git -C "$TOP" diff --quiet HEAD -- 2>/dev/null || echo ', with uncommitted changes'))"
	[ "$splats" = 0 ] || grep -m5 -E "$splat" "$rundir/console.log"
} >"$res/report.txt"
gzip -9c "$rundir/console.log" >"$res/console.log.gz"
cat "$res/report.txt"
[ "$rc" = 0 ] && [ "$splats" = 0 ] && [ "$(cat "$rundir/outbox/job-status" 2>/dev/null)" = 0 ]
