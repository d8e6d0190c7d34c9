#!/bin/sh
# In-guest benchmark scenarios. Chosen by ACOMP_SCENARIO on the kernel
# command line; results go to OUT (default /out).
#   zram-fio   zram0 with ACOMP_ALG (default lz4), bench/fio/zram-write.fio,
#              fio JSON in OUT/fio.json, zram and vmstat state before and after
#   pagebench  consumer/pagebench on /acomp/corpus.bin for each algorithm in
#              ACOMP_ALGS (comma-separated) and depth in ACOMP_DEPTHS, ACOMP_ITERS
#              passes each; result lines in OUT/pagebench.txt
out=${1:-/out}
scenario=${ACOMP_SCENARIO:-zram-fio}
alg=${ACOMP_ALG:-lz4}
ZRAM=/sys/block/zram0

snapshot() {
	cp /proc/vmstat "$out/vmstat.$1"
	cat /proc/pressure/memory >"$out/psi-memory.$1" 2>/dev/null
	cat "$ZRAM/mm_stat" >"$out/zram-mm_stat.$1" 2>/dev/null
	cat "$ZRAM/io_stat" >"$out/zram-io_stat.$1" 2>/dev/null
}

case "$scenario" in
zram-fio)
	echo 1 >"$ZRAM/reset"
	echo "$alg" >"$ZRAM/comp_algorithm" || exit 1
	echo 1G >"$ZRAM/disksize" || exit 1
	snapshot before
	echo "ACOMP: progress: fio on zram0 with $alg"
	fio --output-format=json --output="$out/fio.json" /acomp/bench/zram-write.fio || exit 1
	snapshot after
	echo "$alg" >"$out/algorithm"
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
