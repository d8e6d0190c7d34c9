#!/bin/sh
# zram as a block device, every compressor: fio writes 16 MiB (random 4 KiB,
# then sequential 64 KiB), reads it back and checks every block's crc32c.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh

# fio_verify ALG RW BS: one write-then-verify pass over a fresh zram0.
fio_verify() {
	zram_setup "$1" 16M || { echo "zram setup with $1 failed"; return 1; }
	fio --name="zram-$1-$2" --filename=/dev/zram0 --rw="$2" --bs="$3" --size=16M \
		--ioengine=psync --direct=1 --randrepeat=1 \
		--buffer_compress_percentage=50 --refill_buffers \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_dump=0 \
		--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1 || {
		cat /tmp/fio.out
		return 1
	}
	# The data really went through the compressor: stored, and smaller.
	orig=$(zram_mm_stat 1)
	compr=$(zram_mm_stat 2)
	echo "mm_stat orig=$orig compr=$compr"
	[ "$orig" -ge $((15 * 1024 * 1024)) ] && [ "$compr" -gt 0 ] && [ "$compr" -lt "$orig" ] || {
		echo "zram stored orig=$orig compr=$compr: expected ~16 MiB compressed"
		return 1
	}
	echo "zram $1 $2: orig=$orig compr=$compr ratio=$(awk -v o="$orig" -v c="$compr" 'BEGIN { printf "%.2f", o / c }')"
}

for alg in lzo lzo-rle lz4 lz4hc zstd deflate 842; do
	check "zram $alg: fio randwrite 4k 16MiB then crc32c verify" fio_verify "$alg" randwrite 4k
	diag "$(tail -n 1 /tmp/tap-check.out)"
	check "zram $alg: fio seq write 64k 16MiB then crc32c verify" fio_verify "$alg" write 64k
	diag "$(tail -n 1 /tmp/tap-check.out)"
done
zram_reset
tap_done
