#!/bin/sh
# zram on the acomp API: comp_algorithm takes acomp algorithm and driver
# names (acompd(...) included), refuses unknown names and changes on an
# initialised device; fio write-then-verify through acompd, also while CPU 1
# goes offline and online under it; zero, same-filled, compressible and
# incompressible data in mixed sizes; asynchronous write submission
# (async_stat, async_depth and its limits, errors from mem_limit); reset and
# hot_remove right after asynchronous writes.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh

# fio_data ALG RW BS SIZE DATA: one write-then-verify pass over a fresh zram0.
# DATA: compressible (50%, crc32c), incompressible (random, crc32c), zero or
# same (every page filled with one 8-byte word, checked against the pattern).
fio_data() {
	zram_setup "$1" "$4" || { echo "zram setup with $1 failed"; return 1; }
	case $5 in
	compressible) data="--buffer_compress_percentage=50 --refill_buffers --verify=crc32c" ;;
	incompressible) data="--buffer_compress_percentage=0 --refill_buffers --verify=crc32c" ;;
	zero) data="--verify=pattern --verify_pattern=0x00000000" ;;
	same) data="--verify=pattern --verify_pattern=0x5a5aa5a5" ;;
	esac
	case $3 in
	*:*) bs="--bssplit=$3" ;;
	*) bs="--bs=$3" ;;
	esac
	# shellcheck disable=SC2086
	fio --name="zram-$1-$2-$5" --filename=/dev/zram0 --rw="$2" $bs --size="$4" \
		--ioengine=psync --direct=1 --randrepeat=1 $data \
		--do_verify=1 --verify_fatal=1 --verify_dump=0 \
		--output-format=terse --terse-version=3 >/tmp/fio.out 2>&1 || {
		cat /tmp/fio.out
		return 1
	}
	cat "$ZRAM/mm_stat" "$ZRAM/async_stat"
	case $5 in
	compressible) [ "$(zram_mm_stat 2)" -gt 0 ] && [ "$(zram_mm_stat 2)" -lt "$(zram_mm_stat 1)" ] ;;
	incompressible) [ "$(zram_mm_stat 8)" -gt 0 ] ;;	# huge_pages
	zero | same) [ "$(zram_mm_stat 6)" -gt 0 ] && [ "$(zram_mm_stat 2)" = 0 ] ;;	# same_pages
	esac
}

fio_verify() { fio_data "$1" "$2" "$3" "$4" compressible; }

# async_stat field N (1 submitted, 2 completed, 3 in_flight, 4 peak, 5 errors,
# 6 sync)
async_stat() {
	awk -v n="$1" '{ print $n }' "$ZRAM/async_stat"
}

# async_used ALG: 64 KiB writes through ALG went out asynchronously (but for
# same-filled pages), several pages of a bio at once, all completed, no error.
async_used() {
	fio_verify "$1" write 64k 16M || return 1
	# Every 4 KiB page was either same-filled (stored at once) or submitted.
	[ $(($(async_stat 1) + $(zram_mm_stat 6))) -ge 4096 ] && [ "$(async_stat 1)" -gt 0 ] &&
		[ "$(async_stat 2)" = "$(async_stat 1)" ] &&
		[ "$(async_stat 3)" = 0 ] && [ "$(async_stat 4)" -gt 1 ] && [ "$(async_stat 5)" = 0 ]
}

# sync_not_async ALG: 64 KiB writes through ALG are compressed synchronously.
sync_not_async() {
	fio_verify "$1" write 64k 16M || return 1
	[ "$(async_stat 1)" = 0 ]
}

depth_refuses() {
	echo 32 >"$ZRAM/async_depth" && [ "$(cat "$ZRAM/async_depth")" = 32 ] || return 1
	write_refused "$ZRAM/async_depth" 1025 'Invalid argument' &&
		write_refused "$ZRAM/async_depth" abc 'Invalid argument' &&
		write_refused "$ZRAM/async_depth" -1 'Invalid argument' &&
		[ "$(cat "$ZRAM/async_depth")" = 32 ]
}

# depth_run N: with async_depth N, a verified 64 KiB write pass; N=0 must
# submit nothing asynchronously, N=1 must never have two in flight.
depth_run() {
	echo "$1" >"$ZRAM/async_depth" || return 1
	fio_verify 'acompd(lz4)' write 64k 8M
	rc=$?
	echo 32 >"$ZRAM/async_depth"
	[ $rc = 0 ] || return 1
	case $1 in
	0) [ "$(async_stat 1)" = 0 ] ;;
	1) [ "$(async_stat 1)" -gt 0 ] && [ "$(async_stat 4)" = 1 ] ;;
	esac
}

# mem_limit_errors: with a 2 MiB mem_limit, incompressible asynchronous writes
# fail, the failures are counted, and the device stays usable.
mem_limit_errors() {
	zram_setup 'acompd(lz4)' 32M || return 1
	echo 2M >"$ZRAM/mem_limit" || return 1
	if dd if=/dev/urandom of=/dev/zram0 bs=64k count=256 oflag=direct 2>/tmp/dd.err; then
		echo "writing 16 MiB of random data under a 2 MiB mem_limit succeeded"
		return 1
	fi
	cat /tmp/dd.err "$ZRAM/io_stat" "$ZRAM/async_stat"
	failed=$(awk '{ print $2 }' "$ZRAM/io_stat")
	[ "$failed" -gt 0 ] && [ "$(async_stat 5)" -gt 0 ] && [ "$(async_stat 3)" = 0 ] &&
		[ "$(async_stat 2)" = "$(async_stat 1)" ] || return 1
	blocks=$(($(stat -c %s /acomp/corpus.bin) / 65536))
	echo 0 >"$ZRAM/mem_limit" &&
		dd if=/acomp/corpus.bin of=/dev/zram0 bs=64k oflag=direct 2>/dev/null &&
		dd if=/dev/zram0 bs=64k count="$blocks" iflag=direct 2>/dev/null | cmp - /acomp/corpus.bin
}

# hot_remove_after_buffered: a hot-added device written through the page
# cache (its bios go out on close and on reset) is removed right away.
hot_remove_after_buffered() {
	id=$(cat /sys/class/zram-control/hot_add) || return 1
	echo 'acompd(lz4)' >"/sys/block/zram$id/comp_algorithm" &&
		echo 64M >"/sys/block/zram$id/disksize" || return 1
	dd if=/acomp/corpus.bin of="/dev/zram$id" bs=1M 2>/dev/null || return 1
	cat "/sys/block/zram$id/async_stat"
	echo "$id" >/sys/class/zram-control/hot_remove && [ ! -e "/sys/block/zram$id" ]
}

# refused ALG: writing ALG is refused (EINVAL) and leaves the selection as
# it was (lz4, selected first).
refused() {
	echo lz4 >"$ZRAM/comp_algorithm" && grep -qF '[lz4]' "$ZRAM/comp_algorithm" || return 1
	before=$(cat "$ZRAM/comp_algorithm")
	write_refused "$ZRAM/comp_algorithm" "$1" 'Invalid argument' &&
		[ "$(cat "$ZRAM/comp_algorithm")" = "$before" ]
}

busy_when_initialised() {
	zram_setup lz4 16M || return 1
	out=$( (echo zstd >"$ZRAM/comp_algorithm") 2>&1)
	echo "$out"
	echo "$out" | grep 'busy' >/dev/null && grep -q '\[lz4\]' "$ZRAM/comp_algorithm"
}

lists_usual_names() {
	zram_reset
	cat "$ZRAM/comp_algorithm"
	for a in lzo lzo-rle lz4 lz4hc zstd 842; do
		grep -qw -- "$a" "$ZRAM/comp_algorithm" || return 1
	done
}

# hotplug_fio: write-then-verify through acompd(lz4) while CPU 1 is taken
# offline and back until fio ends.
hotplug_fio() {
	cpu1_cycling fio_verify 'acompd(lz4)' randrw 4k 32M
}

# reset_after_async_io: buffered writes (flushed on close) then reset at once.
reset_after_async_io() {
	zram_setup 'acompd(lz4)' 64M || return 1
	dd if=/acomp/corpus.bin of=/dev/zram0 bs=1M 2>/dev/null || return 1
	echo 1 >"$ZRAM/reset" || return 1
	[ "$(cat "$ZRAM/disksize")" = 0 ]
}

check "comp_algorithm lists the usual compressors" lists_usual_names
for alg in lz4-scomp 'acompd(lz4)' 'acompd(zstd)' 'acompd(lzo-rle)'; do
	check "comp_algorithm accepts $alg and shows it selected" zram_setup "$alg" 16M
done
zram_reset
check "comp_algorithm refuses an unknown name, keeping the selection" refused no-such-alg
check "comp_algorithm refuses acompd() of an unknown algorithm" refused 'acompd(no-such-alg)'
check "comp_algorithm refuses a change on an initialised device (EBUSY)" busy_when_initialised
for alg in 'acompd(lz4)' 'acompd(zstd)'; do
	check "zram $alg: fio randwrite 4k 16MiB then crc32c verify" fio_verify "$alg" randwrite 4k 16M
	check "zram $alg: fio seq write 64k 16MiB then crc32c verify" fio_verify "$alg" write 64k 16M
done
check "zram lz4-scomp: fio randwrite 4k 16MiB then crc32c verify" fio_verify lz4-scomp randwrite 4k 16M
for alg in lz4 'acompd(lz4)'; do
	for data in zero same compressible incompressible; do
		check "zram $alg: fio mixed 4k-64k random writes of $data data then verify" \
			fio_data "$alg" randwrite 4k/50:16k/25:64k/25 16M "$data"
	done
done
check "zram acompd(lz4): 64k writes go out asynchronously, several in flight, all completed" async_used 'acompd(lz4)'
check "zram acompd(lz4): the writer compresses part of its own 64k writes (inline_busy or joined rise), data verified" \
	acompd_writer_shares async_used 'acompd(lz4)'
diag "async_stat: $(cat "$ZRAM/async_stat")"
check "zram lz4: no asynchronous submission with a synchronous compressor" sync_not_async lz4
check "zram lz4-generic (a driver name of the legacy interface): accepted, synchronous, data verified" sync_not_async lz4-generic
check "async_depth refuses values above 1024 and non-numbers, keeping its value" depth_refuses
check "async_depth 0: writes wait for each compression (none submitted asynchronously)" depth_run 0
check "async_depth 1: never two writes in flight, data verified" depth_run 1
check "zram acompd(lz4): failed asynchronous writes (mem_limit) are counted, the device stays usable" mem_limit_errors
check "zram acompd(lz4): hot_remove right after buffered writes" hot_remove_after_buffered
check "zram acompd(lz4): reads and writes stay correct while CPU 1 goes offline and online" hotplug_fio
diag "$(grep cycles /tmp/tap-check.out)"
check "zram acompd(lz4): reset right after asynchronous writes" reset_after_async_io

# The same through a fully asynchronous acompd: every request to a worker,
# completions from other CPUs, the reads' decompressions too.
check "acompd.caller_runs=N: fully asynchronous" acompd_caller_runs N
# acompd_none_in_caller: caller_ran does not move, or caller_runs=N did
# not hold and the checks would pass as they do with Y.
check "zram acompd(lz4), fully asynchronous: fio randwrite 4k 16MiB then crc32c verify, none run in the caller" \
	acompd_none_in_caller fio_verify 'acompd(lz4)' randwrite 4k 16M
check "zram acompd(lz4), fully asynchronous: 64k writes in flight together, all completed, none run in the caller" \
	acompd_none_in_caller async_used 'acompd(lz4)'
check "zram acompd(lz4), fully asynchronous: correct while CPU 1 goes offline and online, none run in the caller" \
	acompd_none_in_caller hotplug_fio
check "zram acompd(lz4), fully asynchronous: reset right after asynchronous writes, none run in the caller" \
	acompd_none_in_caller reset_after_async_io
acompd_caller_runs Y
zram_reset
tap_done
