#!/bin/sh
# In-guest benchmark scenarios. Chosen by ACOMP_SCENARIO on the kernel
# command line; results go to OUT (default /out).
#   zram-fio   zram0 with ACOMP_ALG (default lz4), bench/fio/zram-write.fio,
#              fio JSON in OUT/fio.json, zram and vmstat state before and after
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
*)
	echo "ACOMP: bench: unknown scenario $scenario"
	exit 2
	;;
esac
