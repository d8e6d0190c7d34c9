#!/bin/sh
# In-guest benchmark scenarios. Chosen by ACOMP_SCENARIO on the kernel
# command line; results go to OUT (default /out).
#   zram-fio   zram0 with each algorithm of ACOMP_ALGS (or ACOMP_ALG, default
#              lz4), bench/fio/zram-write.fio one job at a time; per algorithm
#              in OUT/runs/N/: fio-JOB.json and cpu.JOB.before/after (CPU
#              time and context switches around each job), zram, vmstat and
#              CPU time state before and after all jobs
#   zram-swap  zram0 (ACOMP_ZRAM_SIZE, default 512M) as swap of memstress in
#              a memory.max-limited cgroup, per algorithm as above, the state
#              taken right before and after memstress, its line in
#              memstress.txt, the limit in memory.max, the cgroup's
#              memory.events and memory.stat in memcg-events, memcg-stat
#   zswap-swap zswap with each algorithm in front of the swap disk /dev/vdb
#              (bench.sh attaches it), memstress as for zram-swap; zswap's
#              debugfs statistics before, under load and after, its
#              parameters in zswap-params
#   Swap runs: ACOMP_PROCS x ACOMP_MIB MiB (default 2 x 96), ACOMP_PASSES
#   (default 2) in ACOMP_ORDER (seq, rand, both: default), ACOMP_MEMMAX
#   (memory.max, default 64M; "none": no cgroup, global reclaim by kswapd
#   and the allocating task, sized by the guest's RAM), ACOMP_ZSWAP_ZPOOL
#   and ACOMP_ZSWAP_MAX_POOL (zswap's zpool and max_pool_percent; default:
#   the kernel's). ACOMP_OFFLOAD=1 (acompd's workqueue on the last CPU, the
#   workload on the others), ACOMP_HOG=N (N busy loops: an artificially
#   slowed variant), ACOMP_FIO_JOBS=a,b (only those fio jobs),
#   ACOMP_FIO_LOOPS=N (each job N times)
#   pagebench  consumer/pagebench on /acomp/corpus.bin for each algorithm in
#              ACOMP_ALGS (comma-separated; comp:NAME is NAME through the
#              legacy crypto_comp API, depth 1 only) and depth in ACOMP_DEPTHS,
#              ACOMP_ITERS passes each; result lines in OUT/pagebench.txt
out=${1:-/out}
scenario=${ACOMP_SCENARIO:-zram-fio}
alg=${ACOMP_ALG:-lz4}
ZRAM=/sys/block/zram0
ZSWAP=/sys/module/zswap/parameters
ZSWAP_DBG=/sys/kernel/debug/zswap

# CPU time (the "cpu" line) and context switches ("ctxt") of /proc/stat.
cpustat() {
	grep -E '^(cpu|ctxt) ' /proc/stat
}

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

# zswap's debugfs statistics, one "name value" per line.
zswap_stats() {
	for f in "$ZSWAP_DBG"/*; do
		[ -f "$f" ] && echo "${f##*/} $(cat "$f")"
	done
}

# algs: ACOMP_ALGS (comma-separated) or ACOMP_ALG, one per line.
algs() {
	echo "${ACOMP_ALGS:-$alg}" | tr ',' '\n'
}

# zram_for ALG SIZE: reset zram0 and set it up; fails if the kernel lacks ALG.
zram_for() {
	swapoff /dev/zram0 2>/dev/null
	echo 1 >"$ZRAM/reset"
	echo "$1" >"$ZRAM/comp_algorithm" 2>/dev/null && echo "$2" >"$ZRAM/disksize"
}

# zswap_for ALG: zswap with ALG (in front of the swap disk: run_swap turns it
# on); fails if the kernel lacks ALG.
zswap_for() {
	echo N >"$ZSWAP/enabled"
	echo "$1" >"$ZSWAP/compressor" 2>/dev/null
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
	zram_for lz4 1M && echo 1 >"$ZRAM/reset"
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

# on CMD...: run CMD on the workload's CPUs.
on() {
	if [ -n "$WORK_ON" ]; then taskset "$WORK_ON" "$@"; else "$@"; fi
}

# The jobs of the fio file (every [section] but [global]), in its order, or
# those of ACOMP_FIO_JOBS=a,b (in that order); one fio run each, so that the
# CPU time and context switches around each job are its own.
FIO_FILE=/acomp/bench/zram-write.fio
run_fio() {
	jobs=$(echo "${ACOMP_FIO_JOBS:-}" | tr ',' ' ')
	[ -n "$jobs" ] || jobs=$(sed -n -e '/^\[global\]$/d' -e 's/^\[\(.*\)\]$/\1/p' "$FIO_FILE")
	rc=0
	snapshot before
	for j in $jobs; do
		cpustat >"$out/cpu.$j.before"
		ACOMP_FIO_LOOPS=${ACOMP_FIO_LOOPS:-1} on fio --output-format=json \
			--output="$out/fio-$j.json" --section="$j" "$FIO_FILE" || rc=1
		cpustat >"$out/cpu.$j.after"
	done
	snapshot after
	return $rc
}

CG=/sys/fs/cgroup/acomp-bench
# run_swap: memstress in a cgroup limited to ACOMP_MEMMAX (default 64M; with
# "none" in no cgroup: the guest's RAM is the limit), zram0 (or, for
# zswap-swap, zswap and /dev/vdb) as its swap: ACOMP_PROCS x ACOMP_MIB MiB,
# ACOMP_PASSES passes in ACOMP_ORDER, every page verified. The state is
# snapshot right before and after memstress, so that swapoff (which reads
# back whatever else was swapped out) is not counted.
run_swap() {
	dev=/dev/zram0
	if [ "$scenario" = zswap-swap ]; then
		dev=/dev/vdb
		echo Y >"$ZSWAP/enabled" || return 1
		grep -H . "$ZSWAP"/* >"$out/zswap-params" 2>/dev/null
	fi
	mkswap "$dev" >/dev/null && swapon "$dev" || return 1
	memmax=${ACOMP_MEMMAX:-64M}
	echo "$memmax" >"$out/memory.max"
	join=
	if [ "$memmax" != none ]; then
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control
		mkdir -p "$CG"
		echo "$memmax" >"$CG/memory.max" || return 1
		join="echo \$\$ >$CG/cgroup.procs && "
	fi
	# What zram or zswap holds under pressure, sampled every second while
	# memstress runs (its exit frees everything).
	(
		while :; do
			if [ "$dev" = /dev/zram0 ]; then
				cat "$ZRAM/mm_stat"
			else
				echo "$(cat "$ZSWAP_DBG/stored_pages") $(cat "$ZSWAP_DBG/same_filled_pages") $(cat "$ZSWAP_DBG/pool_total_size")"
			fi
			sleep 1
		done >"$out/loaded.samples"
	) &
	sampler=$!
	snapshot before
	on sh -c "${join}exec memstress -m ${ACOMP_MIB:-96} -P ${ACOMP_PROCS:-2} -p ${ACOMP_PASSES:-2} -o ${ACOMP_ORDER:-both}" \
		>"$out/memstress.txt" 2>&1
	rc=$?
	snapshot after
	kill "$sampler"
	wait "$sampler" 2>/dev/null
	# The fullest sample: zram mm_stat as is, zswap as "name value" lines.
	if [ "$dev" = /dev/zram0 ]; then
		awk '$1 > max { max = $1; line = $0 } END { if (line != "") print line }' \
			"$out/loaded.samples" >"$out/zram-mm_stat.loaded"
	else
		awk '$1 > max { max = $1; s = $1; f = $2; p = $3 }
			END { if (max > 0) printf "stored_pages %d\nsame_filled_pages %d\npool_total_size %d\n", s, f, p }' \
			"$out/loaded.samples" >"$out/zswap.loaded"
	fi
	if [ -n "$join" ]; then
		# A fresh cgroup per run: its counters are the run's.
		cat "$CG/memory.events" >"$out/memcg-events"
		cat "$CG/memory.stat" >"$out/memcg-stat"
		rmdir "$CG"
	fi
	swapoff "$dev"
	echo N >"$ZSWAP/enabled"
	return $rc
}

# zswap's zpool and pool limit for the whole boot (ACOMP_ZSWAP_ZPOOL,
# ACOMP_ZSWAP_MAX_POOL), before any compressor is set.
zswap_setup() {
	if [ -n "${ACOMP_ZSWAP_ZPOOL:-}" ]; then
		echo "$ACOMP_ZSWAP_ZPOOL" >"$ZSWAP/zpool" || return 1
	fi
	if [ -n "${ACOMP_ZSWAP_MAX_POOL:-}" ]; then
		echo "$ACOMP_ZSWAP_MAX_POOL" >"$ZSWAP/max_pool_percent" || return 1
	fi
	return 0
}

offload || { echo "ACOMP: bench: offload setup failed"; exit 1; }
# A deliberately slowed variant, for showing that make compare catches a
# regression: ACOMP_HOG=N busy loops compete with the workload.
for _ in $(seq 1 "${ACOMP_HOG:-0}"); do
	sh -c 'while :; do :; done' &
done

case "$scenario" in
zram-fio)
	per_alg run_fio 1G
	;;
zram-swap)
	per_alg run_swap "${ACOMP_ZRAM_SIZE:-512M}"
	;;
zswap-swap)
	zswap_setup || { echo "ACOMP: bench: zswap zpool/max_pool_percent setup failed"; exit 1; }
	per_alg run_swap 0 zswap_for
	;;
pagebench)
	D=/sys/kernel/debug/acomp_pagebench
	insmod /acomp/modules/acomp_pagebench.ko || exit 1
	cat /acomp/corpus.bin >"$D/corpus" || exit 1
	snapshot before
	# Algorithms alternate within each depth, so that sync and async
	# variants are measured side by side.
	for d in $(echo "${ACOMP_DEPTHS:-1,4,16}" | tr ',' ' '); do
		for a in $(echo "${ACOMP_ALGS:-lz4,acompd(lz4)}" | tr ',' ' '); do
			# comp:NAME (the legacy crypto_comp API) waits for each page.
			case $a in comp:*) [ "$d" = 1 ] || continue ;; esac
			echo "ACOMP: progress: pagebench $a depth $d"
			if echo "alg=$a depth=$d iters=${ACOMP_ITERS:-4}" >"$D/run"; then
				cat "$D/result" >>"$out/pagebench.txt"
			else
				echo "pagebench: alg=$a depth=$d failed: not available on this kernel" >>"$out/pagebench.txt"
			fi
		done
	done
	snapshot after
	rmmod acomp_pagebench
	;;
*)
	echo "ACOMP: bench: unknown scenario $scenario"
	exit 2
	;;
esac
