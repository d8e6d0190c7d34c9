#!/bin/sh
# zswap in front of a virtio-blk swap disk, with synchronous compressors and
# acompd: compressor names at run time (every algorithm acompd
# wraps; unknown names refused, the pool in use kept), swap pressure under a
# cgroup v2 memory.max with a page-verifying workload, and compressor and
# zpool switched at run time under that load.
. /acomp/tests/tap.sh
. /acomp/lib/zswap.sh
. /acomp/lib/zram.sh

# refused NAME: setting compressor NAME fails with a message naming it, and
# the compressor in use stays.
refused() {
	zswap_param compressor lz4 || return 1
	if echo "$1" >"$ZSWAP/compressor" 2>/tmp/refused.err; then
		echo "accepted $1"
		return 1
	fi
	cat /tmp/refused.err
	dmesg | tail -5
	[ "$(cat "$ZSWAP/compressor")" = lz4 ] &&
		dmesg | tail -5 | grep -F "compressor $1 not available" >/dev/null
}

# zram_writer_start / zram_writer_stop: fio writes 64 KiB blocks to
# /dev/zram0 on acompd(lz4), the instance zswap's acompd(lz4) shares, until
# stopped; stop sets zw to the zram pages submitted asynchronously meanwhile.
zram_writer_start() {
	zram_setup 'acompd(lz4)' 64M || return 1
	zw0=$(awk '{ print $1 }' "$ZRAM/async_stat")
	fio --name=zw --filename=/dev/zram0 --rw=write --bs=64k --size=48M \
		--direct=1 --ioengine=psync --buffer_compress_percentage=50 \
		--refill_buffers --time_based --runtime=600 >/tmp/zw.out 2>&1 &
	zw_pid=$!
}
zram_writer_stop() {
	kill "$zw_pid" 2>/dev/null
	wait "$zw_pid" 2>/dev/null
	zw=$(($(awk '{ print $1 }' "$ZRAM/async_stat") - zw0))
	zram_reset
}

# swap_run ALG [CALLER_RUNS [zram]]: memstress 2x32 MiB in 24 MiB, pages
# through zswap both ways, every page verified; acompd's caller_runs Y
# (default) or N (fully asynchronous); zram: while fio writes 64 KiB blocks
# to a zram device through the same acompd instance. Fully asynchronous, zswap stores same-filled
# pages as compressed ones (same_filled_pages_enabled N): otherwise it
# stores and loads them without the compressor, and "every page
# asynchronous" could not be counted.
swap_run() {
	acompd_caller_runs "${2:-Y}" || return 1
	swapdisk_on || return 1
	sf=Y
	[ "${2:-Y}" = N ] && sf=N
	zswap_param same_filled_pages_enabled "$sf" || return 1
	zswap_param compressor "$1" && zswap_param enabled Y || return 1
	out0=$(vmstat zswpout) in0=$(vmstat zswpin)
	ac0=$(zswap_dbg async_compress) ad0=$(zswap_dbg async_decompress)
	cr0=$(acompd_stat caller_ran) q0=$(acompd_stat queued)
	zw=0
	if [ "${3:-}" = zram ]; then
		zram_writer_start || return 1
	fi
	memstress_cg 24M -m 32 -P 2 -p 2 -o both
	rc=$?
	if [ "${3:-}" = zram ]; then
		zram_writer_stop
	fi
	out1=$(vmstat zswpout) in1=$(vmstat zswpin)
	ac1=$(zswap_dbg async_compress) ad1=$(zswap_dbg async_decompress)
	cr1=$(acompd_stat caller_ran) q1=$(acompd_stat queued)
	echo "zswpout +$((out1 - out0)) zswpin +$((in1 - in0)) async_compress $ac0 -> $ac1 async_decompress $ad0 -> $ad1 async_wait_ns $(zswap_dbg async_wait_ns) acompd caller_ran $cr0 -> $cr1 queued $q0 -> $q1; zram pages submitted asynchronously meanwhile: $zw"
	swapdisk_off || return 1
	acompd_caller_runs Y
	zswap_param same_filled_pages_enabled Y || return 1
	[ "$rc" -eq 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out || return 1
	is_num "$out0" "$out1" "$in0" "$in1" "$ac0" "$ac1" "$ad0" "$ad1" "$cr0" "$cr1" || return 1
	[ $((out1 - out0)) -gt 4096 ] && [ $((in1 - in0)) -gt 0 ] || return 1
	# zswap waits for each page: acompd runs every one in zswap's task,
	# also while a zram writer's batches are queued on the same instance
	# (none queues behind them); fully asynchronous, every page goes
	# asynchronous, both ways, and none runs in the caller. A synchronous
	# compressor never goes asynchronous.
	case $1:${2:-Y} in
	acompd*:Y) [ $((cr1 - cr0)) -gt 4096 ] && [ "$ac1" = "$ac0" ] && [ "$ad1" = "$ad0" ] &&
		{ [ "${3:-}" != zram ] || { [ "$zw" -gt 1024 ] && [ $((q1 - q0)) -gt 0 ]; }; } ;;
	acompd*:N) [ $((ac1 - ac0)) -ge $((out1 - out0)) ] && [ $((ad1 - ad0)) -ge $((in1 - in0)) ] &&
		[ "$cr1" = "$cr0" ] && [ "$(zswap_dbg async_wait_ns)" -gt 0 ] ;;
	*) [ "$ac1" = "$ac0" ] && [ "$ad1" = "$ad0" ] ;;
	esac
}

# switching: memstress 2x32 MiB in 24 MiB for 2 passes while the compressor and the
# zpool change every round; every page verified.
switching() {
	swapdisk_on || return 1
	zswap_param compressor lz4 && zswap_param enabled Y || return 1
	out0=$(vmstat zswpout) in0=$(vmstat zswpin)
	zswap_watch_start
	rm -f /tmp/switch.rc
	(memstress_cg 24M -m 32 -P 2 -p 2 -o both >/dev/null; echo $? >/tmp/switch.rc.new; mv /tmp/switch.rc.new /tmp/switch.rc) &
	zswap_switch_until /tmp/switch.rc 'acompd(lz4):zsmalloc' zstd:zbud 'acompd(zstd):zbud' lz4:zsmalloc
	wait
	cat /tmp/memstress.out
	out1=$(vmstat zswpout) in1=$(vmstat zswpin) held=$(zswap_watch_stop)
	echo "switches $ZSWAP_SWITCHES, refused $ZSWAP_REFUSED, pools now: $(dmesg | grep -c 'zswap: using'), zswpout +$((out1 - out0)) zswpin +$((in1 - in0)), compressed entries at most $held"
	swapdisk_off || return 1
	[ "$(cat /tmp/switch.rc)" = 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out &&
		[ "$ZSWAP_SWITCHES" -ge 4 ] && [ "$ZSWAP_REFUSED" = 0 ] &&
		zswap_stored "$out0" "$out1" "$in0" "$in1" "$held"
}

check "swap disk $SWAPDEV is attached" test -b "$SWAPDEV"
for alg in lzo lzo-rle lz4 lz4hc zstd deflate 842; do
	check "zswap compressor acompd($alg) accepted at run time" zswap_param compressor "acompd($alg)"
done
check "zswap refuses an unknown compressor, keeping the pool in use" refused no-such-alg
check "zswap refuses acompd() of an unknown algorithm, keeping the pool in use" refused 'acompd(no-such-alg)'
check "zswap acompd(lz4), fully asynchronous (acompd.caller_runs=N): memstress 2x32 MiB, 0 mismatches, every page asynchronous both ways, none run in the caller" swap_run 'acompd(lz4)' N
diag "$(grep -e memstress: -e zswpout /tmp/tap-check.out)"
check "zswap lz4 on a swap disk under memory.max=24M: memstress 2x32 MiB, 0 mismatches, nothing asynchronous" swap_run lz4
diag "$(grep -e memstress: -e zswpout /tmp/tap-check.out)"
check "zswap acompd(lz4) under memory.max=24M while fio writes 64 KiB blocks to zram0 through the same acompd(lz4): 0 mismatches, every zswap store and load run in its caller, none queued behind zram's batches" \
	swap_run 'acompd(lz4)' Y zram
diag "$(grep -e memstress: -e zswpout /tmp/tap-check.out)"
check "zswap: compressor and zpool switched every second under swap pressure, pages stored and loaded, 0 mismatches" switching
diag "$(grep -e memstress: -e switches /tmp/tap-check.out)"

# Leave zswap off, on a synchronous compressor.
zswap_param enabled N
zswap_param compressor lz4
tap_done
