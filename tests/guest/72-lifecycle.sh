#!/bin/sh
# Lifecycle under load: while acompd holds asynchronous requests (its
# delay_request fault keeps them in flight for milliseconds), zram reset and
# hot_remove are refused with EBUSY (the writer has the device open) and
# acompd's unload is refused, and the data written meanwhile is intact; a
# reset racing the writer's last close is refused until then, accepted
# after; swapoff of zram in the middle of swap
# pressure waits and succeeds, the pages moving to the swap disk; zswap's
# compressor and zpool change every second under delayed stores and loads.
# Never a lost page, a splat or a hang.
. /acomp/tests/tap.sh
. /acomp/lib/zram.sh
. /acomp/lib/zswap.sh
. /acomp/lib/fault.sh

trap 'fault_disarm acompd/delay_request' EXIT
async_stat() { awk -v n="$1" '{ print $n }' "$ZRAM/async_stat"; }

# delay PERCENT MS: acompd delays PERCENT% of the requests of tasks with
# make-it-fail by MS milliseconds each.
delay() {
	echo $(($2 * 1000)) >"$FAULT_DBG/acompd/delay_request/delay_us" &&
		fault_arm acompd/delay_request "$1" 1000000
}

# busy_refused CMD...: CMD fails because what it would remove is in use:
# EBUSY, or EAGAIN from delete_module (busybox rmmod does not wait).
busy_refused() {
	if "$@" 2>/tmp/busy.err; then
		echo "accepted: $*"
		return 1
	fi
	cat /tmp/busy.err
	grep -qi -e busy -e 'temporarily unavailable' /tmp/busy.err
}

# delayed_writer: zram0 on acompd(lz4), a writer of the corpus in the
# background (direct 64 KiB writes, every request delayed 10 ms; its exit
# status in /tmp/dd.rc), returning once some of its requests are in flight.
delayed_writer() {
	acompd_caller_runs Y && zram_setup 'acompd(lz4)' 64M || return 1
	delay 100 10 || return 1
	rm -f /tmp/dd.rc
	(sh -c 'echo 1 >/proc/self/make-it-fail && exec dd if=/acomp/corpus.bin of=/dev/zram0 bs=64k oflag=direct 2>/dev/null'
		echo $? >/tmp/dd.rc) &
	_n=0
	while [ "$(async_stat 3)" = 0 ] && [ $_n -lt 200 ]; do
		sleep 0.05
		_n=$((_n + 1))
	done
}

# zram_in_flight: with a delayed writer's requests in flight, reset,
# hot_remove and rmmod acompd are refused; the writes then complete and
# read back intact.
zram_in_flight() {
	delayed_writer || return 1
	seen=$(async_stat 3)
	echo "requests in flight when refused: $seen"
	busy_refused sh -c "echo 1 >$ZRAM/reset" || bad=reset
	busy_refused sh -c 'echo 0 >/sys/class/zram-control/hot_remove' || bad="$bad hot_remove"
	busy_refused rmmod acompd || bad="$bad rmmod"
	wait
	fault_disarm acompd/delay_request
	echo "dd rc $(cat /tmp/dd.rc); async_stat $(cat "$ZRAM/async_stat"); injected_delays $(acompd_stat injected_delays); refusals missing: ${bad:-none}"
	same=0
	[ "$(md5sum </acomp/corpus.bin | cut -d' ' -f1)" = \
		"$(head -c "$(stat -c %s /acomp/corpus.bin)" /dev/zram0 | md5sum | cut -d' ' -f1)" ] && same=1
	# zram's transform was what held acompd: the reset drops its reference.
	refs=$(cat /sys/module/acompd/refcnt)
	echo 1 >"$ZRAM/reset" || return 1
	echo "acompd refcnt $refs before the reset, $(cat /sys/module/acompd/refcnt) after"
	[ "$seen" -gt 0 ] && [ -z "${bad:-}" ] && [ "$(cat /tmp/dd.rc)" = 0 ] && [ "$same" = 1 ] &&
		[ "$(cat /sys/module/acompd/refcnt)" -lt "$refs" ]
}

# reset_races_close: the writer's requests delayed 10 ms each; once they
# are being submitted, reset is retried as fast as the shell can until it
# is accepted, racing the writer's last close: refused with EBUSY (and only
# that) while the writer has the device open, accepted after; the writes
# all completed (dd exit 0), and the device is reset with nothing left in
# flight. Whether a request was still in flight when the reset began
# (zram_reset_device() then waits for it) is a window of a few
# instructions after the writer's last page ended: shown, not asserted.
reset_races_close() {
	delayed_writer || return 1
	refused=0 other=0 last=none
	while ! (echo 1 >"$ZRAM/reset") 2>/tmp/reset.err; do
		if grep -q 'Device or resource busy' /tmp/reset.err; then
			refused=$((refused + 1))
		else
			other=$((other + 1))
			cat /tmp/reset.err
		fi
		last=$(async_stat 3)
		[ $((refused + other)) -lt 100000 ] || break
	done
	wait
	fault_disarm acompd/delay_request
	echo "reset refused $refused times busy, $other otherwise; in flight at the last refusal: $last; dd rc $(cat /tmp/dd.rc); disksize $(cat "$ZRAM/disksize"); in flight now $(async_stat 3)"
	[ "$refused" -gt 0 ] && [ "$other" = 0 ] && [ "$(cat /tmp/dd.rc)" = 0 ] &&
		[ "$(cat "$ZRAM/disksize")" = 0 ] && [ "$(async_stat 3)" = 0 ]
}

# swapoff_under_load: memstress -f 2x32 MiB in 24 MiB, zram (acompd(lz4),
# 30% of requests delayed 2 ms) as the first swap and the swap disk as the
# second; zram is swapped off in the middle: swapoff waits for the
# writeback in flight and succeeds, the pages moving to memory and the disk
# (busybox swapon has no -p: the device swapped on first is preferred).
swapoff_under_load() {
	acompd_caller_runs Y && zram_setup 'acompd(lz4)' 256M && mkswap /dev/zram0 >/dev/null &&
		swapon /dev/zram0 && mkswap "$SWAPDEV" >/dev/null && swapon "$SWAPDEV" || return 1
	delay 30 2 || return 1
	rm -f /tmp/ms.rc
	(memstress_cg 24M -m 32 -P 2 -p 4 -o both -f >/dev/null; echo $? >/tmp/ms.rc) &
	out0=$(vmstat pswpout) n=0
	while [ $(($(vmstat pswpout) - out0)) -lt 4096 ] && [ ! -e /tmp/ms.rc ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	# Under load for real: memstress still running, 4096 pages out, and
	# zram holding pages, when swapoff starts.
	loaded=0
	[ ! -e /tmp/ms.rc ] && [ $(($(vmstat pswpout) - out0)) -ge 4096 ] &&
		[ "$(zram_mm_stat 1)" -gt 0 ] && loaded=1
	echo "swapping off zram with $(async_stat 3) requests in flight, pswpout +$(($(vmstat pswpout) - out0)), zram orig_data_size $(zram_mm_stat 1), under load: $loaded"
	swapoff /dev/zram0
	src=$?
	wait
	fault_disarm acompd/delay_request
	cat /tmp/memstress.out
	echo "swapoff rc $src; memstress rc $(cat /tmp/ms.rc); injected_delays $(acompd_stat injected_delays)"
	swapoff "$SWAPDEV"
	grep -q "^/dev/zram0 " /proc/swaps && swapoff /dev/zram0
	zram_reset
	[ "$loaded" = 1 ] && [ "$src" = 0 ] && [ "$(cat /tmp/ms.rc)" = 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out
}

# zswap_switching: memstress -f 2x32 MiB in 24 MiB through zswap, 30% of
# its requests delayed 2 ms, compressor and zpool changed every second.
zswap_switching() {
	acompd_caller_runs Y && swapdisk_on && zswap_param compressor 'acompd(lz4)' &&
		zswap_param enabled Y || return 1
	delay 30 2 || return 1
	out0=$(vmstat zswpout) in0=$(vmstat zswpin)
	zswap_watch_start
	rm -f /tmp/ms.rc
	(memstress_cg 24M -m 32 -P 2 -p 2 -o both -f >/dev/null; echo $? >/tmp/ms.rc.new; mv /tmp/ms.rc.new /tmp/ms.rc) &
	zswap_switch_until /tmp/ms.rc 'acompd(zstd):zbud' lz4:zsmalloc 'acompd(lz4):zsmalloc' 'acompd(lzo-rle):zbud'
	wait
	fault_disarm acompd/delay_request
	cat /tmp/memstress.out
	out1=$(vmstat zswpout) in1=$(vmstat zswpin) held=$(zswap_watch_stop)
	echo "switches $ZSWAP_SWITCHES, refused $ZSWAP_REFUSED, injected_delays $(acompd_stat injected_delays), async_wait_ns $(zswap_dbg async_wait_ns), zswpout +$((out1 - out0)) zswpin +$((in1 - in0)), compressed entries at most $held"
	swapdisk_off
	zswap_param enabled N
	[ "$(cat /tmp/ms.rc)" = 0 ] && grep -q ' mismatches=0 ' /tmp/memstress.out &&
		[ "$ZSWAP_SWITCHES" -ge 4 ] && [ "$ZSWAP_REFUSED" = 0 ] &&
		zswap_stored "$out0" "$out1" "$in0" "$in1" "$held"
}

modprobe acompd
check "zram acompd(lz4) with the writer's requests in flight: reset and hot_remove refused while it has the device open (EBUSY), rmmod acompd while zram holds a transform, the writes complete intact" zram_in_flight
diag "$(grep -e 'in flight' -e 'dd rc' /tmp/tap-check.out)"
check "zram acompd(lz4): reset racing the writer's last close: refused (EBUSY) until it closed, then accepted, every write completed" reset_races_close
diag "$(grep -e 'reset refused' /tmp/tap-check.out)"
check "swapoff of zram acompd(lz4) in the middle of swap pressure with delayed requests: succeeds, 0 mismatches" swapoff_under_load
diag "$(grep -e memstress: -e 'swap' /tmp/tap-check.out)"
check "zswap compressor and zpool changed every second under delayed stores and loads: 0 mismatches" zswap_switching
diag "$(grep -e memstress: -e switches /tmp/tap-check.out)"
zswap_param compressor lz4
tap_done
