#!/bin/sh
# zram writeback, idle marking and discard while asynchronous writes are in
# flight. zram0 compresses with acompd(lz4) and writes back to a hot-added
# zram device (lz4). Region A (first 8 MiB) is written and verified at the
# end; region B (8 MiB at 32 MiB, incompressible: huge pages) is rewritten
# and verified by fio while idle marking, idle and huge writeback, or discard
# of region A run in a loop beside it.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh

BACK=''

# region_a [fio args...]: 64 KiB sequential writes over region A with
# crc32c headers; with --verify_only --do_verify=1, reads and checks them
# instead (--verify_only alone reads nothing and passes).
region_a() {
	fio --name=region-a --filename=/dev/zram0 --rw=write --bs=64k --offset=0 \
		--size=8M --ioengine=psync --direct=1 --randrepeat=1 \
		--buffer_compress_percentage=50 --refill_buffers --verify=crc32c \
		--do_verify=0 --verify_fatal=1 --verify_dump=0 "$@" \
		--output-format=terse --terse-version=3 >/tmp/fio-a.out 2>&1 || {
		cat /tmp/fio-a.out
		return 1
	}
}

# region_b_bg: incompressible 64 KiB random writes over region B, each loop
# verified, in the background; its exit status lands in /tmp/fio-b.rc.
region_b_bg() {
	rm -f /tmp/fio-b.rc
	(
		fio --name=region-b --filename=/dev/zram0 --rw=randwrite --bs=64k \
			--offset=32M --size=8M --loops=2 --ioengine=psync --direct=1 \
			--randrepeat=1 --buffer_compress_percentage=0 --refill_buffers \
			--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_dump=0 \
			--output-format=terse --terse-version=3 >/tmp/fio-b.out 2>&1
		echo $? >/tmp/fio-b.rc.new && mv /tmp/fio-b.rc.new /tmp/fio-b.rc
	) &
}

region_b_done() {
	wait
	[ "$(cat /tmp/fio-b.rc)" = 0 ] || { cat /tmp/fio-b.out; return 1; }
}

# bd_stat field N (1 bd_count, 2 bd_reads, 3 bd_writes), io_stat field N
# (1 failed_reads, 2 failed_writes)
bd_stat() { awk -v n="$1" '{ print $n }' "$ZRAM/bd_stat"; }
io_stat() { awk -v n="$1" '{ print $n }' "$ZRAM/io_stat"; }

setup() {
	zram_reset || return 1
	BACK=$(cat /sys/class/zram-control/hot_add) || return 1
	echo lz4 >"/sys/block/zram$BACK/comp_algorithm" &&
		echo 128M >"/sys/block/zram$BACK/disksize" &&
		echo 'acompd(lz4)' >"$ZRAM/comp_algorithm" &&
		echo "/dev/zram$BACK" >"$ZRAM/backing_dev" &&
		echo 64M >"$ZRAM/disksize" &&
		[ "$(cat "$ZRAM/backing_dev")" = "/dev/zram$BACK" ]
}

# writeback_racing: region A written and marked idle, then region B
# rewritten while everything is marked idle and idle and huge pages are
# written back, over and over; then both regions verify, pages did go to the
# backing device and come back from it, and no I/O failed.
writeback_racing() {
	region_a || return 1
	echo all >"$ZRAM/idle" || return 1
	region_b_bg
	n=0 bad=0
	while [ ! -e /tmp/fio-b.rc ]; do
		echo all >"$ZRAM/idle" || bad=$((bad + 1))
		echo idle >"$ZRAM/writeback" || bad=$((bad + 1))
		echo huge >"$ZRAM/writeback" || bad=$((bad + 1))
		n=$((n + 1))
	done
	region_b_done || return 1
	echo "rounds $n, refused $bad; bd_stat $(cat "$ZRAM/bd_stat"); io_stat $(cat "$ZRAM/io_stat"); async_stat $(cat "$ZRAM/async_stat")"
	[ "$n" -gt 0 ] && [ "$bad" = 0 ] && [ "$(bd_stat 3)" -gt 0 ] || return 1
	reads=$(bd_stat 2)
	region_a --verify_only --do_verify=1 || return 1
	# terse v3: field 6 is the KiB read.
	read_kb=$(awk -F';' '/^3;fio-/ { print $6 }' /tmp/fio-a.out)
	echo "after reading region A back ($read_kb KiB verified): bd_stat $(cat "$ZRAM/bd_stat")"
	[ "$read_kb" = 8192 ] && [ "$(bd_stat 2)" -gt "$reads" ] &&
		[ "$(io_stat 1)" = 0 ] && [ "$(io_stat 2)" = 0 ] &&
		[ "$(awk '{ print $5 }' "$ZRAM/async_stat")" = 0 ]
}

# discard_racing: region A (partly on the backing device) discarded over and
# over while region B is rewritten; A then reads back whole, as zeros, with
# no failed read, B verified, and the pages of A left the backing device.
discard_racing() {
	before=$(bd_stat 1)
	region_b_bg
	n=0 bad=0
	while [ ! -e /tmp/fio-b.rc ]; do
		blkdiscard -o 0 -l 8388608 /dev/zram0 || bad=$((bad + 1))
		n=$((n + 1))
	done
	region_b_done || return 1
	zeros=0
	cmp -n 8388608 /dev/zram0 /dev/zero && zeros=1
	echo "discards $n, refused $bad; region A all zeros: $zeros; failed_reads $(io_stat 1); bd_count $before -> $(bd_stat 1)"
	[ "$n" -gt 0 ] && [ "$bad" = 0 ] && [ "$zeros" = 1 ] && [ "$(io_stat 1)" = 0 ] &&
		[ "$(bd_stat 1)" -lt "$before" ]
}

# release: reset gives the backing device back (it can then be reset and
# removed), and zram0 works without one.
release() {
	zram_reset || return 1
	echo 1 >"/sys/block/zram$BACK/reset" &&
		echo "$BACK" >/sys/class/zram-control/hot_remove &&
		[ ! -e "/sys/block/zram$BACK" ] &&
		[ "$(cat "$ZRAM/backing_dev")" = none ]
}

check "zram acompd(lz4) with a backing device: set up" setup
check "zram acompd(lz4): idle marking and idle/huge writeback racing asynchronous writes lose no data" writeback_racing
diag "$(grep -e rounds -e 'after reading' /tmp/tap-check.out)"
check "zram acompd(lz4): discard racing asynchronous writes (and written-back pages) loses no data" discard_racing
diag "$(grep discards /tmp/tap-check.out)"
check "zram acompd(lz4): reset releases the backing device" release

tap_done
