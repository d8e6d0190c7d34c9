#!/bin/sh
# The page-compression microbenchmark (consumer/pagebench) on the corpus:
# every page compresses and decompresses back to itself, synchronously and
# through acompd, at queue depth 1 and 16, and through the legacy crypto_comp
# API (comp:NAME); bad commands are refused.
. /acomp/tests/tap.sh

D=/sys/kernel/debug/acomp_pagebench

# pb ALG DEPTH ASYNC: one run; both passes clean, reported as ASYNC.
pb() {
	echo "alg=$1 depth=$2 iters=1" >"$D/run" || return 1
	cat "$D/result"
	grep -q "op=compress .* requests=512 errors=0 mismatches=0" "$D/result" &&
		grep -q "op=decompress .* requests=512 errors=0 mismatches=0" "$D/result" &&
		grep -q "async=$3 " "$D/result"
}

check "acomp_pagebench loads and takes the 512-page corpus" \
	sh -c "insmod /acomp/modules/acomp_pagebench.ko && cat /acomp/corpus.bin >$D/corpus"
for depth in 1 16; do
	check "pagebench lz4 depth $depth: 512 pages round-trip, synchronous" pb lz4 "$depth" no
	check "pagebench acompd(lz4) depth $depth: 512 pages round-trip, asynchronous" pb "acompd(lz4)" "$depth" yes
done
check "pagebench acompd(zstd) depth 8: 512 pages round-trip" pb "acompd(zstd)" 8 yes
check "pagebench comp:lz4 (legacy crypto_comp): 512 pages round-trip" pb "comp:lz4" 1 no
check "pagebench comp:zstd (legacy crypto_comp): 512 pages round-trip" pb "comp:zstd" 1 no
check "pagebench refuses comp: above depth 1 (EINVAL) and an unknown comp: algorithm (ENOENT)" \
	eval "write_refused $D/run 'alg=comp:lz4 depth=2' 'Invalid argument' &&
		write_refused $D/run 'alg=comp:no-such-alg' 'No such file or directory'"
check "pagebench refuses an unknown algorithm (ENOENT)" \
	write_refused "$D/run" 'alg=no-such-alg' 'No such file or directory'
check "pagebench refuses depth 0 and unknown keys (EINVAL)" \
	eval "write_refused $D/run 'alg=lz4 depth=0' 'Invalid argument' &&
		write_refused $D/run 'alg=lz4 bogus=1' 'Invalid argument'"
check "acomp_pagebench unloads" rmmod acomp_pagebench
tap_done
