#!/usr/bin/env bash
# make bench: boot the base and patched kernels alternately (A B A B ...),
# run the scenario in each, and summarise. Environment:
#   REPS=3        repetitions per kernel
#   SCENARIO=zram-fio  ALG=lz4
#   LABEL=skeleton     results go to results/<date>-<label>/
#   GUEST_ARGS='ACOMP_ALGS=lz4,acompd(lz4) ACOMP_DEPTHS=1,16'  passed to the guest
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=qemu-images/lib.sh
. "$TOP/qemu-images/lib.sh"
STAGE=bench

reps=${REPS:-3}
scenario=${SCENARIO:-zram-fio}
alg=${ALG:-lz4}
label=${LABEL:-$scenario}
kernels=(base patched)
run=$TOP/results/$(date -u +%Y-%m-%d)-$label
[ -e "$run" ] && run=$run-$(date -u +%H%M%S)
mkdir -p "$run/raw" "$run/kernels"

for k in "${kernels[@]}"; do
	cp "$BUILD/kernels/$k/.config" "$run/kernels/$k.config"
	cat "$BUILD/kernels/$k/include/config/kernel.release" >"$run/kernels/$k.release"
done
{
	echo "command: make bench REPS=$reps SCENARIO=$scenario ALG=$alg LABEL=$label${GUEST_ARGS:+ GUEST_ARGS='$GUEST_ARGS'}"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host_cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "host_cpus: $(nproc)"
	echo "host_mem_kib: $(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	echo "qemu: $(qemu-system-x86_64 --version | head -1)"
	echo "linux_source: $(debian_version)"
	echo "series: $(series_patches | wc -l) patch(es), sha256 $(series_patches | sed "s|^|$TOP/patches/|" | xargs -r cat | sha256sum | cut -c1-16)"
	echo "project: $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "guest: -accel tcg -cpu max -smp 2 -m 1024"
} >"$run/facts.txt"

total=$((reps * ${#kernels[@]}))
i=0
start=$(date +%s)
for rep in $(seq 1 "$reps"); do
	for k in "${kernels[@]}"; do
		i=$((i + 1))
		el=$(($(date +%s) - start))
		eta=$([ "$i" -gt 1 ] && echo "$((el * (total - i + 1) / (i - 1)))s" || echo "?")
		echo "[bench] run $i/$total: $scenario $k rep $rep (elapsed ${el}s, remaining ~$eta)"
		# zswap scenarios swap to a second disk (sparse, fresh every boot).
		disk=()
		case $scenario in zswap-*)
			rm -f "$BUILD/bench-swap.img"
			truncate -s 1G "$BUILD/bench-swap.img"
			disk=(-d "$BUILD/bench-swap.img") ;;
		esac
		"$TOP/qemu-images/run.sh" -q -k "$BUILD/kernels/$k/arch/x86/boot/bzImage" \
			-i "$BUILD/initramfs-$k.cpio.gz" -o "$run/raw/$scenario-$k-$alg-r$rep" -t 900 -m 1024 -c 2 \
			"${disk[@]}" -a "ACOMP_JOB=bench ACOMP_SCENARIO=$scenario ACOMP_ALG=$alg ${GUEST_ARGS:-}" ||
			echo "[bench] run $i failed: $(cat "$run/raw/$scenario-$k-$alg-r$rep/status")"
	done
done
rm -f "$BUILD/bench-swap.img"
echo "[bench] $total runs in $(($(date +%s) - start))s; results in ${run#"$TOP"/}"
python3 "$TOP/bench/report.py" summarize "$run"
