# shellcheck shell=sh disable=SC2154 # out, snapshot, per_alg...: bench/guest.sh
# Scenario pagebench (sourced by bench/guest.sh): the crypto engine alone,
# consumer/pagebench on /acomp/corpus.bin for each algorithm of ACOMP_ALGS
# (comma-separated; comp:NAME is NAME through the legacy crypto_comp API,
# depth 1 only) and depth of ACOMP_DEPTHS, ACOMP_ITERS passes each; its
# result lines in OUT/pagebench.txt, the snapshot before and after all;
# each run is the counted phase pagebench/ALG/dDEPTH.
# Parser: bench/parse.py pagebench_boot.

D=/sys/kernel/debug/acomp_pagebench
insmod /acomp/modules/acomp_pagebench.ko || exit 1
cat /acomp/corpus.bin >"$D/corpus" || exit 1
snapshot before
# Algorithms alternate within each depth, so that sync and async variants
# are measured side by side.
for d in $(echo "${ACOMP_DEPTHS:-1,4,16}" | tr ',' ' '); do
	for a in $(echo "${ACOMP_ALGS:-lz4,acompd(lz4)}" | tr ',' ' '); do
		# comp:NAME (the legacy crypto_comp API) waits for each page.
		case $a in comp:*) [ "$d" = 1 ] || continue ;; esac
		echo "ACOMP: progress: pagebench $a depth $d"
		phase_begin "pagebench/$a/d$d"
		ok=0
		echo "alg=$a depth=$d iters=${ACOMP_ITERS:-4}" >"$D/run" && ok=1
		phase_end "pagebench/$a/d$d"
		if [ $ok = 1 ]; then
			cat "$D/result" >>"$out/pagebench.txt"
		else
			echo "pagebench: alg=$a depth=$d failed: not available on this kernel" >>"$out/pagebench.txt"
		fi
	done
done
snapshot after
rmmod acomp_pagebench
