#!/usr/bin/env bash
# Host test driver: boots the debug kernel with the initramfs, runs the
# in-guest tests, runs the host checks that need a boot, and counts
# everything, with the host checks that need none (tests/host-checks.sh:
# HOST_CHECKS=DIR, where make test ran them first; run here when unset).
# Usage: tests/run.sh KERNEL INITRD   (TESTS="01-boot,..." selects scripts)
# Prints every result and, last, "N passed, N failed". Exit 0 only when
# nothing failed and something passed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=qemu-images/lib.sh
. "$TOP/qemu-images/lib.sh"
STAGE="test"

kernel=${1:?usage: tests/run.sh KERNEL INITRD}
initrd=${2:?usage: tests/run.sh KERNEL INITRD}
timeout=${TEST_TIMEOUT:-3300}
test_timeout=${GUEST_TEST_TIMEOUT:-900}

names=()
for t in "$TOP"/tests/guest/[0-9][0-9]-*.sh; do
	n=$(basename "$t" .sh)
	if [ -n "${TESTS:-}" ]; then
		case ",$TESTS," in *",$n,"*) ;; *) continue ;; esac
	fi
	names+=("$n")
done
[ ${#names[@]} -gt 0 ] || die "TESTS='${TESTS:-}' selects no script in tests/guest/"

rundir=$BUILD/test-runs/$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$rundir/outbox/tap"
ln -sfn "$(basename "$rundir")" "$BUILD/test-runs/latest"

list=$(IFS=,; echo "${names[*]}")
say "booting $(basename "$(dirname "$(dirname "$(dirname "$(dirname "$kernel")")")")") kernel: ${#names[@]} test script(s), timeout ${timeout}s, logs in $rundir"
# The second disk is the swap disk of the zswap tests (sparse, 512 MiB);
# zswap's boot-time compressor is checked by 02-zswap-boot.
rm -f "$rundir/swap.img"
truncate -s 512M "$rundir/swap.img"
"$TOP/qemu-images/run.sh" -k "$kernel" -i "$initrd" -o "$rundir" -t "$timeout" -m 1024 -c 2 \
	-d "$rundir/swap.img" \
	-a "zswap.compressor=acompd(lz4) ACOMP_JOB=test ACOMP_TESTS=$list ACOMP_TEST_TIMEOUT=$test_timeout" || true
rm -f "$rundir/swap.img"

# Host-side checks. Those that need no boot ran before it
# (tests/host-checks.sh, make test's first step; run here when this script
# runs alone); those that need this boot run now: the accelerator choice
# against what this boot recorded, and a short boot counted by the
# instruction-counting plugin. Each is a TAP producer of its own, counted
# with the guest's scripts (the outbox may be missing when the guest crashed).
hostdir=${HOST_CHECKS:-$rundir/host-checks}
[ -n "${HOST_CHECKS:-}" ] || "$TOP/tests/host-checks.sh" "$hostdir" >/dev/null || true
mkdir -p "$rundir/outbox/tap"
read -r -a host_names <"$hostdir/names"
for n in "${host_names[@]}"; do
	cp "$hostdir/$n".* "$rundir/outbox/tap/" 2>/dev/null || true
done
say "host checks after the boot: the accelerator choice; instruction counts"
"$TOP/tests/hostcheck.sh" "$rundir/outbox/tap" accel "$TOP/tests/accel.sh" "$kernel" "$rundir" >/dev/null || true
"$TOP/tests/hostcheck.sh" "$rundir/outbox/tap" insn \
	"$TOP/tests/insn.sh" "$kernel" "$initrd" "${PLUGIN:-$BUILD/plugin/insncount.so}" >/dev/null || true
host_names+=(host-accel host-insn)
# The pages the guest's workloads wrote and read back intact (memstress
# under a cgroup's memory.max, through zram or zswap; faultio's direct
# writes to zram), as guest/cgroup.sh's verified_pages recorded them.
if [ -f "$rundir/outbox/verified-pages" ]; then
	awk '{ w[$1] += $2; v[$1] += $3 }
		END { printf "pages verified: %d under memory pressure by memstress (%.2f GiB, %d written), %d by faultio (%.2f GiB)\n",
			v["memstress"], v["memstress"] / 262144, w["memstress"], v["faultio"], v["faultio"] / 262144 }' \
		"$rundir/outbox/verified-pages" | tee "$rundir/verified-pages.txt"
fi
echo "results of $rundir:"
python3 "$TOP/tests/tapcount.py" count "$rundir" "${host_names[@]}" "${names[@]}" kmemleak
