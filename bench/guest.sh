#!/bin/sh
# In-guest benchmark driver: the scenario ACOMP_SCENARIO (kernel command
# line) is /acomp/bench/scenarios/NAME.sh (bench/scenarios/ in the tree),
# which runs its workload with the helpers below; results go to OUT
# (default /out). Guest helpers shared with the tests: /acomp/lib (guest/).
# Per algorithm of ACOMP_ALGS (comma-separated; or ACOMP_ALG, default lz4),
# a scenario that runs per_alg leaves OUT/runs/N/: algorithm, status, its
# results, and the state before and after its workload (snapshot: vmstat,
# CPU time and context switches, memory pressure, zram's and zswap's
# statistics). Every scenario script documents its parameters and its
# files; the host reads them with its parser (bench/parse.py SCENARIOS).
# Parameters of every scenario: ACOMP_OFFLOAD=1 (acompd's workqueue on the
# last CPU, the workload on the others: run it with "on"), ACOMP_HOG=N (N
# busy loops: an artificially slowed variant).
out=${1:-/out}
OUTROOT=$out
scenario=${ACOMP_SCENARIO:-zram-fio}
alg=${ACOMP_ALG:-lz4}
. /acomp/lib/stat.sh
. /acomp/lib/zram.sh
. /acomp/lib/zswap.sh
. /acomp/lib/cgroup.sh

# snapshot before|after: the state a run's metrics are the deltas of.
snapshot() {
	cp /proc/vmstat "$out/vmstat.$1"
	cpustat >"$out/cpu.$1"
	cat /proc/pressure/memory >"$out/psi-memory.$1" 2>/dev/null
	cat "$ZRAM/mm_stat" >"$out/zram-mm_stat.$1" 2>/dev/null
	cat "$ZRAM/io_stat" >"$out/zram-io_stat.$1" 2>/dev/null
	cat "$ZRAM/async_stat" >"$out/zram-async_stat.$1" 2>/dev/null
	zswap_stats >"$out/zswap.$1"
}

# phase SUFFIX: the label of a counted phase (guest/stat.sh phase_begin):
# OUT relative to the boot's output and SUFFIX, e.g. runs/2/swap, so that
# the host's parser finds the phases of a run under its directory.
phase() {
	_p=${out#"$OUTROOT"}
	_p=${_p#/}
	echo "${_p:+$_p/}$1"
}

# algs: ACOMP_ALGS (comma-separated) or ACOMP_ALG, one per line.
algs() {
	echo "${ACOMP_ALGS:-$alg}" | tr ',' '\n'
}

# zram_for ALG SIZE: zram0 with ALG and SIZE; fails if the kernel lacks ALG.
zram_for() {
	zram_setup "$1" "$2" 2>/dev/null
}

# per_alg SCENARIO-FUNCTION SIZE [SETUP]: run it for every algorithm, each in
# OUT/runs/N/ (algorithm, status, results, and the state before and after,
# which the function snapshots around its workload), after SETUP ALG SIZE
# (default zram_for). Algorithms alternate inside one boot, so that sync and
# async are measured side by side.
per_alg() {
	n=0
	for a in $(algs); do
		n=$((n + 1))
		d=$out/runs/$n
		mkdir -p "$d"
		echo "$a" >"$d/algorithm"
		if ! "${3:-zram_for}" "$a" "$2"; then
			echo "not available on this kernel" >"$d/status"
			continue
		fi
		echo "ACOMP: progress: $scenario with $a"
		o=$out
		out=$d
		if "$1" "$a"; then echo ok >"$d/status"; else echo "failed" >"$d/status"; fi
		out=$o
	done
	# Back to lz4 before the reset, so that no other algorithm stays
	# referenced by zram for the rest of the boot.
	zram_for lz4 1M && zram_reset
}

# Offload mode (ACOMP_OFFLOAD=1): acompd's workqueue on the last CPU, the
# workload (WORK_ON, a taskset mask) on the others; else everything anywhere.
WORK_ON=
offload() {
	[ "${ACOMP_OFFLOAD:-0}" = 1 ] || return 0
	last=$(($(nproc) - 1))
	modprobe acompd 2>/dev/null
	wq=/sys/devices/virtual/workqueue/acompd/cpumask
	WORK_ON=$(printf '%x' $(((1 << last) - 1)))
	if [ -e "$wq" ]; then
		printf '%x' $((1 << last)) >"$wq" || return 1
		echo "ACOMP: progress: offload: acompd workqueue on CPU $last ($(cat "$wq")), workload on mask $WORK_ON"
	else
		# The unpatched kernel: only its sync modes run, pinned the same way.
		echo "ACOMP: progress: offload: no acompd on this kernel, workload on mask $WORK_ON"
	fi
}

# on CMD...: run CMD (an external command) on the workload's CPUs, without
# the marker server's FIFOs (guest/stat.sh insn_serve).
on() {
	if [ -n "$WORK_ON" ]; then taskset "$WORK_ON" "$@" 8>&- 9>&-; else "$@" 8>&- 9>&-; fi
}

# The cgroup of a scenario's memory.max (cg_create): fresh for every run, so
# that its counters are the run's.
CG=/sys/fs/cgroup/acomp-bench

# swap_load DEV CMD ARGS...: CMD as a swap load on DEV (/dev/zram0 or the
# swap disk, made and enabled here) in the cgroup limited to ACOMP_MEMMAX
# (default 64M; "none": no cgroup, so the guest's RAM is the limit and
# kswapd and the allocating tasks reclaim), on the workload's CPUs, its
# output in OUT/OUTFILE (SWAP_OUT, default memstress.txt). The state is
# snapshot right before and after CMD (the counted phase runs/N/swap), so that swapoff (which reads back
# whatever else was swapped out) is not counted; what zram or zswap holds is
# sampled every second (zram-mm_stat.loaded or zswap.loaded: the fullest
# sample); the limit in memory.max, the cgroup's memory.events and
# memory.stat in memcg-events, memcg-stat.
swap_load() {
	dev=$1
	shift
	mkswap "$dev" >/dev/null && swapon "$dev" || return 1
	memmax=${ACOMP_MEMMAX:-64M}
	echo "$memmax" >"$out/memory.max"
	cg=
	if [ "$memmax" != none ]; then
		cg=$CG
		cg_create "$cg" "$memmax" || return 1
	fi
	# Builtins only (read, echo; a read timing out on a FIFO nobody writes
	# to for the second's wait): no process per sample, whose fork and
	# exec the counted phase would include, more of them the longer it ran.
	rm -f /tmp/sampler.tick
	mkfifo /tmp/sampler.tick || return 1
	(
		exec 3<>/tmp/sampler.tick
		while :; do
			if [ "$dev" = /dev/zram0 ]; then
				read -r s <"$ZRAM/mm_stat"
				echo "$s"
			else
				read -r s <"$ZSWAP_DBG/stored_pages"
				read -r f <"$ZSWAP_DBG/same_filled_pages"
				read -r p <"$ZSWAP_DBG/pool_total_size"
				echo "$s $f $p"
			fi
			# shellcheck disable=SC3045 # busybox ash's read has -t
			read -t 1 -r _ <&3
		done >"$out/loaded.samples"
	) &
	sampler=$!
	snapshot before
	label=$(phase swap)
	phase_begin "$label"
	on sh -c "$CG_EXEC" sh "$cg" "$@" >"$out/${SWAP_OUT:-memstress.txt}" 2>&1
	rc=$?
	phase_end "$label"
	snapshot after
	kill "$sampler"
	wait "$sampler" 2>/dev/null
	rm -f /tmp/sampler.tick
	# The fullest sample: zram mm_stat as is, zswap as "name value" lines.
	if [ "$dev" = /dev/zram0 ]; then
		awk '$1 > max { max = $1; line = $0 } END { if (line != "") print line }' \
			"$out/loaded.samples" >"$out/zram-mm_stat.loaded"
	else
		awk '$1 > max { max = $1; s = $1; f = $2; p = $3 }
			END { if (max > 0) printf "stored_pages %d\nsame_filled_pages %d\npool_total_size %d\n", s, f, p }' \
			"$out/loaded.samples" >"$out/zswap.loaded"
	fi
	if [ -n "$cg" ]; then
		cat "$cg/memory.events" >"$out/memcg-events"
		cat "$cg/memory.stat" >"$out/memcg-stat"
		cg_remove "$cg"
	fi
	swapoff "$dev"
	return $rc
}

# memstress_args: the memstress of the swap scenarios: ACOMP_PROCS x
# ACOMP_MIB MiB (default 2 x 96), ACOMP_PASSES passes (default 2) in
# ACOMP_ORDER (seq, rand, both: default), every page verified.
memstress_args() {
	echo "-m ${ACOMP_MIB:-96} -P ${ACOMP_PROCS:-2} -p ${ACOMP_PASSES:-2} -o ${ACOMP_ORDER:-both}"
}

script=/acomp/bench/scenarios/$scenario.sh
if [ ! -f "$script" ]; then
	echo "ACOMP: bench: unknown scenario $scenario (no $script)"
	exit 2
fi
insn_anchor
insn_serve || { echo "ACOMP: bench: the icmark server did not start"; exit 1; }
offload || { echo "ACOMP: bench: offload setup failed"; exit 1; }
# A deliberately slowed variant, for showing that make compare catches a
# regression: ACOMP_HOG=N busy loops compete with the workload.
for _ in $(seq 1 "${ACOMP_HOG:-0}"); do
	sh -c 'while :; do :; done' &
done
# shellcheck source=/dev/null # the scenario, bench/scenarios/NAME.sh
. "$script"
