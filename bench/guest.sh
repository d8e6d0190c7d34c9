#!/bin/sh
# In-guest benchmark scenarios. Chosen by ACOMP_SCENARIO on the kernel
# command line; results go to OUT (default /out).
#   zram-fio   zram0 with each algorithm of ACOMP_ALGS (or ACOMP_ALG, default
#              lz4), bench/fio/zram-write.fio; per algorithm in OUT/runs/N/:
#              fio.json, zram, vmstat and CPU time state before and after
#   zram-swap  zram0 as swap of a memory.max-limited cgroup running memstress,
#              per algorithm as above, memstress's line in memstress.txt
#   zswap-swap zswap with each algorithm in front of the swap disk /dev/vdb
#              (bench.sh attaches it), memstress as for zram-swap; zswap's
#              debugfs statistics before, under load and after
#   ACOMP_MEMMAX (swap runs' memory.max), ACOMP_OFFLOAD=1 (acompd's
#   workqueue on the last CPU, the workload on the others), ACOMP_HOG=N
#   (N busy loops: an artificially slowed variant), ACOMP_FIO_JOBS=a,b
#   (only those fio jobs), ACOMP_FIO_LOOPS=N (each job N times)
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

snapshot() {
	cp /proc/vmstat "$out/vmstat.$1"
	grep -E '^(cpu|ctxt) ' /proc/stat >"$out/cpu.$1"
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
# OUT/runs/N/ (algorithm, status, results, and the state before and after),
# after SETUP ALG SIZE (default zram_for). Algorithms alternate inside one
# boot, so that sync and async are measured side by side.
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
		snapshot before
		if "$1" "$a"; then echo ok >"$d/status"; else echo "failed" >"$d/status"; fi
		snapshot after
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

# ACOMP_FIO_JOBS=a,b runs only those jobs of the file (in its order).
run_fio() {
	sections=
	for j in $(echo "${ACOMP_FIO_JOBS:-}" | tr ',' ' '); do
		sections="$sections --section=$j"
	done
	# shellcheck disable=SC2086 # sections: separate options
	ACOMP_FIO_LOOPS=${ACOMP_FIO_LOOPS:-1} on fio --output-format=json --output="$out/fio.json" \
		$sections /acomp/bench/zram-write.fio
}

CG=/sys/fs/cgroup/acomp-bench
# run_swap: memstress in a cgroup limited to ACOMP_MEMMAX (default 64M),
# zram0 (or, for zswap-swap, zswap and /dev/vdb) as its swap: ACOMP_PROCS x
# ACOMP_MIB MiB, random and sequential passes.
run_swap() {
	dev=/dev/zram0
	if [ "$scenario" = zswap-swap ]; then
		dev=/dev/vdb
		echo Y >"$ZSWAP/enabled" || return 1
	fi
	mkswap "$dev" >/dev/null && swapon "$dev" || return 1
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$CG"
	echo "${ACOMP_MEMMAX:-64M}" >"$CG/memory.max"
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
	on sh -c "echo \$\$ >$CG/cgroup.procs && exec memstress -m ${ACOMP_MIB:-96} -P ${ACOMP_PROCS:-2} -p 2 -o both" \
		>"$out/memstress.txt" 2>&1
	rc=$?
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
	swapoff "$dev"
	echo N >"$ZSWAP/enabled"
	rmdir "$CG"
	return $rc
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
	per_alg run_swap 512M
	;;
zswap-swap)
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
