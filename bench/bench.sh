#!/usr/bin/env bash
# make bench: for each selected scenario of the matrix (bench/matrix), boot
# the kernels (KERNELS, default base patched) alternately (A B A B ...), run the scenario in
# each boot with its modes alternated inside the boot, then summarise and
# plot. Environment:
#   SCENARIOS="zram-fio zswap-swap-64m"  scenarios by name (default: DEFAULT below)
#   FULL=1        every scenario of the matrix, every mode
#   MODES=lz4,acompd(lz4)  the modes (algorithms) to run; default: the
#                 scenario's column, or its full list with FULL=1
#   REPS=3        repetitions per kernel
#   KERNELS="base patched mine"  the kernel variants to boot, alternated, from
#                 qemu-images/variants (default: the control and the
#                 candidates: base patched); the control is the variant
#                 with role control, whatever its place in the list
#   LABEL=name    results go to results/<date>-<label>/ (default: default, full)
#   GUEST_ARGS='ACOMP_FIO_LOOPS=3'  passed to the guest of every boot
#   KEEP_RAW=1    leave raw/ as it is (default: raw.tar.xz once summarised)
#   BENCH_DRY=1   print each scenario's plan (its matrix row as the guest
#                 gets it) and boot nothing
#   PLUGIN=build/plugin/insncount.so  count guest instructions per phase under
#                 TCG (make bench sets it unless INSN=0; bench/insn.py turns
#                 each boot's counts into raw/*/outbox/**/insn.txt)
# The guest's vCPUs, RAM and second disk are the scenario's matrix columns
# (GUEST_ARGS' ACOMP_GUEST_MEM= overrides its RAM); each boot's QEMU command
# line is kept in raw/*/qemu-cmdline and the records carry it. Each boot's
# identity (scenario, consumer, kernel variant and its source, repetition,
# modes, QEMU command line, accelerator, host) is raw/*/run.json
# (bench/runinfo.py), which the report reads.
# Ad hoc, as before the matrix: SCENARIO=zram-fio (a guest scenario) with
# GUEST_ARGS='ACOMP_ALGS=...' runs it with the consumer, vCPUs, RAM and disk
# of the first matrix row of that guest scenario, and no ARGS of the row.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=qemu-images/lib.sh
. "$TOP/qemu-images/lib.sh"
STAGE=bench

DEFAULT="zram-fio zram-swap-64m zswap-swap-64m"
reps=${REPS:-3}
# KERNELS="patched" boots only that kernel (sync against async modes in the
# same boots); the default alternates the control and the candidates.
check_variants
read -ra kernels <<<"${KERNELS:-$({ variants_with control; variants_with candidate; } | paste -sd' ')}"
[ ${#kernels[@]} -gt 0 ] || die "KERNELS names no kernel"
declare -A seen_kernel=()
for k in "${kernels[@]}"; do
	variant "$k" >/dev/null
	[ -z "${seen_kernel[$k]:-}" ] || die "KERNELS: $k named twice"
	seen_kernel[$k]=1
done

# The matrix, without comments: NAME GUEST-SCENARIO CONSUMER VCPUS MEM DISK
# MODES FULL-MODES ARGS... (BENCH_MATRIX: another file, for the tests).
matrix() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${BENCH_MATRIX:-$TOP/bench/matrix}"; }

names=()
if [ -n "${SCENARIO:-}" ]; then
	# Ad hoc: one guest scenario, algorithms from GUEST_ARGS' ACOMP_ALGS.
	adhoc=1
	names=("$SCENARIO")
	label=${LABEL:-$SCENARIO}
elif [ -n "${FULL:-}" ]; then
	mapfile -t names < <(matrix | awk '{ print $1 }')
	label=${LABEL:-full}
else
	read -r -a names <<<"${SCENARIOS:-$DEFAULT}"
	label=${LABEL:-default}
	for n in "${names[@]}"; do
		matrix | awk -v n="$n" '$1 == n { f = 1 } END { exit !f }' ||
			die "unknown scenario '$n'; bench/matrix has: $(matrix | awk '{ print $1 }' | tr '\n' ' ')"
	done
fi

# spec NAME: "GUEST-SCENARIO CONSUMER VCPUS MEM DISK MODES ARGS..." for a
# matrix scenario (ad hoc: of the first row of guest scenario NAME, modes
# "-" and no ARGS).
spec() {
	local line
	if [ -n "${adhoc:-}" ]; then
		line=$(matrix | awk -v g="$1" '$2 == g { print $2, $3, $4, $5, $6, "-"; exit }')
	else
		line=$(matrix | awk -v n="$1" -v full="${FULL:-}" -v modes="${MODES:-}" '
			$1 == n {
				m = full != "" ? $8 : $7
				if (modes != "") m = modes
				line = $2 " " $3 " " $4 " " $5 " " $6 " " m
				for (i = 9; i <= NF; i++) line = line " " $i
				print line
			}')
	fi
	[ -n "$line" ] || die "bench/matrix has no row for ${adhoc:+guest scenario }$1"
	# shellcheck disable=SC2086 # the row's words
	set -- $line
	[ -f "$TOP/bench/scenarios/$1.sh" ] || die "scenario $1: no guest script bench/scenarios/$1.sh"
	[[ $3 =~ ^[1-9][0-9]*$ ]] || die "scenario $1: VCPUS '$3' is not a number"
	[[ $4 =~ ^[0-9]+[MG]?$ ]] || die "scenario $1: MEM '$4': want a size for QEMU's -m (384M, 1G, or MiB)"
	[[ $5 == - || $5 =~ ^[0-9]+[MG]$ ]] || die "scenario $1: DISK '$5': want - or a size (1G, 512M)"
	echo "$line"
}

# guest_mem MEM ARGS...: the guest's RAM (QEMU -m): the last
# ACOMP_GUEST_MEM= of ARGS, else MEM.
guest_mem() {
	local m=$1 w
	shift
	for w in "$@"; do
		case $w in ACOMP_GUEST_MEM=*) m=${w#ACOMP_GUEST_MEM=} ;; esac
	done
	[[ $m =~ ^[0-9]+[MG]?$ ]] || die "ACOMP_GUEST_MEM=$m: want a size for QEMU's -m (384M, 1G, or MiB)"
	echo "$m"
}

# Every scenario's row is whole before anything boots.
for name in "${names[@]}"; do
	spec "$name" >/dev/null || exit 1
done
# BENCH_DRY=1: what each scenario's boots would get, and nothing booted.
if [ -n "${BENCH_DRY:-}" ]; then
	for name in "${names[@]}"; do
		read -r gscen consumer vcpus rowmem disksize modes args <<<"$(spec "$name")"
		echo "plan: $name guest=$gscen consumer=$consumer vcpus=$vcpus mem=$rowmem disk=$disksize modes=$modes args=${args:-}"
	done
	exit 0
fi

for k in "${kernels[@]}"; do
	if [ ! -f "$BUILD/kernels/$k/arch/x86/boot/bzImage" ] || [ ! -f "$BUILD/initramfs-$k.cpio.gz" ] ||
		[ ! -f "$BUILD/kernels/$k/.acomp-source" ]; then
		die "kernel $k is not built: make bench KERNELS=\"${kernels[*]}\" builds it (or make kernel-$k initramfs-$k)"
	fi
done

run=$TOP/results/$(date -u +%Y-%m-%d)-$label
[ -e "$run" ] && run=$run-$(date -u +%H%M%S)
mkdir -p "$run/raw" "$run/kernels"
echo "$run" >"$BUILD/last-bench-run"

for k in "${kernels[@]}"; do
	cp "$BUILD/kernels/$k/.config" "$run/kernels/$k.config"
	cat "$BUILD/kernels/$k/include/config/kernel.release" >"$run/kernels/$k.release"
	# ROLE SOURCE FRAGMENTS, and the source's commit and state.
	{
		echo "variant: $k $(variant "$k")"
		echo "source: $(cat "$BUILD/kernels/$k/.acomp-source")"
	} >"$run/kernels/$k.variant"
done
# The accelerator every boot of this run will use (run.sh probes the same way,
# and records it beside each boot's QEMU command line).
accel=$(pick_accel "$BUILD/kernels/${kernels[0]}/arch/x86/boot/bzImage")
say "accelerator: $accel"
cpu_model=max
[ "${accel%% *}" = kvm ] && cpu_model=host
cmd="make bench"
for v in SCENARIO SCENARIOS FULL MODES REPS LABEL ALG ACCEL KERNELS; do
	[ -n "${!v:-}" ] && cmd+=" $v=${!v}"
done
[ -n "${GUEST_ARGS:-}" ] && cmd+=" GUEST_ARGS='$GUEST_ARGS'"
{
	echo "command: $cmd"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host_cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "host_cpus: $(nproc)"
	echo "host_mem_kib: $(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	echo "qemu: $(qemu-system-x86_64 --version | head -1)"
	echo "linux_source: $(debian_version)"
	echo "series: $(series_patches | wc -l) patch(es), sha256 $(series_patches | sed "s|^|$TOP/patches/|" | xargs -r cat | sha256sum | cut -c1-16)"
	echo "project: $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "accelerator: $accel"
	echo "insn: $([ -n "${PLUGIN:-}" ] && echo "counted under TCG by $(basename "$PLUGIN")" || echo off)"
	echo "guest: -accel ${accel%% *} -cpu $cpu_model, -smp and -m per scenario (bench/matrix VCPUS and MEM)"
	ctl=$(variants_with control)
	case " ${kernels[*]} " in *" $ctl "*) ;; *) ctl="none booted (the control, $ctl, is not in KERNELS)" ;; esac
	echo "kernels: ${kernels[*]} (control: $ctl)"
	echo "scenarios: ${names[*]}"
	echo "reps: $reps"
} >"$run/facts.txt"

total=$((${#names[@]} * reps * ${#kernels[@]}))
i=0
s=0
start=$(date +%s)
for name in "${names[@]}"; do
	s=$((s + 1))
	row=$(spec "$name") || exit 1
	read -r gscen consumer vcpus rowmem disksize modes args <<<"$row"
	# shellcheck disable=SC2086 # GUEST_ARGS: space-separated guest parameters
	mem=$(guest_mem "$rowmem" ${GUEST_ARGS:-})
	# The matrix line as run (its guest shape as a comment, so that the file
	# stays a valid matrix).
	echo "$name $gscen $consumer $vcpus $mem $disksize $modes ${args:-}  # guest: -smp $vcpus -m $mem" >>"$run/scenarios.txt"
	algs=()
	[ "$modes" != - ] && algs=("ACOMP_ALGS=$modes")
	for rep in $(seq 1 "$reps"); do
		for k in "${kernels[@]}"; do
			i=$((i + 1))
			el=$(($(date +%s) - start))
			eta=$([ "$i" -gt 1 ] && echo "~$((el * (total - i + 1) / (i - 1) / 60)) min" || echo "?")
			echo "[bench] scenario $s/${#names[@]} $name ($modes, ${vcpus} vCPUs, -m $mem): $k rep $rep/$reps;" \
				"boot $i/$total, elapsed $((el / 60)) min $((el % 60)) s, remaining $eta"
			# The scenario's second disk (zswap's swap disk): sparse,
			# fresh every boot.
			disk=()
			if [ "$disksize" != - ]; then
				rm -f "$BUILD/bench-swap.img"
				truncate -s "$disksize" "$BUILD/bench-swap.img"
				disk=(-d "$BUILD/bench-swap.img")
			fi
			out=$run/raw/$name-$k-${ALG:-all}-r$rep
			# shellcheck disable=SC2086 # args: space-separated guest parameters
			"$TOP/qemu-images/run.sh" -q -k "$BUILD/kernels/$k/arch/x86/boot/bzImage" \
				-i "$BUILD/initramfs-$k.cpio.gz" -o "$out" -t 1800 -m "$mem" -c "$vcpus" "${disk[@]}" \
				${PLUGIN:+-P "$PLUGIN"} \
				-a "ACOMP_JOB=bench ACOMP_SCENARIO=$gscen ACOMP_ALG=${ALG:-lz4} ${algs[*]} ${args:-} ${GUEST_ARGS:-}" ||
				echo "[bench] boot $i failed: $(cat "$out/status")"
			python3 "$TOP/bench/insn.py" resolve "$BUILD/kernels/$k" "$out" ||
				echo "[bench] boot $i: its instruction counts could not be resolved"
			python3 "$TOP/bench/runinfo.py" write "$out" "label=$label" "scenario=$name" \
				"guest_scenario=$gscen" "consumer=$consumer" "kernel=$k" \
				"kernel_role=$(variant "$k" | awk '{ print $1 }')" \
				"kernel_source=$(cat "$BUILD/kernels/$k/.acomp-source")" \
				"kernel_release=$(cat "$BUILD/kernels/$k/include/config/kernel.release")" \
				"rep=$rep" "modes=$modes" "args=${args:-} ${GUEST_ARGS:-}" "vcpus=$vcpus" "mem=$mem" \
				"disk=$disksize" "insn=$(cat "$out/insn" 2>/dev/null || echo off)" ||
				die "cannot write $out/run.json"
		done
	done
done
rm -f "$BUILD/bench-swap.img"
echo "[bench] $total boots in $((($(date +%s) - start) / 60)) min; results in ${run#"$TOP"/}"
rc=0
python3 "$TOP/bench/report.py" summarize "$run" || rc=$?
python3 "$TOP/bench/report.py" plot "$run" || rc=1
# What a reader opens stays as files; the guest's raw output becomes one
# archive that the report reads as it read raw/ (KEEP_RAW=1 keeps raw/;
# bench/rawstore.py extract RUNDIR brings it back).
if [ -z "${KEEP_RAW:-}" ]; then
	python3 "$TOP/bench/rawstore.py" archive "$run" || rc=1
fi
exit $rc
